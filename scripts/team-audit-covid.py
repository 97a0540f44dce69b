#!/usr/bin/env python3
"""Audits each TREC-COVID round 1 team's unpooled runs together, fills the merged list's sheet
from a later judging and audits them again with it (docs/audit.md, "A team's runs on
TREC-COVID round 1").

Usage: team-audit-covid.py REUSESIM DATA_DIR WORK_DIR

REUSESIM is the binary; DATA_DIR the shared data folder (trec-covid/...); WORK_DIR is
created and receives the task, the deeper backtest (whose `true_rank` is each run's truth:
round 1 completed with the later grades of the run's unjudged top 100, 0 where the later
rounds lack a document) and each team's sheet and reports.

For every team with two or more unpooled runs it prints the merged list's size against the
sum of the runs' own lists, and the share of the audited (run, measure) pairs whose rank on the
collection lies within one place of the truth before the returned judgments and after them.
"""
import csv
import json
import os
import subprocess
import sys


def main():
    binary, data, work = sys.argv[1:4]
    covid = os.path.join(data, "trec-covid")
    os.makedirs(work, exist_ok=True)
    leaderboard = os.path.join(covid, "leaderboards", "round1.leaderboard.csv")
    with open(leaderboard) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(work, "teams.tsv"), "w") as f:
        for row in rows:
            f.write(f"{row['run']}\t{row['team']}\t{row['contributed judgments']}\n")
    runs_dir = os.path.join(covid, "round1", "runs")
    task = os.path.join(work, "task.toml")
    with open(task, "w") as f:
        f.write(
            f'name = "trec-covid-round1"\nruns = "{runs_dir}"\nteams = "teams.tsv"\n'
            f'qrels = "{os.path.join(covid, "qrels", "qrels.covid-round1.txt")}"\npool_depth = 7\n'
        )
    complete = os.path.join(covid, "qrels", "qrels.covid-complete.txt")
    later = {}
    with open(complete) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 4:
                later[(fields[0], fields[2])] = int(fields[3])
    backtest = os.path.join(work, "backtest-deeper")
    if not os.path.exists(os.path.join(backtest, "backtest.tsv")):
        subprocess.run(
            [binary, "backtest", "--task", task, "--world", "deeper", "--truth-qrels", complete,
             "--out", backtest],
            check=True, stdout=subprocess.DEVNULL,
        )
    truth = {}
    with open(os.path.join(backtest, "backtest.tsv")) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            truth[(row["run"], row["measure"])] = float(row["true_rank"])
    teams = {}
    for row in rows:
        if row["contributed judgments"] == "no":
            teams.setdefault(row["team"], []).append(row["run"])
    within = {"before": {}, "after": {}}
    merged_total = single_total = 0
    print("team\truns\tmerged\tsingle_run_lists")
    for team, runs in sorted(teams.items()):
        if len(runs) < 2:
            continue
        folder = os.path.join(work, team)
        os.makedirs(folder, exist_ok=True)
        sheet = os.path.join(folder, "sheet.tsv")
        args = [binary, "audit", "--task", task, "--study-seeds", "0", "--format", "json"]
        for run in runs:
            args += ["--run", os.path.join(runs_dir, f"{run}.gz")]
        before = json.loads(run_quietly(args + ["--sheet", sheet]))
        fill(sheet, os.path.join(folder, "filled.tsv"), later)
        after = json.loads(run_quietly(args + ["--judged", os.path.join(folder, "filled.tsv")]))
        merged_total += len(before["to_judge"])
        single_total += before["single_run_documents"]
        print(f"{team}\t{len(runs)}\t{len(before['to_judge'])}\t{before['single_run_documents']}")
        for change in after["judged"]["runs"]:
            for measure in change["measures"]:
                key = (change["run"], measure["measure"])
                for when in ("before", "after"):
                    close = abs(measure[when]["rank"] - truth[key]) <= 1
                    within[when].setdefault(measure["measure"], []).append(close)
    print(f"all\t\t{merged_total}\t{single_total}")
    print("measure\truns\twithin_one_rank_before\twithin_one_rank_after")
    for measure, before in within["before"].items():
        after = within["after"][measure]
        print(f"{measure}\t{len(before)}\t{sum(before) / len(before):.2f}\t{sum(after) / len(after):.2f}")


def run_quietly(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def fill(sheet, filled, later):
    """The sheet with every grade filled from the later judging (0 where it lacks one)."""
    with open(sheet, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    with open(filled, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["topic", "docid", "grade"], delimiter="\t")
        writer.writeheader()
        for row in rows:
            row["grade"] = later.get((row["topic"], row["docid"]), 0)
            writer.writerow(row)


if __name__ == "__main__":
    main()
