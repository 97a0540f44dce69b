//! The CAL loop for one topic (DESIGN section 3, "A judging run for one topic"): carry the
//! official judgments no run could reach, judge the pool as one batch, then let the model pick
//! batches of the highest-scoring unjudged candidates, retraining after each, until the topic's
//! judgment budget is spent. The assessor is simulated by a qrels: its grade when it judged the
//! document, else 0 and "never officially judged".

use rand::Rng;
use rustc_hash::FxHashSet;

use crate::error::Result;
use crate::eval::ranking::is_relevant_grade;
use crate::features::runs::{pseudo_positive, run_feature_vector};
use crate::io::qrels::Grade;
use crate::judge::collection::{CandidateSource, Collection, DocId, TopicData, Vectors};
use crate::judge::logistic::{self, fit_logistic};
use crate::judge::pegasos::{PegasosParams, PegasosValidParams};
use crate::judge::schedule::Schedule;
use crate::judge::sparse::SparseVec;
use crate::judge::{Scorer, TrainingSet};

/// The number of presumed non-relevant documents drawn afresh for every retrain (HiCAL's).
pub const RANDOM_NEGATIVES: usize = 100;

/// The learner the judge retrains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LearnerChoice {
    /// HiCAL's logistic Pegasos in a pairwise ROC loop.
    Pegasos,
    /// L2-regularised logistic regression (linfa-logistic), for dense run features.
    Logistic,
}

/// How one judging run is done.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JudgeSettings {
    /// The trial seed.
    pub seed: u64,
    /// The learner.
    pub learner: LearnerChoice,
    /// Pegasos iterations per retrain.
    pub iterations: usize,
    /// The precision of Pegasos's Gram matrix.
    pub precision: crate::judge::pegasos::Precision,
    /// The batch schedule.
    pub schedule: Schedule,
    /// Where candidates come from.
    pub candidates: CandidateSource,
    /// The pool depth (top k of every pooled run).
    pub pool_depth: usize,
    /// Presumed non-relevant documents per retrain.
    pub random_negatives: usize,
}

/// One judged document of a trace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceStep {
    /// 1-based position in the judging order.
    pub step: u32,
    /// 0 for the pool, then 1, 2, ... for CAL batches.
    pub batch: u32,
    /// The document.
    pub doc: DocId,
    /// The model's score when it was picked (NaN for pool documents: no model chose them).
    pub score: f32,
    /// The simulated assessor's grade.
    pub grade: Grade,
    /// Whether the official qrels judged it (else its grade is a presumed 0).
    pub is_official: bool,
}

/// The outcome of judging one topic.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicJudging {
    /// The topic's index in the collection.
    pub topic: usize,
    /// The simulated qrels of the topic: carried judgments first, then the trace's.
    pub judgments: Vec<(DocId, Grade)>,
    /// The judging order (pool, then CAL batches), cut at the budget.
    pub trace: Vec<TraceStep>,
    /// How many official judgments were carried over unchanged.
    pub carried: usize,
    /// The pool size.
    pub pool_size: usize,
    /// Whether the pool alone exceeded the budget (the whole pool is kept).
    pub is_pool_over_budget: bool,
    /// How many times the model was trained.
    pub retrains: usize,
}

/// The pool of one topic: the top `pool_depth` of every pooled run not excluded, sorted.
pub fn pool_of(
    collection: &Collection,
    topic: &TopicData,
    excluded_runs: &[bool],
    pool_depth: usize,
) -> Vec<DocId> {
    let mut pool: Vec<DocId> = topic
        .rankings
        .iter()
        .enumerate()
        .filter(|&(run, _)| collection.runs[run].is_pooled && !excluded_runs[run])
        .flat_map(|(_, ranking)| ranking.iter().take(pool_depth).copied())
        .collect();
    pool.sort_unstable();
    pool.dedup();
    pool
}

/// The candidates of a topic and their vectors for one trial.
struct CandidateVectors<'c> {
    docs: &'c [DocId],
    owned: Vec<SparseVec>,
    collection: &'c Collection,
}

impl<'c> CandidateVectors<'c> {
    fn new(
        collection: &'c Collection,
        topic: &'c TopicData,
        source: CandidateSource,
        excluded_runs: &[bool],
    ) -> Self {
        let docs: &[DocId] = match source {
            CandidateSource::Retrieved => &topic.retrieved,
            CandidateSource::Corpus => &collection.corpus_docs,
        };
        let owned = match collection.vectors {
            Vectors::Text { .. } => Vec::new(),
            Vectors::Runs => {
                let available = excluded_runs.iter().filter(|excluded| !**excluded).count();
                topic
                    .hits
                    .iter()
                    .map(|hits| {
                        run_feature_vector(
                            hits,
                            |run| !excluded_runs[run as usize],
                            available,
                            collection.runs.len(),
                        )
                    })
                    .collect()
            }
        };
        Self {
            docs,
            owned,
            collection,
        }
    }

    /// The vector of a document (empty when it has none for this topic and trial).
    fn vector<'s>(&'s self, doc: DocId, empty: &'s SparseVec) -> &'s SparseVec {
        match &self.collection.vectors {
            Vectors::Text { vectors, .. } => vectors.get(doc as usize).unwrap_or(empty),
            Vectors::Runs => match self.docs.binary_search(&doc) {
                Ok(pos) => &self.owned[pos],
                Err(_) => empty,
            },
        }
    }
}

/// Judges one topic for one trial. `excluded_runs[r]` removes run `r` from the pool and (with
/// run features) from the features; `budget` is the topic's N_t.
///
/// # Errors
/// When the learner cannot be configured or trained.
pub fn judge_topic(
    collection: &Collection,
    topic_index: usize,
    excluded_runs: &[bool],
    budget: usize,
    settings: &JudgeSettings,
) -> Result<TopicJudging> {
    let topic = &collection.topics[topic_index];
    let mut rng = crate::sim::seed::topic_rng(settings.seed, &topic.id);
    let level = collection.relevance_level;
    let assess = |doc: DocId| match topic.grades.get(&doc) {
        Some(&grade) => (grade, true),
        None => (0, false),
    };
    let candidates = CandidateVectors::new(collection, topic, settings.candidates, excluded_runs);
    let mut judgments = match settings.candidates {
        CandidateSource::Retrieved => carried_judgments(topic, candidates.docs),
        CandidateSource::Corpus => Vec::new(),
    };
    let mut judged: FxHashSet<DocId> = judgments.iter().map(|&(doc, _)| doc).collect();
    let carried = judgments.len();
    let pool = pool_of(collection, topic, excluded_runs, settings.pool_depth);
    let mut trace: Vec<TraceStep> = Vec::with_capacity(budget.max(pool.len()));
    let record = |doc: DocId, batch: u32, score: f32, trace: &mut Vec<TraceStep>| {
        let (grade, is_official) = assess(doc);
        trace.push(TraceStep {
            step: u32::try_from(trace.len() + 1).expect("fewer than 2^32 judgments"),
            batch,
            doc,
            score,
            grade,
            is_official,
        });
    };
    for &doc in &pool {
        if judged.insert(doc) {
            record(doc, 0, f32::NAN, &mut trace);
        }
    }
    let is_pool_over_budget = carried + trace.len() > budget;
    let pool_has_relevant = trace
        .iter()
        .any(|step| is_relevant_grade(step.grade, level));
    let empty = SparseVec::empty();
    let seed = seed_vector(collection, topic, excluded_runs, pool_has_relevant);
    let dimension = match &collection.vectors {
        Vectors::Text { dimension, .. } => *dimension,
        Vectors::Runs => collection.runs.len() + 1,
    };
    let learner = Learner::new(settings)?;
    let mut retrains = 0;
    let mut scored: Vec<(f32, DocId)> = Vec::new();
    let mut batch_sizes = settings.schedule.batch_sizes();
    let mut batch = 0u32;
    while carried + trace.len() < budget {
        let remaining = budget - carried - trace.len();
        let batch_size = batch_sizes
            .next()
            .expect("schedules never end")
            .min(remaining);
        // Text mode always has the topic seed; run mode has the pseudo-positive seed unless
        // the pool holds a relevant document: positives are never empty.
        let mut positives: Vec<&SparseVec> = seed.iter().collect();
        let mut negatives: Vec<&SparseVec> = Vec::new();
        for step in &trace {
            let vector = candidates.vector(step.doc, &empty);
            if is_relevant_grade(step.grade, level) {
                positives.push(vector);
            } else {
                negatives.push(vector);
            }
        }
        for _ in 0..settings
            .random_negatives
            .min(collection.negative_pool.len())
        {
            let doc = collection.negative_pool[rng.random_range(0..collection.negative_pool.len())];
            negatives.push(candidates.vector(doc, &empty));
        }
        let training = TrainingSet::new(positives, negatives, dimension);
        let model = learner.train(&training, &mut rng)?;
        retrains += 1;
        scored.clear();
        scored.extend(
            candidates
                .docs
                .iter()
                .filter(|doc| !judged.contains(doc))
                .map(|&doc| (model.score(candidates.vector(doc, &empty)), doc)),
        );
        if scored.is_empty() {
            break;
        }
        select_batch(&mut scored, batch_size);
        batch += 1;
        for &(score, doc) in &scored {
            judged.insert(doc);
            record(doc, batch, score, &mut trace);
        }
    }
    judgments.extend(trace.iter().map(|step| (step.doc, step.grade)));
    Ok(TopicJudging {
        topic: topic_index,
        judgments,
        trace,
        carried,
        pool_size: pool.len(),
        is_pool_over_budget,
        retrains,
    })
}

/// The official judgments of documents outside `candidates` (sorted): HiCAL found them through
/// their text, no run retrieved them, so no team owns them; they are carried over unchanged.
fn carried_judgments(topic: &TopicData, candidates: &[DocId]) -> Vec<(DocId, Grade)> {
    let mut carried: Vec<(DocId, Grade)> = topic
        .grades
        .iter()
        .filter(|(doc, _)| candidates.binary_search(doc).is_err())
        .map(|(&doc, &grade)| (doc, grade))
        .collect();
    carried.sort_unstable();
    carried
}

/// The positive seed: the topic text's vector with text features; with run features the
/// pseudo-positive (rank 1 in every available run) when the pool found nothing relevant.
fn seed_vector(
    collection: &Collection,
    topic: &TopicData,
    excluded_runs: &[bool],
    pool_has_relevant: bool,
) -> Option<SparseVec> {
    match (&collection.vectors, &topic.text_seed) {
        (Vectors::Text { .. }, Some(text_seed)) => Some(text_seed.clone()),
        (Vectors::Runs, _) if !pool_has_relevant => {
            let available = excluded_runs.iter().filter(|excluded| !**excluded).count();
            Some(pseudo_positive(
                |run| !excluded_runs[run as usize],
                available,
                collection.runs.len(),
            ))
        }
        _ => None,
    }
}

/// The configured learner, checked once per topic.
enum Learner {
    Pegasos(PegasosValidParams),
    Logistic,
}

impl Learner {
    fn new(settings: &JudgeSettings) -> Result<Self> {
        Ok(match settings.learner {
            LearnerChoice::Pegasos => Self::Pegasos(
                PegasosParams::new()
                    .iterations(settings.iterations)
                    .precision(settings.precision)
                    .check()?,
            ),
            LearnerChoice::Logistic => Self::Logistic,
        })
    }

    fn train(&self, training: &TrainingSet, rng: &mut impl Rng) -> Result<Box<dyn Scorer>> {
        Ok(match self {
            Self::Pegasos(params) => Box::new(params.fit(training, rng)?),
            Self::Logistic => Box::new(fit_logistic(
                training,
                logistic::DEFAULT_ALPHA,
                logistic::DEFAULT_MAX_ITERATIONS,
            )?),
        })
    }
}

/// Keeps the `batch_size` best of `scored` (highest score first, ties broken by the lower
/// document id), best first, without sorting the rest.
pub fn select_batch(scored: &mut Vec<(f32, DocId)>, batch_size: usize) {
    let best_first = |a: &(f32, DocId), b: &(f32, DocId)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    if batch_size == 0 {
        scored.clear();
        return;
    }
    if scored.len() > batch_size {
        scored.select_nth_unstable_by(batch_size - 1, best_first);
        scored.truncate(batch_size);
    }
    scored.sort_unstable_by(best_first);
}

/// Judges every topic of the collection for one trial, topics in parallel; the result is in
/// topic order and does not depend on the number of threads. `budget_of(topic)` gives N_t.
///
/// # Errors
/// The first topic's error, in topic order.
pub fn judge_trial(
    collection: &Collection,
    excluded_runs: &[bool],
    budget_of: impl Fn(&TopicData) -> usize + Sync,
    settings: &JudgeSettings,
) -> Result<Vec<TopicJudging>> {
    use rayon::prelude::*;
    (0..collection.topics.len())
        .into_par_iter()
        .map(|topic| {
            let budget = budget_of(&collection.topics[topic]);
            judge_topic(collection, topic, excluded_runs, budget, settings)
        })
        .collect()
}

/// The simulated qrels of a judged trial.
pub fn to_qrels(collection: &Collection, judgings: &[TopicJudging]) -> crate::io::qrels::Qrels {
    let mut qrels = crate::io::qrels::Qrels::default();
    for judging in judgings {
        let topic = qrels
            .topics
            .entry(collection.topics[judging.topic].id.as_str().into())
            .or_default();
        for &(doc, grade) in &judging.judgments {
            topic.insert(collection.docs.name(doc), grade);
        }
    }
    qrels
}

/// Writes traces as TSV: `topic step batch docid score grade official` (score `NaN` for pool
/// documents, official `1` or `0`).
///
/// # Errors
/// When writing fails.
pub fn write_traces(
    out: &mut dyn std::io::Write,
    collection: &Collection,
    judgings: &[TopicJudging],
) -> std::io::Result<()> {
    writeln!(out, "topic\tstep\tbatch\tdocid\tscore\tgrade\tofficial")?;
    for judging in judgings {
        let topic = &collection.topics[judging.topic].id;
        for step in &judging.trace {
            writeln!(
                out,
                "{topic}\t{}\t{}\t{}\t{}\t{}\t{}",
                step.step,
                step.batch,
                collection.docs.name(step.doc),
                step.score,
                step.grade,
                u8::from(step.is_official)
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn select_batch_equals_a_full_sort(
            scores in proptest::collection::vec(-3i8..3, 0..60),
            batch_size in 0usize..70,
        ) {
            // Few distinct scores, so ties are common and the tie rule is exercised.
            let scored: Vec<(f32, DocId)> = scores
                .iter()
                .enumerate()
                .map(|(doc, &score)| (f32::from(score), doc as DocId))
                .rev()
                .collect();
            let mut selected = scored.clone();
            select_batch(&mut selected, batch_size);
            let mut expected = scored;
            expected.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            expected.truncate(batch_size);
            prop_assert_eq!(selected, expected);
        }
    }
}
