//! The arguments of `reusesim agree`.

use std::path::PathBuf;

use reusesim::jobs::agree::AgreeOptions;
use reusesim::report::agree::AgreeFormat;
use reusesim::stats::comparison::SignificanceTest;
use reusesim::stats::correction::Correction;

use super::{choice, ThreadsArgs};

/// Arguments of `reusesim agree`.
#[derive(Debug, clap::Args)]
pub struct AgreeArgs {
    /// A measure the leaderboards are compared on, in trec_eval (`map`, `P.10`,
    /// `ndcg_cut.10`), ir_measures (`AP`, `nDCG@10`) or ranx spelling; repeatable.
    #[arg(short = 'm', long = "measure", value_name = "MEASURE", default_values_t = AgreeOptions::default().measures)]
    pub measures: Vec<String>,
    /// A grade >= LEVEL counts as relevant: the binary kappa, the relevant shares and the
    /// binary measures (default: the task's level with --task, else 1).
    #[arg(short = 'l', long = "level", value_name = "LEVEL")]
    pub relevance_level: Option<i32>,
    /// A task manifest: both qrels must grade its topics only (those its qrels grade), and its
    /// relevance level is the default.
    #[arg(long, value_name = "TASK")]
    pub task: Option<PathBuf>,
    /// The paired test of the runs' pairs (two-sided), as `compare`'s.
    #[arg(long, value_parser = choice::<SignificanceTest>(), default_value_t = AgreeOptions::default().test)]
    pub test: SignificanceTest,
    /// The correction of each measure's p-values for the number of pairs.
    #[arg(long, value_parser = choice::<Correction>(), default_value_t = AgreeOptions::default().correction)]
    pub correction: Correction,
    /// A pair differs significantly when its adjusted p-value is below ALPHA.
    #[arg(long, value_name = "ALPHA", default_value_t = AgreeOptions::default().alpha)]
    pub alpha: f64,
    /// Random samples of the randomization, bootstrap and Tukey tests.
    #[arg(long, value_name = "N", default_value_t = AgreeOptions::default().permutations)]
    pub permutations: usize,
    /// The seed of their random samples.
    #[arg(long, value_name = "S", default_value_t = AgreeOptions::default().seed)]
    pub seed: u64,
    /// Output layout.
    #[arg(long, value_parser = choice::<AgreeFormat>(), default_value_t = AgreeFormat::Table)]
    pub format: AgreeFormat,
    /// The worker threads of the resampling tests.
    #[command(flatten)]
    pub threads: ThreadsArgs,
    /// Qrels A, the reference (`qid iter docid grade`; plain or gzip).
    pub qrels_a: PathBuf,
    /// Qrels B, compared with A.
    pub qrels_b: PathBuf,
    /// Run files or directories of run files (plain or gzip) to rank on each.
    pub runs: Vec<PathBuf>,
}

impl AgreeArgs {
    /// The agreement's options.
    pub fn options(&self) -> AgreeOptions {
        AgreeOptions {
            measures: self.measures.clone(),
            relevance_level: self.relevance_level,
            task: self.task.clone(),
            test: self.test,
            correction: self.correction,
            alpha: self.alpha,
            permutations: self.permutations,
            seed: self.seed,
        }
    }
}
