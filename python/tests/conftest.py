"""Shared fixtures and the suite's rule for inputs it does not hold: the repository's embedded
task, the reusesim binary, and the shared TREC data (``REUSESIM_DATA``, as the Rust suite
reads it).

A test that needs the shared data is marked ``needs_data``. Without ``REUSESIM_DATA`` such a
test is skipped, except under ``--ci`` (as ``python/ci.sh`` runs the suite), where a missing
input fails the test and any skipped test fails the run.
"""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def pytest_addoption(parser):
    parser.addoption(
        "--ci",
        action="store_true",
        help="fail, not skip, the tests whose inputs are missing (as python/ci.sh runs them)",
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_data: needs the shared TREC data (REUSESIM_DATA)")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("REUSESIM_DATA") or config.getoption("--ci"):
        return
    skip = pytest.mark.skip(reason="needs REUSESIM_DATA (the shared TREC data folder)")
    for item in items:
        if item.get_closest_marker("needs_data") is not None:
            item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under ``--ci`` a skipped test is a failed one: CI runs every test."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and item.config.getoption("--ci"):
        report.outcome = "failed"
        report.longrepr = f"skipped under --ci, where every test must run: {report.longrepr}"


@pytest.fixture
def default_task_path() -> Path:
    """The embedded default task, ``runs/synth-passage/task.toml``."""
    return REPO / "runs" / "synth-passage" / "task.toml"


@pytest.fixture
def data(request) -> Path:
    """The shared data folder. Only for tests marked ``needs_data``; fails when
    ``REUSESIM_DATA`` is unset or names no folder."""
    if request.node.get_closest_marker("needs_data") is None:
        pytest.fail("a test that reads the shared data must be marked needs_data")
    folder = os.environ.get("REUSESIM_DATA")
    if not folder:
        pytest.fail("needs REUSESIM_DATA (the shared TREC data folder)")
    if not Path(folder).is_dir():
        pytest.fail(f"REUSESIM_DATA={folder} is not a folder")
    return Path(folder)


@pytest.fixture
def fixture_dir(data: Path) -> Path:
    """trec_eval's own test fixture."""
    folder = data / "trec_eval-test-fixture"
    if not folder.is_dir():
        pytest.fail(f"{folder} is missing from REUSESIM_DATA")
    return folder


@pytest.fixture(scope="session")
def cli() -> Path:
    """The reusesim binary (``REUSESIM_BIN``, else the release build of this checkout); a
    missing binary fails the test."""
    binary = Path(os.environ.get("REUSESIM_BIN", REPO / "target" / "release" / "reusesim"))
    if not binary.exists():
        pytest.fail(f"needs the reusesim binary at {binary} (cargo build --release)")
    return binary
