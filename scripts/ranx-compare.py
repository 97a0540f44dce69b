#!/usr/bin/env python3
"""Runs ranx's `compare` as a whole process, the yardstick of `reusesim compare`'s speed
(docs/performance.md): reads the qrels and the runs with ranx, scores MAP and nDCG@10 over the
qrels topics (`make_comparable`, trec_eval's -c) and tests every pair, then prints the report as JSON (its
table letters the runs, and runs out of letters past 26).

    python3 -m venv /tmp/venv-ranx
    /tmp/venv-ranx/bin/pip install ranx==0.3.21
    /tmp/venv-ranx/bin/python scripts/ranx-compare.py fisher|tukey PERMUTATIONS QRELS RUN_OR_FOLDER...

`fisher` is ranx's Fisher randomization test of every pair; `tukey` ranx's Tukey HSD (scipy's
classical `tukey_hsd`, not the randomised test; PERMUTATIONS is then unused). ranx compiles
its numba functions on first use and caches them next to its sources: the first call of a
fresh install is slower.
"""

import json
import sys
from pathlib import Path

from ranx import Qrels, Run, compare


def run_files(paths):
    """The run files named, a folder standing for the files in it (sorted by name)."""
    for path in map(Path, paths):
        yield from sorted(path.iterdir()) if path.is_dir() else [path]


def main():
    test, permutations, qrels_path, *runs = sys.argv[1:]
    qrels = Qrels.from_file(qrels_path, kind="trec")
    loaded = [Run.from_file(str(path), kind="gz" if path.suffix == ".gz" else "trec") for path in run_files(runs)]
    report = compare(
        qrels=qrels,
        runs=loaded,
        metrics=["map", "ndcg@10"],
        stat_test=test,
        n_permutations=int(permutations),
        max_p=0.05,
        make_comparable=True,
    )
    # numpy scalars (p-values, "significant" flags) as Python values.
    print(json.dumps(report.to_dict(), default=lambda value: value.item()))


if __name__ == "__main__":
    main()
