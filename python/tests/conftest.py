"""Shared fixtures: the repository's embedded task and the shared TREC data (``REUSESIM_DATA``,
as the Rust suite reads it: tests that need it are skipped when it is unset)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def default_task_path() -> Path:
    """The embedded default task, ``runs/synth-passage/task.toml``."""
    return REPO / "runs" / "synth-passage" / "task.toml"


@pytest.fixture
def data() -> Path:
    """The shared data folder; skips the test when ``REUSESIM_DATA`` is unset."""
    folder = os.environ.get("REUSESIM_DATA")
    if not folder:
        pytest.skip("needs REUSESIM_DATA (the shared TREC data folder)")
    return Path(folder)


@pytest.fixture
def fixture_dir(data: Path) -> Path:
    """trec_eval's own test fixture."""
    return data / "trec_eval-test-fixture"
