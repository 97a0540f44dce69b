#!/usr/bin/env python3
"""Writes ranx's values of the measures reusesim reads in ranx's spelling
(tests/golden/ranx/synth-passage.tsv, read by tests/cli/ranx.rs), on the embedded task
(qrels/synth-passage.qrels and the runs of runs/synth-passage/runs/).

    python3 -m venv /tmp/venv-goldens
    /tmp/venv-goldens/bin/pip install ranx==0.3.21
    /tmp/venv-goldens/bin/python scripts/ranx-goldens.py

Writes rows `run measure topic value` for every topic the run and the qrels share. Each
topic's documents are handed to ranx in trec_eval's order, the one reusesim scores (scores in
single precision descending, ties broken by docid descending), as scores n, n-1, ..., 1:
ranx orders by score with an unstable sort, so it would break tied scores its own way. ranx
is handed the topics the run and the qrels share, as reusesim averages over them. Values keep
10 significant digits.
"""

from pathlib import Path

import numpy
from ranx import Qrels, Run, evaluate

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "ranx"
MEASURES = [
    "ndcg",
    "ndcg@10",
    "ndcg@100",
    "map",
    "map@100",
    "mrr",
    "mrr@10",
    "precision",
    "precision@10",
    "recall@100",
    "hits",
    "hits@10",
    "hit_rate@1",
    "hit_rate@10",
    "r-precision",
    "bpref",
    "f1",
    "f1@10",
    "dcg@10",
    "dcg_burges@10",
    "ndcg_burges",
    "ndcg_burges@10",
]


def read_qrels(path):
    qrels = {}
    for line in path.read_text().splitlines():
        topic, _, doc, grade = line.split()
        qrels.setdefault(topic, {})[doc] = int(grade)
    return qrels


def read_run(path):
    by_topic = {}
    tag = None
    for line in path.read_text().splitlines():
        topic, _, doc, _, score, tag = line.split()
        by_topic.setdefault(topic, []).append((float(numpy.float32(score)), doc))
    run = {}
    for topic, docs in by_topic.items():
        docs.sort(key=lambda pair: (pair[0], pair[1].encode()), reverse=True)
        run[topic] = {doc: float(len(docs) - rank) for rank, (_, doc) in enumerate(docs)}
    return tag, run


def main():
    qrels = read_qrels(ROOT / "qrels" / "synth-passage.qrels")
    rows = []
    for path in sorted((ROOT / "runs" / "synth-passage" / "runs").iterdir()):
        tag, run = read_run(path)
        shared = sorted(run.keys() & qrels.keys())
        ranx_run = Run({topic: run[topic] for topic in shared})
        ranx_qrels = Qrels({topic: qrels[topic] for topic in shared})
        evaluate(ranx_qrels, ranx_run, MEASURES, save_results_in_run=True)
        for measure in MEASURES:
            for topic in shared:
                rows.append((tag, measure, topic, ranx_run.scores[measure][topic]))
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "synth-passage.tsv", "w") as out:
        out.write("run\tmeasure\ttopic\tvalue\n")
        for tag, measure, topic, value in rows:
            out.write(f"{tag}\t{measure}\t{topic}\t{value:.10g}\n")


if __name__ == "__main__":
    main()
