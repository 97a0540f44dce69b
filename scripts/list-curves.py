#!/usr/bin/env python3
"""The backtest's list curves side by side (docs/backtest.md#the-list-with-labels).

Reads the `backtest.json` of several backtests of one world (the first one the reference,
typically the audit without labels) and, per measure and over all measures, prints:
- the share of runs within one rank of the truth before any list and after each backtest's
  whole list, and the list's mean documents per run;
- the fewest documents per run at which each backtest's curve reaches the share the
  reference's whole list reaches, and that as a ratio of the reference's whole list.

With `--figure FILE` it draws the curves (share of runs within one rank against documents
judged per run, one panel per measure and one over all) with matplotlib.

    scripts/list-curves.py NAME=DIR [NAME=DIR ...] [--figure FILE] [--title TEXT]
"""

import argparse
import json
import sys
from pathlib import Path

ALL = "all measures"


def curves(directory):
    """{measure: [(documents per run, share within one rank)]}, plus the pooled curve."""
    summary = json.loads((Path(directory) / "backtest.json").read_text())
    found = {
        m["measure"]: [(p["documents_per_run"], p["within_one_rank"]) for p in m["list_curve"]]
        for m in summary["measures"]
    }
    # Every measure has the same runs and lists, so the pooled share at a budget is the mean.
    longest = max(len(c) for c in found.values())
    padded = {m: c + [c[-1]] * (longest - len(c)) for m, c in found.items()}
    found[ALL] = [
        (points[0][0], sum(p[1] for p in points) / len(points))
        for points in zip(*padded.values())
    ]
    return found


def documents_to_reach(curve, share):
    """The fewest documents per run at which `curve` reaches `share` (None if it never does)."""
    return next((documents for documents, s in curve if s >= share - 1e-12), None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("backtests", nargs="+", metavar="NAME=DIR")
    parser.add_argument("--figure", type=Path)
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    named = [b.split("=", 1) for b in args.backtests]
    if any(len(n) != 2 for n in named):
        sys.exit("expected NAME=DIR arguments")
    found = {name: curves(directory) for name, directory in named}
    reference = named[0][0]
    measures = list(found[reference])
    print("| measure | backtest | before | after its list | documents a run | "
          f"documents to reach {reference}'s share after its list | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for measure in measures:
        target = found[reference][measure][-1][1]
        whole = found[reference][measure][-1][0]
        for name, _ in named:
            curve = found[name][measure]
            needed = documents_to_reach(curve, target)
            ratio = "–" if needed is None or whole == 0 else f"{needed / whole:.2f}×"
            reach = "never" if needed is None else f"{needed:.2f}"
            print(f"| {measure} | {name} | {curve[0][1]:.3f} | {curve[-1][1]:.3f} | "
                  f"{curve[-1][0]:.2f} | {reach} | {ratio} |")
    if args.figure:
        draw(found, measures, args.figure, args.title)


def draw(found, measures, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(measures), figsize=(3.2 * len(measures), 3.2),
                                sharey=True, squeeze=False)
    for axis, measure in zip(axes[0], measures):
        for name, curve in found.items():
            axis.step([p[0] for p in curve[measure]], [p[1] for p in curve[measure]],
                      where="post", label=name)
        axis.set_title(measure)
        axis.set_xlabel("documents judged a run")
        axis.grid(alpha=0.3)
    axes[0][0].set_ylabel("runs within one rank of the truth")
    axes[0][0].legend(fontsize="small")
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
