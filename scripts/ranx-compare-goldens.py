#!/usr/bin/env python3
"""Writes the reference p-values of `reusesim compare`'s resampling tests
(tests/golden/compare/ranx-*.tsv.gz, read by tests/cli/compare.rs):

- `ranx_p`: ranx 0.3.21's Fisher randomization test (`ranx.statistical_tests.
  fisher_randomization_test`, the function `ranx.compare(stat_test="fisher")` calls), at
  100,000 permutations;
- `sign_flip_p`: the same test written here with numpy, counting the sign flips whose |Σ sᵢdᵢ|
  reaches |Σ dᵢ| up to a relative 1e-9 of Σ|dᵢ| (ranx compares exactly, so that flips tying
  the observed statistic in exact arithmetic, common with P@10's tenths, count or not by the
  last bit of two sums): every flip with at most 16 topics (samples `inf`), else 1,000,000;
- `tukey_p`: the randomised Tukey HSD test (Carterette 2012) at 1,000,000 samples (cheap in
  numpy, and one set of sampled ranges serves every pair, so a noisier reference would move
  all the small p-values together), written here with numpy: ranx's `stat_test="tukey"` is scipy's classical `tukey_hsd` (studentized range
  distribution, runs as independent groups), another test. The script prints how far that one
  lies from the randomised test.

for MAP, P@10 and nDCG@10, in baseline mode (every run against the first by tag) and over all
pairs, on the embedded task and, with DATA, on the first 20 of TREC-COVID round 1's run files
by name (ranx is too slow for all 143).

    python3 -m venv /tmp/venv-ranx
    /tmp/venv-ranx/bin/pip install ranx==0.3.21 scipy==1.17.1 numpy
    cargo build --release
    NUMBA_NUM_THREADS=1 /tmp/venv-ranx/bin/python scripts/ranx-compare-goldens.py target/release/reusesim [DATA]

NUMBA_NUM_THREADS=1 matters: on more threads ranx's `fisher_randomization_test` sums the observed
means in a parallel reduction and each permutation's serially, so that even the labellings
that tie the observed statistic bit for bit on one thread (the observed one itself, all signs
flipped, flips of topics that score the same) may not count, down to p = 0 where every
labelling ties (where p is 1).

The per-topic scores are reusesim's own (read as scripts/compare-goldens.py reads them), so the
goldens test the statistics. Both estimates count plainly, p = count / N (ranx's convention;
reusesim counts the observed labelling as one sample, (count + 1) / (N + 1)). ranx draws from
numba's generators, which its `random_seed` does not fix: the goldens are one sample, as a
Monte-Carlo reference is. Rows: `mode measure run against` and each reference's p and
samples, pairs `run − against` with the runs in tag order.
"""

import gzip
import importlib.util
import math
import multiprocessing
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
from ranx.statistical_tests import fisher_randomization_test
from ranx.statistical_tests.tukey_hsd_test import tukey_hsd_test

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "compare"
PERMUTATIONS = 100_000
TUKEY_SAMPLES = 1_000_000
SIGN_FLIP_SAMPLES = 1_000_000
# The most topics whose sign flips are all enumerated (2¹⁶ flips).
EXACT_MAX_TOPICS = 16
# "At least as extreme" up to this share of Σ|dᵢ|, as reusesim counts it.
TIE_TOLERANCE = 1e-9
# Samples drawn at once (memory: Tukey's block × topics × runs floats, the flips' block × topics).
TUKEY_BLOCK = 1_000
SIGN_FLIP_BLOCK = 100_000


def compare_goldens():
    """scripts/compare-goldens.py as a module (its name is not an identifier)."""
    spec = importlib.util.spec_from_file_location("compare_goldens", ROOT / "scripts" / "compare-goldens.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def randomised_tukey_ranges(scores, samples, rng):
    """Per sample, every topic's scores shuffled among the runs: the largest run mean minus
    the smallest. `scores` is runs × topics."""
    by_topic = np.asarray(scores).T
    ranges = []
    for start in range(0, samples, TUKEY_BLOCK):
        block = min(TUKEY_BLOCK, samples - start)
        stacked = np.broadcast_to(by_topic, (block,) + by_topic.shape)
        means = rng.permuted(stacked, axis=2).mean(axis=1)
        ranges.append(means.max(axis=1) - means.min(axis=1))
    return np.sort(np.concatenate(ranges))


def sign_flip_p(differences, rng):
    """The share of sign flips s whose |Σ sᵢdᵢ| reaches |Σ dᵢ| (up to the tie tolerance), and
    the number of flips: all of them (inf) or SIGN_FLIP_SAMPLES random ones."""
    differences = np.asarray(differences)
    threshold = abs(differences.sum()) - TIE_TOLERANCE * np.abs(differences).sum()
    topics = len(differences)
    if topics <= EXACT_MAX_TOPICS:
        flipped = np.arange(2**topics)[:, None] >> np.arange(topics) & 1
        sums = (1.0 - 2.0 * flipped) @ differences
        return float(np.mean(np.abs(sums) >= threshold)), math.inf
    count = 0
    for _ in range(SIGN_FLIP_SAMPLES // SIGN_FLIP_BLOCK):
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(SIGN_FLIP_BLOCK, topics))
        count += int(np.count_nonzero(np.abs(signs @ differences) >= threshold))
    return count / SIGN_FLIP_SAMPLES, SIGN_FLIP_SAMPLES


def tukey_p(sorted_ranges, difference):
    """The share of sampled ranges at least |difference| (up to rounding of the means)."""
    threshold = abs(difference) - 1e-12
    return (len(sorted_ranges) - np.searchsorted(sorted_ranges, threshold, side="left")) / len(sorted_ranges)


def measure_rows(measure, runs_scores):
    # Each measure its own stream, so that the measures run in parallel and give the same rows.
    rng = np.random.default_rng(list(measure.encode()))
    runs = sorted(runs_scores)
    scores = {run: np.asarray(runs_scores[run], dtype=float) for run in runs}
    ranges = randomised_tukey_ranges([scores[run] for run in runs], TUKEY_SAMPLES, rng)
    classical = tukey_hsd_test(runs, [scores[run] for run in runs], 0.05)
    classical_p = {(row["control"], row["treatment"]): float(row["p-value"]) for row in classical}
    values = {}
    gaps = []
    for run, against in combinations(runs, 2):
        randomization, _ = fisher_randomization_test(scores[run], scores[against], PERMUTATIONS, 0.05, 42)
        difference = scores[run].mean() - scores[against].mean()
        tukey = float(tukey_p(ranges, difference))
        sign_flip = sign_flip_p(scores[run] - scores[against], rng)
        values[run, against] = (float(randomization), PERMUTATIONS, *sign_flip, tukey, TUKEY_SAMPLES)
        gaps.append(abs(classical_p[run, against] - tukey))
    print(
        f"  {measure}: ranx's classical Tukey HSD vs randomised, |Δp| median {np.median(gaps):.3g}, "
        f"max {max(gaps):.3g}",
        file=sys.stderr,
    )
    baseline = runs[0]
    rows = [["baseline", measure, run, baseline, *values[baseline, run]] for run in runs[1:]]
    rows += [["all", measure, run, against, *values[run, against]] for run, against in combinations(runs, 2)]
    return rows


def write(name, scores):
    lines = [["mode", "measure", "run", "against", "ranx_p", "ranx_samples", "sign_flip_p", "sign_flip_samples",
              "tukey_p", "tukey_samples"]]
    print(f"{name}:", file=sys.stderr)
    with multiprocessing.Pool(len(scores)) as pool:
        by_measure = pool.starmap(measure_rows, scores.items())
    for rows in by_measure:
        lines += [row[:4] + [repr(value) for value in row[4:]] for row in rows]
    path = OUT / f"ranx-{name}.tsv.gz"
    text = "".join("\t".join(line) + "\n" for line in lines)
    path.write_bytes(gzip.compress(text.encode(), mtime=0))
    print(f"wrote {path} ({len(lines) - 1} rows)", file=sys.stderr)


def main():
    binary = sys.argv[1]
    goldens = compare_goldens()
    embedded = goldens.per_topic_scores(
        binary, ROOT / "qrels" / "synth-passage.qrels", [ROOT / "runs" / "synth-passage" / "runs"]
    )
    write("synth-passage", embedded)
    if len(sys.argv) > 2:
        data = Path(sys.argv[2])
        covid = goldens.per_topic_scores(
            binary,
            data / "trec-covid" / "qrels" / "qrels.covid-round1.txt",
            goldens.covid_subset(data),
        )
        write("trec-covid-round1-20", covid)


if __name__ == "__main__":
    main()
