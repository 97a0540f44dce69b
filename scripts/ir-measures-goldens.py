#!/usr/bin/env python3
"""Writes the reference values of the measures reusesim checks against ir_measures
(tests/golden/ir_measures/, read by tests/cli/ir_measures.rs): RBP (ir_measures' cwl_eval
provider), ERR (gdeval), the condensed variants judged_only=True of AP, P and nDCG
(pytrec_eval's -J) and Success (pytrec_eval).

Needs the versions the goldens were made with and perl (gdeval is a perl script):

    python3 -m venv /tmp/venv-goldens
    /tmp/venv-goldens/bin/pip install ir_measures==0.4.3 pytrec_eval-terrier==0.5.11 \\
        cwl-eval==1.0.12
    /tmp/venv-goldens/bin/python scripts/ir-measures-goldens.py /path/to/shared/data

Writes one TSV per data set, rows `run measure topic value`: per topic for trec_eval's test
fixture and the three DL19 passage runs, the mean over each run's topics for the 143
TREC-COVID round-1 runs (the topics both the run and the qrels have, as reusesim averages).
Each topic's documents are handed to ir_measures in trec_eval's order, the one reusesim
scores: scores in single precision (as trec_eval keeps them) descending, ties broken by docid
descending. ir_measures itself keeps the input's order among tied scores (cwl_eval's RBP) or
orders in double precision (gdeval's ERR), so on a run file listed in another order the
two differ where scores tie. Values keep 6 decimals (gdeval prints 5).
"""

import gzip
import statistics
import sys
from pathlib import Path

import ir_measures
import numpy

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "ir_measures"

COMMON = [
    "RBP(rel=1,p=0.8)",
    "RBP(rel=1,p=0.5)",
    "ERR@10",
    "ERR@20",
    "AP(judged_only=True)",
    "P(judged_only=True)@10",
    "nDCG(judged_only=True)@10",
    "Success@1",
    "Success@10",
]
GRADED = [
    "RBP(rel=2,p=0.8)",
    "AP(rel=2,judged_only=True)",
    "P(rel=2,judged_only=True)@10",
]


def lines(path):
    opener = gzip.open if path.read_bytes()[:2] == b"\x1f\x8b" else open
    with opener(path, "rt") as file:
        return [line.split() for line in file if line.strip()]


def read_qrels(path):
    return [ir_measures.Qrel(q, d, int(g)) for q, _, d, g in lines(path)]


def read_run(path):
    rows = lines(path)
    docs = [ir_measures.ScoredDoc(q, d, float(numpy.float32(s))) for q, _, d, _, s, _ in rows]
    docs.sort(key=lambda doc: doc.doc_id.encode(), reverse=True)
    docs.sort(key=lambda doc: (doc.query_id, -doc.score))
    return rows[0][5], docs


def per_topic(evaluator, run):
    topics = {doc.query_id for doc in run}
    values = {}
    for metric in evaluator.iter_calc(run):
        if metric.query_id in topics:
            values[(str(metric.measure), metric.query_id)] = float(metric.value)
    return values


def write(name, rows):
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / f"{name}.tsv", "w") as out:
        out.write("run\tmeasure\ttopic\tvalue\n")
        for run, measure, topic, value in rows:
            out.write(f"{run}\t{measure}\t{topic}\t{value:.6f}\n")


def topic_rows(qrels, run_paths, measures):
    evaluator = ir_measures.evaluator([ir_measures.parse_measure(m) for m in measures], qrels)
    rows = []
    for path in run_paths:
        tag, run = read_run(path)
        for (measure, topic), value in sorted(per_topic(evaluator, run).items()):
            rows.append((tag, measure, topic, value))
    return rows


def mean_rows(qrels, run_paths, measures):
    evaluator = ir_measures.evaluator([ir_measures.parse_measure(m) for m in measures], qrels)
    rows = []
    for path in run_paths:
        tag, run = read_run(path)
        by_measure = {}
        for (measure, _), value in per_topic(evaluator, run).items():
            by_measure.setdefault(measure, []).append(value)
        for measure, values in sorted(by_measure.items()):
            rows.append((tag, measure, "all", statistics.fmean(values)))
    return rows


def main():
    data = Path(sys.argv[1])
    fixture = data / "trec_eval-test-fixture"
    write(
        "trec_eval-fixture",
        topic_rows(read_qrels(fixture / "qrels.test"), [fixture / "results.test"], COMMON)
        + topic_rows(
            read_qrels(fixture / "qrels.rel_level"), [fixture / "results.test"], GRADED
        ),
    )
    dl19 = data / "trec-dl-2019-2020"
    write(
        "dl19-passage",
        topic_rows(
            read_qrels(dl19 / "qrels" / "qrels.dl19-passage.txt"),
            sorted((dl19 / "dl19-passage-runs-partial").iterdir()),
            COMMON + GRADED,
        ),
    )
    covid = data / "trec-covid"
    write(
        "trec-covid-round1",
        mean_rows(
            read_qrels(covid / "qrels" / "qrels.covid-round1.txt"),
            sorted((covid / "round1" / "runs").iterdir()),
            COMMON,
        ),
    )


if __name__ == "__main__":
    main()
