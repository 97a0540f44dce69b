#!/usr/bin/env python3
"""Prints the Markdown tables of docs/strategies.md's "By significance" section from a study's
strategies.tsv: for each measure, fraction and strategy, the controls' significant pairs against
a reference (kept share, lost, reversed, new; means over seeds) beside their tau_b against the
same reference, and per measure and fraction the strategy that wins by each.

    python3 scripts/significance-tables.py RESULTS_DIR [official|truth|assessor|hical]

The reference defaults to the truth when the study has one, else the assessor's qrels when it
is not the official one, else the official qrels. Winners: by tau, the highest mean control
tau_b against the reference (the official ranking for `hical`); by significance, the highest
kept share, then the fewest reversed. Ties are listed together.
"""

import csv
import sys
from collections import defaultdict
from pathlib import Path


def number(text):
    return None if text in ("NA", "", None) else float(text)


def reference_of(rows, asked):
    if asked:
        return asked
    if any(number(row["truth_kept"]) is not None for row in rows):
        return "truth"
    if rows and "assessor_kept" in rows[0]:
        return "assessor"
    return "official"


TAU_COLUMN = {
    "official": "control_tau_b",
    "hical": "control_tau_b",
    "truth": "control_truth_tau_b",
    "assessor": "control_assessor_tau_b",
}


def main():
    folder = Path(sys.argv[1])
    with open(folder / "strategies.tsv") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    reference = reference_of(rows, sys.argv[2] if len(sys.argv) > 2 else None)
    by_point = defaultdict(list)
    for row in rows:
        by_point[(row["measure"], float(row["fraction"]))].append(row)
    print(f"Reference: {reference}.\n")
    print("| measure | fraction | strategy | significant in reference | kept share | lost | "
          "reversed | new | control tau_b |")
    print("|---|---|---|---|---|---|---|---|---|")
    winners = []
    for (measure, fraction), point in sorted(by_point.items()):
        scored = []
        for row in point:
            kept, lost, reversed_, new = (number(row[f"{reference}_{kind}"])
                                          for kind in ("kept", "lost", "reversed", "new"))
            tau = number(row[TAU_COLUMN[reference]])
            significant = None if kept is None else kept + lost + reversed_
            share = kept / significant if significant else None
            scored.append((row["strategy"], share, reversed_, tau))
            print(f"| {measure} | {fraction:g} | {row['strategy']} | "
                  f"{'NA' if significant is None else f'{significant:.1f}'} | "
                  f"{'NA' if share is None else f'{share:.3f}'} | {fmt(lost)} | "
                  f"{fmt(reversed_)} | {fmt(new)} | {'NA' if tau is None else f'{tau:.3f}'} |")
        winners.append((measure, fraction, best_by_tau(scored), best_by_significance(scored)))
    print("\n| measure | fraction | best by tau | best by significance | same? |")
    print("|---|---|---|---|---|")
    for measure, fraction, tau, significance in winners:
        same = "yes" if set(tau) & set(significance) else "**no**"
        print(f"| {measure} | {fraction:g} | {', '.join(tau)} | {', '.join(significance)} | "
              f"{same} |")


def fmt(value):
    return "NA" if value is None else f"{value:.1f}"


def best_by_tau(scored):
    taus = [tau for _, _, _, tau in scored if tau is not None]
    if not taus:
        return ["NA"]
    return [name for name, _, _, tau in scored if tau == max(taus)]


def best_by_significance(scored):
    keys = [(share, -reversed_) for _, share, reversed_, _ in scored if share is not None]
    if not keys:
        return ["NA"]
    best = max(keys)
    return [name for name, share, reversed_, _ in scored if (share, -reversed_) == best]


if __name__ == "__main__":
    main()
