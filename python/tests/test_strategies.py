"""`simulate(..., strategies=[...])`: the comparison of judging strategies as the command line writes it."""

import re
import subprocess

import pytest

import reusesim
from conftest import REPO

FAST = {"iterations": 2000, "progress": False}


def test_strategies_give_the_strategies_table_of_the_command_line(cli, default_task_path, tmp_path):
    team = reusesim.Task.load(default_task_path).runs["team"].iloc[0]
    subprocess.run(
        [str(cli), "simulate", "--task", str(default_task_path), "--seeds", "1", "--iterations", "2000",
         "--teams", team, "--budget-fractions", "0.5,1", "--strategies", "hical,depth,mtf,bandit",
         "--out", str(tmp_path / "cli")],
        check=True, capture_output=True, cwd=REPO,
    )
    result = reusesim.simulate(default_task_path, seeds=1, teams=[team], budget_fractions=[0.5, 1],
                               strategies=["hical", "depth", "mtf", "bandit"], out_dir=tmp_path / "py", **FAST)
    cli_table = (tmp_path / "cli" / "strategies.tsv").read_bytes()
    assert (tmp_path / "py" / "strategies.tsv").read_bytes() == cli_table
    assert list(result.strategies["strategy"].unique()) == ["hical", "depth", "mtf", "bandit"]
    assert sorted(result.summary["strategies"]["measures"]) == sorted(result.summary["measures"])


def test_a_study_without_strategies_has_no_strategies_table(default_task_path, tmp_path):
    result = reusesim.simulate(default_task_path, seeds=1, out_dir=tmp_path, **FAST)
    assert result.strategies is None
    assert "strategies" not in result.summary


def test_an_unknown_strategy_raises_value_error(default_task_path):
    with pytest.raises(ValueError, match=re.escape('expected strategies to be one of hical, depth, mtf, bandit, found "pool"')):
        reusesim.simulate(default_task_path, seeds=1, strategies=["pool"], **FAST)
