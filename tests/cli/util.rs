//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The built binary, ready to take arguments.
pub fn reusesim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_reusesim"))
}

/// Runs the binary with `args` and returns its output.
pub fn run<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    reusesim().args(args).output().expect("the binary runs")
}

/// The binary's standard output of a successful run, or a panic showing its stderr.
pub fn stdout_of<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let output = run(args);
    assert!(
        output.status.success(),
        "reusesim failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8 output")
}

/// A file of the shared TREC data, or `None` (with a message) when `REUSESIM_DATA` is unset.
///
/// # Panics
/// When `REUSESIM_DATA` is set and the file is missing: CI must not skip silently.
pub fn data_file(relative: &str) -> Option<PathBuf> {
    let Some(root) = std::env::var_os("REUSESIM_DATA") else {
        eprintln!("skipped: REUSESIM_DATA is unset, so {relative} is not available");
        return None;
    };
    let path = Path::new(&root).join(relative);
    assert!(
        path.exists(),
        "REUSESIM_DATA is set but {} is missing",
        path.display()
    );
    Some(path)
}

/// Parses `measure<TAB>topic<TAB>value` lines (trec_eval's layout) into triples.
pub fn parse_trec_lines(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let name = fields.next()?.trim().to_string();
            let topic = fields.next()?.trim().to_string();
            let value = fields.next()?.trim().to_string();
            Some((name, topic, value))
        })
        .collect()
}
