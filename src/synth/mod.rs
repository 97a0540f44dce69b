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
pub mod presets;
mod rankers;
pub mod write;

use std::collections::{BTreeMap, BTreeSet};

use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashSet;

use crate::base::error::{Error, Result};
use crate::base::Grade;
use crate::io::qrels::Qrels;
use crate::io::run::Run;
use crate::io::teams::{TeamEntry, Teams};
use crate::io::topics::Topics;

pub use presets::{Preset, PresetParams};
pub use rankers::BASELINE_TEAM;
pub use write::{write_corpus_file, write_qrels, write_task, TaskLayout};

use corpus::{Corpus, DocumentRole, TopicWords, TopicalIndex};

/// The independent random parts of a world; each gets its own stream via [`sub_seed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Part {
    /// The vocabulary.
    Vocabulary = 1,
    /// Topic ids, topical words and relevant counts.
    Topics = 2,
    /// Which documents are written for which topic.
    Assignment = 3,
    /// One document's words (index: the document position).
    Documents = 4,
    /// Team and run parameters.
    Teams = 5,
    /// Noise shared by a team's runs (index: the team position).
    TeamNoise = 6,
    /// Noise of one run (index: the run position).
    RunNoise = 7,
    /// Judgment budgets (index: the topic position).
    Budgets = 8,
}

pub use crate::base::seed::splitmix64;

/// Combines a key with a value: `splitmix64(key ^ splitmix64(value))`.
pub fn mix(key: u64, value: u64) -> u64 {
    splitmix64(key ^ splitmix64(value))
}

/// The seed of one part of the world: `mix(mix(seed, part), index)`.
pub fn sub_seed(seed: u64, part: Part, index: u64) -> u64 {
    mix(mix(seed, part as u64), index)
}

/// A standard normal variate that is a pure function of `key` (Box-Muller on two uniforms
/// hashed from the key).
pub fn gaussian(key: u64) -> f64 {
    const UNIT: f64 = 1.0 / (1u64 << 53) as f64;
    let first = ((splitmix64(key) >> 11) + 1) as f64 * UNIT; // in (0, 1]: ln is finite
    let second = (splitmix64(key ^ 0xD1B5_4A32_D192_ED03) >> 11) as f64 * UNIT;
    (-2.0 * first.ln()).sqrt() * (std::f64::consts::TAU * second).cos()
}

/// One topic of a synthetic world.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthTopic {
    /// The topic id (six digits, so byte order is numeric order).
    pub id: String,
    /// The topic text: its query words.
    pub text: String,
    /// How many judgments (pool included) the official qrels may spend on the topic.
    pub judgment_budget: usize,
}

/// A generated collection: everything but the official qrels.
#[derive(Debug, Clone)]
pub struct SynthWorld {
    /// The preset it was made from.
    pub preset: Preset,
    /// The preset's numbers.
    pub params: PresetParams,
    /// The seed it was made from.
    pub seed: u64,
    /// The topics, in id order.
    pub topics: Vec<SynthTopic>,
    /// The truth: every document written for a topic, with its grade for that topic: 1 to 3
    /// for relevant documents, 0 for on-topic distractors. Every other document has grade 0
    /// and is left out, as unjudged means non-relevant to an assessor replaying the truth.
    pub truth: Qrels,
    /// The runs, in tag order; each ranks every topic, [`PresetParams::run_depth`] deep, in
    /// trec_eval order with strictly decreasing scores. `path` is `runs/<tag>`.
    pub runs: Vec<Run>,
    /// The team of every run; every run is pooled.
    pub teams: Teams,
    corpus: Corpus,
}

impl SynthWorld {
    /// The number of documents.
    pub fn document_count(&self) -> usize {
        self.corpus.len()
    }

    /// The id of the document at position `pos` (`p0001234`); ids sort as positions.
    pub fn document_id(&self, pos: usize) -> String {
        self.corpus.document_id(pos)
    }

    /// The text of the document at position `pos` (regenerated from the seed: documents are
    /// not kept in memory).
    ///
    /// # Panics
    /// When `pos` is not below [`Self::document_count`].
    pub fn document_text(&self, pos: usize) -> String {
        self.corpus.document_text(pos, &mut FxHashSet::default())
    }

    /// The corpus lines (`doc_id<TAB>text\n`) of the documents at `positions`, in order.
    pub fn corpus_lines(&self, positions: std::ops::Range<usize>) -> String {
        self.corpus
            .corpus_lines(positions.start..positions.end.min(self.document_count()))
    }

    /// The background vocabulary, most frequent word first.
    pub fn vocabulary(&self) -> &[String] {
        &self.corpus.vocabulary
    }

    /// The topic texts, as a topic file holds them.
    pub fn topic_texts(&self) -> Topics {
        Topics {
            texts: self
                .topics
                .iter()
                .map(|topic| (topic.id.clone(), topic.text.clone()))
                .collect(),
        }
    }

    /// Each topic's judgment budget, by topic id.
    pub fn judgment_budgets(&self) -> BTreeMap<String, usize> {
        self.topics
            .iter()
            .map(|topic| (topic.id.clone(), topic.judgment_budget))
            .collect()
    }

    /// The documents in the top `pool_depth` of any run, by topic id.
    pub fn pool(&self, pool_depth: usize) -> BTreeMap<String, BTreeSet<String>> {
        let mut pool: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for run in &self.runs {
            for ranking in &run.topics {
                pool.entry(ranking.topic.to_string()).or_default().extend(
                    ranking
                        .docs
                        .iter()
                        .take(pool_depth)
                        .map(|doc| doc.docid.to_string()),
                );
            }
        }
        pool
    }
}

/// Everything drawn about the topics before documents exist.
struct TopicPlan {
    ids: Vec<String>,
    words: Vec<TopicWords>,
    /// Per topic, the number of documents of grade 1, 2 and 3, and of distractors.
    counts: Vec<[usize; 4]>,
}

fn plan_topics(params: &PresetParams, seed: u64) -> Result<TopicPlan> {
    let mut rng = ChaCha8Rng::seed_from_u64(sub_seed(seed, Part::Topics, 0));
    const FIRST_TOPIC_ID: usize = 100_000;
    const TOPIC_ID_SPAN: usize = 900_000;
    let mut ids: Vec<usize> = sample(&mut rng, TOPIC_ID_SPAN, params.topic_count).into_vec();
    ids.sort_unstable();
    let ids: Vec<String> = ids
        .into_iter()
        .map(|id| (FIRST_TOPIC_ID + id).to_string())
        .collect();
    let query_sizes: Vec<usize> = (0..params.topic_count)
        .map(|_| rng.random_range(params.query_terms.clone()))
        .collect();
    let words_per_topic = params.expansion_terms_per_topic + params.distractor_terms_per_topic;
    let needed: usize = query_sizes.iter().map(|size| size + words_per_topic).sum();
    let first_rank = *params.topical_rank_range.start();
    let rank_span = params.topical_rank_range.end() + 1 - first_rank;
    if needed > rank_span {
        return Err(Error::Invalid(format!(
            "expected at most {rank_span} topical words, found {needed} needed"
        )));
    }
    let mut ranks = sample(&mut rng, rank_span, needed)
        .into_iter()
        .map(|offset| (first_rank + offset) as u32);
    let mut take = |count: usize| -> Vec<u32> { ranks.by_ref().take(count).collect() };
    let words: Vec<TopicWords> = query_sizes
        .iter()
        .map(|&query_size| TopicWords {
            query: take(query_size),
            expansion: take(params.expansion_terms_per_topic),
            distractor: take(params.distractor_terms_per_topic),
        })
        .collect();
    let counts = (0..params.topic_count)
        .map(|_| {
            let relevant = rng.random_range(params.relevant_per_topic.clone());
            let share = |grade: usize| (relevant as f64 * params.grade_shares[grade]).round();
            let grade_3 = share(2) as usize;
            let grade_2 = (share(1) as usize).min(relevant - grade_3);
            let grade_1 = relevant - grade_3 - grade_2;
            let ratio = rng.random_range(params.distractors_per_relevant.clone());
            let distractors = (relevant as f64 * ratio).round() as usize;
            [grade_1, grade_2, grade_3, distractors]
        })
        .collect();
    Ok(TopicPlan { ids, words, counts })
}

/// Places each topic's documents at random corpus positions; the rest is background.
fn assign_roles(params: &PresetParams, seed: u64, plan: &TopicPlan) -> Result<Vec<DocumentRole>> {
    let topical: usize = plan.counts.iter().flatten().sum();
    if topical > params.document_count {
        return Err(Error::Invalid(format!(
            "expected at most {} topical documents, found {topical}",
            params.document_count
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(sub_seed(seed, Part::Assignment, 0));
    let mut positions = sample(&mut rng, params.document_count, topical).into_iter();
    let mut roles = vec![DocumentRole::Background; params.document_count];
    for (topic, counts) in plan.counts.iter().enumerate() {
        // counts are grade 1, 2, 3, then distractors (grade 0).
        for (kind, &count) in counts.iter().enumerate() {
            let grade = if kind == 3 { 0 } else { kind as Grade + 1 };
            for pos in positions.by_ref().take(count) {
                roles[pos] = DocumentRole::Topical {
                    topic: topic as u32,
                    grade,
                };
            }
        }
    }
    Ok(roles)
}

/// The world's corpus recipe and the topic plan it was made from: the vocabulary, the topics'
/// words and every document's role, but no document text.
fn plan_corpus(params: &PresetParams, seed: u64) -> Result<(Corpus, TopicPlan)> {
    let vocabulary = corpus::build_vocabulary(params.vocabulary_size, seed)?;
    let plan = plan_topics(params, seed)?;
    let roles = assign_roles(params, seed, &plan)?;
    let corpus = Corpus::new(params, seed, vocabulary, plan.words.clone(), roles);
    Ok((corpus, plan))
}

/// Generates the world of `preset` from `seed`. The same preset and seed always give the same
/// world, on any machine and thread count.
///
/// # Errors
/// [`Error::Invalid`] when the preset's numbers cannot be met (too few words or documents).
pub fn generate(preset: Preset, seed: u64) -> Result<SynthWorld> {
    let params = preset.params();
    let (corpus, plan) = plan_corpus(&params, seed)?;
    let index = TopicalIndex::build(&corpus);

    let (team_profiles, run_profiles) = rankers::plan_teams(&params, seed);
    let context = rankers::RankingContext {
        corpus: &corpus,
        index: &index,
        topic_ids: &plan.ids,
        seed,
        run_depth: params.run_depth,
    };
    let runs = context.make_runs(&team_profiles, &run_profiles);
    let teams = Teams {
        runs: run_profiles
            .iter()
            .map(|run| {
                let entry = TeamEntry {
                    team: team_profiles[run.team].name.clone(),
                    is_pooled: true,
                };
                (run.tag.clone(), entry)
            })
            .collect(),
    };

    let mut truth = Qrels::default();
    for (pos, role) in corpus.roles.iter().enumerate() {
        if let DocumentRole::Topical { topic, grade } = *role {
            truth
                .topics
                .entry(plan.ids[topic as usize].as_str().into())
                .or_default()
                .insert(&corpus.document_id(pos), grade);
        }
    }

    let topics = plan
        .ids
        .iter()
        .zip(&plan.words)
        .enumerate()
        .map(|(position, (id, words))| {
            let mut rng = ChaCha8Rng::seed_from_u64(sub_seed(seed, Part::Budgets, position as u64));
            let text: Vec<&str> = words
                .query
                .iter()
                .map(|&word| corpus.vocabulary[word as usize].as_str())
                .collect();
            SynthTopic {
                id: id.clone(),
                text: text.join(" "),
                judgment_budget: rng.random_range(params.judgment_budget.clone()),
            }
        })
        .collect();

    Ok(SynthWorld {
        preset,
        params,
        seed,
        topics,
        truth,
        runs,
        teams,
        corpus,
    })
}

/// The most documents a corpus may hold: document ids have seven digits, so that they sort as
/// positions.
pub const MAX_DOCUMENTS: usize = 10_000_000;

/// A world's corpus on its own, extended with background documents: what `synth --corpus-only`
/// writes. No topics, runs or index are made, and only the world's own documents have stored
/// roles, so memory does not grow with the extension.
#[derive(Debug, Clone)]
pub struct SynthCorpus {
    corpus: Corpus,
}

impl SynthCorpus {
    /// The corpus of the world of `preset` and `seed` (its documents, ids and texts, in order),
    /// followed by background documents up to `document_count` documents in all. Their ids
    /// continue the world's, and their texts are drawn as the world's background documents
    /// are: the same length and vocabulary distribution, no topical words planted.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `document_count` is below the preset's document count (the
    /// corpus would lose documents the preset's task judges) or above [`MAX_DOCUMENTS`];
    /// generation errors as for [`generate`].
    pub fn generate(preset: Preset, seed: u64, document_count: usize) -> Result<Self> {
        let params = preset.params();
        if !(params.document_count..=MAX_DOCUMENTS).contains(&document_count) {
            return Err(Error::Invalid(format!(
                "expected at least the {preset} preset's {} documents and at most \
                 {MAX_DOCUMENTS} (document ids have seven digits), found {document_count}",
                params.document_count
            )));
        }
        let (corpus, _) = plan_corpus(&params, seed)?;
        Ok(Self {
            corpus: corpus.extended_to(document_count),
        })
    }

    /// The number of documents.
    pub fn document_count(&self) -> usize {
        self.corpus.len()
    }

    /// The corpus lines (`doc_id<TAB>text\n`) of the documents at `positions`, in order.
    pub fn corpus_lines(&self, positions: std::ops::Range<usize>) -> String {
        self.corpus
            .corpus_lines(positions.start..positions.end.min(self.document_count()))
    }
}

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
}

/// Generates a world, writes it as a task in `out_dir` with `layout`, and judges it: the
/// official qrels are the depth-`pool_depth` pool of every run plus CAL over the whole corpus
/// with text features and the truth as assessor, up to each topic's budget (see docs/synth.md).
///
/// # Errors
/// Generation, writing or judging errors.
pub fn build_task(
    preset: Preset,
    seed: u64,
    out_dir: &std::path::Path,
    layout: &write::TaskLayout,
    judge: &crate::judge::settings::JudgeSettings,
) -> Result<SynthReport> {
    use crate::collection::Collection;
    use crate::judge::assessor::OfficialAssessor;
    use crate::judge::cal::judge_trial;
    use crate::sim::analysis::files::to_qrels;
    let world = generate(preset, seed)?;
    write::write_task(&world, out_dir, layout, None)?;
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
    })
}
