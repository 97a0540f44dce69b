//! A quick study of the hand-made task of [`crate::io::fixture`], and a judging to cut to smaller
//! budgets, for the study's unit tests (test builds only).

use crate::judge::assessor::GradeSource;
use crate::judge::cal::{TopicJudging, TraceStep};
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
        significance: crate::sim::settings::default_significance(),
    }
}

/// A one-seed study of map with HiCAL's settings, for the tests that need only its
/// fingerprint.
pub(crate) fn map_study() -> StudySettings {
    StudySettings {
        seeds: 1,
        measures: crate::eval::parse_measures(&["map"]).unwrap(),
        teams: None,
        judge: JudgeSettings::hical(2),
        budget: None,
        keep_qrels: false,
        budget_fractions: crate::sim::settings::OFFICIAL_BUDGET_ONLY.to_vec(),
        strategies: Vec::new(),
        assessor: crate::sim::settings::AssessorChoice::Official,
        significance: crate::sim::settings::default_significance(),
    }
}

/// A judging of 1 carried judgment, a pool of 3 and 6 CAL judgments (batches 1, 1, 2, 2,
/// 2, 3) made with a budget of 10.
pub(crate) fn cut_judging() -> TopicJudging {
    let step = |position: u32, batch: u32| TraceStep {
        step: position,
        batch,
        doc: 100 + position,
        score: f32::NAN,
        grade: 1,
        source: GradeSource::Official,
    };
    let batches = [0, 0, 0, 1, 1, 2, 2, 2, 3];
    let trace: Vec<TraceStep> = batches
        .iter()
        .enumerate()
        .map(|(pos, &batch)| step(pos as u32 + 1, batch))
        .collect();
    let mut judgments = vec![(1, 2)];
    judgments.extend(trace.iter().map(|s| (s.doc, s.grade)));
    TopicJudging {
        topic: 0,
        judgments,
        trace,
        carried: 1,
        pool_size: 3,
        is_pool_over_budget: false,
        retrains: 3,
        withheld: 0,
    }
}
