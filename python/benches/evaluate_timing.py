"""Times `reusesim.evaluate` against ir_measures on TREC-COVID round 1: the 143 official runs
(3.5M lines, gzip) read from their files and scored for AP, P@10, nDCG@10, RR and Bpref (the
measures of `cargo bench --bench eval`), each tool reading the files itself.

    REUSESIM_DATA=../shared/data python python/benches/evaluate_timing.py [--repeat N]

Prints each tool's best wall time over N repeats (default 3), the ratio, and the largest
difference between the two tools' mean scores (TREC-COVID's `BERT` run has scores equal only
in single precision, which trec_eval and reusesim tie and pytrec_eval does not).
"""

import argparse
import gzip
import os
import time
from pathlib import Path

import ir_measures

import reusesim

MEASURES = ["AP", "P@10", "nDCG@10", "RR", "Bpref"]
#: The same measures as reusesim names them in its output (trec_eval's spelling).
TREC_NAMES = ["map", "P_10", "ndcg_cut_10", "recip_rank", "bpref"]


def with_reusesim(qrels: Path, runs: list[Path]) -> dict:
    frame = reusesim.evaluate(qrels, runs, MEASURES)
    return {(row.run_id, row.measure): row.value for row in frame.itertuples()}


def with_ir_measures(qrels: Path, runs: list[Path]) -> dict:
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    judgments = list(ir_measures.read_trec_qrels(str(qrels)))
    evaluator = ir_measures.evaluator(measures, judgments)
    trec_name = dict(zip(MEASURES, TREC_NAMES))
    scores = {}
    for path in runs:
        with gzip.open(path, "rt") as lines:
            tag = lines.readline().split()[5]
        for measure, value in evaluator.calc_aggregate(ir_measures.read_trec_run(str(path))).items():
            scores[(tag, trec_name[str(measure)])] = value
    return scores


def best_time(job, repeat: int):
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = job()
        best = min(best, time.perf_counter() - started)
    return best, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = Path(os.environ["REUSESIM_DATA"]) / "trec-covid"
    qrels = data / "qrels" / "qrels.covid-round1.txt"
    runs = sorted((data / "round1" / "runs").iterdir())
    ours_s, ours = best_time(lambda: with_reusesim(qrels, runs), args.repeat)
    theirs_s, theirs = best_time(lambda: with_ir_measures(qrels, runs), args.repeat)
    print(f"{len(runs)} runs, measures {', '.join(MEASURES)}")
    print(f"reusesim.evaluate: {ours_s:.2f} s")
    print(f"ir_measures:       {theirs_s:.2f} s")
    print(f"ratio (ir_measures / reusesim): {theirs_s / ours_s:.1f}x")
    assert ours.keys() == theirs.keys()
    largest = max(abs(ours[key] - theirs[key]) for key in ours)
    print(f"largest difference of a mean score: {largest:.2e}")


if __name__ == "__main__":
    main()
