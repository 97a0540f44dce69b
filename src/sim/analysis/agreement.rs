//! How far a study's assessor, when it is not the official one, agrees with the official
//! qrels (see docs/assessor.md): per seed, on the grades of the pairs both grade and on the
//! leaderboard of every measure, and over the seeds. The figures are `reusesim agree`'s, the
//! official qrels being A and the assessor's qrels of the seed B.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::figures::spread_of_options;
use crate::sim::agreement::AssessorGrades;
use crate::sim::study::StudyOutcome;
use crate::stats::leaderboard::leaderboard_agreement;
use crate::stats::Spread;

/// The number of the official ranking's best runs among which tau_b is also given.
pub const TOP_RUNS: usize = 10;

/// How far the assessor agrees with the official qrels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssessorAgreement {
    /// A grade >= this is relevant (the task's relevance level).
    pub relevance_level: i32,
    /// Seed by seed.
    pub seeds: Vec<SeedAgreement>,
    /// Over the seeds: the mean, with the smallest and largest value.
    pub over_seeds: AgreementSpread,
}

/// How far the assessor's qrels of one seed agree with the official qrels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedAgreement {
    /// The seed.
    pub seed: u64,
    /// On the grades.
    pub grades: GradeFigures,
    /// On the leaderboard, per measure (canonical name).
    pub measures: BTreeMap<String, LeaderboardFigures>,
}

/// The assessor's grades against the official grades of the same (topic, document) pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GradeFigures {
    /// Pairs both qrels grade: the figures below are over these.
    pub pairs: usize,
    /// Pairs only the official qrels grade.
    pub only_official: usize,
    /// Pairs only the assessor's qrels grade.
    pub only_assessor: usize,
    /// Cohen's kappa (unweighted); `None` when undefined.
    pub kappa: Option<f64>,
    /// Cohen's kappa with linear weights.
    pub kappa_linear: Option<f64>,
    /// Cohen's kappa with quadratic weights.
    pub kappa_quadratic: Option<f64>,
    /// Cohen's kappa of relevant against not relevant at the relevance level.
    pub binary_kappa: Option<f64>,
    /// The share of the pairs the official qrels grade relevant.
    pub relevant_share_official: Option<f64>,
    /// The share of the pairs the assessor grades relevant.
    pub relevant_share_assessor: Option<f64>,
    /// The share of the pairs only the assessor grades that it grades relevant (the drawn
    /// ones of a completed assessor; `None` when there are none).
    pub relevant_share_only_assessor: Option<f64>,
}

/// The runs scored on the assessor's qrels against the runs scored on the official qrels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardFigures {
    /// Kendall's tau_b between the two rankings.
    pub tau_b: Option<f64>,
    /// tau_ap of the assessor's ranking against the official one.
    pub tau_ap: Option<f64>,
    /// tau_b among the official ranking's 10 best runs.
    pub top_10_tau_b: Option<f64>,
    /// The most ranks a run falls from the official ranking to the assessor's (0 when none
    /// falls).
    pub largest_drop: f64,
    /// The run that falls furthest (the first in run order among equals).
    pub largest_drop_run: Option<String>,
    /// The mean over the runs of the score on the assessor's qrels less the official score.
    pub mean_difference: f64,
    /// The root mean square of that difference.
    pub rmse: f64,
}

/// The figures over the seeds (`None` where a seed's figure is undefined).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgreementSpread {
    /// On the grades.
    pub grades: GradeSpread,
    /// On the leaderboard, per measure.
    pub measures: BTreeMap<String, LeaderboardSpread>,
}

/// [`GradeFigures`] over the seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GradeSpread {
    /// Pairs both qrels grade.
    pub pairs: Option<Spread>,
    /// Pairs only the official qrels grade.
    pub only_official: Option<Spread>,
    /// Pairs only the assessor's qrels grade.
    pub only_assessor: Option<Spread>,
    /// Cohen's kappa.
    pub kappa: Option<Spread>,
    /// Cohen's kappa with linear weights.
    pub kappa_linear: Option<Spread>,
    /// Cohen's kappa with quadratic weights.
    pub kappa_quadratic: Option<Spread>,
    /// The binary kappa.
    pub binary_kappa: Option<Spread>,
    /// The official qrels' relevant share.
    pub relevant_share_official: Option<Spread>,
    /// The assessor's relevant share.
    pub relevant_share_assessor: Option<Spread>,
    /// The assessor's relevant share of the pairs only it grades.
    pub relevant_share_only_assessor: Option<Spread>,
}

/// [`LeaderboardFigures`] over the seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardSpread {
    /// tau_b.
    pub tau_b: Option<Spread>,
    /// tau_ap.
    pub tau_ap: Option<Spread>,
    /// tau_b among the official ranking's 10 best runs.
    pub top_10_tau_b: Option<Spread>,
    /// The largest drop.
    pub largest_drop: Option<Spread>,
    /// The mean difference.
    pub mean_difference: Option<Spread>,
    /// The root mean square difference.
    pub rmse: Option<Spread>,
}

impl AssessorAgreement {
    /// The agreement of `outcome`'s assessor with the official qrels, on `measures` (the
    /// study's, in its scoring's column order); `None` for the official assessor.
    pub fn of(outcome: &StudyOutcome, measures: &[String]) -> Option<Self> {
        let assessor = outcome.assessor.as_ref()?;
        let collection = outcome.collection;
        let seeds: Vec<SeedAgreement> = (assessor.grades.iter())
            .map(|(&seed, grades)| {
                let reference = &assessor.reference[&seed];
                let measures = (measures.iter().enumerate())
                    .filter_map(|(index, name)| {
                        let official = outcome.official.measure(index);
                        let ranks = leaderboard_agreement(
                            &official,
                            &reference.measure(index),
                            &[TOP_RUNS],
                        )
                        .ok()?;
                        let figures = LeaderboardFigures {
                            tau_b: ranks.tau_b,
                            tau_ap: ranks.tau_ap,
                            top_10_tau_b: ranks.top[0].tau_b,
                            largest_drop: ranks.largest_drop.map_or(0.0, |drop| drop.drop),
                            largest_drop_run: (ranks.largest_drop)
                                .map(|drop| collection.runs[drop.run].tag.clone()),
                            mean_difference: ranks.mean_difference,
                            rmse: ranks.rmse,
                        };
                        Some((name.clone(), figures))
                    })
                    .collect();
                SeedAgreement {
                    seed,
                    grades: GradeFigures::of(grades),
                    measures,
                }
            })
            .collect();
        Some(Self {
            relevance_level: collection.relevance_level,
            over_seeds: AgreementSpread::of(&seeds),
            seeds,
        })
    }
}

impl GradeFigures {
    /// The figures of one seed's grades.
    fn of(grades: &AssessorGrades) -> Self {
        let agreement = &grades.agreement;
        Self {
            pairs: agreement.pairs,
            only_official: grades.only_official,
            only_assessor: grades.only_assessor,
            kappa: agreement.kappa,
            kappa_linear: agreement.kappa_linear,
            kappa_quadratic: agreement.kappa_quadratic,
            binary_kappa: agreement.binary_kappa,
            relevant_share_official: agreement.relevant_share_a,
            relevant_share_assessor: agreement.relevant_share_b,
            relevant_share_only_assessor: (grades.only_assessor > 0)
                .then(|| grades.only_assessor_relevant as f64 / grades.only_assessor as f64),
        }
    }
}

impl AgreementSpread {
    /// The figures of `seeds` over the seeds.
    fn of(seeds: &[SeedAgreement]) -> Self {
        let grades = |figure: fn(&GradeFigures) -> Option<f64>| {
            spread_of_options(seeds.iter().map(|seed| figure(&seed.grades)))
        };
        let count = |figure: fn(&GradeFigures) -> usize| {
            spread_of_options(seeds.iter().map(|seed| Some(figure(&seed.grades) as f64)))
        };
        let names = seeds.first().map(|seed| seed.measures.keys());
        let measures = (names.into_iter().flatten())
            .map(|name| {
                let spread = |figure: fn(&LeaderboardFigures) -> Option<f64>| {
                    spread_of_options(
                        (seeds.iter()).map(|seed| seed.measures.get(name).and_then(figure)),
                    )
                };
                let leaderboard = LeaderboardSpread {
                    tau_b: spread(|m| m.tau_b),
                    tau_ap: spread(|m| m.tau_ap),
                    top_10_tau_b: spread(|m| m.top_10_tau_b),
                    largest_drop: spread(|m| Some(m.largest_drop)),
                    mean_difference: spread(|m| Some(m.mean_difference)),
                    rmse: spread(|m| Some(m.rmse)),
                };
                (name.clone(), leaderboard)
            })
            .collect();
        Self {
            grades: GradeSpread {
                pairs: count(|g| g.pairs),
                only_official: count(|g| g.only_official),
                only_assessor: count(|g| g.only_assessor),
                kappa: grades(|g| g.kappa),
                kappa_linear: grades(|g| g.kappa_linear),
                kappa_quadratic: grades(|g| g.kappa_quadratic),
                binary_kappa: grades(|g| g.binary_kappa),
                relevant_share_official: grades(|g| g.relevant_share_official),
                relevant_share_assessor: grades(|g| g.relevant_share_assessor),
                relevant_share_only_assessor: grades(|g| g.relevant_share_only_assessor),
            },
            measures,
        }
    }
}
