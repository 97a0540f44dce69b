//! The study's result files, one home for each: its column list, its writer and its single
//! reader sit together, so `simulate` writes, and `plot` and `audit` read, the same columns.
//!
//! - `runs.tsv` ([`RunRow`]), `lou.tsv` ([`LouRow`]), `trials.tsv` ([`TrialRow`]),
//!   `heldout.tsv` ([`HeldOutRow`]), `ranks.tsv` ([`RankRow`]): tables, found by their header names on reading, so a file
//!   with extra columns still reads;
//! - `summary.json`: written by serde from [`super::StudySummary`]; [`StudyResults::read`] takes
//!   back the few fields the figures need;
//! - with kept qrels: each trial's simulated qrels ([`to_qrels`]) and trace ([`write_traces`]).
//!
//! Every problem found on reading is reported with the file and line it was found on.

mod kept;
mod results;
mod rows;
mod tsv;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::base::error::Result;
use crate::io::atomic::write_atomically;

pub use kept::{to_qrels, write_traces};
pub use results::StudyResults;
pub use rows::{HeldOutRow, LouRow, RankRow, RunRow, TrialRow, CONTROL};
pub use tsv::Fields;

use results::unnumbered;
use tsv::read_tsv;

/// A row of one of the study's tables.
pub trait TableRow: Sized {
    /// The file name.
    const FILE: &'static str;
    /// The columns, in file order.
    const COLUMNS: &'static [&'static str];
    /// The fields, in [`Self::COLUMNS`] order, as written.
    fn fields(&self) -> Vec<String>;
    /// Reads a row from its fields, found by column name.
    ///
    /// # Errors
    /// A [`ParseError`] naming the file, line and column of a bad field.
    fn parse(row: &Fields) -> Result<Self>;
}

/// Writes `rows` as the table `T::FILE` in `dir`, atomically.
///
/// # Errors
/// When the file cannot be written.
pub fn write_table<T: TableRow>(dir: &Path, rows: &[T]) -> Result<()> {
    write_atomically(&dir.join(T::FILE), |out| {
        writeln!(out, "{}", T::COLUMNS.join("\t"))?;
        for row in rows {
            writeln!(out, "{}", row.fields().join("\t"))?;
        }
        Ok(())
    })
}

/// Reads the table `T::FILE` from `dir`.
///
/// # Errors
/// A [`ParseError`] naming the file (and line) when it is missing or malformed.
pub fn read_table<T: TableRow>(dir: &Path) -> Result<Vec<T>> {
    Ok(unnumbered(read_numbered_table(dir)?))
}

/// Reads the table `T::FILE` from `dir`, each row with its line number.
///
/// # Errors
/// As [`read_table`].
pub(super) fn read_numbered_table<T: TableRow>(dir: &Path) -> Result<Vec<(usize, T)>> {
    read_tsv(&dir.join(T::FILE), T::COLUMNS, T::parse)
}
