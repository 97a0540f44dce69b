//! The audit of claims: "the audited run is significantly better than the baseline by this
//! measure". For each audited run, baseline (`--against`) and measure, the collection's
//! difference and p-value (the test and correction of `--significance`, corrected over the
//! run's claims of one measure), and over the audit's own Monte-Carlo samples, both runs'
//! per-topic scores moving with the run's unjudged documents, the expected difference, its
//! 90% range and the probabilities that the difference is significant as claimed, reversed or
//! not significant; a verdict per claim, and the documents whose judgments settle the unsettled
//! claims, which join the merged list. The rules are in `docs/audit.md` (Claims).

pub mod baselines;
pub mod chosen;
pub(super) mod list;
pub mod render;
pub(super) mod sampled;
pub mod summary;

pub use baselines::{add_baseline_run, resolve_against, Baseline, ClaimSettings};
pub use chosen::ChosenClaims;
pub use summary::{summarize, ClaimScores, ClaimSummary, ClaimVerdict};
