#!/usr/bin/env bash
# CI for the Python package, run after the Rust suite (from .ci/run or by hand, from any
# folder): formatting and lints of the binding crate, then the pytest suite in a fresh virtual
# environment with the package installed from this checkout (`pip install ./python`). Needs
# Python >= 3.9 and the package index (maturin, pytest, pandas, ir_measures, tqdm).
# REUSESIM_DATA (the shared TREC data) enables the ir_measures parity tests on trec_eval's
# fixture; the CLI comparisons use the release binary that `cargo test --release` builds.
set -euo pipefail
python_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$python_dir")"
cd "$python_dir"
# Share the root build's compiled dependencies (same release profile).
export CARGO_TARGET_DIR="$repo/target"
cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo build --release --manifest-path "$repo/Cargo.toml" --bin reusesim
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
"$venv/bin/pip" install --quiet maturin pytest pandas ir_measures tqdm
"$venv/bin/pip" install --quiet "$python_dir"
export REUSESIM_BIN="$repo/target/release/reusesim"
# Run from outside the source folder so that the installed package is the one imported.
cd "$python_dir/tests"
"$venv/bin/python" -m pytest -q "$python_dir/tests"
