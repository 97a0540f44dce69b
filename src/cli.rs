//! The command line, declared with clap derive: one subcommand per job. Each command's
//! arguments translate into the job's options (`reusesim::jobs`), whose defaults they show;
//! the arguments every job shares (the task, the threads, the output folder) are groups
//! flattened into each command.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};
use reusesim::base::choice::Choice;
use reusesim::io::task::Task;

mod agree;
mod audit;
mod compare;
mod eval;
mod study;
mod tools;

pub use agree::AgreeArgs;
pub use audit::{AuditArgs, AuditFormat, BacktestArgs};
pub use compare::CompareArgs;
pub use eval::EvalArgs;
pub use study::{CompleteArgs, JudgeCommandArgs, MergeArgs, SimulateArgs};
pub use tools::{IndexArgs, PlotArgs, SynthArgs};

/// A value parser for a library setting with named variants: clap lists and checks the names,
/// the library owns them.
fn choice<T: Choice + Clone + Send + Sync>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::ALL.iter().map(|variant| variant.name()))
        .map(|name| T::from_name(&name).expect("clap accepts only the listed names"))
}

/// Tests whether IR test collections built by pooling plus active-learning judging are reusable.
#[derive(Debug, Parser)]
#[command(name = "reusesim", version, about, long_about = None)]
pub struct Cli {
    /// The job to do.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The jobs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Score runs against qrels exactly as trec_eval does.
    Eval(EvalArgs),
    /// Test whether runs scored on one qrels differ significantly, every pair or every run
    /// against a baseline, measure by measure.
    Compare(CompareArgs),
    /// How far two qrels agree: on the grades of the pairs both grade (Cohen's kappa,
    /// Krippendorff's alpha), topic by topic, and, given runs, on the leaderboards they give.
    Agree(AgreeArgs),
    /// List the measures `eval` knows, with both spellings.
    Measures,
    /// The leave-team-out study (the default job): replay the judging with and without each
    /// team over seeded trials, score every run on every trial, compare rankings.
    Simulate(SimulateArgs),
    /// Compute a study's statistics, reports and figures from the N finished shards of
    /// `simulate --shard I/N` in DIR/shards/ (the same files one `simulate` run writes).
    Merge(MergeArgs),
    /// Generate a synthetic task whose complete truth is known (corpus, topics, teams, runs,
    /// truth and official qrels made by pool plus CAL).
    Synth(SynthArgs),
    /// Draw a study's figures (rank change, tau_b per held-out team, official vs LOU scores,
    /// rankings vs the truth) from a results folder written by `simulate`.
    Plot(PlotArgs),
    /// Replay the judging of a task once (pool, then HiCAL-like CAL) and write the trace and
    /// the simulated qrels.
    Judge(JudgeCommandArgs),
    /// Write one seed's completed qrels: the official qrels, completed by grades drawn from the
    /// calibrated relevance model for every document a run retrieved that they never judged
    /// (what `--assessor completed` grades with).
    Complete(CompleteArgs),
    /// Write a corpus's feature store: every document's HiCAL vector, memory-mapped by every
    /// command that names it (`feature_store` in task.toml, or `--feature-store`).
    Index(IndexArgs),
    /// Audit a new run: how much of its top is judged, its score and rank intervals, and which
    /// documents to judge so the collection scores it fairly.
    Audit(AuditArgs),
    /// Measure how far the audit can be trusted on a task: leave each pooled team out, audit
    /// its runs as new runs, and compare with the truth (the collection completed for each run
    /// with the official grades), beside the published corrections.
    Backtest(BacktestArgs),
}

/// The task a job runs on.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TaskArgs {
    /// The task manifest (default: the embedded task runs/synth-passage/task.toml).
    #[arg(long, value_name = "TASK")]
    pub task: Option<PathBuf>,
    /// The corpus's feature store (written by `reusesim index`), read in place of the corpus
    /// (default: the task's `feature_store`, if any).
    #[arg(long, value_name = "STORE")]
    pub feature_store: Option<PathBuf>,
}

impl TaskArgs {
    /// Opens the task.
    pub fn open(&self) -> reusesim::Result<Task> {
        reusesim::jobs::task::open_task(self.task.as_deref(), self.feature_store.as_deref())
    }
}

/// The worker threads of a job.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct ThreadsArgs {
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// The output folder of a job that writes several files.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct OutDirArgs {
    /// Output folder (default: results/<task name> for a study, results/<task
    /// name>/backtest-<world> for a backtest).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[cfg(test)]
mod tests;
