"""`simulate(..., budget_fractions=...)`: the budget curve's table as the command line writes it."""

import subprocess

import pandas as pd
import pytest

import reusesim
from conftest import REPO

FAST = {"iterations": 2000, "progress": False}

COUNTS = ["kept", "lost", "reversed", "new"]
BUDGET_COLUMNS = [
    "fraction", "seed", "held_out", "measure", "tau_b", "tau_ap", "paired_tau_b", "recall", "overlap",
    "significant",
] + [f"{reference}_{count}" for reference in ["official", "paired", "held_out", "full", "truth"]
     for count in COUNTS]


def test_budget_fractions_give_the_budget_table_of_the_command_line(cli, default_task_path, tmp_path):
    team = reusesim.Task.load(default_task_path).runs["team"].iloc[0]
    subprocess.run(
        [str(cli), "simulate", "--task", str(default_task_path), "--seeds", "1", "--iterations", "2000",
         "--teams", team, "--budget-fractions", "0.5,1", "--out", str(tmp_path / "cli")],
        check=True, capture_output=True, cwd=REPO,
    )
    result = reusesim.simulate(default_task_path, seeds=1, teams=[team], budget_fractions=[1, 0.5],
                               out_dir=tmp_path / "py", **FAST)
    assert (tmp_path / "py" / "budget.tsv").read_bytes() == (tmp_path / "cli" / "budget.tsv").read_bytes()
    assert isinstance(result.budget, pd.DataFrame)
    assert list(result.budget.columns) == BUDGET_COLUMNS
    assert sorted(set(result.budget["fraction"])) == [0.5, 1.0]
    # At the whole budget the curve is the study itself.
    whole = result.budget[result.budget["fraction"] == 1].reset_index(drop=True)
    for column in ["seed", "held_out", "measure", "tau_b", "tau_ap", "paired_tau_b", "recall", "overlap"]:
        pd.testing.assert_series_equal(whole[column], result.trials[column], check_names=False)
    points = result.summary["budget"]["measures"]["map"]["points"]
    assert [point["fraction"] for point in points] == [0.5, 1.0]
    assert points[-1]["control"] == result.summary["measures"]["map"]["control"]


def test_a_study_without_fractions_has_no_budget_table(default_task_path, tmp_path):
    team = reusesim.Task.load(default_task_path).runs["team"].iloc[0]
    result = reusesim.simulate(default_task_path, seeds=1, teams=[team], out_dir=tmp_path, **FAST)
    assert result.budget is None
    assert "budget" not in result.summary


def test_budget_fractions_above_one_raise_value_error(default_task_path):
    with pytest.raises(ValueError, match="budget fraction 1.5 is above 1"):
        reusesim.simulate(default_task_path, seeds=1, budget_fractions=[0.5, 1.5], **FAST)
