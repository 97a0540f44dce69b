//! The CAL loop for one topic (see docs/judge.md#a-judging-run-for-one-topic): carry the
//! official judgments no run could reach, judge the pool as one batch, then let the model pick
//! lists of the highest-scoring unjudged candidates, retraining as HiCAL's engine does
//! ([`crate::judge::schedule`]), until the topic's judgment budget is spent. The simulated
//! assessor ([`crate::judge::assessor`]) grades every judged document and says where the grade
//! came from (by default the official qrels, else a presumed 0). Documents a leave-out trial withholds are never candidates, judged or carried.
//! With [`Carried::Train`] the carried judgments train the model from the first retrain and
//! count toward the schedule's judged total, as if judged before the pool.
//!
//! Randomness: retrain number i of a topic draws its random negatives and Pegasos pairs from
//! stream i of the (seed, topic) generator ([`crate::base::seed::iteration_rng`]), so two trials
//! of one seed draw the same random numbers at the same retrain, and their difference is the
//! leave-out effect rather than the luck of the draw.

use rand::Rng;
use rustc_hash::FxHashSet;

use crate::base::error::Result;
use crate::base::recycle_refs;
use crate::base::sparse::SparseVec;
use crate::base::{is_relevant, DocId, Grade};
use crate::collection::{CandidateSource, Collection, TopicData, UniqueRule, Vectors};
use crate::features::runs::pseudo_positive;
use crate::judge::assessor::{assess_in_pool, Assessor, GradeSource};
use crate::judge::candidates::{best_of_store, select_batch, store_vector, CandidateVectors};
use crate::judge::learner::{Scorer, TrainingSet};
use crate::judge::logistic::{self, fit_logistic, LogisticModel};
use crate::judge::pegasos::{FitMemory, LinearModel, PegasosParams, PegasosValidParams};
use crate::judge::schedule::BatchPlanner;
use crate::judge::settings::{Carried, JudgeSettings, LearnerChoice, Withhold};

/// The key of the positive seed among a unit's training documents (documents are keyed by id).
const SEED_KEY: u64 = u64::MAX;

thread_local! {
    /// What the retrains of the unit this thread is judging keep from one to the next, with
    /// its arrays sized by the vocabulary allocated once per thread.
    static SCRATCH: std::cell::RefCell<RetrainScratch> = std::cell::RefCell::default();
}

/// What a retrain reuses: the fit's memory and the lists it builds, kept on the thread so that
/// a retrain allocates nothing once they have grown to the unit's sizes (with retrieved
/// candidates; a feature store's documents are read into vectors of their own).
#[derive(Default)]
struct RetrainScratch {
    fit: FitMemory,
    positives: Vec<&'static SparseVec>,
    negatives: Vec<&'static SparseVec>,
    keys: Vec<u64>,
    negative_keys: Vec<u64>,
    drawn: Vec<DocId>,
    drawn_from_store: Vec<Option<SparseVec>>,
    available: Vec<DocId>,
    vectors: Vec<&'static [(u32, f32)]>,
    scores: Vec<f32>,
    /// The latest list of proposals.
    list: Vec<(f32, u32, DocId)>,
}

/// One judged document of a trace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceStep {
    /// 1-based position in the judging order.
    pub step: u32,
    /// 0 for the pool, else the number of the retrain whose list proposed it (1 for the first).
    pub batch: u32,
    /// The document.
    pub doc: DocId,
    /// The model's score when it was picked (NaN for pool documents: no model chose them).
    pub score: f32,
    /// The simulated assessor's grade.
    pub grade: Grade,
    /// Where the grade came from.
    pub source: GradeSource,
}

impl TraceStep {
    /// Whether the official qrels judged the document.
    pub fn is_official(&self) -> bool {
        self.source == GradeSource::Official
    }
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
    /// How many documents were withheld from the simulated assessor.
    pub withheld: usize,
}

/// The pool of one topic: the top `pool_depth` (in NIST's pooling order) of every pooled run
/// not excluded, less the withheld documents, sorted.
pub fn pool_of(
    collection: &Collection,
    topic: &TopicData,
    excluded_runs: &[bool],
    withheld: &[DocId],
    pool_depth: usize,
) -> Vec<DocId> {
    let mut pool: Vec<DocId> = topic
        .pool_rankings
        .iter()
        .enumerate()
        .filter(|&(run, _)| collection.runs[run].is_pooled && !excluded_runs[run])
        .flat_map(|(_, ranking)| ranking.iter().take(pool_depth).copied())
        .filter(|doc| withheld.binary_search(doc).is_err())
        .collect();
    pool.sort_unstable();
    pool.dedup();
    pool
}

/// The documents a trial withholds from the simulated assessor on topic `topic_index`, sorted:
/// with [`Withhold::Uniques`], the excluded runs' unique documents under
/// [`UniqueRule::withheld`] by `assessor`'s grades (grade >= the training level; among every
/// run of the task, each to the unique depth, only excluded runs retrieved them), a document
/// of the full depth pool graded as the pool is; else none.
pub fn withheld_documents(
    collection: &Collection,
    topic_index: usize,
    excluded_runs: &[bool],
    settings: &JudgeSettings,
    assessor: &dyn Assessor,
) -> Vec<DocId> {
    match settings.withhold {
        Withhold::None => Vec::new(),
        Withhold::Uniques => {
            // A hybrid assessor grades what the full depth pool holds as the control trial's
            // judging graded it: by the official grades.
            let control_pool = pool_of(
                collection,
                &collection.topics[topic_index],
                &vec![false; excluded_runs.len()],
                &[],
                settings.pool_depth,
            );
            collection.unique_documents_graded(
                &collection.topics[topic_index],
                &UniqueRule::withheld(settings.train_level, settings.unique_depth),
                excluded_runs,
                |doc| assess_in_pool(assessor, topic_index, doc, &control_pool).known_grade(),
            )
        }
    }
}

/// One topic being judged: what is judged so far, and what may still be proposed.
struct TopicState<'c> {
    collection: &'c Collection,
    topic: &'c TopicData,
    topic_index: usize,
    assessor: &'c dyn Assessor,
    settings: &'c JudgeSettings,
    candidates: CandidateVectors<'c>,
    /// The carried judgments, sorted.
    carried: Vec<(DocId, Grade)>,
    /// Judged, carried or withheld: never proposed.
    unavailable: FxHashSet<DocId>,
    /// The pool and CAL judgments, in order.
    trace: Vec<TraceStep>,
    /// The positive seed, if any (see [`seed_vector`]).
    seed: Option<SparseVec>,
    learner: Learner,
    dimension: usize,
    empty: SparseVec,
}

impl<'c> TopicState<'c> {
    /// The carried judgments the model learns from: all of them or none.
    fn trained_carried(&self) -> &[(DocId, Grade)] {
        match self.settings.carried {
            Carried::Train => &self.carried,
            Carried::Ignore => &[],
        }
    }

    /// The judgments the model learns from and the schedule counts: the trained carried ones,
    /// then the pool and CAL judgments in order.
    fn known_judgments(&self) -> impl Iterator<Item = (DocId, Grade)> + '_ {
        self.trained_carried()
            .iter()
            .copied()
            .chain(self.trace.iter().map(|step| (step.doc, step.grade)))
    }

    /// How many judgments the schedule counts as judged.
    fn known_count(&self) -> usize {
        self.trained_carried().len() + self.trace.len()
    }

    /// Records a judgment by the simulated assessor (`is_pooled`: a document of the depth pool).
    ///
    /// # Errors
    /// When the document is a feature store's and the store is damaged there.
    fn record(&mut self, doc: DocId, batch: u32, score: f32, is_pooled: bool) -> Result<()> {
        let assessment = if is_pooled {
            self.assessor.assess_pooled(self.topic_index, doc)
        } else {
            self.assessor.assess(self.topic_index, doc)
        };
        if let Some(vector) = store_vector(self.collection, doc)? {
            self.candidates.judged_from_store.insert(doc, vector);
        }
        self.unavailable.insert(doc);
        self.trace.push(TraceStep {
            step: u32::try_from(self.trace.len() + 1).expect("fewer than 2^32 judgments"),
            batch,
            doc,
            score,
            grade: assessment.grade,
            source: assessment.source,
        });
        Ok(())
    }

    /// Retrain number `retrain`: trains on the judged documents, the seed and fresh random
    /// negatives, and leaves in `list` the `list_size` best unavailable-free candidates, best
    /// first.
    fn propose(
        &self,
        retrain: usize,
        list_size: usize,
        scratch: &mut RetrainScratch,
        list: &mut Vec<(f32, u32, DocId)>,
    ) -> Result<()> {
        let mut rng = crate::base::seed::iteration_rng(self.settings.seed, &self.topic.id, retrain);
        let mut positives = recycle_refs(std::mem::take(&mut scratch.positives));
        let mut negatives = recycle_refs(std::mem::take(&mut scratch.negatives));
        let (keys, negative_keys) = (&mut scratch.keys, &mut scratch.negative_keys);
        keys.clear();
        negative_keys.clear();
        if let Some(seed) = &self.seed {
            positives.push(seed);
            keys.push(SEED_KEY);
        }
        for (doc, grade) in self.known_judgments() {
            let vector = self.candidates.vector(doc, &self.empty);
            if is_relevant(grade, self.settings.train_level) {
                positives.push(vector);
                keys.push(doc.into());
            } else {
                negatives.push(vector);
                negative_keys.push(doc.into());
            }
        }
        let corpus = &self.collection.corpus;
        scratch.drawn.clear();
        scratch.drawn.extend(
            (0..self.settings.random_negatives.min(corpus.len()))
                .map(|_| corpus.get(rng.random_range(0..corpus.len()))),
        );
        scratch.drawn_from_store.clear();
        for &doc in &scratch.drawn {
            (scratch.drawn_from_store).push(store_vector(self.collection, doc)?);
        }
        for (&doc, from_store) in scratch.drawn.iter().zip(&scratch.drawn_from_store) {
            negatives.push(match from_store {
                Some(vector) => vector,
                None => self.candidates.vector(doc, &self.empty),
            });
            negative_keys.push(doc.into());
        }
        keys.extend_from_slice(negative_keys);
        let training = TrainingSet::new(positives, negatives, self.dimension);
        let model = self
            .learner
            .train(&training, keys, &mut scratch.fit, &mut rng)?;
        scratch.positives = recycle_refs(training.positives);
        scratch.negatives = recycle_refs(training.negatives);
        let mut vectors = recycle_refs(std::mem::take(&mut scratch.vectors));
        scratch.available.clear();
        let available = &mut scratch.available;
        (self.candidates).for_each_with_vector(&self.empty, |doc, vector| {
            if !self.unavailable.contains(&doc) {
                available.push(doc);
                vectors.push(vector.as_pairs());
            }
        });
        scratch.scores.clear();
        scratch.scores.resize(vectors.len(), 0.0);
        model.scorer().score_into(&vectors, &mut scratch.scores);
        scratch.vectors = recycle_refs(vectors);
        list.clear();
        list.extend(
            (scratch.scores.iter().zip(&scratch.available))
                .map(|(&score, &doc)| (score, self.collection.tie_rank_of(doc), doc)),
        );
        if self.settings.candidates == CandidateSource::Corpus {
            if let Some(store) = self.collection.corpus.store() {
                list.extend(best_of_store(
                    store,
                    model.scorer(),
                    &self.unavailable,
                    list_size,
                )?);
            }
        }
        select_batch(list, list_size);
        Ok(())
    }
}

/// One topic of one trial: the runs the trial excludes and the documents it withholds from
/// the simulated assessor on the topic.
#[derive(Debug, Clone, Copy)]
pub struct TrialTopic<'a> {
    /// The topic's index in the collection.
    pub topic: usize,
    /// `excluded_runs[run]`: whether the trial excludes the run.
    pub excluded_runs: &'a [bool],
    /// The documents withheld, sorted, as [`withheld_documents`] gives them for the trial.
    pub withheld: &'a [DocId],
}

/// Judges one topic for one trial with `assessor` grading. `excluded_runs[r]` removes run `r`
/// from the pool and (with run features) from the features; `budget` is the topic's N_t.
///
/// # Errors
/// When the learner cannot be configured or trained.
pub fn judge_topic(
    collection: &Collection,
    topic_index: usize,
    excluded_runs: &[bool],
    budget: usize,
    settings: &JudgeSettings,
    assessor: &dyn Assessor,
) -> Result<TopicJudging> {
    let withheld = withheld_documents(collection, topic_index, excluded_runs, settings, assessor);
    let trial_topic = TrialTopic {
        topic: topic_index,
        excluded_runs,
        withheld: &withheld,
    };
    judge_trial_topic(collection, trial_topic, budget, settings, assessor)
}

/// As [`judge_topic`], with the trial's withheld documents already known (a study finds them
/// once per trial and topic, for every strategy and for the scoring).
///
/// # Errors
/// As [`judge_topic`].
pub fn judge_trial_topic(
    collection: &Collection,
    trial_topic: TrialTopic,
    budget: usize,
    settings: &JudgeSettings,
    assessor: &dyn Assessor,
) -> Result<TopicJudging> {
    let TrialTopic {
        topic: topic_index,
        excluded_runs,
        withheld,
    } = trial_topic;
    let topic = &collection.topics[topic_index];
    let candidates = CandidateVectors::new(collection, topic, settings.candidates, excluded_runs);
    let carried = match settings.candidates {
        CandidateSource::Retrieved => {
            carried_judgments(collection, topic_index, candidates.docs, withheld, assessor)
        }
        CandidateSource::Corpus => Vec::new(),
    };
    let pool = pool_of(
        collection,
        topic,
        excluded_runs,
        withheld,
        settings.pool_depth,
    );
    let trace_capacity = budget.max(pool.len());
    let mut state = TopicState {
        collection,
        topic,
        topic_index,
        assessor,
        settings,
        candidates,
        unavailable: unavailable_at_start(&carried, withheld, trace_capacity),
        carried,
        trace: Vec::with_capacity(trace_capacity),
        seed: None,
        learner: Learner::new(settings)?,
        dimension: match &collection.vectors {
            Vectors::Text { dimension, .. } => *dimension,
            Vectors::Runs => collection.runs.len() + 1,
        },
        empty: SparseVec::empty(),
    };
    for &doc in &pool {
        state.record(doc, 0, f32::NAN, true)?;
    }
    let carried = state.carried.len();
    let is_pool_over_budget = carried + state.trace.len() > budget;
    let knows_relevant = state
        .known_judgments()
        .any(|(_, grade)| is_relevant(grade, settings.train_level));
    state.seed = seed_vector(collection, topic, excluded_runs, knows_relevant);
    let retrains = SCRATCH.with_borrow_mut(|scratch| {
        // The keys name this unit's vectors (with run features, a trial's own).
        scratch.fit.forget();
        run_cal(&mut state, budget, scratch)
    })?;
    let mut judgments = std::mem::take(&mut state.carried);
    judgments.extend(state.trace.iter().map(|step| (step.doc, step.grade)));
    Ok(TopicJudging {
        topic: topic_index,
        judgments,
        trace: state.trace,
        carried,
        pool_size: pool.len(),
        is_pool_over_budget,
        retrains,
        withheld: withheld.len(),
    })
}

/// The documents never proposed before judging starts (carried and withheld), in a set with
/// room for `judgments` more, so that recording a judgment never grows it.
fn unavailable_at_start(
    carried: &[(DocId, Grade)],
    withheld: &[DocId],
    judgments: usize,
) -> FxHashSet<DocId> {
    let mut unavailable = FxHashSet::default();
    unavailable.reserve(carried.len() + withheld.len() + judgments);
    unavailable.extend(carried.iter().map(|&(doc, _)| doc));
    unavailable.extend(withheld);
    unavailable
}

/// The CAL phase: iterations as the schedule makes them due, one judgment at a time from the
/// latest list, until the carried judgments plus the trace reach `budget`. Returns the retrains
/// made.
fn run_cal(state: &mut TopicState, budget: usize, scratch: &mut RetrainScratch) -> Result<usize> {
    let mut planner = BatchPlanner::new(state.settings.schedule);
    if state.known_count() > 0 {
        // Iteration 0 ran on the seed alone, but the pool (and the carried judgments, when
        // they train) was recorded before any document of its list was judged: its list is
        // never used, so it is not computed.
        planner.start_iteration();
    }
    let mut retrains = 0;
    // The latest list, and the position of its next document.
    let (mut list, mut next) = (std::mem::take(&mut scratch.list), 0);
    while state.carried.len() + state.trace.len() < budget {
        if planner.is_due(state.known_count()) {
            let list_size = planner.start_iteration();
            retrains += 1;
            state.propose(retrains, list_size, scratch, &mut list)?;
            next = 0;
        }
        let Some(&(score, _, doc)) = list.get(next) else {
            break; // no unjudged candidate is left
        };
        next += 1;
        let batch = u32::try_from(retrains).expect("fewer than 2^32 retrains");
        state.record(doc, batch, score, false)?;
    }
    scratch.list = list;
    Ok(retrains)
}

/// The officially judged documents of topic `topic_index` outside `candidates`, with
/// `assessor`'s grades (sorted): HiCAL found them through their text, no run retrieved them, so
/// no team owns them; they are carried over, except withheld ones.
pub(crate) fn carried_judgments(
    collection: &Collection,
    topic_index: usize,
    candidates: &[DocId],
    withheld: &[DocId],
    assessor: &dyn Assessor,
) -> Vec<(DocId, Grade)> {
    let mut carried: Vec<(DocId, Grade)> = collection.topics[topic_index]
        .grades
        .keys()
        .filter(|doc| candidates.binary_search(doc).is_err())
        .filter(|doc| withheld.binary_search(doc).is_err())
        .map(|&doc| (doc, assessor.assess(topic_index, doc).grade))
        .collect();
    carried.sort_unstable();
    carried
}

/// The positive seed: the topic text's vector with text features; with run features the
/// pseudo-positive (rank 1 in every available run) when no judgment the model learns from
/// before CAL (the pool, and the carried ones when they train) is relevant.
fn seed_vector(
    collection: &Collection,
    topic: &TopicData,
    excluded_runs: &[bool],
    knows_relevant: bool,
) -> Option<SparseVec> {
    match (&collection.vectors, &topic.text_seed) {
        (Vectors::Text { .. }, Some(text_seed)) => Some(text_seed.clone()),
        (Vectors::Runs, _) if !knows_relevant => {
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

    /// Trains on `training`, whose documents `keys` names, with what `memory` kept from the
    /// unit's last fit.
    fn train<'m>(
        &self,
        training: &TrainingSet,
        keys: &[u64],
        memory: &'m mut FitMemory,
        rng: &mut impl Rng,
    ) -> Result<Trained<'m>> {
        Ok(match self {
            Self::Pegasos(params) => {
                Trained::Pegasos(params.fit_reusing(training, keys, memory, rng)?.0)
            }
            Self::Logistic => Trained::Logistic(fit_logistic(
                training,
                logistic::DEFAULT_ALPHA,
                logistic::DEFAULT_MAX_ITERATIONS,
            )?),
        })
    }
}

/// A retrain's model: Pegasos's, kept in the fit's memory, or a logistic one.
enum Trained<'m> {
    Pegasos(&'m LinearModel),
    Logistic(LogisticModel),
}

impl Trained<'_> {
    fn scorer(&self) -> &(dyn Scorer + Sync) {
        match self {
            Self::Pegasos(model) => *model,
            Self::Logistic(model) => model,
        }
    }
}

/// Judges every topic of the collection for one trial with `assessor` grading, topics in
/// parallel; the result is in topic order and does not depend on the number of threads.
/// `budget_of(topic)` gives N_t.
///
/// # Errors
/// The first topic's error, in topic order.
pub fn judge_trial(
    collection: &Collection,
    excluded_runs: &[bool],
    budget_of: impl Fn(&TopicData) -> usize + Sync,
    settings: &JudgeSettings,
    assessor: &dyn Assessor,
) -> Result<Vec<TopicJudging>> {
    use rayon::prelude::*;
    (0..collection.topics.len())
        .into_par_iter()
        .map(|topic| {
            let budget = budget_of(&collection.topics[topic]);
            judge_topic(collection, topic, excluded_runs, budget, settings, assessor)
        })
        .collect()
}
