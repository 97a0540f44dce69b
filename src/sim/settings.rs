//! What a study does: its seeds, measures, held-out teams, judge, budget and whether it keeps the
//! simulated qrels. The plain settings type sits below everything that reads it (the study's
//! plan, its fingerprint, its shards), so that those import in one direction only.

use crate::eval::Measure;
use crate::judge::settings::JudgeSettings;

/// What the study does.
#[derive(Debug, Clone, PartialEq)]
pub struct StudySettings {
    /// Seeds 1..=seeds.
    pub seeds: u64,
    /// The measures to compare rankings on.
    pub measures: Vec<Measure>,
    /// The teams to hold out (default: every team with a pooled run).
    pub teams: Option<Vec<String>>,
    /// The judge (its seed is replaced by each trial's).
    pub judge: JudgeSettings,
    /// A fixed number of judgments per topic instead of the official count.
    pub budget: Option<usize>,
    /// Keep every trial's simulated qrels and trace in the outcome.
    pub keep_qrels: bool,
}
