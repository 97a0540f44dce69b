//! Calibration of the judge model against the collection itself, by leaving each pooled team
//! out of the pool (classic leave-out-uniques).
//!
//! What the audit needs is the probability that an unjudged document of a new run's top is
//! relevant. A new run contributed nothing to the pool; the collection holds examples of that
//! situation, once per run of a pooled team: take run r's team out of the pool, and the
//! documents of r's top [`super::model::MODEL_DEPTH`] that are then unjudged are the collection's
//! unjudged documents (presumed non-relevant, as the collection's scores presume them) and the
//! judged documents that only r's team put in the pool
//! ([`crate::collection::UniqueRule::classic`]: its pooled runs' top `pool_depth`; a backtest
//! passes the rule of its world), whose grades are known.
//!
//! So the calibration sample has one row per run of a pooled team (the audited team's runs
//! aside) and such document, with four features: the model's out-of-fold log-odds
//! ([`super::model`]); the log of the document's rank in the run; the log-odds of the run's
//! *judged precision* (the relevant share, smoothed by half a document, of the judged
//! documents of its top that its team did not alone contribute: how good the run is where the
//! collection can tell); and whether the document is in the pool's reach (in the top
//! `pool_depth` of a pooled run: judging would have reached it), also as a second depth term
//! for such documents. A logistic regression on that sample (Platt scaling with depth,
//! run-quality and pool terms) maps them to a calibrated probability. The audited run's
//! documents are in the pool's reach when the collection's pooled runs, or the audited run
//! itself, put them in their top `pool_depth`: a run counts as pooled when the task pools it,
//! and a run new to the task counts as pooled, since the audit asks what the collection would
//! say had it taken part. A collection whose teams' sole pool contributions are rarely
//! relevant gets probabilities near 0 for its unjudged documents; one where leaving a team out
//! of the pool loses many relevant documents gets high ones, highest in the tops of good runs.
//! A per-topic correction of the log-odds ([`super::effects::topic_offset`]) then moves each
//! topic toward the rate its own rows showed. The relevant rows' grades give the grade mix of
//! a relevant document beyond the other teams' reach ([`grade_factors`]), against the
//! judgments' own.
//!
//! The sample is collected by [`super::calibration_sample`], the features are named in
//! [`super::calibration_features`]; this file holds the fit and what it yields.

use serde::Serialize;

use super::below_level::BelowLevelShift;
use super::bootstrap::{replicate_fits, ClusteredRows};
use super::calibration_features::{serialize_coefficients, DocumentFeatures, Fit, FEATURES};
use super::calibration_sample::{
    below_level_rows, collect_sample, effect_rows, label_rows, team_clusters, CalibrationInput,
    TeamAbsence,
};
use super::effects::{sample_effects, SampleEffects, TOPIC_PRIOR_RELEVANT};
use super::grade_mix::grade_factors;
use super::labels::LabelCalibration;
use crate::base::error::{Error, Result};
use crate::base::{is_relevant, Grade};
use crate::judge::logistic::{fit_logistic, LogisticModel};
use crate::judge::TrainingSet;
use crate::stats::log_odds::{logit, sigmoid, smoothed_rate};

/// The L2 penalty of the calibration fit: two features and thousands of rows, so it only
/// keeps the fit finite when the sample separates perfectly.
pub const CALIBRATION_ALPHA: f64 = 1e-3;

/// How the model's raw probabilities map to calibrated ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    /// The point fit: how documents beyond the pool's reach are treated (and so which rows the
    /// fit learned from and which features it has), the intercept and the weights.
    #[serde(flatten)]
    pub fit: Fit,
    /// Per topic (collection order), the log-odds added for the topic: how many relevant
    /// documents its own rows held against how many the fit expected there, each with
    /// [`TOPIC_PRIOR_RELEVANT`] added (see [`super::effects::topic_offset`]).
    pub topic_offsets: Vec<f64>,
    /// Per topic, the standard deviation of its log-odds correction, about 1/sqrt(O + 1) for
    /// O relevant rows: the uncertainty every document of the topic shares.
    pub topic_sd: Vec<f64>,
    /// The standard deviation of a run's own log-odds effect, estimated from how far the
    /// sample's runs' relevant counts stray from the fit beyond counting noise: the
    /// uncertainty every document of a run shares.
    pub run_sd: f64,
    /// The standard deviation of a run's own slope in ln(rank) on the log-odds, estimated
    /// from how the sample's runs' residuals tilt with depth beyond counting noise: how far a
    /// run's relevance may fall faster or slower with depth than the fit says, an
    /// uncertainty that grows with the distance from the ranks the sample shows.
    pub run_log_rank_sd: f64,
    /// The standard deviation of a run's own log-odds effect on one topic, beyond `run_sd`:
    /// the uncertainty the documents of one run and topic share.
    pub run_topic_sd: f64,
    /// The ln(rank) at which the run's slope effect is 0: the sample's mean ln(rank), each
    /// row weighted by its variance p(1 − p), where the run effect `run_sd` is measured.
    pub log_rank_center: f64,
    /// The fit repeated on bootstrap samples of the calibration's teams
    /// ([`super::bootstrap`]), serialized as each replicate's [`Fit::coefficients`].
    #[serde(serialize_with = "serialize_coefficients")]
    pub replicates: Vec<Fit>,
    /// Per replicate, the run effect's standard deviation measured on its own rows against its
    /// own fit (as `run_sd` is on the sample): the samples that use a replicate draw their run
    /// shift with it, so that the uncertainty of `run_sd` itself reaches the audit.
    pub replicate_run_sd: Vec<f64>,
    /// Per replicate, the run slope's standard deviation, as `replicate_run_sd` is the shift's.
    pub replicate_run_log_rank_sd: Vec<f64>,
    /// Per relevant grade of the judgments (ascending), its share among the sample's relevant
    /// rows over its share among the judgments' relevant documents, each share with one
    /// relevant row's worth of the judgments' own mix added: how much more or less often a
    /// relevant document beyond the other teams' reach has that grade than a judged one.
    pub grade_factors: Vec<(Grade, f64)>,
    /// The shift of the log-odds of a grade above 0 over those of relevance, within the pool's
    /// reach and beyond it ([`super::below_level`]), when the collection has grades between 0
    /// and the relevance level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub below_level_shift: Option<BelowLevelShift>,
    /// Rows in the calibration sample (run, document).
    pub sample_size: usize,
    /// Of which judged relevant (unique relevant documents of the runs' teams).
    pub sample_relevant: usize,
    /// Documents left out of the sample because the collection never judged them, so that
    /// their relevance is unknown (only when extrapolating; otherwise they are rows presumed
    /// non-relevant).
    pub unlabelled: usize,
    /// With a secondary assessor's labels, what a label is worth ([`super::labels`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<LabelCalibration>,
}

impl Calibration {
    /// The calibrated log-odds of relevance of a document of topic `topic`.
    pub fn log_odds(&self, topic: usize, document: &DocumentFeatures) -> f64 {
        let calibrated =
            self.topic_offsets[topic] + (self.fit.intercept + self.fit.weighted(document));
        self.labelled(topic, calibrated, document)
    }

    /// `calibrated`, the calibrated log-odds of `document` of topic `topic`, through the label
    /// stage when the document has a label and the calibration learnt from labels (which
    /// leaves it as it is when the labels carry no information).
    fn labelled(&self, topic: usize, calibrated: f64, document: &DocumentFeatures) -> f64 {
        let label = (document.label, document.is_in_pool);
        LabelCalibration::labelled(self.labels.as_ref(), topic, calibrated, label)
    }

    /// The calibrated log-odds of a document of topic `topic` under bootstrap replicate
    /// `replicate` of the fit (the point fit when there are none).
    pub fn replicate_log_odds(
        &self,
        topic: usize,
        document: &DocumentFeatures,
        replicate: usize,
    ) -> f64 {
        let Some(fit) = self.replicates.get(replicate) else {
            return self.log_odds(topic, document);
        };
        let calibrated = self.topic_offsets[topic] + fit.intercept + fit.weighted(document);
        self.labelled(topic, calibrated, document)
    }

    /// The standard deviations of a run's shift and slope in Monte-Carlo sample `sample`, which
    /// uses replicate `sample` mod their number (the point estimates when there are none).
    pub fn run_effect_sds(&self, sample: usize) -> (f64, f64) {
        match self.replicate_run_sd.len() {
            0 => (self.run_sd, self.run_log_rank_sd),
            count => (
                self.replicate_run_sd[sample % count],
                self.replicate_run_log_rank_sd[sample % count],
            ),
        }
    }

    /// The calibrated probability of relevance of a document of topic `topic`.
    pub fn probability(&self, topic: usize, document: &DocumentFeatures) -> f64 {
        sigmoid(self.log_odds(topic, document))
    }
}

/// Refuses judgments without a single non-relevant one (qrels that list only relevant
/// documents): the model learns what is not relevant from them, and with none every
/// probability would be a certainty.
///
/// # Errors
/// [`Error::Invalid`] when no grade in `grades` is below `relevance_level`.
pub fn require_non_relevant(
    grades: impl IntoIterator<Item = Grade>,
    relevance_level: Grade,
) -> Result<()> {
    let any_non_relevant = (grades.into_iter()).any(|grade| !is_relevant(grade, relevance_level));
    if any_non_relevant {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "the qrels hold no non-relevant judgment (no grade below the relevance level \
             {relevance_level}), and the relevance model learns what is not relevant from them: \
             qrels that list only relevant documents can be neither completed nor \
             extrapolated; give qrels with their judged non-relevant documents"
        )))
    }
}

/// Fits the calibration of `input.models` on the leave-team-out sample of the judgments, with
/// the team's absence read from `absence`. The runs of the audited team stay out of the
/// sample: their documents are what the audit asks about. When extrapolating beyond the pool,
/// a document the collection never judged has no known label and stays out of the fit; when
/// not, it is a row presumed non-relevant, as the collection presumes it.
///
/// # Errors
/// When the judgments hold no non-relevant one ([`require_non_relevant`]); when the logistic
/// fit fails.
pub fn calibrate(input: &CalibrationInput, absence: TeamAbsence) -> Result<Calibration> {
    require_non_relevant(
        input
            .grades
            .iter()
            .flat_map(|topic| topic.values().copied()),
        input.collection.relevance_level,
    )?;
    let sample = collect_sample(input, absence);
    let beyond_pool = input.beyond_pool;
    let sample_size = sample.positives.len() + sample.negatives.len();
    let sample_relevant = sample.positives.len();
    let model = if sample.positives.is_empty() || sample.negatives.is_empty() {
        // Nothing to separate: every document gets the sample's smoothed base rate.
        LogisticModel {
            weights: vec![0.0; FEATURES],
            intercept: logit(smoothed_rate(sample_relevant, sample_size)),
        }
    } else {
        let training = TrainingSet::new(
            sample.positives.iter().collect(),
            sample.negatives.iter().collect(),
            FEATURES,
        );
        fit_logistic(
            &training,
            CALIBRATION_ALPHA,
            super::model::AUDIT_MAX_ITERATIONS,
        )?
    };
    let clusters = team_clusters(input, &sample);
    let (topic_count, run_count) = (input.collection.topics.len(), input.collection.runs.len());
    let effects = |model: &LogisticModel, times: Option<&[usize]>| {
        sample_effects(
            &effect_rows(model, &sample, &clusters, times),
            topic_count,
            run_count,
        )
    };
    let point = effects(&model, None);
    let labels = (input.labels)
        .map(|_| {
            let rows = label_rows(&model, &point.topic_offsets, &sample);
            LabelCalibration::fit(&rows, topic_count, beyond_pool)
        })
        .transpose()?;
    let replicates = replicate_fits(
        &ClusteredRows {
            positives: &sample.positives,
            positive_clusters: &clusters.positive,
            negatives: &sample.negatives,
            negative_clusters: &clusters.negative,
            clusters: clusters.count,
            dimension: FEATURES,
        },
        CALIBRATION_ALPHA,
        super::model::AUDIT_MAX_ITERATIONS,
    )?;
    let judged = || (input.grades.iter()).flat_map(|grades| grades.values().copied());
    let level = input.collection.relevance_level;
    // Only where some judgment lies between 0 and the level is there a grade to draw.
    let below_level_shift = judged().any(|grade| grade > 0 && grade < level).then(|| {
        let model_offsets = (&model, point.topic_offsets.as_slice());
        BelowLevelShift::fit(&below_level_rows(
            model_offsets,
            labels.as_ref(),
            &sample,
            level,
        ))
    });
    let replicate_effects: Vec<SampleEffects> = (replicates.iter())
        .map(|replicate| effects(&replicate.model, Some(&replicate.times)))
        .collect();
    Ok(Calibration {
        fit: Fit::from_model(beyond_pool, &model),
        topic_sd: (point.topic_relevant.iter())
            .map(|&o| (1.0 / (o as f64 + TOPIC_PRIOR_RELEVANT)).sqrt())
            .collect(),
        topic_offsets: point.topic_offsets,
        run_sd: point.run_sd,
        run_log_rank_sd: point.run_log_rank_sd,
        run_topic_sd: point.run_topic_sd,
        log_rank_center: point.log_rank_center,
        replicates: (replicates.iter())
            .map(|replicate| Fit::from_model(beyond_pool, &replicate.model))
            .collect(),
        replicate_run_sd: replicate_effects.iter().map(|own| own.run_sd).collect(),
        replicate_run_log_rank_sd: (replicate_effects.iter())
            .map(|own| own.run_log_rank_sd)
            .collect(),
        grade_factors: grade_factors(judged(), &sample.positive_grades, level),
        below_level_shift,
        sample_size,
        sample_relevant,
        unlabelled: sample.unlabelled,
        labels,
    })
}

#[cfg(test)]
#[path = "calibration_tests.rs"]
mod tests;
