//! The arguments of `reusesim eval`, spelled as trec_eval spells them: its short options and,
//! as aliases, its long ones (`--Judged_docs_only`, `--level_for_rel`).

use std::path::PathBuf;

use reusesim::eval::format::Format;
use reusesim::eval::TrecEvalVersion;
use reusesim::jobs::eval::EvaluateOptions;

use super::choice;

/// Arguments of `reusesim eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// A measure, in trec_eval (`map`, `P.5,10`, `ndcg_cut_10`, `all_trec`), ir_measures
    /// (`AP`, `P@10`, `nDCG@10`, `AP(rel=2)`) or ranx (`ndcg@10`, `mrr@10`, `hits@10`)
    /// spelling; repeatable. Default: trec_eval's `official` set, printed as trec_eval prints it.
    #[arg(short = 'm', long = "measure", value_name = "MEASURE", default_values_t = EvaluateOptions::default().measures, hide_default_value = true)]
    pub measures: Vec<String>,
    /// A grade >= LEVEL counts as relevant for binary measures (trec_eval -l).
    #[arg(short = 'l', long = "level", visible_alias = "level_for_rel", value_name = "LEVEL", default_value_t = EvaluateOptions::default().relevance_level)]
    pub relevance_level: i32,
    /// Print per-topic values too (trec_eval -q).
    #[arg(short = 'q', long = "per-topic", visible_alias = "query_eval_wanted")]
    pub per_topic: bool,
    /// Average over every qrels topic; topics missing from a run score 0 (trec_eval -c).
    #[arg(
        short = 'c',
        long = "complete",
        visible_alias = "complete_rel_info_wanted"
    )]
    pub complete: bool,
    /// Only the top N documents of each topic count (trec_eval -M).
    #[arg(
        short = 'M',
        long = "max-docs",
        visible_alias = "Max_retrieved_per_topic",
        value_name = "N"
    )]
    pub max_docs: Option<usize>,
    /// Score over the judged documents only: unjudged ones (no grade >= 0) are dropped from each
    /// ranking first (trec_eval -J).
    #[arg(
        short = 'J',
        long = "judged-docs-only",
        visible_alias = "Judged_docs_only"
    )]
    pub judged_docs_only: bool,
    /// The number of documents in the collection, which utility's fourth coefficient
    /// multiplies (trec_eval -N).
    #[arg(short = 'N', long = "documents-in-collection", visible_alias = "Number_docs_in_coll", value_name = "NUM",
          default_value_t = EvaluateOptions::default().documents_in_collection)]
    pub documents_in_collection: usize,
    /// Print no summary (trec_eval -n).
    #[arg(short = 'n', long = "no-summary", visible_alias = "nosummary")]
    pub no_summary: bool,
    /// Print z-scores against the means and standard deviations in FILE, lines
    /// `qid measure mean stddev` (trec_eval -Z).
    #[arg(
        short = 'Z',
        long = "zscores",
        visible_alias = "Zscore",
        value_name = "FILE"
    )]
    pub zscores: Option<PathBuf>,
    /// The trec_eval release whose arithmetic to follow where releases differ
    /// (iprec_at_recall and 11pt_avg turn a recall level into documents differently).
    #[arg(long = "trec-eval", value_name = "VERSION", value_parser = choice::<TrecEvalVersion>(),
          default_value_t = EvaluateOptions::default().trec_eval)]
    pub trec_eval: TrecEvalVersion,
    /// Output layout.
    #[arg(long, value_parser = choice::<Format>(), default_value_t = Format::Trec)]
    pub format: Format,
    /// The qrels file (`qid iter docid grade`; plain or gzip).
    pub qrels: PathBuf,
    /// Run files or directories of run files (plain or gzip).
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
}

impl EvalArgs {
    /// The evaluation's options.
    pub fn options(&self) -> EvaluateOptions {
        EvaluateOptions {
            measures: self.measures.clone(),
            relevance_level: self.relevance_level,
            per_topic: self.per_topic,
            complete: self.complete,
            max_docs: self.max_docs,
            judged_docs_only: self.judged_docs_only,
            documents_in_collection: self.documents_in_collection,
            zscores: self.zscores.clone(),
            trec_eval: self.trec_eval,
        }
    }
}
