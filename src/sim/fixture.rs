//! A quick study of the hand-made task of [`crate::io::fixture`] for the study's unit tests
//! (test builds only).

use crate::judge::settings::{JudgeSettings, Withhold};
use crate::sim::settings::StudySettings;

/// A quick study of the hand-made task: one seed, map and P_5, a short Pegasos fit.
pub(crate) fn small_study(withhold: Withhold, budget: Option<usize>) -> StudySettings {
    StudySettings {
        seeds: 1,
        measures: crate::eval::parse_measures(&["map,P_5"]).unwrap(),
        teams: None,
        judge: JudgeSettings {
            iterations: 2_000,
            withhold,
            ..JudgeSettings::hical(2)
        },
        budget,
        keep_qrels: true,
        budget_fractions: crate::sim::settings::OFFICIAL_BUDGET_ONLY.to_vec(),
        strategies: Vec::new(),
        assessor: crate::sim::settings::AssessorChoice::Official,
    }
}
