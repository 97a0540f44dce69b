#!/usr/bin/env python3
"""Writes the reference values of `reusesim compare` (tests/golden/compare/, read by
tests/cli/compare.rs): the paired t-test's p-value and 95% confidence interval
(scipy.stats.ttest_rel), Wilcoxon's signed-rank p-value (scipy.stats.wilcoxon with its
defaults) and the t-test's p-values corrected by Bonferroni, Holm and Benjamini-Hochberg over
each measure's pairs (statsmodels' multipletests), for MAP, P@10 and nDCG@10.

    python3 -m venv /tmp/venv-goldens
    /tmp/venv-goldens/bin/pip install scipy==1.17.1 statsmodels numpy
    cargo build --release
    /tmp/venv-goldens/bin/python scripts/compare-goldens.py target/release/reusesim [DATA]

The per-topic scores are reusesim's own (`eval -q -c --format json`, full precision), so the
goldens check the statistics, not the scoring (checked against trec_eval elsewhere). Writes
one gzipped TSV per task, rows `mode measure run against t_p ci_low ci_high wilcoxon_p bonferroni
holm bh`: mode `baseline` compares every run with the first run by tag, mode `all` every pair.
Pairs are `run − against` with the runs in tag order. With DATA (the shared data folder), also
TREC-COVID round 1: its 143 runs against the baseline, and every pair of its first 20 run files
by name (all 10,153 pairs would make a large file). Where the runs score the same on every topic scipy gives NaN
(kept in the goldens) and reusesim p = 1, a zero-width interval, and p = 1 in the corrections.
"""

import gzip
import json
import math
import subprocess
import sys
from itertools import combinations
from pathlib import Path

from scipy.stats import ttest_rel, wilcoxon
from statsmodels.stats.multitest import multipletests

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "compare"
MEASURES = ["map", "P_10", "ndcg_cut_10"]
CORRECTIONS = {"bonferroni": "bonferroni", "holm": "holm", "bh": "fdr_bh"}
# TREC-COVID round 1's runs compared in every pair: the first run files by name.
COVID_SUBSET = 20


def per_topic_scores(binary, qrels, runs):
    """{measure: {run: [score per topic, in topic order]}}, every qrels topic (-c), for the run
    files and folders `runs`."""
    arguments = [binary, "eval", "-q", "-c", "--format", "json"]
    for measure in MEASURES:
        arguments += ["-m", measure]
    arguments += [str(qrels)] + [str(path) for path in runs]
    output = subprocess.run(arguments, check=True, capture_output=True)
    evaluation = json.loads(output.stdout)
    scores = {measure: {} for measure in MEASURES}
    for run, by_measure in evaluation.items():
        for measure in MEASURES:
            values = by_measure[measure]
            topics = sorted(topic for topic in values if topic != "all")
            scores[measure][run] = [float(values[topic]) for topic in topics]
    return scores


def rows(mode, measure, runs_scores, pairs):
    t_tests = [ttest_rel(runs_scores[run], runs_scores[against]) for run, against in pairs]
    t_p = [float(test.pvalue) for test in t_tests]
    # Runs that score the same on every topic: scipy's NaN is reusesim's p = 1.
    tested = [1.0 if math.isnan(p) else p for p in t_p]
    corrected = {name: multipletests(tested, method=method)[1] for name, method in CORRECTIONS.items()}
    for index, (run, against) in enumerate(pairs):
        interval = t_tests[index].confidence_interval(0.95)
        wilcoxon_p = float(wilcoxon(runs_scores[run], runs_scores[against]).pvalue)
        values = [t_p[index], interval.low, interval.high, wilcoxon_p]
        values += [corrected[name][index] for name in CORRECTIONS]
        yield [mode, measure, run, against] + [repr(float(value)) for value in values]


def covid_subset(data):
    """The run files of TREC-COVID round 1 compared in every pair."""
    return sorted((data / "trec-covid" / "round1" / "runs").iterdir())[:COVID_SUBSET]


def write(name, baseline_scores, all_pairs_scores):
    lines = [["mode", "measure", "run", "against", "t_p", "ci_low", "ci_high", "wilcoxon_p"]
             + list(CORRECTIONS)]
    for measure in MEASURES:
        runs = sorted(baseline_scores[measure])
        baseline = runs[0]
        lines += rows("baseline", measure, baseline_scores[measure], [(run, baseline) for run in runs[1:]])
        runs = sorted(all_pairs_scores[measure])
        lines += rows("all", measure, all_pairs_scores[measure], list(combinations(runs, 2)))
    path = OUT / f"{name}.tsv.gz"
    text = "".join("\t".join(line) + "\n" for line in lines)
    path.write_bytes(gzip.compress(text.encode(), mtime=0))
    print(f"wrote {path} ({len(lines) - 1} rows)")


def main():
    binary = sys.argv[1]
    OUT.mkdir(parents=True, exist_ok=True)
    embedded = per_topic_scores(
        binary, ROOT / "qrels" / "synth-passage.qrels", [ROOT / "runs" / "synth-passage" / "runs"]
    )
    write("synth-passage", embedded, embedded)
    if len(sys.argv) > 2:
        data = Path(sys.argv[2])
        qrels = data / "trec-covid" / "qrels" / "qrels.covid-round1.txt"
        covid = per_topic_scores(binary, qrels, [data / "trec-covid" / "round1" / "runs"])
        write("trec-covid-round1", covid, per_topic_scores(binary, qrels, covid_subset(data)))


if __name__ == "__main__":
    main()
