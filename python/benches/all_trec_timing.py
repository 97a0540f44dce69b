"""Times `reusesim eval -m all_trec` against pytrec_eval (trec_eval 9.0.8's C code) on
TREC-COVID round 1: the 143 official runs (3.5M lines, gzip) scored by trec_eval's whole
measure set, side by side in one process.

    REUSESIM_DATA=../shared/data python python/benches/all_trec_timing.py \\
        --reusesim target/release/reusesim [--repeat N]

Each tool reads the files itself: the command as a TREC user types it (read, score, print),
and pytrec_eval's reading in Python then `RelevanceEvaluator(qrels, {"all_trec"})`. pytrec_eval's
scoring alone is timed too, the files already read. Prints each best wall time over N repeats
(default 3), the ratios, and the largest difference between the two tools' `all` values
(`relstring`, `runid` and `num_q` aside).
"""

import argparse
import gzip
import os
import subprocess
import time
from pathlib import Path

import numpy
import pytrec_eval

NOT_COMPARED = {"runid", "num_q", "relstring"}


def with_reusesim(binary: Path, qrels: Path, runs_dir: Path) -> dict:
    output = subprocess.run(
        [binary, "eval", "-m", "all_trec", "--format", "tsv", qrels, runs_dir],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    scores = {}
    for line in output.splitlines()[1:]:
        run, measure, topic, value = line.split("\t")
        if topic == "all" and measure not in NOT_COMPARED:
            scores[(run, measure)] = float(value)
    return scores


def read_qrels(path: Path) -> dict:
    qrels = {}
    with open(path) as lines:
        for line in lines:
            topic, _, doc, grade = line.split()
            qrels.setdefault(topic, {})[doc] = int(grade)
    return qrels


def read_run(path: Path) -> tuple[str, dict]:
    run, tag = {}, None
    with gzip.open(path, "rt") as lines:
        for line in lines:
            topic, _, doc, _, score, tag = line.split()[:6]
            run.setdefault(topic, {})[doc] = float(score)
    return tag, run


def score_with_pytrec_eval(qrels: dict, runs: list) -> dict:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"})
    scores = {}
    for tag, run in runs:
        results = evaluator.evaluate(run)
        for measure in next(iter(results.values())).keys() - NOT_COMPARED:
            values = [per_topic[measure] for per_topic in results.values()]
            scores[(tag, measure)] = pytrec_eval.compute_aggregated_measure(measure, values)
    return scores


def with_pytrec_eval(qrels_path: Path, run_paths: list) -> dict:
    return score_with_pytrec_eval(read_qrels(qrels_path), [read_run(p) for p in run_paths])


def best_time(job, repeat: int):
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = job()
        best = min(best, time.perf_counter() - started)
    return best, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reusesim", type=Path, required=True, help="the reusesim binary")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = Path(os.environ["REUSESIM_DATA"]) / "trec-covid"
    qrels = data / "qrels" / "qrels.covid-round1.txt"
    runs_dir = data / "round1" / "runs"
    run_paths = sorted(runs_dir.iterdir())
    ours_s, ours = best_time(lambda: with_reusesim(args.reusesim, qrels, runs_dir), args.repeat)
    theirs_s, theirs = best_time(lambda: with_pytrec_eval(qrels, run_paths), args.repeat)
    parsed = (read_qrels(qrels), [read_run(p) for p in run_paths])
    scoring_s, _ = best_time(lambda: score_with_pytrec_eval(*parsed), args.repeat)
    print(f"{len(run_paths)} runs, -m all_trec ({len({m for _, m in ours})} measures)")
    print(f"reusesim eval:                     {ours_s:.2f} s")
    print(f"pytrec_eval, reading and scoring:  {theirs_s:.2f} s")
    print(f"pytrec_eval, scoring alone:        {scoring_s:.2f} s")
    print(f"ratio reusesim / pytrec_eval:              {ours_s / theirs_s:.2f}")
    print(f"ratio reusesim / pytrec_eval scoring alone: {ours_s / scoring_s:.2f}")
    assert ours.keys() == theirs.keys(), sorted(ours.keys() ^ theirs.keys())[:5]
    largest = max(abs(ours[key] - theirs[key]) for key in ours)
    print(f"largest difference of an `all` value: {largest:.2e}")


if __name__ == "__main__":
    main()
