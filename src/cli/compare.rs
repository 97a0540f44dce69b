//! The arguments of `reusesim compare`.

use std::path::PathBuf;

use reusesim::jobs::compare::{CompareOptions, TopicRule};
use reusesim::report::compare::CompareFormat;
use reusesim::stats::comparison::SignificanceTest;
use reusesim::stats::correction::Correction;

use super::{choice, ThreadsArgs};

/// Arguments of `reusesim compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// A measure, in trec_eval (`map`, `P.10`, `ndcg_cut.10`), ir_measures (`AP`, `nDCG@10`) or
    /// ranx (`ndcg@10`, `mrr@10`) spelling; repeatable.
    #[arg(short = 'm', long = "measure", value_name = "MEASURE", default_values_t = CompareOptions::default().measures)]
    pub measures: Vec<String>,
    /// A grade >= LEVEL counts as relevant for binary measures (trec_eval -l).
    #[arg(short = 'l', long = "level", value_name = "LEVEL", default_value_t = CompareOptions::default().relevance_level)]
    pub relevance_level: i32,
    /// The topics compared: every qrels topic, one a run lacks scoring 0 (trec_eval -c), or
    /// only those every run has.
    #[arg(long, value_parser = choice::<TopicRule>(), default_value_t = CompareOptions::default().topics)]
    pub topics: TopicRule,
    /// The paired test (two-sided).
    #[arg(long, value_parser = choice::<SignificanceTest>(), default_value_t = CompareOptions::default().test)]
    pub test: SignificanceTest,
    /// The correction of each measure's p-values for the number of pairs.
    #[arg(long, value_parser = choice::<Correction>(), default_value_t = CompareOptions::default().correction)]
    pub correction: Correction,
    /// A pair differs significantly when its adjusted p-value is below ALPHA.
    #[arg(long, value_name = "ALPHA", default_value_t = CompareOptions::default().alpha)]
    pub alpha: f64,
    /// Compare every run with this one (by tag) only; default: every pair.
    #[arg(long, value_name = "RUN")]
    pub baseline: Option<String>,
    /// Random samples of the randomization, bootstrap and Tukey tests.
    #[arg(long, value_name = "N", default_value_t = CompareOptions::default().permutations)]
    pub permutations: usize,
    /// The seed of their random samples.
    #[arg(long, value_name = "S", default_value_t = CompareOptions::default().seed)]
    pub seed: u64,
    /// Output layout.
    #[arg(long, value_parser = choice::<CompareFormat>(), default_value_t = CompareFormat::Table)]
    pub format: CompareFormat,
    /// The worker threads of the resampling tests.
    #[command(flatten)]
    pub threads: ThreadsArgs,
    /// The qrels file (`qid iter docid grade`; plain or gzip).
    pub qrels: PathBuf,
    /// Run files or directories of run files (plain or gzip).
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
}

impl CompareArgs {
    /// The comparison's options.
    pub fn options(&self) -> CompareOptions {
        CompareOptions {
            measures: self.measures.clone(),
            relevance_level: self.relevance_level,
            topics: self.topics,
            test: self.test,
            correction: self.correction,
            alpha: self.alpha,
            baseline: self.baseline.clone(),
            permutations: self.permutations,
            seed: self.seed,
        }
    }
}
