"""`simulate(..., significance=..., alpha=...)`: the study's comparisons by significance, as the
command line writes them."""

import re
import subprocess

import pytest

import reusesim
from conftest import REPO

FAST = {"iterations": 2000, "progress": False}


def test_the_significance_settings_reach_the_tables_and_summary(cli, default_task_path, tmp_path):
    team = reusesim.Task.load(default_task_path).runs["team"].iloc[0]
    subprocess.run(
        [str(cli), "simulate", "--task", str(default_task_path), "--seeds", "1", "--iterations", "2000",
         "--teams", team, "--significance", "wilcoxon,bh", "--alpha", "0.01", "--out", str(tmp_path / "cli")],
        check=True, capture_output=True, cwd=REPO,
    )
    result = reusesim.simulate(default_task_path, seeds=1, teams=[team], significance="wilcoxon,bh",
                               alpha=0.01, out_dir=tmp_path / "py", **FAST)
    assert (tmp_path / "py" / "trials.tsv").read_bytes() == (tmp_path / "cli" / "trials.tsv").read_bytes()
    settings = result.summary["settings"]["significance"]
    assert (settings["test"], settings["correction"], settings["alpha"]) == ("wilcoxon", "bh", 0.01)
    # The held-out trial against its control: its four counts are the pairs significant on
    # either side, and the control's paired counts are not available.
    trials = result.trials
    held_out = trials[trials["held_out"] == team]
    control = trials[trials["held_out"] == "control"]
    assert control["paired_kept"].isna().all()
    for _, row in held_out.iterrows():
        own = row["paired_kept"] + row["paired_reversed"] + row["paired_new"]
        assert own == row["significant"]
    block = result.summary["measures"]["map"]["significance"]
    assert block["paired"]["kept"] == held_out[held_out["measure"] == "map"]["paired_kept"].sum()
    assert 0 <= block["discriminative_power"]["official"] <= 1


@pytest.mark.parametrize("keywords, message", [
    ({"significance": "t,fdr"}, 'expected significance to be TEST[,CORRECTION] with TEST one of t'),
    ({"significance": "tukey,holm"}, "corrects for all pairs itself"),
    ({"alpha": 1.5}, "expected alpha between 0 and 1"),
])
def test_bad_significance_settings_raise_value_error(default_task_path, keywords, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        reusesim.simulate(default_task_path, seeds=1, **keywords, **FAST)
