//! The jobs: what each command does, below both front ends. A job owns its options with their
//! defaults (a serde struct, so that every front end reads the same defaults), their
//! validation into the library's settings types, and its sequence of library calls. The
//! command line (`src/cli/`, `src/commands.rs`) and the Python package (`python/src/`) only
//! translate their arguments into a job's options and present its result; neither calls the
//! library below a job.
//!
//! - [`task`]: the task a job runs on (the embedded default, a feature store);
//! - [`eval`], [`compare`], [`agree`], [`simulate`] (with its shards and their merge), [`judge`], [`complete`],
//!   [`index`], [`synth`], [`plot`], [`audit`], [`backtest`]: one job each;
//! - [`options`]: options given as JSON (how Python passes its keywords), and every job's
//!   defaults.

pub mod agree;
pub mod audit;
pub mod backtest;
pub mod compare;
pub mod complete;
pub mod eval;
pub mod index;
pub mod judge;
pub mod options;
pub mod plot;
pub mod simulate;
pub mod synth;
pub mod task;
