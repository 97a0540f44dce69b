#!/usr/bin/env python3
"""Compares the strategy tables of studies judged by different simulated assessors with the
table of the study whose assessor is the task's truth (docs/strategies.md, "Which assessor").

Usage: assessor-validation.py TRUTH_DIR OFFICIAL_DIR COMPLETED_DIR

Each DIR is a `reusesim simulate --strategies ... --out DIR` folder of one task with the same
seeds, strategies and fractions. For each (strategy, fraction, measure) it takes three figures,
as each assessor sees them:
  - the held-out runs' mean paired rank change (rank_change_mean);
  - the control's recall of its assessor's relevant documents (control_assessor_recall, or
    control_recall under the official assessor, whose relevant documents are the official ones);
  - the control's tau_b against its assessor's ranking (control_assessor_tau_b, or
    control_tau_b under the official assessor).
It prints, per figure, the mean |X_official - X_truth| and |X_completed - X_truth| and their
ratio (the goal: at most 0.5), and per (fraction, measure) the most reusable strategy under
each assessor: the smallest mean paired rank change, ties to the higher paired tau_b.
"""
import csv
import sys


def table(folder):
    with open(f"{folder}/strategies.tsv", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    out = {}
    for row in rows:
        key = (row["strategy"], float(row["fraction"]), row["measure"])
        assessed = "control_assessor_tau_b" in row

        def number(name):
            value = row[name]
            return None if value == "NA" else float(value)

        out[key] = {
            "rank change": number("rank_change_mean"),
            "control recall": number("control_assessor_recall" if assessed else "control_recall"),
            "control tau_b": number("control_assessor_tau_b" if assessed else "control_tau_b"),
            "paired tau_b": number("paired_tau_b"),
        }
    return out


def most_reusable(rows, fraction, measure):
    candidates = [
        (figures["rank change"], -(figures["paired tau_b"] or -1.0), strategy)
        for (strategy, f, m), figures in rows.items()
        if f == fraction and m == measure and figures["rank change"] is not None
    ]
    return min(candidates)[2] if candidates else None


def main(truth_dir, official_dir, completed_dir):
    truth, official, completed = (table(d) for d in (truth_dir, official_dir, completed_dir))
    print("figure\tmean |official - truth|\tmean |completed - truth|\tratio")
    for figure in ("rank change", "control recall", "control tau_b"):
        gaps = {"official": [], "completed": []}
        for key, truth_figures in truth.items():
            if truth_figures[figure] is None:
                continue
            for name, rows in (("official", official), ("completed", completed)):
                value = rows[key][figure]
                if value is not None:
                    gaps[name].append(abs(value - truth_figures[figure]))
        mean = {name: sum(v) / len(v) for name, v in gaps.items()}
        ratio = mean["completed"] / mean["official"] if mean["official"] else float("nan")
        print(f"{figure}\t{mean['official']:.4f}\t{mean['completed']:.4f}\t{ratio:.2f}")
    points = sorted({(f, m) for (_, f, m) in truth})
    agree = {"official": 0, "completed": 0}
    print("\nfraction\tmeasure\ttruth\tofficial\tcompleted")
    for fraction, measure in points:
        choice = {n: most_reusable(r, fraction, measure)
                  for n, r in (("truth", truth), ("official", official), ("completed", completed))}
        for name in agree:
            agree[name] += choice[name] == choice["truth"]
        print(f"{fraction}\t{measure}\t{choice['truth']}\t{choice['official']}\t{choice['completed']}")
    print(f"\nagreements with the truth's choice: official {agree['official']} of {len(points)}, "
          f"completed {agree['completed']} of {len(points)}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
