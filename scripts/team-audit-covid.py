#!/usr/bin/env python3
"""Audits each TREC-COVID round 1 team's unpooled runs together, fills the merged list's sheet
from a later judging and audits them again with it (docs/audit.md, "A team's runs on
TREC-COVID round 1").

Usage: team-audit-covid.py REUSESIM DATA_DIR WORK_DIR [PER_RUN_CAP]

With PER_RUN_CAP, a team of n runs audits with `--list-per-topic n * PER_RUN_CAP`, the same
per-topic budget as its runs' own lists added up; without it, the default cap for the team.

REUSESIM is the binary; DATA_DIR the shared data folder (trec-covid/...); WORK_DIR is
created and receives the task, the deeper backtest and each team's sheet and reports (an
audit whose report is there already is not run again).

For every team with two or more unpooled runs it prints the merged list's size against the
sum of the runs' own lists, and the share of the audited (run, measure) pairs whose rank among
the task's runs lies within one place of the truth before the returned judgments and after
them, against two truths:
- the run's own (the deeper backtest's `true_rank`): round 1 completed with the later grades
  of the run's top 100, 0 where the later rounds lack a document, every run scored on it;
- the team's: round 1 completed so for every audited run of the team at once.
The ranks before and after are the audit's (`judged.runs[].measures[].before/after.rank`);
the team's truth ranks every run by `reusesim eval` on the completed qrels as the audit ranks
(1 + runs above + ties / 2).
"""
import csv
import gzip
import json
import os
import subprocess
import sys


def main():
    binary, data, work = sys.argv[1:4]
    per_run_cap = int(sys.argv[4]) if len(sys.argv) > 4 else None
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
    official = read_qrels(os.path.join(covid, "qrels", "qrels.covid-round1.txt"))
    within = {}
    merged_total = single_total = 0
    print("team\truns\tmerged\tsingle_run_lists")
    for team, runs in sorted(teams.items()):
        if len(runs) < 2:
            continue
        folder = os.path.join(work, team)
        os.makedirs(folder, exist_ok=True)
        sheet = os.path.join(folder, "sheet.tsv")
        args = [binary, "audit", "--task", task, "--study-seeds", "0", "--format", "json"]
        if per_run_cap is not None:
            args += ["--list-per-topic", str(per_run_cap * len(runs))]
        for run in runs:
            args += ["--run", os.path.join(runs_dir, f"{run}.gz")]
        before = cached(os.path.join(folder, "before.json"), args + ["--sheet", sheet])
        fill(sheet, os.path.join(folder, "filled.tsv"), later)
        after = cached(
            os.path.join(folder, "after.json"),
            args + ["--judged", os.path.join(folder, "filled.tsv")],
        )
        merged_total += len(before["to_judge"])
        single_total += before["single_run_documents"]
        print(f"{team}\t{len(runs)}\t{len(before['to_judge'])}\t{before['single_run_documents']}")
        completed = dict(official)
        for run in runs:
            for topic, docs in top_documents(os.path.join(runs_dir, f"{run}.gz")).items():
                for doc in docs[:100]:
                    completed.setdefault((topic, doc), later.get((topic, doc), 0))
        team_qrels = os.path.join(folder, "team-truth.qrels")
        write_qrels(team_qrels, completed)
        team_truth = ranks(binary, team_qrels, runs_dir)
        for change in after["judged"]["runs"]:
            for measure in change["measures"]:
                key = (change["run"], measure["measure"])
                for truth_name, truth_rank in (("run", truth[key]), ("team", team_truth[key])):
                    for when in ("before", "after"):
                        close = abs(measure[when]["rank"] - truth_rank) <= 1
                        within.setdefault((truth_name, when, measure["measure"]), []).append(close)
    print(f"all\t\t{merged_total}\t{single_total}")
    print("truth\tmeasure\truns\twithin_one_rank_before\twithin_one_rank_after")
    for (truth_name, when, measure), closes in within.items():
        if when == "before":
            after = within[(truth_name, "after", measure)]
            print(
                f"{truth_name}\t{measure}\t{len(closes)}\t{sum(closes) / len(closes):.2f}\t"
                f"{sum(after) / len(after):.2f}"
            )


def cached(path, args):
    """The JSON report at `path`, written by running `args` when it is not there yet."""
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(run_quietly(args))
    with open(path) as f:
        return json.load(f)


def read_qrels(path):
    grades = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 4:
                grades[(fields[0], fields[2])] = int(fields[3])
    return grades


def write_qrels(path, grades):
    with open(path, "w") as f:
        for (topic, doc), grade in sorted(grades.items()):
            f.write(f"{topic} 0 {doc} {grade}\n")


def top_documents(path):
    """Each topic's documents in trec_eval's order: score descending, then docid descending."""
    scored = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            fields = line.split()
            if len(fields) == 6:
                scored.setdefault(fields[0], []).append((float(fields[4]), fields[2]))
    ordered = {}
    for topic, docs in scored.items():
        docs.sort(key=lambda d: d[1], reverse=True)
        docs.sort(key=lambda d: d[0], reverse=True)
        ordered[topic] = [doc for _, doc in docs]
    return ordered


def ranks(binary, qrels, runs_dir):
    """(run, measure) → the run's rank among every run of `runs_dir` scored on `qrels`."""
    output = run_quietly(
        [binary, "eval", "-m", "map", "-m", "P_10", "-m", "ndcg_cut_10", "--format", "tsv",
         qrels, runs_dir]
    )
    scores = {}
    for line in output.splitlines()[1:]:
        run, measure, topic, value = line.split("\t")
        if topic == "all":
            scores.setdefault(measure, {})[run] = float(value)
    result = {}
    for measure, by_run in scores.items():
        for run, score in by_run.items():
            above = sum(other > score for name, other in by_run.items() if name != run)
            tied = sum(other == score for name, other in by_run.items() if name != run)
            result[(run, measure)] = 1 + above + tied / 2
    return result


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
