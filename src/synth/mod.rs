//! Synthetic test collections (see docs/synth.md): a corpus, topics, complete truth qrels,
//! teams and runs, all generated deterministically from one seed.
//!
//! The world:
//! - a background vocabulary of pronounceable words (each its own Porter stem, so HiCAL's
//!   tokenizer keeps every word distinct), drawn with a Zipf law;
//! - topics with their own words: 2 to 5 query words (the topic text), expansion words that
//!   relevant documents use, and words of another sense used by on-topic distractors;
//! - graded relevance 0 to 3: grade-3 documents carry many topical words, grade-1 documents
//!   few, distractors carry query words but are not relevant;
//! - teams of 2 to 4 runs sharing a base ranker (BM25 with team parameters, with or without
//!   query expansion, plus a truth signal of team-specific strength and noise), and a baseline
//!   team of plain BM25 runs (`bm25base`, `bm25base_prf`).
//!
//! This module does not judge: the official qrels (the depth-10 pool plus CAL up to each
//! topic's [`SynthTopic::judgment_budget`], with the truth as assessor) are made by the judge
//! and handed to [`write_task`].
//!
//! **Determinism.** Every random part draws from its own ChaCha8 stream seeded by
//! [`sub_seed`] (seed, part, index), and per-document noise is a pure hash of its key, so the
//! output depends only on the seed: never on thread count, scheduling or hash-map order.

mod corpus;
mod keys;
pub mod labels;
pub mod presets;
mod rankers;
mod world;
pub mod write;

use crate::base::error::Result;

pub use keys::{gaussian, mix, splitmix64, sub_seed, Part};
pub use labels::{run_tops, Confusion, Labeller, LABEL_DEPTH};
pub use presets::{Preset, PresetParams};
pub use rankers::BASELINE_TEAM;
pub use world::{generate, SynthCorpus, SynthTopic, SynthWorld, MAX_DOCUMENTS};
pub use write::{write_corpus_file, write_labels, write_qrels, write_task, TaskLayout};

#[cfg(test)]
mod tests;

/// How a synthetic task's official qrels were made, for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthReport {
    /// Judgments per topic, in topic order.
    pub judgments: Vec<usize>,
    /// Truth-relevant documents the official qrels found, per topic.
    pub relevant_found: Vec<usize>,
    /// Truth-relevant documents per topic.
    pub relevant_total: Vec<usize>,
    /// Model fits.
    pub retrains: usize,
    /// The (topic, document) pairs labelled: 0 when the layout names no labels file.
    pub labelled: usize,
}

/// How a synthetic task's labels are drawn: the labeller, and how deep into each run.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskLabels {
    /// The labeller.
    pub labeller: Labeller,
    /// The documents of every run's top `depth` per topic are labelled.
    pub depth: usize,
}

impl Default for TaskLabels {
    /// The default labeller, to the audit's reach ([`LABEL_DEPTH`]).
    fn default() -> Self {
        Self {
            labeller: Labeller::default(),
            depth: LABEL_DEPTH,
        }
    }
}

/// Generates a world, writes it as a task in `out_dir` with `layout`, and judges it: the
/// official qrels are the depth-`pool_depth` pool of every run plus CAL over the whole corpus
/// with text features and the truth as assessor, up to each topic's budget (see docs/synth.md).
/// When `layout` names a labels file, `labels` draws it ([`write_labels`]).
///
/// # Errors
/// Generation, writing or judging errors; invalid labeller settings.
pub fn build_task(
    preset: Preset,
    seed: u64,
    out_dir: &std::path::Path,
    layout: &write::TaskLayout,
    judge: &crate::judge::settings::JudgeSettings,
    labels: &TaskLabels,
) -> Result<SynthReport> {
    use crate::collection::Collection;
    use crate::judge::assessor::OfficialAssessor;
    use crate::judge::cal::judge_trial;
    use crate::sim::analysis::files::to_qrels;
    labels.labeller.check()?;
    let world = generate(preset, seed)?;
    write::write_task(&world, out_dir, layout, None)?;
    let labelled = match &layout.labels {
        Some(path) => {
            write::write_labels(&world, &out_dir.join(path), &labels.labeller, labels.depth)?.len()
        }
        None => 0,
    };
    let task = crate::io::task::Task::open(&out_dir.join("task.toml"))?;
    let collection = Collection::prepare(&task, &world.truth, true)?;
    let budgets = world.judgment_budgets();
    let excluded = vec![false; task.runs.len()];
    let assessor = OfficialAssessor::new(&collection);
    let judgings = judge_trial(
        &collection,
        &excluded,
        |topic| budgets[&topic.id],
        judge,
        &assessor,
    )?;
    let official = to_qrels(&collection, &judgings);
    write::write_qrels(&out_dir.join(&layout.qrels), &official)?;
    let level = task.manifest.relevance_level;
    let relevant_total: Vec<usize> = collection
        .topics
        .iter()
        .map(|topic| {
            topic
                .grades
                .values()
                .filter(|&&g| crate::base::is_relevant(g, level))
                .count()
        })
        .collect();
    Ok(SynthReport {
        judgments: judgings.iter().map(|j| j.judgments.len()).collect(),
        relevant_found: judgings
            .iter()
            .map(|j| {
                j.judgments
                    .iter()
                    .filter(|&&(_, g)| crate::base::is_relevant(g, level))
                    .count()
            })
            .collect(),
        relevant_total,
        retrains: judgings.iter().map(|j| j.retrains).sum(),
        labelled,
    })
}
