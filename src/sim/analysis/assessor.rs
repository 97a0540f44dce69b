//! The study against its simulated assessor's own ranking, when the assessor is not the
//! official one (see docs/assessor.md): every ranking the statistics compare with the official
//! one is also compared with the runs' ranking on the assessor's qrels of the same seed (the
//! fuller file's, or each seed's completed qrels), and the judgments are counted by where
//! their grades came from.

use serde::{Deserialize, Serialize};

use super::agreement::AssessorAgreement;
use super::figures::{spread_of_options, MeasureFigures};
use super::measure::AssessorSummary;
use crate::sim::study::StudyOutcome;
use crate::sim::trials::SourceCounts;

/// The assessor of a study and where its judgments' grades came from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AssessorReport {
    /// `completed`, or the fuller qrels file's path.
    pub name: String,
    /// Judgments (carried ones aside) over every (trial, topic) unit graded by the official
    /// qrels.
    pub official: usize,
    /// Graded by the fuller file alone.
    pub from_file: usize,
    /// Drawn from the relevance model.
    pub drawn: usize,
    /// Presumed non-relevant: nothing graded them.
    pub presumed: usize,
    /// How far the assessor's qrels agree with the official qrels, seed by seed (absent from
    /// summaries written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement: Option<AssessorAgreement>,
}

impl AssessorReport {
    /// The report of `outcome`'s assessor, its agreement given on `measures` (the study's, in
    /// its scoring's order); `None` for the official one.
    pub fn of(outcome: &StudyOutcome, measures: &[String]) -> Option<Self> {
        let assessor = outcome.assessor.as_ref()?;
        let SourceCounts {
            official,
            file,
            drawn,
            presumed,
        } = outcome.sources;
        Some(Self {
            name: assessor.name.clone(),
            official,
            from_file: file,
            drawn,
            presumed,
            agreement: AssessorAgreement::of(outcome, measures),
        })
    }
}

impl MeasureFigures<'_> {
    /// Every run's score on the assessor's qrels of `seed`; `None` for the official assessor.
    pub(super) fn assessor_scores(&self, seed: u64) -> Option<Vec<f64>> {
        let assessor = self.outcome.assessor.as_ref()?;
        Some(assessor.reference[&seed].measure(self.measure))
    }

    /// The rankings against the assessor's; `None` for the official assessor.
    pub(super) fn assessor_summary(&self) -> Option<AssessorSummary> {
        self.outcome.assessor.as_ref()?;
        let against = |seed: u64, scores: &[f64]| {
            let reference = self.assessor_scores(seed).expect("an assessor's ranking");
            crate::stats::tau_b(&reference, scores).ok()
        };
        let trials = &self.outcome.trials;
        let of_trials = |control: bool| {
            spread_of_options(
                trials
                    .iter()
                    .filter(|t| t.trial.held_out.is_none() == control)
                    .map(|t| against(t.trial.seed, &t.scores.measure(self.measure))),
            )
        };
        let classic = self.outcome.classic_lou.measure(self.measure);
        Some(AssessorSummary {
            official_tau_b: spread_of_options(
                self.seeds.iter().map(|&s| against(s, &self.official)),
            ),
            official_tau_ap: spread_of_options(self.seeds.iter().map(|&seed| {
                let reference = self.assessor_scores(seed).expect("an assessor's ranking");
                crate::stats::tau_ap(&reference, &self.official).ok()
            })),
            lou_tau_b: spread_of_options(
                self.seeds
                    .iter()
                    .zip(&self.lou)
                    .map(|(&seed, scores)| against(seed, scores)),
            ),
            control_tau_b: of_trials(true),
            trials_tau_b: of_trials(false),
            classic_lou_tau_b: spread_of_options(
                self.seeds.iter().map(|&seed| against(seed, &classic)),
            ),
            control_recall: spread_of_options(
                (trials.iter())
                    .filter(|t| t.trial.held_out.is_none())
                    .map(|t| t.assessor_recall),
            ),
        })
    }
}
