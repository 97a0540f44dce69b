//! `assessors.tsv`: a study of several assessors on the same seeds (`--assessor
//! official,FILE,hybrid:FILE`), side by side: per assessor and measure, the reusability
//! figures of its own study (paired tau_b, the held-out runs' paired rank change, and the
//! control's significant pairs a held-out trial keeps, loses or reverses).

use serde::{Deserialize, Serialize};

use super::table::TableRow;

/// One assessor's figures by one measure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssessorRow {
    /// The assessor as given (`official`, a file's path, `hybrid:FILE`, `completed`).
    pub assessor: String,
    /// The sub-folder holding its study.
    pub folder: String,
    /// The measure.
    pub measure: String,
    /// The held-out trials' mean paired tau_b against their seed's control.
    pub paired_tau_b: Option<f64>,
    /// Its smallest value.
    pub paired_tau_b_min: Option<f64>,
    /// The held-out runs' mean paired rank change (a positive change is a drop).
    pub rank_change_mean: Option<f64>,
    /// Its largest value.
    pub rank_change_max: Option<f64>,
    /// The controls' significant pairs, summed over the held-out trials.
    pub significant: Option<usize>,
    /// Of those, kept (significant in the same direction) by the held-out trial.
    pub kept: Option<usize>,
    /// Lost (not significant).
    pub lost: Option<usize>,
    /// Reversed (significant the other way).
    pub reversed: Option<usize>,
}

impl TableRow for AssessorRow {
    const FILE: &'static str = "assessors.tsv";
}
