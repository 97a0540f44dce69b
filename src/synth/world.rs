//! A world generated from a preset and a seed: its topics, truth, runs and teams, and its corpus
//! on its own.

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

use super::corpus::{self, Corpus, DocumentRole, TopicWords, TopicalIndex};
use super::keys::{sub_seed, Part};
use super::presets::{Preset, PresetParams};
use super::rankers;

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
    pub(super) corpus: Corpus,
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
    pub(super) corpus: Corpus,
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
