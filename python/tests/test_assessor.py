"""The simulated assessor from Python: `simulate(..., assessor=)`, `judge(..., assessor=)` and
`complete()` give what the command line writes."""

import subprocess

import pandas as pd
import pytest

import reusesim
from conftest import REPO

FAST = {"iterations": 2000, "progress": False}


def test_a_completed_study_writes_the_command_lines_files(cli, default_task_path, tmp_path):
    team = reusesim.Task.load(default_task_path).runs["team"].iloc[0]
    subprocess.run(
        [str(cli), "simulate", "--task", str(default_task_path), "--seeds", "1", "--iterations", "2000",
         "--teams", team, "--strategies", "hical,mtf", "--assessor", "completed",
         "--out", str(tmp_path / "cli")],
        check=True, capture_output=True, cwd=REPO,
    )
    result = reusesim.simulate(default_task_path, seeds=1, teams=[team], strategies=["hical", "mtf"],
                               assessor="completed", out_dir=tmp_path / "py", **FAST)
    for name in ("trials.tsv", "strategies.tsv", "runs.tsv"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert result.summary["assessor"]["name"] == "completed"
    assert result.summary["assessor"]["drawn"] > 0
    # The agreement with the official qrels, as summary.json holds it (tests/cli/assessor.rs
    # checks its figures against `reusesim agree`).
    agreement = result.summary["assessor"]["agreement"]
    assert [seed["seed"] for seed in agreement["seeds"]] == [1]
    assert agreement["seeds"][0]["grades"]["only_assessor"] > 0
    assert set(agreement["over_seeds"]["measures"]) == set(result.summary["measures"])
    assert {"control_assessor_tau_b", "control_assessor_recall", "file_share", "drawn_share"} <= set(
        result.strategies.columns)
    assert {"assessor_tau_b", "assessor_tau_ap", "assessor_recall"} <= set(result.trials.columns)


def test_the_official_assessor_adds_nothing(default_task_path, tmp_path):
    result = reusesim.simulate(default_task_path, seeds=1, teams=[], assessor="official", out_dir=tmp_path, **FAST)
    assert "assessor" not in result.summary
    assert "assessor_tau_b" not in result.trials.columns


def test_complete_gives_the_command_lines_completed_qrels(cli, default_task_path, tmp_path):
    out = tmp_path / "completed.qrels"
    subprocess.run([str(cli), "complete", "--task", str(default_task_path), "--seed", "3", "--out", str(out)],
                   check=True, capture_output=True, cwd=REPO)
    written = pd.read_csv(out, sep=" ", header=None, names=["query_id", "q0", "doc_id", "relevance"],
                          dtype={"query_id": str, "doc_id": str})
    frame = reusesim.complete(default_task_path, seed=3)
    assert frame[["query_id", "doc_id", "relevance"]].values.tolist() == written[
        ["query_id", "doc_id", "relevance"]].values.tolist()
    official = reusesim.Task.load(default_task_path).qrels
    official_rows = frame[frame["source"] == "official"]
    assert len(official_rows) == len(official)
    assert set(frame["source"]) == {"official", "drawn"}
    assert not reusesim.complete(default_task_path, seed=4).equals(frame)


def test_judge_with_a_fuller_file_marks_where_grades_came_from(default_task_path):
    truth = REPO / "qrels" / "synth-passage.truth.qrels"
    judging = reusesim.judge(default_task_path, seed=1, assessor=str(truth), **FAST)
    sources = set(judging.trace["source"])
    assert sources <= {"official", "file", "presumed"}
    assert "file" in sources
    truth_grades = pd.read_csv(truth, sep=" ", header=None, names=["topic", "q0", "docid", "grade"],
                               dtype={"topic": str, "docid": str})
    from_file = judging.trace[judging.trace["source"] == "file"].merge(truth_grades, on=["topic", "docid"])
    assert (from_file["grade_x"] == from_file["grade_y"]).all()


def test_a_malformed_assessor_file_raises_value_error_naming_file_and_line(default_task_path, tmp_path):
    bad = tmp_path / "bad.qrels"
    bad.write_text("110661 0 d1 1\n110661 0 d2 high\n")
    with pytest.raises(ValueError, match=r"bad\.qrels:2"):
        reusesim.judge(default_task_path, seed=1, assessor=str(bad), **FAST)
