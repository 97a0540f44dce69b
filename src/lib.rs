//! reusesim: is a test collection built by pooling plus active-learning judging reusable?
//!
//! The library reads TREC runs and qrels, scores runs exactly as trec_eval does, replays a
//! HiCAL-like judging process with and without each team, and compares how runs rank.
#![warn(missing_docs)]

pub mod audit;
pub mod backtest;
pub mod base;
pub mod collection;
pub mod eval;
pub mod features;
pub mod io;
pub mod jobs;
pub mod judge;
pub mod relevance_model;
pub mod report;
pub mod sim;
pub mod stats;
pub mod synth;

pub use base::error::{Error, LearnerError, ParseError, ParseErrorKind, Result, Warning};
