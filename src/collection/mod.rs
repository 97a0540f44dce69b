//! The task as the judge sees it: every document interned once, each topic's candidates with
//! the runs that retrieved them, the assessor's grades by document id, and the document vectors
//! (text features read from the corpus once, or run features built per trial).

use crate::base::choice::choice_enum;
use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::base::error::{Error, Result};
use crate::base::ids::Interner;
use crate::base::sparse::SparseVec;
use crate::base::DocId;
use crate::base::{DocumentGrades, Grade};
use std::path::Path;

use crate::features::store::FeatureStore;
use crate::features::text::TextFeatures;
use crate::io::corpus::CorpusLayout;
use crate::io::qrels::{Qrels, TopicQrels};
use crate::io::task::Task;

mod corpus;
#[cfg(test)]
pub(crate) mod fixture;

pub use corpus::{CorpusDocuments, StoreDocuments};

choice_enum! {
    /// Which features the judge learns from.
    pub enum FeatureChoice {
        /// Text when the task has a corpus and topics, else runs.
        Auto = "auto",
        /// HiCAL's tf-idf text features.
        Text = "text",
        /// Run features (one per run, plus the fraction of runs).
        Runs = "runs",
    }
}

choice_enum! {
    /// Where CAL looks for documents to judge.
    pub enum CandidateSource {
        /// Every document a run of the task retrieved for the topic, at full depth.
        Retrieved = "retrieved",
        /// The whole corpus (HiCAL's choice); text features only.
        Corpus = "corpus",
    }
}

/// A corpus at most this large (bytes on disk) has every document's vector kept, so random
/// negatives are drawn from the whole corpus exactly as HiCAL does. A larger corpus (MS MARCO's
/// documents are 22 GB) keeps the vectors of a uniform random sample of this many bytes' worth
/// of documents (decided by a hash of the document id), and negatives and `corpus` candidates
/// are drawn from that sample and the retrieved documents: memory stays bounded.
pub const FULL_CORPUS_MAX_BYTES: u64 = 64 << 20;

/// The document vectors.
#[derive(Debug)]
pub enum Vectors {
    /// Text vectors by document id (empty for documents without one), and the dimension.
    Text {
        /// One vector per interned document.
        vectors: Vec<SparseVec>,
        /// The number of features.
        dimension: usize,
    },
    /// Run features: built per trial from each topic's hits.
    Runs,
}

/// One topic, prepared for judging.
#[derive(Debug)]
pub struct TopicData {
    /// The topic id.
    pub id: String,
    /// The documents any run retrieved for the topic, sorted by document id.
    pub retrieved: Vec<DocId>,
    /// For each retrieved document (same order), the (run index, 1-based rank) of every run
    /// that retrieved it.
    pub hits: Vec<Vec<(u32, u32)>>,
    /// Each run's ranking for the topic (run index order), best first in trec_eval's order
    /// (score descending, ties by docno descending).
    pub rankings: Vec<Vec<DocId>>,
    /// Each run's ranking in NIST's pooling order (ties by docno ascending): the order pools
    /// and leave-out-uniques are taken in.
    pub pool_rankings: Vec<Vec<DocId>>,
    /// The assessor's grades.
    pub grades: DocumentGrades,
    /// The text seed (the topic text's vector), in text mode.
    pub text_seed: Option<SparseVec>,
}

/// One run of the task, as the judge needs it.
#[derive(Debug, Clone)]
pub struct RunInfo {
    /// The run tag.
    pub tag: String,
    /// The team.
    pub team: String,
    /// Whether the run contributed to the pool.
    pub is_pooled: bool,
}

/// Which runs can make a document some team's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContributingRuns {
    /// Only the runs that contributed to the pool.
    Pooled,
    /// Every run of the task, pooled or not.
    All,
}

/// The rule that makes a judged document one team's *unique* document: among the counted runs,
/// taken to `depth` in NIST's pooling order, only that team's runs retrieved it, and its grade
/// is at least `min_grade`. Classic leave-out-uniques, the documents a leave-out trial
/// withholds, the audit's calibration and the backtest all ask this one rule, each with its own
/// parameters ([`Collection::unique_documents`], [`Collection::sole_teams`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniqueRule {
    /// Which runs count as retrieving a document.
    pub runs: ContributingRuns,
    /// How deep into each counted run; `None`: the whole run.
    pub depth: Option<usize>,
    /// The lowest grade of a unique document; `None`: any judged grade.
    pub min_grade: Option<Grade>,
}

impl UniqueRule {
    /// Classic leave-out-uniques: the documents only the team's pooled runs put in their top
    /// `pool_depth`, at any grade.
    pub const fn classic(pool_depth: usize) -> Self {
        Self {
            runs: ContributingRuns::Pooled,
            depth: Some(pool_depth),
            min_grade: None,
        }
    }

    /// The documents a team brings that nobody else has: judged documents that a run of the
    /// team retrieved at any depth and no other team's run retrieved at all.
    pub const fn any_run_any_depth() -> Self {
        Self {
            runs: ContributingRuns::All,
            depth: None,
            min_grade: None,
        }
    }

    /// What a leave-out trial withholds (`--withhold uniques`): documents that only the team's
    /// runs retrieved among every run of the task, pooled or not, within `depth` (`None`: at
    /// any depth), with a grade the judge trains as relevant (>= `train_level`).
    pub fn withheld(train_level: Grade, depth: Option<usize>) -> Self {
        Self {
            runs: ContributingRuns::All,
            depth,
            min_grade: Some(train_level),
        }
    }

    /// Whether a judged document of this grade can be a unique document.
    fn accepts(&self, grade: Grade) -> bool {
        self.min_grade.is_none_or(|min| grade >= min)
    }
}

/// The team whose runs alone retrieved each document of a topic under a [`UniqueRule`]
/// (documents retrieved by several teams are absent), and the grades the rule accepts.
#[derive(Debug, Clone)]
pub struct SoleTeams<'c> {
    sole_team: FxHashMap<DocId, &'c str>,
    rule: UniqueRule,
}

impl<'c> SoleTeams<'c> {
    /// The judged documents of `grades` that are `team`'s unique documents, sorted.
    pub fn unique_documents(&self, team: &str, grades: &DocumentGrades) -> Vec<DocId> {
        let mut unique: Vec<DocId> = self
            .sole_team
            .iter()
            .filter(|&(doc, &owner)| {
                owner == team
                    && grades
                        .get(doc)
                        .is_some_and(|&grade| self.rule.accepts(grade))
            })
            .map(|(&doc, _)| doc)
            .collect();
        unique.sort_unstable();
        unique
    }

    /// The team whose runs alone retrieved `doc`, if one did.
    pub fn owner(&self, doc: DocId) -> Option<&'c str> {
        self.sole_team.get(&doc).copied()
    }
}

/// The uniform sample kept of a corpus too large to hold (see [`FULL_CORPUS_MAX_BYTES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorpusSample {
    /// Documents in the sample.
    pub sampled: usize,
    /// Documents in the corpus.
    pub total: usize,
}

/// Where topic vectors come from: the corpus's features, or the store.
enum TopicVectors {
    Features(Box<TextFeatures>),
    Store,
}

/// The prepared task.
#[derive(Debug)]
pub struct Collection {
    /// Every document, interned.
    pub docs: Interner,
    /// The runs, in task order (the run index used everywhere).
    pub runs: Vec<RunInfo>,
    /// The topics the assessor judged, in topic id order.
    pub topics: Vec<TopicData>,
    /// The document vectors.
    pub vectors: Vectors,
    /// The documents random negatives (and, with corpus candidates, candidates) are drawn
    /// from: every corpus document, or the uniform sample of a large corpus read without a
    /// feature store; without a corpus, every document a run retrieved.
    pub corpus: CorpusDocuments,
    /// Per document id, the rank ties between equal scores are broken by (lower first): its
    /// position in the corpus file (documents outside the corpus after them, by id), or without
    /// a corpus its id, the order documents were first seen in (qrels topics, then runs).
    pub tie_rank: Vec<u32>,
    /// When a large corpus is sampled: how many documents the sample holds, of how many.
    pub corpus_sample: Option<CorpusSample>,
    /// The relevance level.
    pub relevance_level: Grade,
}

impl Collection {
    /// Prepares `task` for judging with `assessor` as the source of grades (the official qrels,
    /// or the truth when synthesising). `use_text` reads the corpus once for text features.
    ///
    /// # Errors
    /// Corpus errors; [`Error::Invalid`] when text features are asked for but the task has no
    /// corpus or no topic texts, or a topic has no usable text.
    pub fn prepare(task: &Task, assessor: &Qrels, use_text: bool) -> Result<Self> {
        let mut docs = Interner::new();
        let runs: Vec<RunInfo> = task
            .runs
            .iter()
            .map(|run| {
                let entry = task.teams.get(&run.tag).expect("every task run has a team");
                RunInfo {
                    tag: run.tag.clone(),
                    team: entry.team.clone(),
                    is_pooled: entry.is_pooled,
                }
            })
            .collect();
        let topics = assessor
            .topics
            .iter()
            .map(|(topic_id, judgments)| prepare_topic(task, topic_id, judgments, &mut docs))
            .collect();
        let mut collection = Self {
            docs,
            runs,
            topics,
            vectors: Vectors::Runs,
            corpus: CorpusDocuments::default(),
            tie_rank: Vec::new(),
            corpus_sample: None,
            relevance_level: task.manifest.relevance_level,
        };
        if use_text {
            collection.read_text_features(task)?;
        } else {
            let mut pool: Vec<DocId> = collection
                .topics
                .iter()
                .flat_map(|topic| topic.retrieved.iter().copied())
                .collect();
            pool.sort_unstable();
            pool.dedup();
            collection.corpus.interned = pool;
            collection.tie_rank = (0..collection.docs.len() as u32).collect();
        }
        Ok(collection)
    }

    fn read_text_features(&mut self, task: &Task) -> Result<()> {
        let topic_texts = task.topics.as_ref().ok_or_else(|| {
            Error::Invalid(format!(
                "task {}: text features need topic texts (run features do not)",
                task.manifest.name
            ))
        })?;
        let (manifest, corpus) = (&task.manifest, task.manifest.corpus.as_deref());
        let topic_vector = match (&manifest.feature_store, corpus) {
            (Some(store), _) => self.read_store(store, corpus, &manifest.corpus_layout)?,
            (None, Some(corpus)) => self.read_corpus(corpus, &manifest.corpus_layout)?,
            (None, None) => {
                return Err(Error::Invalid(format!(
                    "task {}: text features need a corpus or a feature store (run features \
                     do not)",
                    manifest.name
                )))
            }
        };
        let seeds = (self.topics.iter())
            .map(|topic| {
                let text = topic_texts.text(&topic.id).filter(|t| !t.trim().is_empty());
                let text = text.ok_or_else(|| {
                    Error::Invalid(format!(
                        "topic {} has no text, and text features need one as the seed",
                        topic.id
                    ))
                })?;
                let pairs = match (&topic_vector, self.store()) {
                    (TopicVectors::Features(features), _) => features.topic_vector(&topic.id, text),
                    (TopicVectors::Store, Some(store)) => store.store.topic_vector(&topic.id, text),
                    (TopicVectors::Store, None) => unreachable!("a store was opened"),
                }?;
                Ok(SparseVec::from_pairs(pairs)?)
            })
            .collect::<Result<Vec<SparseVec>>>()?;
        for (topic, seed) in self.topics.iter_mut().zip(seeds) {
            topic.text_seed = Some(seed);
        }
        Ok(())
    }

    /// Reads the text features of the corpus at `corpus` in one pass, keeping the vectors of
    /// the interned documents and of every corpus document (of a uniform sample when the corpus
    /// is larger than [`FULL_CORPUS_MAX_BYTES`]).
    fn read_corpus(&mut self, corpus: &Path, layout: &CorpusLayout) -> Result<TopicVectors> {
        let corpus_bytes = crate::io::corpus::corpus_bytes(corpus)?;
        let sample_rate = (FULL_CORPUS_MAX_BYTES as f64 / corpus_bytes.max(1) as f64).min(1.0);
        let needed: FxHashSet<Box<str>> = (0..self.docs.len())
            .map(|id| Box::from(self.docs.name(id as u32)))
            .collect();
        let is_sampled = |name: &str| {
            sample_rate >= 1.0
                || (crate::base::seed::fnv1a(name.as_bytes()) as f64 / u64::MAX as f64)
                    < sample_rate
        };
        let features = TextFeatures::from_corpus(corpus, layout, |name| {
            needed.contains(name) || is_sampled(name)
        })?;
        let mut vectors = vec![SparseVec::empty(); self.docs.len()];
        let mut corpus_order = Vec::new();
        for (name, pairs) in features.documents() {
            let doc = self.docs.intern(name);
            let vector = SparseVec::from_pairs(pairs.to_vec())?;
            if doc as usize >= vectors.len() {
                vectors.resize(doc as usize + 1, SparseVec::empty());
            }
            if is_sampled(name) {
                self.corpus.interned.push(doc);
            }
            corpus_order.push(doc);
            vectors[doc as usize] = vector;
        }
        self.tie_rank = corpus_tie_ranks(self.docs.len(), &corpus_order);
        self.corpus.interned.sort_unstable();
        if sample_rate < 1.0 {
            self.corpus_sample = Some(CorpusSample {
                sampled: self.corpus.interned.len(),
                total: features.document_count(),
            });
        }
        self.vectors = Vectors::Text {
            vectors,
            dimension: features.feature_count(),
        };
        Ok(TopicVectors::Features(Box::new(features)))
    }

    /// Opens the feature store at `path` (checked against the task's corpus, if it names one)
    /// and takes the interned documents' vectors from it; the rest of the corpus stays in the
    /// store, numbered after the interned documents in corpus order, as [`Self::read_corpus`]
    /// numbers them.
    fn read_store(
        &mut self,
        path: &Path,
        corpus: Option<&Path>,
        layout: &CorpusLayout,
    ) -> Result<TopicVectors> {
        let store = FeatureStore::open(path)?;
        if let Some(corpus) = corpus {
            store.check_corpus(corpus, layout)?;
        }
        let interned_count = self.docs.len();
        let outside = u32::try_from(store.document_count()).expect("a store holds under 2^32");
        let mut vectors = vec![SparseVec::empty(); interned_count];
        let mut in_store: Vec<(u32, DocId)> = Vec::new();
        let mut pairs = Vec::new();
        self.tie_rank = (0..interned_count as u32)
            .map(|doc| outside + doc)
            .collect();
        for doc in 0..interned_count as DocId {
            if let Some(position) = store.position(self.docs.name(doc)) {
                store.vector_into(position, &mut pairs)?;
                vectors[doc as usize] = SparseVec::from_pairs(pairs.clone())?;
                self.tie_rank[doc as usize] = position;
                self.corpus.interned.push(doc);
                in_store.push((position, doc));
            }
        }
        in_store.sort_unstable();
        self.vectors = Vectors::Text {
            vectors,
            dimension: store.feature_count(),
        };
        self.corpus.store = Some(StoreDocuments {
            first_unnamed: u32::try_from(interned_count).expect("fewer than 2^32 documents"),
            interned_positions: in_store.iter().map(|&(position, _)| position).collect(),
            interned_docs: in_store.iter().map(|&(_, doc)| doc).collect(),
            store,
        });
        Ok(TopicVectors::Store)
    }

    /// The feature store the collection reads, if any.
    fn store(&self) -> Option<&StoreDocuments> {
        self.corpus.store.as_ref()
    }

    /// The id of the document `doc`: interned, or a feature store's document.
    pub fn doc_name(&self, doc: DocId) -> &str {
        let in_store = self
            .store()
            .and_then(|store| Some((store, store.position_of_unnamed(doc)?)));
        match in_store {
            Some((store, position)) => (store.store.name(position))
                .expect("the names of store documents are checked when they are judged"),
            None => self.docs.name(doc),
        }
    }

    /// The id of the document called `name`, if the collection has it (interned, or in the
    /// feature store).
    pub fn doc_id(&self, name: &str) -> Option<DocId> {
        self.docs
            .get(name)
            .or_else(|| self.store()?.unnamed_of_name(name))
    }

    /// The rank ties between equal scores are broken by (see [`Self::tie_rank`]).
    pub fn tie_rank_of(&self, doc: DocId) -> u32 {
        match self.tie_rank.get(doc as usize) {
            Some(&rank) => rank,
            None => self
                .store()
                .and_then(|store| store.position_of_unnamed(doc))
                .expect("a document beyond the interned ones is a store's"),
        }
    }

    /// For one topic, the team whose counted runs alone retrieved each document under `rule`.
    pub fn sole_teams(&self, topic: &TopicData, rule: &UniqueRule) -> SoleTeams<'_> {
        SoleTeams {
            sole_team: self.sole_keys(topic, rule, |run| self.runs[run].team.as_str()),
            rule: *rule,
        }
    }

    /// The judged documents of `topic` (official grades) that, under `rule`, only the runs
    /// marked in `own_runs` retrieved (one team's runs, or every held-out team's), sorted.
    pub fn unique_documents(
        &self,
        topic: &TopicData,
        rule: &UniqueRule,
        own_runs: &[bool],
    ) -> Vec<DocId> {
        self.unique_documents_graded(topic, rule, own_runs, |doc| topic.grades.get(&doc).copied())
    }

    /// As [`Self::unique_documents`], with the grades `grade_of` gives (`None`: not judged).
    pub fn unique_documents_graded(
        &self,
        topic: &TopicData,
        rule: &UniqueRule,
        own_runs: &[bool],
        grade_of: impl Fn(DocId) -> Option<Grade>,
    ) -> Vec<DocId> {
        let mut unique: Vec<DocId> = self
            .sole_keys(topic, rule, |run| own_runs[run])
            .into_iter()
            .filter(|&(doc, is_own)| is_own && grade_of(doc).is_some_and(|g| rule.accepts(g)))
            .map(|(doc, _)| doc)
            .collect();
        unique.sort_unstable();
        unique
    }

    /// For each document the runs `rule` counts retrieved within its depth (in NIST's pooling
    /// order), the key every run that retrieved it shares, when they share one.
    fn sole_keys<K: Copy + PartialEq>(
        &self,
        topic: &TopicData,
        rule: &UniqueRule,
        key_of: impl Fn(usize) -> K,
    ) -> FxHashMap<DocId, K> {
        let depth = rule.depth.unwrap_or(usize::MAX);
        let mut keys: FxHashMap<DocId, Option<K>> = FxHashMap::default();
        for (run, ranking) in topic.pool_rankings.iter().enumerate() {
            if rule.runs == ContributingRuns::Pooled && !self.runs[run].is_pooled {
                continue;
            }
            let key = key_of(run);
            for &doc in ranking.iter().take(depth) {
                let shared = keys.entry(doc).or_insert(Some(key));
                if shared.is_some_and(|shared| shared != key) {
                    *shared = None;
                }
            }
        }
        keys.into_iter()
            .filter_map(|(doc, key)| key.map(|key| (doc, key)))
            .collect()
    }

    /// Whether the judge learns from text features.
    pub fn uses_text(&self) -> bool {
        matches!(self.vectors, Vectors::Text { .. })
    }

    /// The index of the topic `id`.
    pub fn topic_index(&self, id: &str) -> Option<usize> {
        self.topics.iter().position(|topic| topic.id == id)
    }
}

/// Tie ranks from the corpus order: a document's position in the corpus file, documents
/// outside the corpus after every corpus document, by id.
fn corpus_tie_ranks(document_count: usize, corpus_order: &[DocId]) -> Vec<u32> {
    let outside = u32::try_from(corpus_order.len()).expect("fewer than 2^32 documents");
    let mut ranks: Vec<u32> = (0..document_count as u32)
        .map(|doc| outside + doc)
        .collect();
    for (position, &doc) in corpus_order.iter().enumerate() {
        ranks[doc as usize] = position as u32;
    }
    ranks
}

/// One topic of the assessor's qrels: every run's ranking in evaluation and pooling order, the
/// documents retrieved with their hits, and the grades, documents interned into `docs`.
fn prepare_topic(
    task: &Task,
    topic_id: &str,
    judgments: &TopicQrels,
    docs: &mut Interner,
) -> TopicData {
    let (rankings, pool_rankings): (Vec<Vec<DocId>>, Vec<Vec<DocId>>) = task
        .runs
        .iter()
        .map(|run| {
            let Some(ranking) = run.topic(topic_id) else {
                return Default::default();
            };
            let evaluation_order = ranking
                .docs
                .iter()
                .map(|doc| docs.intern(&doc.docid))
                .collect();
            let pooling_order = ranking
                .pooling_order()
                .into_iter()
                .map(|doc| docs.intern(&doc.docid))
                .collect();
            (evaluation_order, pooling_order)
        })
        .unzip();
    let mut hits_by_doc: BTreeMap<DocId, Vec<(u32, u32)>> = BTreeMap::new();
    for (run_index, ranking) in rankings.iter().enumerate() {
        for (pos, &doc) in ranking.iter().enumerate() {
            let rank = u32::try_from(pos + 1).expect("rankings shorter than 2^32");
            let run = u32::try_from(run_index).expect("fewer than 2^32 runs");
            hits_by_doc.entry(doc).or_default().push((run, rank));
        }
    }
    let grades = judgments
        .judgments()
        .into_iter()
        .map(|(docid, grade)| (docs.intern(docid), grade))
        .collect();
    TopicData {
        id: topic_id.to_string(),
        retrieved: hits_by_doc.keys().copied().collect(),
        hits: hits_by_doc.into_values().collect(),
        rankings,
        pool_rankings,
        grades,
        text_seed: None,
    }
}
