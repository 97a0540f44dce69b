//! The result tables' rows a report reads beside its summary.

use crate::sim::analysis::{RankRow, RunRow, StrategyRow};

/// The rows of the tables a report reads beside its summary.
#[derive(Debug, Clone, Copy)]
pub struct ReportRows<'r> {
    /// Rows of `runs.tsv`.
    pub runs: &'r [RunRow],
    /// Rows of `ranks.tsv`.
    pub ranks: &'r [RankRow],
    /// Rows of `strategies.tsv` (none without a comparison of strategies).
    pub strategies: &'r [StrategyRow],
}
