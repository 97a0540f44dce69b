//! The study's result files, one home for each: its row struct, whose fields are its columns,
//! is written and read with the `csv` crate, so `simulate` writes, and `plot` and `audit` read,
//! the same columns. The wide rows (`trials.tsv`, `budget.tsv`, `strategies.tsv`) hold a group
//! of four columns per reference their significant pairs are compared with ([`Counts`],
//! declared by [`wide`]'s macro).
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

mod assessors;
mod budget;
mod domains;
mod kept;
mod results;
mod rows;
mod strategies;
mod table;
mod wide;

#[cfg(test)]
mod tests;

pub use assessors::AssessorRow;
pub use budget::BudgetRow;
pub use domains::CONTROL;
pub use kept::{to_qrels, write_traces, TraceColumns};
pub use results::StudyResults;
pub use rows::{HeldOutRecord, HeldOutRow, LouRow, RankRow, RunRecord, RunRow, TrialRow};
pub use strategies::StrategyRow;
pub use table::{read_table, write_table, TableRow};
pub use wide::Counts;
