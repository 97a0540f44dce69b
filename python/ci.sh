#!/usr/bin/env bash
# CI for the Python package, run after the Rust suite (from .ci/run or by hand, from any
# folder): formatting, lints and unit tests of the binding crate, then the pytest suite in a
# fresh virtual environment with the package installed from this checkout (`pip install ./python`). Needs
# Python >= 3.11 and the package index: the tools and the reference packages (ir_measures,
# pytrec_eval) are pinned in tests/requirements.txt to the versions the tests were checked
# against. Needs REUSESIM_DATA (the shared TREC data) for the ir_measures parity tests on
# trec_eval's fixture: pytest runs with --ci, so a missing input, or any skipped test, fails
# the run. The CLI comparisons use the release binary built here.
set -euo pipefail
python_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$python_dir")"
cd "$python_dir"
# Share the root build's compiled dependencies (same release profile), in the root's target
# folder unless CARGO_TARGET_DIR names another.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
cargo fmt --check
cargo clippy --all-targets -- -D warnings
# The binding's own unit tests (the mapping of library errors to exception classes), run
# against the interpreter that builds the package.
cargo test --release
# The binary the root's `cargo test --release` built (its dev-dependencies unify features of
# shared crates, so a plain `cargo build --bin` would compile the crate again); after that
# suite this only checks that it is up to date.
cargo test --release --manifest-path "$repo/Cargo.toml" --no-run
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
"$venv/bin/pip" install --quiet --requirement "$python_dir/tests/requirements.txt"
"$venv/bin/pip" install --quiet "$python_dir"
export REUSESIM_BIN="$CARGO_TARGET_DIR/release/reusesim"
# Run from outside the source folder so that the installed package is the one imported.
cd "$python_dir/tests"
"$venv/bin/python" -m pytest -q --ci "$python_dir/tests"
