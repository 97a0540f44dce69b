//! What every measure takes and gives, below the measure files as trec_eval's `trec_eval.h`
//! sits under its `m_*.c` files: the arguments a measure reads besides the judged ranking,
//! and the shape of a per-topic measure function.

use crate::base::Grade;
use crate::eval::params::{TrecEvalVersion, TrecParams};
use crate::eval::ranking::JudgedRanking;

/// What a measure function reads besides the judged ranking.
#[derive(Debug, Clone, Copy)]
pub struct MeasureArgs {
    /// The cutoff k, if any.
    pub cutoff: Option<usize>,
    /// A grade >= this is relevant.
    pub relevance_level: Grade,
    /// RBP's persistence p (the ir_measures RBP families only).
    pub persistence: f64,
    /// trec_eval's parameters after the dot; `None` gives the family's defaults.
    pub params: Option<TrecParams>,
    /// The trec_eval release whose arithmetic to follow where releases differ.
    pub version: TrecEvalVersion,
    /// The number of documents in the collection (trec_eval's `-N`; 0 unless given).
    pub documents_in_collection: usize,
}

/// A per-topic measure function.
pub type MeasureFn = fn(&JudgedRanking, &MeasureArgs) -> f64;
