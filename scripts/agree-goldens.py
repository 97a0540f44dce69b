#!/usr/bin/env python3
"""Writes the reference values of `reusesim agree` (tests/golden/agree/, read by
tests/cli/agree.rs): Cohen's kappa, plain, linear and quadratic (scikit-learn's
cohen_kappa_score) and binary at the relevance level, Krippendorff's alpha, ordinal and
interval (the krippendorff package), the relevant shares, and per measure Kendall's tau_b
between the two leaderboards, over all runs and over A's top 10 and top 15
(scipy.stats.kendalltau), and the pairs `reusesim compare` finds significant on each qrels.

    python3 -m venv /tmp/venv-goldens
    /tmp/venv-goldens/bin/pip install scikit-learn krippendorff scipy numpy
    cargo build --release
    /tmp/venv-goldens/bin/python scripts/agree-goldens.py target/release/reusesim [DATA [DL21]]

The runs' means are reusesim's own (`agree --format json`), so the goldens check the
statistics, not the scoring (checked against trec_eval elsewhere). A tau scipy leaves undefined
(NaN: one side ties every run) is written as null, as reusesim writes it. Cases:
- `synth-passage` (no data needed): the embedded task's qrels as A, and as B the same qrels
  changed by the rule below, with the embedded task's 27 runs, level 1;
- `fixture` (DATA): trec_eval's test fixture's qrels.test as A and B made from it by the same
  rule, level 1, no runs (the fixture has one run);
- `dl21` (DL21): TREC DL 2021 passage's NIST qrels as A, UMBRELA's GPT-4 labels as B, its 63
  runs, level 2.

The rule making B from A (tests/cli/agree.rs applies the same): line i (from 0) of A, by
i % 10: 0 to 5 keep the grade, 6 and 7 add 1, 8 subtracts 1 (not below 0), 9 leaves the
pair out of B.
"""

import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import krippendorff
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "agree"
MEASURES = ["map", "P_10", "ndcg_cut_10"]
TOPS = [10, 15]


def changed(source: Path, target: Path):
    """Writes B, made from A by the rule of the module docs."""
    lines = []
    for index, line in enumerate(source.read_text().splitlines()):
        topic, iteration, doc, grade = line.split()
        grade = int(grade)
        kind = index % 10
        if kind == 9:
            continue
        if kind in (6, 7):
            grade += 1
        elif kind == 8:
            grade = max(grade - 1, 0)
        lines.append(f"{topic} {iteration} {doc} {grade}\n")
    target.write_text("".join(lines))


def read_qrels(path: Path):
    grades = {}
    for line in path.read_text().splitlines():
        topic, _, doc, grade = line.split()
        grades[(topic, doc)] = int(grade)
    return grades


def agree_json(binary, a, b, runs, level):
    arguments = [binary, "agree", "--format", "json", "-l", str(level)]
    for measure in MEASURES:
        arguments += ["-m", measure]
    arguments += [str(a), str(b)] + [str(run) for run in runs]
    return json.loads(subprocess.run(arguments, check=True, capture_output=True).stdout)


def significant_pairs(binary, qrels, runs, level):
    """{measure: pairs significant} as `reusesim compare` finds them on `qrels`."""
    arguments = [binary, "compare", "--format", "json", "-l", str(level)]
    for measure in MEASURES:
        arguments += ["-m", measure]
    arguments += [str(qrels)] + [str(run) for run in runs]
    comparison = json.loads(subprocess.run(arguments, check=True, capture_output=True).stdout)
    return {
        measure["measure"]: sum(pair["significant"] for pair in measure["pairs"])
        for measure in comparison["measures"]
    }


def golden(binary, a, b, runs, level):
    grades_a, grades_b = read_qrels(a), read_qrels(b)
    common = sorted(set(grades_a) & set(grades_b))
    x = [grades_a[pair] for pair in common]
    y = [grades_b[pair] for pair in common]
    relevant = lambda grades: [int(grade >= level) for grade in grades]
    values = {
        "pairs": len(common),
        "kappa": cohen_kappa_score(x, y),
        "kappa_linear": cohen_kappa_score(x, y, weights="linear"),
        "kappa_quadratic": cohen_kappa_score(x, y, weights="quadratic"),
        "binary_kappa": cohen_kappa_score(relevant(x), relevant(y)),
        "alpha_ordinal": krippendorff.alpha(reliability_data=[x, y], level_of_measurement="ordinal"),
        "alpha_interval": krippendorff.alpha(reliability_data=[x, y], level_of_measurement="interval"),
        "relevant_share_a": sum(relevant(x)) / len(x),
        "relevant_share_b": sum(relevant(y)) / len(y),
    }
    values = {name: float(value) for name, value in values.items()}
    values["pairs"] = len(common)
    if runs:
        record = agree_json(binary, a, b, runs, level)
        significant_a = significant_pairs(binary, a, runs, level)
        significant_b = significant_pairs(binary, b, runs, level)
        measures = {}
        for measure in record["leaderboard"]["measures"]:
            means_a, means_b = measure["means_a"], measure["means_b"]
            figures = {"tau_b": float(kendalltau(means_a, means_b).statistic)}
            # A's best first; the earlier run first among ties (a stable sort).
            order = sorted(range(len(means_a)), key=lambda run: -means_a[run])
            for top in TOPS:
                best = order[:top]
                figures[f"tau_b_top_{top}"] = float(
                    kendalltau([means_a[r] for r in best], [means_b[r] for r in best]).statistic
                )
            figures["significant_a"] = significant_a[measure["measure"]]
            figures["significant_b"] = significant_b[measure["measure"]]
            measures[measure["measure"]] = figures
        values["measures"] = measures
    return values


def defined(value):
    """scipy's NaN for an undefined tau as JSON's null, reusesim's undefined."""
    return None if isinstance(value, float) and math.isnan(value) else value


def write(name, values):
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.json"
    for figures in values.get("measures", {}).values():
        for statistic, value in figures.items():
            figures[statistic] = defined(value)
    path.write_text(json.dumps(values, indent=1, sort_keys=True, allow_nan=False) + "\n")
    print(f"wrote {path}")


def main():
    binary = sys.argv[1]
    data = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    dl21 = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        synth_a = ROOT / "qrels" / "synth-passage.qrels"
        synth_b = scratch / "synth-passage.b.qrels"
        changed(synth_a, synth_b)
        runs = [ROOT / "runs" / "synth-passage" / "runs"]
        write("synth-passage", golden(binary, synth_a, synth_b, runs, 1))
        if data:
            fixture_a = data / "trec_eval-test-fixture" / "qrels.test"
            fixture_b = scratch / "fixture.b.qrels"
            changed(fixture_a, fixture_b)
            write("fixture", golden(binary, fixture_a, fixture_b, [], 1))
    if dl21:
        a = dl21 / "qrels.dl21-passage.txt"
        b = dl21 / "labels" / "umbrela-gpt4.dl21-passage.qrels"
        write("dl21", golden(binary, a, b, [dl21 / "runs"], 2))


if __name__ == "__main__":
    main()
