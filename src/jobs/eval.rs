//! `eval`: runs scored against qrels exactly as trec_eval scores them.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::base::error::{Context, Result};
use crate::eval::format::check_distinct_keys;
use crate::eval::{
    evaluate_runs, parse_measures, zscores, Collection, EvalOptions, Evaluator, RunEvaluation,
    Selection, TrecEvalVersion, DEFAULT_MEASURES,
};
use crate::io::qrels::Qrels;
use crate::io::run::Run;

/// The options of `eval`, trec_eval's own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvaluateOptions {
    /// Measures in trec_eval or ir_measures spelling, each a list (default: `official`).
    pub measures: Vec<String>,
    /// A grade >= this counts as relevant for binary measures (trec_eval `-l`).
    pub relevance_level: i32,
    /// Per-topic values too (trec_eval `-q`).
    pub per_topic: bool,
    /// Average over every qrels topic; topics missing from a run score 0 (trec_eval `-c`).
    pub complete: bool,
    /// Only the top this many documents of each topic count (trec_eval `-M`).
    pub max_docs: Option<usize>,
    /// Score over the judged documents only: those without a grade >= 0 are dropped from each
    /// ranking first (trec_eval `-J`).
    pub judged_docs_only: bool,
    /// The number of documents in the collection, which `utility`'s fourth coefficient
    /// multiplies (trec_eval `-N`).
    pub documents_in_collection: usize,
    /// Z-scores against the means and standard deviations of this file (trec_eval `-Z`).
    pub zscores: Option<PathBuf>,
    /// The trec_eval release whose arithmetic to follow where releases differ.
    pub trec_eval: TrecEvalVersion,
}

impl Default for EvaluateOptions {
    fn default() -> Self {
        Self {
            measures: vec![DEFAULT_MEASURES.to_string()],
            relevance_level: 1,
            per_topic: false,
            complete: false,
            max_docs: None,
            judged_docs_only: false,
            documents_in_collection: 0,
            zscores: None,
            trec_eval: TrecEvalVersion::default(),
        }
    }
}

/// How the measures named are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// As trec_eval prints them: in trec_eval's order, with the `runid` and `relstring` lines
    /// and the nicknames' `num_q`.
    TrecEval,
    /// As scores, in the order named, without the lines that score nothing.
    Scores,
}

/// Runs scored, with the measures they were scored on.
#[derive(Debug)]
pub struct Evaluated {
    /// The measures and output lines, in their listing order.
    pub selection: Selection,
    /// One evaluation per run, in run order (z-scores with `zscores`).
    pub evaluations: Vec<RunEvaluation>,
}

/// An evaluation checked before any input is read: its measures and trec_eval's options.
#[derive(Debug)]
pub struct EvaluationPlan {
    selection: Selection,
    eval_options: EvalOptions,
    collection: Collection,
    per_topic: bool,
    zscores: Option<PathBuf>,
}

impl EvaluateOptions {
    /// Checks the options, the measures listed as `listing` says.
    ///
    /// # Errors
    /// Unknown measures and an invalid relevance level.
    pub fn plan(&self, listing: Listing) -> Result<EvaluationPlan> {
        let selection = match listing {
            Listing::TrecEval => {
                Selection::parse(&self.measures, self.trec_eval)?.in_trec_eval_order()
            }
            Listing::Scores => Selection {
                measures: parse_measures(&self.measures)?,
                runid: false,
                relstring: None,
            },
        };
        let eval_options = EvalOptions {
            measures: selection.measures.clone(),
            relevance_level: crate::base::relevance::check_relevance_level(self.relevance_level)?,
            complete: self.complete,
            max_docs: self.max_docs,
            relstring: (selection.relstring.as_ref()).map(|relstring| relstring.length),
        };
        Ok(EvaluationPlan {
            selection,
            eval_options,
            collection: Collection {
                judged_docs_only: self.judged_docs_only,
                documents: self.documents_in_collection,
            },
            per_topic: self.per_topic,
            zscores: self.zscores.clone(),
        })
    }
}

impl EvaluationPlan {
    /// Scores `runs` against `qrels`. Runs on the current rayon pool.
    ///
    /// # Errors
    /// Two runs with one tag (or a topic called `all` with per-topic values), and an
    /// unreadable z-score file.
    pub fn evaluate(self, qrels: &Qrels, runs: &[Run]) -> Result<Evaluated> {
        let zscores = (self.zscores.as_deref())
            .map(crate::io::zscores::read_zscores)
            .transpose()
            .with_context(|| "reading the z-score file")?;
        check_distinct_keys(runs, self.per_topic)?;
        let evaluator = Evaluator::new(qrels, self.eval_options).with_collection(self.collection);
        let mut evaluations = evaluate_runs(&evaluator, runs);
        if let Some(zscores) = &zscores {
            for evaluation in &mut evaluations {
                *evaluation = zscores::standardize(evaluation, &self.selection.measures, zscores);
            }
        }
        Ok(Evaluated {
            selection: self.selection,
            evaluations,
        })
    }
}
