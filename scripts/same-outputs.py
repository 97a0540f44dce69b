#!/usr/bin/env python3
"""Checks that a change left reusesim's outputs byte-identical: snapshot the outputs of two
builds, then compare the snapshots.

Usage: same-outputs.py snapshot BIN DIR
       same-outputs.py compare DIR_A DIR_B

`snapshot` runs the `reusesim` binary BIN on a fixed set of jobs and writes their outputs into
DIR (which must not exist, or be empty). It reads the embedded task (`runs/`, `qrels/`,
`figures/`) from the repository this script is in, and the real data from `$REUSESIM_DATA`
(default: `../shared/data` beside the repository). Every job runs with DIR as its working
directory, through the links DIR/runs, DIR/qrels and DIR/data, so no absolute path reaches an
output and two snapshots from different checkouts compare. The jobs:

- main-job: `reusesim` without a command, exactly as `cargo run --release` runs it (the
  embedded task, 10 seeds, 200,000 iterations, budget fractions 0.25 to 1), into
  DIR/results/synth-passage/ with its figures;
- embedded-strategies: a 2-seed study of the embedded task at 20,000 iterations with budget
  fractions 0.5,1 and the strategies hical,depth,mtf,bandit;
- embedded-completed: the same with `--assessor completed`;
- covid-study: TREC-COVID round 1 (its task built as tests/support/covid.rs builds it), one seed
  at 20,000 iterations with run features, six teams held out;
- audit-embedded-run, audit-embedded-team, audit-covid: `audit --format json` of one embedded
  run (with the study run on the spot), of team01's two runs together with `--emit-pool` and
  `--sheet`, and of one unpooled TREC-COVID run (`--study-seeds 0`, as the tests do);
- backtest-embedded-classic, backtest-covid-deeper: `backtest --out` in the classic world on
  the embedded task, and in the deeper world on TREC-COVID round 1 (truth from
  qrels.covid-complete.txt);
- eval: `reusesim eval --trec-eval 10` on trec_eval's test fixture with each argument set of
  its quicktest (the fixture's PROVENANCE.md).

Each job's stdout and stderr go to DIR/logs/, its wall and CPU time to DIR/timings.tsv; none is
compared, nor is a study's journal of finished units (`units.journal`, whose records come in
the order the threads finish them) and its lock.

Cost: about 7 minutes of CPU time, of which the main job takes 200 s and the TREC-COVID
backtest 166 s (about 2 and 1 minutes of wall time on 2 idle cores); the TREC-COVID study
15 s, each other job under 8 s. On 2 cores shared with a dozen other jobs (load 15) a snapshot
took 34 to 40 minutes of wall time.

`compare` compares every file of the two snapshots byte for byte, after blanking only what
legitimately varies from one run to the next:

- elapsed times: every `"elapsed_seconds": N` of a JSON file (summary.json, backtest.json, the
  audit's JSON reports), and every `elapsed: N s` of report.md and report.html;
- the version of reusesim: every `"reusesim": "X.Y.Z"` of summary.json's fingerprint, and,
  only when the two binaries' versions differ (DIR/version.txt), every `"sha256": "..."` line,
  the fingerprint's hash, which covers the version (the fingerprint's inputs and settings are
  still compared).

It prints each file that differs with its first differing line. It also checks each snapshot's
main-job figures against the repository's committed `figures/`, byte for byte. Exit status: 0
when everything is the same, 1 when the snapshots differ, 3 when they are the same but their
figures are not the committed ones, 2 on a usage error.
"""
import os
import re
import resource
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The held-out teams of the TREC-COVID study: six of the 56 with a pooled run keep its cost at
# 15 s of CPU time, where the whole seed's 57 trials take 214 s.
COVID_TEAMS = "sabir,GUIR_S2,CSIROmed,IRIT_markers,OHSU,UIowaS"

# An unpooled run of TREC-COVID round 1, audited alone.
COVID_UNPOOLED_RUN = "BBGhelani1"

STUDY_FLAGS = [
    "--seeds", "2", "--iterations", "20000", "--budget-fractions", "0.5,1",
    "--strategies", "hical,depth,mtf,bandit",
]

# trec_eval's quicktest: (expected output's name, arguments), files relative to the fixture.
QUICKTEST = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level",
                      "results.test"]),
    ("out.test.meas_params", [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test",
        "results.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test",
                      "results.test"]),
]

# Not outputs: the jobs' logs and times, and the links to the inputs (at the snapshot's top);
# a study's journal of finished units, whose records come in the order the threads finish them,
# and its lock (anywhere).
NOT_COMPARED = {"logs", "timings.tsv", "version.txt", "runs", "qrels", "data"}
NOT_COMPARED_ANYWHERE = {"units.journal", "units.journal.lock"}

ELAPSED = [
    (re.compile(rb'"elapsed_seconds": [-+0-9.eE]+'), b'"elapsed_seconds": ELAPSED'),
    (re.compile(rb"elapsed: [0-9.]+ s"), b"elapsed: ELAPSED s"),
]
VERSION = (re.compile(rb'"reusesim": "[^"]*"'), b'"reusesim": "VERSION"')
FINGERPRINT_HASH = (re.compile(rb'"sha256": "[0-9a-f]{64}"'), b'"sha256": "HASH"')


def data_dir():
    return os.path.abspath(os.environ.get("REUSESIM_DATA", os.path.join(REPO, "..", "shared",
                                                                        "data")))


def write_covid_task(dir_):
    """TREC-COVID round 1's task as tests/support/covid.rs writes it: pool depth 7, a team file
    made from the leaderboard (run, team, contributed judgments)."""
    os.makedirs(dir_)
    with open(os.path.join("data", "trec-covid", "leaderboards", "round1.leaderboard.csv")) as f:
        lines = f.read().splitlines()
    header = lines[0].split(",")
    columns = [header.index(name) for name in ("run", "team", "contributed judgments")]
    with open(os.path.join(dir_, "teams.tsv"), "w") as f:
        for line in lines[1:]:
            fields = line.split(",")
            f.write("\t".join(fields[c] for c in columns) + "\n")
    with open(os.path.join(dir_, "task.toml"), "w") as f:
        f.write('name = "trec-covid-round1"\nruns = "../data/trec-covid/round1/runs"\n'
                'teams = "teams.tsv"\nqrels = "../data/trec-covid/qrels/qrels.covid-round1.txt"\n'
                "pool_depth = 7\n")
    return os.path.join(dir_, "task.toml")


def jobs():
    """(name, arguments, file for stdout or None), in the order run."""
    covid = "covid/task.toml"
    embedded_runs = "runs/synth-passage/runs"
    fixture = "data/trec_eval-test-fixture"
    listed = []
    listed.append(("main-job", [], None))
    listed.append(("embedded-strategies",
                   ["simulate", *STUDY_FLAGS, "--out", "out/embedded-strategies"], None))
    listed.append(("embedded-completed",
                   ["simulate", *STUDY_FLAGS, "--assessor", "completed",
                    "--out", "out/embedded-completed"], None))
    listed.append(("covid-study",
                   ["simulate", "--task", covid, "--seeds", "1", "--iterations", "20000",
                    "--features", "runs", "--teams", COVID_TEAMS, "--out", "out/covid-study"],
                   None))
    listed.append(("audit-embedded-run",
                   ["audit", "--format", "json", "--run", f"{embedded_runs}/team03_run1"],
                   "out/audit-embedded-run.json"))
    listed.append(("audit-embedded-team",
                   ["audit", "--format", "json", "--risk-threshold", "0.05",
                    "--settle-threshold", "0",
                    "--run", f"{embedded_runs}/team01_run1",
                    "--run", f"{embedded_runs}/team01_run2",
                    "--emit-pool", "out/audit-embedded-team/pool.txt",
                    "--sheet", "out/audit-embedded-team/sheet.tsv"],
                   "out/audit-embedded-team/audit.json"))
    listed.append(("audit-covid",
                   ["audit", "--format", "json", "--study-seeds", "0", "--task", covid,
                    "--run", f"data/trec-covid/round1/runs/{COVID_UNPOOLED_RUN}.gz"],
                   "out/audit-covid.json"))
    listed.append(("backtest-embedded-classic",
                   ["backtest", "--out", "out/backtest-embedded-classic"], None))
    listed.append(("backtest-covid-deeper",
                   ["backtest", "--task", covid, "--world", "deeper", "--truth-qrels",
                    "data/trec-covid/qrels/qrels.covid-complete.txt",
                    "--out", "out/backtest-covid-deeper"], None))
    for expected, args in QUICKTEST:
        files = [f"{fixture}/{arg}" if os.path.isfile(f"{fixture}/{arg}") else arg
                 for arg in args]
        listed.append((f"eval-{expected}", ["eval", "--trec-eval", "10", *files],
                       f"out/eval/{expected}"))
    return listed


def children_cpu():
    """The CPU time, user and system, of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def snapshot(binary, out_dir):
    binary = os.path.abspath(binary)
    data = data_dir()
    if not os.path.isfile(binary):
        sys.exit(f"same-outputs: no binary {binary}")
    if not os.path.isdir(data):
        sys.exit(f"same-outputs: no data folder {data} (set REUSESIM_DATA)")
    if os.path.exists(out_dir) and os.listdir(out_dir):
        sys.exit(f"same-outputs: {out_dir} is not empty")
    os.makedirs(os.path.join(out_dir, "logs"), exist_ok=True)
    os.chdir(out_dir)
    os.symlink(os.path.join(REPO, "runs"), "runs")
    os.symlink(os.path.join(REPO, "qrels"), "qrels")
    os.symlink(data, "data")
    version = subprocess.run([binary, "--version"], check=True, capture_output=True).stdout
    with open("version.txt", "wb") as f:
        f.write(version)
    write_covid_task("covid")
    started = time.monotonic()
    with open("timings.tsv", "w") as timings:
        timings.write("job\twall_seconds\tcpu_seconds\n")
        for name, args, stdout_file in jobs():
            if stdout_file:
                os.makedirs(os.path.dirname(stdout_file), exist_ok=True)
            job_started, cpu_before = time.monotonic(), children_cpu()
            with open(stdout_file or f"logs/{name}.out", "wb") as out, \
                    open(f"logs/{name}.err", "wb") as err:
                status = subprocess.run([binary, *args], stdout=out, stderr=err).returncode
            seconds, cpu = time.monotonic() - job_started, children_cpu() - cpu_before
            timings.write(f"{name}\t{seconds:.1f}\t{cpu:.1f}\n")
            timings.flush()
            print(f"{name}: {seconds:.1f} s ({cpu:.1f} s of CPU)", flush=True)
            if status != 0:
                sys.exit(f"same-outputs: {name} failed with status {status}; see "
                         f"{os.path.join(out_dir, 'logs', name + '.err')}")
    print(f"snapshot of {version.decode().strip()} in {out_dir}: "
          f"{time.monotonic() - started:.1f} s")


def files_under(root):
    """Every regular file under `root` (links not followed), relative to it, outside
    NOT_COMPARED."""
    found = set()
    for dir_, dirs, files in os.walk(root):
        relative = os.path.relpath(dir_, root)
        if relative == ".":
            dirs[:] = [d for d in dirs if d not in NOT_COMPARED]
            files = [f for f in files if f not in NOT_COMPARED]
        for name in files:
            if name in NOT_COMPARED_ANYWHERE:
                continue
            path = os.path.join(dir_, name)
            if os.path.isfile(path) and not os.path.islink(path):
                found.add(os.path.normpath(os.path.join(relative, name)))
    return found


def blanked(data, rules):
    for pattern, replacement in rules:
        data = pattern.sub(replacement, data)
    return data


def first_difference(a, b):
    """A description of the first line where `a` and `b` differ."""
    lines_a, lines_b = a.split(b"\n"), b.split(b"\n")
    for number, (line_a, line_b) in enumerate(zip(lines_a, lines_b), start=1):
        if line_a != line_b:
            return (f"line {number}:\n    < {line_a[:200].decode(errors='replace')}\n"
                    f"    > {line_b[:200].decode(errors='replace')}")
    return f"one is longer ({len(lines_a)} against {len(lines_b)} lines)"


def compare_trees(root_a, root_b, rules, label):
    """The differences between the files of two folders, one line (or block) each."""
    files_a, files_b = files_under(root_a), files_under(root_b)
    differences = [f"{label}{path}: only in {root_a}" for path in sorted(files_a - files_b)]
    differences += [f"{label}{path}: only in {root_b}" for path in sorted(files_b - files_a)]
    for path in sorted(files_a & files_b):
        with open(os.path.join(root_a, path), "rb") as f:
            a = f.read()
        with open(os.path.join(root_b, path), "rb") as f:
            b = f.read()
        if a == b:
            continue
        a, b = blanked(a, rules), blanked(b, rules)
        if a == b:
            continue
        if b"\0" in a or b"\0" in b or path.endswith(".png"):
            differences.append(f"{label}{path}: binary files differ")
        else:
            differences.append(f"{label}{path}: {first_difference(a, b)}")
    return differences


def read_version(dir_):
    with open(os.path.join(dir_, "version.txt"), "rb") as f:
        return f.read().strip()


def compare(dir_a, dir_b):
    for dir_ in (dir_a, dir_b):
        if not os.path.isfile(os.path.join(dir_, "timings.tsv")):
            sys.exit(f"same-outputs: {dir_} is not a snapshot")
    rules = [*ELAPSED, VERSION]
    version_a, version_b = read_version(dir_a), read_version(dir_b)
    if version_a != version_b:
        print(f"versions differ ({version_a.decode()}, {version_b.decode()}): the "
              "fingerprint's hash is not compared")
        rules.append(FINGERPRINT_HASH)
    differences = compare_trees(dir_a, dir_b, rules, "")
    compared = len(files_under(dir_a) | files_under(dir_b))
    committed = os.path.join(REPO, "figures")
    stale = []
    for dir_ in (dir_a, dir_b):
        figures = os.path.join(dir_, "results", "synth-passage", "figures")
        if not os.path.isdir(figures):
            stale.append(f"{dir_}: no main-job figures")
            continue
        stale += compare_trees(committed, figures, [], f"committed figures/ against {dir_}: ")
    if differences:
        print("\n".join(differences))
        print(f"{len(differences)} differences in {compared} files")
    else:
        print(f"same outputs: {compared} files")
    if stale:
        print("\n".join(stale))
        print("the main job's figures are not the committed figures/")
    if differences:
        return 1
    return 3 if stale else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "snapshot":
        snapshot(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
