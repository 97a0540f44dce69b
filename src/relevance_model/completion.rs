//! The completed assessor (see docs/assessor.md): the official qrels, completed by grades
//! drawn from the calibrated relevance model for every document no qrels judged that a
//! judging process can reach.
//!
//! [`CompletionModel::fit`] fits the audit's model once on the official qrels: per topic the
//! out-of-fold judge model ([`super::model`]), scoring every document a run retrieved at any
//! depth and trained on the judged documents alone (every never-judged document is a question,
//! which the model does not presume non-relevant), and its calibration on the pool's leave-team-out evidence with extrapolation beyond
//! the pool ([`super::calibration`], [`BeyondPool::Extrapolated`]). A never-judged retrieved
//! document takes its features from the run that ranks it best (on a tie, the run of higher
//! judged precision, then the first in task order): its rank there, that run's judged
//! precision, the model's raw probability, and its best rank in another team's pooled run. A
//! document no run retrieved has no such features and stays presumed non-relevant.
//!
//! [`CompletionModel::draw`] makes one seed's completion: the seed draws the calibration's
//! correlated effects once around its point fit (a log-odds shift per topic, a shift and a
//! slope in ln(rank) per run, and a shift per run and topic, as an audit sample does), then
//! each document's grade from a uniform keyed by (seed, topic, document)
//! ([`crate::base::seed::document_uniforms`]): relevant with its probability under those
//! effects, with a grade drawn by the topic's grade mix ([`super::grade_mix`]). Every trial and
//! every strategy of the seed asks the same completion, so the same document always gets the
//! same grade; another seed draws afresh, and the spread over seeds includes the completion's
//! own uncertainty.

use rand::Rng;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::calibration::{calibrate, Calibration};
use super::calibration_features::{judged_precision, DocumentFeatures};
use super::calibration_sample::{CalibrationInput, TeamAbsence};
use super::effects::RunEffect;
use super::grade_mix::{grade_chances, pick_grade, Side};
use super::model::{fit_topic_scoring, TopicModel, MODEL_DEPTH};
use super::reach::{BestPooledRanks, BeyondPool};
use crate::base::error::Result;
use crate::base::seed::{document_uniforms, keyed_rng};
use crate::base::{DocId, DocumentGrades, Grade};
use crate::collection::{Collection, UniqueRule};
use crate::judge::assessor::{Assessment, Assessor, GradeSource};
use crate::stats::log_odds::sigmoid;

/// The name mixed with a seed for the random stream of a completion's correlated effects.
const EFFECTS_STREAM: &str = "completion effects";

/// One never-judged document a completion grades, and its features.
#[derive(Debug, Clone, Copy)]
struct Completed {
    doc: DocId,
    /// The run the features come from (the best-ranked).
    run: u32,
    features: DocumentFeatures,
}

/// One topic's never-judged retrieved documents.
#[derive(Debug, Clone, Default)]
struct TopicCompletion {
    /// Sorted by document.
    docs: Vec<Completed>,
    /// The grades a relevant document may get, with their chances.
    grade_chances: Vec<(Grade, f64)>,
}

/// The relevance model of a collection's never-judged retrieved documents, fitted once on its
/// official qrels.
#[derive(Debug, Clone)]
pub struct CompletionModel {
    /// The calibration of the judge models.
    pub calibration: Calibration,
    topics: Vec<TopicCompletion>,
}

impl CompletionModel {
    /// Fits the model on `collection`'s own grades, the pool taken to `pool_depth`.
    ///
    /// # Errors
    /// When a logistic fit fails.
    pub fn fit(collection: &Collection, pool_depth: usize) -> Result<Self> {
        let judgments: Vec<DocumentGrades> =
            collection.topics.iter().map(|t| t.grades.clone()).collect();
        let models = (collection.topics.par_iter())
            .zip(&judgments)
            .map(|(topic, grades)| {
                let never_judged: Vec<DocId> = (topic.retrieved.iter())
                    .filter(|doc| !grades.contains_key(doc))
                    .copied()
                    .collect();
                // Every never-judged document is a question the completion asks, so none is
                // presumed non-relevant in training, as the audit presumes none of its audited
                // run's: presumed so, the relevant ones would teach the model that documents
                // like them are not relevant, and the calibration, whose rows are judged
                // documents, could not see it.
                let questions: FxHashSet<DocId> = never_judged.iter().copied().collect();
                fit_topic_scoring(collection, topic, grades, &questions, &never_judged)
            })
            .collect::<Result<Vec<TopicModel>>>()?;
        let best_ranks = BestPooledRanks::every_topic(collection);
        let calibration = calibrate(
            &CalibrationInput {
                collection,
                grades: &judgments,
                models: &models,
                pool_depth,
                audited_teams: &[],
                beyond_pool: BeyondPool::Extrapolated,
                best_ranks: &best_ranks,
                labels: None,
            },
            TeamAbsence::Pool(UniqueRule::classic(pool_depth)),
        )?;
        let topics = (0..collection.topics.len())
            .into_par_iter()
            .map(|index| {
                topic_completion(
                    collection,
                    index,
                    &models[index],
                    &best_ranks[index],
                    &calibration,
                )
            })
            .collect();
        Ok(Self {
            calibration,
            topics,
        })
    }

    /// The point probability of relevance of never-judged document `doc` of topic `topic`
    /// (`None`: the completion does not grade it).
    pub fn probability(&self, topic: usize, doc: DocId) -> Option<f64> {
        let completed = self.find(topic, doc)?;
        Some(self.calibration.probability(topic, &completed.features))
    }

    fn find(&self, topic: usize, doc: DocId) -> Option<&Completed> {
        let docs = &self.topics[topic].docs;
        docs.binary_search_by_key(&doc, |c| c.doc)
            .ok()
            .map(|pos| &docs[pos])
    }

    /// The documents of topic `topic` the completion grades, sorted.
    pub fn documents(&self, topic: usize) -> impl Iterator<Item = DocId> + '_ {
        self.topics[topic].docs.iter().map(|c| c.doc)
    }

    /// Seed `seed`'s draws for `collection` (the collection this model was fitted on).
    pub fn draw(&self, collection: &Collection, seed: u64) -> SeedDraws {
        let effects = SeedEffects::draw(self, collection, seed);
        let drawn = (self.topics.iter().enumerate())
            .map(|(index, topic)| {
                let topic_id = &collection.topics[index].id;
                topic
                    .docs
                    .iter()
                    .map(|completed| {
                        let log_odds = effects.log_odds(&self.calibration, index, completed);
                        let name = collection.docs.name(completed.doc);
                        let [relevance, grade] = document_uniforms(seed, topic_id, name);
                        if relevance < sigmoid(log_odds) {
                            let chances = topic.grade_chances.iter().map(|&(_, c)| c);
                            topic.grade_chances[pick_grade(chances, grade)].0
                        } else {
                            0
                        }
                    })
                    .collect()
            })
            .collect();
        SeedDraws { drawn }
    }

    /// The completed assessor of one seed's `draws` (made by [`Self::draw`] for `collection`).
    pub fn assessor<'a>(
        &'a self,
        collection: &'a Collection,
        draws: &'a SeedDraws,
    ) -> CompletedAssessor<'a> {
        CompletedAssessor {
            collection,
            model: self,
            drawn: &draws.drawn,
        }
    }
}

/// One seed's drawn grades.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedDraws {
    /// drawn[topic][i]: the grade drawn for the model's i-th document of the topic.
    drawn: Vec<Vec<Grade>>,
}

/// Topic `index`'s never-judged retrieved documents with their features.
fn topic_completion(
    collection: &Collection,
    index: usize,
    model: &TopicModel,
    best_ranks: &BestPooledRanks,
    calibration: &Calibration,
) -> TopicCompletion {
    let topic = &collection.topics[index];
    let level = collection.relevance_level;
    let precision: Vec<f64> = (topic.rankings.iter())
        .map(|ranking| {
            let top = &ranking[..ranking.len().min(MODEL_DEPTH)];
            judged_precision(top, level, |doc| topic.grades.get(&doc).copied())
        })
        .collect();
    // Each never-judged document's best (rank, -precision, run).
    let mut best: FxHashMap<DocId, (usize, f64, u32)> = FxHashMap::default();
    for (run, ranking) in topic.rankings.iter().enumerate() {
        let run_index = u32::try_from(run).expect("fewer than 2^32 runs");
        for (pos, &doc) in ranking.iter().enumerate() {
            if topic.grades.contains_key(&doc) {
                continue;
            }
            let candidate = (pos + 1, -precision[run], run_index);
            let entry = best.entry(doc).or_insert(candidate);
            if candidate.0 < entry.0 || (candidate.0 == entry.0 && candidate.1 < entry.1) {
                *entry = candidate;
            }
        }
    }
    let mut docs: Vec<Completed> = best
        .into_iter()
        .map(|(doc, (rank, _, run))| {
            let team = &collection.runs[run as usize].team;
            Completed {
                doc,
                run,
                features: DocumentFeatures {
                    raw: model.probabilities.get(&doc).copied().unwrap_or(0.0),
                    rank,
                    run_precision: precision[run as usize],
                    is_in_pool: false,
                    best_pooled_rank: best_ranks.without(doc, team),
                    label: None,
                },
            }
        })
        .collect();
    docs.sort_unstable_by_key(|c| c.doc);
    let mut judged_grades: Vec<Grade> = topic.grades.values().copied().collect();
    judged_grades.sort_unstable();
    TopicCompletion {
        docs,
        grade_chances: grade_chances(
            &judged_grades,
            level,
            Side::Relevant,
            &calibration.grade_factors,
        ),
    }
}

/// One seed's draw of the calibration's correlated effects around its point fit.
struct SeedEffects {
    /// Per topic.
    topic_shifts: Vec<f64>,
    /// Per run.
    run_effects: Vec<RunEffect>,
    /// run_topic_shifts[topic][run].
    run_topic_shifts: Vec<Vec<f64>>,
}

impl SeedEffects {
    /// The effects of `seed`, from one ChaCha8 stream keyed by the seed: the topic shifts in
    /// topic order, the run effects in run order, and the run and topic shifts topic by topic.
    ///
    /// The fit is the point fit, not one of its bootstrap replicates: with few teams the
    /// replicates' weights spread so widely that their mixture expects far more relevant
    /// documents than the point fit does (on the embedded task, 9 teams: 122 a seed on
    /// average over 20 seeds, from 41 to 254, against 83 for the point fit and 80 in the
    /// truth), and a study's few seeds would each stand in a different world.
    fn draw(model: &CompletionModel, collection: &Collection, seed: u64) -> Self {
        let calibration = &model.calibration;
        let mut rng = keyed_rng(seed, EFFECTS_STREAM);
        let mut normal = move || rng.sample::<f64, _>(rand_distr::StandardNormal);
        let topic_shifts = (calibration.topic_sd.iter())
            .map(|sd| sd * normal())
            .collect();
        let (shift_sd, slope_sd) = (calibration.run_sd, calibration.run_log_rank_sd);
        let run_effects = (0..collection.runs.len())
            .map(|_| RunEffect::draw(shift_sd, slope_sd, &mut normal))
            .collect();
        let run_topic_shifts = (0..collection.topics.len())
            .map(|_| {
                (0..collection.runs.len())
                    .map(|_| calibration.run_topic_sd * normal())
                    .collect()
            })
            .collect();
        Self {
            topic_shifts,
            run_effects,
            run_topic_shifts,
        }
    }

    /// The log-odds of `completed` (a document of topic `topic`) under these effects.
    fn log_odds(&self, calibration: &Calibration, topic: usize, completed: &Completed) -> f64 {
        let features = &completed.features;
        let run = completed.run as usize;
        let marginal = calibration.log_odds(topic, features);
        let tilt = (features.rank as f64).ln() - calibration.log_rank_center;
        self.run_effects[run].log_odds(marginal, tilt, calibration.run_topic_sd)
            + self.run_topic_shifts[topic][run]
            + self.topic_shifts[topic]
    }
}

/// One seed's completed assessor: the official grade where there is one, else the drawn grade
/// of a never-judged retrieved document, else a presumed 0.
#[derive(Debug, Clone)]
pub struct CompletedAssessor<'c> {
    collection: &'c Collection,
    model: &'c CompletionModel,
    /// drawn[topic][i]: the grade drawn for the model's i-th document of the topic.
    drawn: &'c [Vec<Grade>],
}

impl CompletedAssessor<'_> {
    /// Every judgment of the completed qrels of topic `topic`: the official ones, then the
    /// drawn ones in document order.
    pub fn judgments(&self, topic: usize) -> impl Iterator<Item = (DocId, Grade)> + '_ {
        let official = self.collection.topics[topic].grades.iter();
        let mut official: Vec<(DocId, Grade)> = official.map(|(&d, &g)| (d, g)).collect();
        official.sort_unstable();
        let drawn = (self.model.topics[topic].docs.iter())
            .zip(&self.drawn[topic])
            .map(|(completed, &grade)| (completed.doc, grade));
        official.into_iter().chain(drawn)
    }
}

impl Assessor for CompletedAssessor<'_> {
    fn assess(&self, topic: usize, doc: DocId) -> Assessment {
        if let Some(&grade) = self.collection.topics[topic].grades.get(&doc) {
            return Assessment {
                grade,
                source: GradeSource::Official,
            };
        }
        let docs = &self.model.topics[topic].docs;
        match docs.binary_search_by_key(&doc, |c| c.doc) {
            Ok(pos) => Assessment {
                grade: self.drawn[topic][pos],
                source: GradeSource::Drawn,
            },
            Err(_) => Assessment {
                grade: 0,
                source: GradeSource::Presumed,
            },
        }
    }
}

#[cfg(test)]
#[path = "completion_tests.rs"]
mod tests;
