//! The study's result files, one home for each: its row struct, whose fields are its columns,
//! is written and read with the `csv` crate, so `simulate` writes, and `plot` and `audit` read,
//! the same columns.
//!
//! - `runs.tsv` ([`RunRow`]), `lou.tsv` ([`LouRow`]), `trials.tsv` ([`TrialRow`]),
//!   `heldout.tsv` ([`HeldOutRow`]), `ranks.tsv` ([`RankRow`]): tables, found by their header
//!   names on reading, so a file with extra columns still reads;
//! - `budget.tsv` ([`BudgetRow`]), with a budget curve: every trial at every budget fraction;
//! - `strategies.tsv` ([`StrategyRow`]), with a comparison of judging strategies: each
//!   strategy at each budget fraction;
//! - `summary.json`: written by serde from [`super::StudySummary`]; [`StudyResults::read`] takes
//!   back the few fields the figures need;
//! - with kept qrels: each trial's simulated qrels ([`to_qrels`]) and trace ([`write_traces`]).
//!
//! Every problem found on reading is reported with the file and line it was found on.

mod budget;
mod domains;
mod kept;
mod results;
mod rows;
mod strategies;
mod table;

#[cfg(test)]
mod tests;

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::base::error::Result;
use crate::io::atomic::write_atomically;

pub use budget::BudgetRow;
pub use domains::CONTROL;
pub use kept::{to_qrels, write_traces};
pub use results::StudyResults;
pub use rows::{HeldOutRecord, HeldOutRow, LouRow, RankRow, RunRecord, RunRow, TrialRow};
pub use strategies::StrategyRow;

use results::unnumbered;

use crate::stats::pair_changes::PairChanges;

/// The four counts of `changes` as columns (kept, lost, reversed, new), `NA` without them.
pub fn counts(changes: Option<PairChanges>) -> [Option<usize>; 4] {
    match changes {
        Some(changes) => [changes.kept, changes.lost, changes.reversed, changes.new].map(Some),
        None => [None; 4],
    }
}

/// A row of one of the study's tables: its fields, as serde writes and reads them, are the
/// file's columns.
pub trait TableRow: Serialize + DeserializeOwned {
    /// The file name.
    const FILE: &'static str;
    /// The columns written only when the study's assessor is not the official one (see
    /// docs/assessor.md): a file without them still reads.
    const ASSESSOR_COLUMNS: &'static [&'static str] = &[];
}

/// Writes `rows` as the table `T::FILE` in `dir`, atomically.
///
/// # Errors
/// When the file cannot be written.
pub fn write_table<T: TableRow>(dir: &Path, rows: &[T]) -> Result<()> {
    write_atomically(&dir.join(T::FILE), |out| {
        table::write_records(out, rows, T::ASSESSOR_COLUMNS)
    })
}

/// Reads the table `T::FILE` from `dir`.
///
/// # Errors
/// A [`ParseError`](crate::base::error::ParseError) naming the file (and line and column) when
/// it is missing or malformed.
pub fn read_table<T: TableRow>(dir: &Path) -> Result<Vec<T>> {
    Ok(unnumbered(read_numbered_table(dir)?))
}

/// Reads the table `T::FILE` from `dir`, each row with its line number.
///
/// # Errors
/// As [`read_table`].
pub(super) fn read_numbered_table<T: TableRow>(dir: &Path) -> Result<Vec<(usize, T)>> {
    table::read_records(&dir.join(T::FILE), T::ASSESSOR_COLUMNS)
}
