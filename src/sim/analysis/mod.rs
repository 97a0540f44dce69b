//! The study's results: the statistics (see docs/experiment.md#statistics) computed from its
//! scores (the official ranking, the leave-out-uniques (LOU) ranking per seed, each trial's ranking, the
//! control's agreement with the official qrels, classic leave-out-uniques, swapped pairs with
//! their significance, every ranking against the truth when there is one), the rows of the
//! result tables, and the files themselves ([`files`]); with a budget curve, the same statistics
//! at each budget fraction ([`budget`]). Rendering (JSON, Markdown, figures) is `report`'s.

pub mod budget;
mod figures;
pub mod files;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::collection::{CandidateSource, Collection};
use crate::io::task::Task;
use crate::judge::pegasos::DEFAULT_ITERATIONS;
use crate::judge::schedule::Schedule;
use crate::judge::settings::{JudgeSettings, LearnerChoice, HICAL_TRAIN_LEVEL};
use crate::sim::study::{StudyOutcome, StudySettings};
use crate::stats::Spread;
use budget::BudgetSummary;
use figures::MeasureFigures;
pub use files::{BudgetRow, HeldOutRow, LouRow, RankRow, RunRow, StudyResults, TrialRow};

/// The seed of the randomization tests' sign flips (fixed, so reports are reproducible).
pub const RANDOMIZATION_SEED: u64 = 2021;

/// Settings as reported, with every departure from HiCAL named.
#[derive(Debug, Clone, Serialize)]
pub struct SettingsSummary {
    /// The seeds of the trials.
    pub seeds: Vec<u64>,
    /// The measures, canonical names.
    pub measures: Vec<String>,
    /// The teams held out.
    pub held_out_teams: Vec<String>,
    /// `text` or `runs`.
    pub features: String,
    /// The judge's settings.
    pub judge: JudgeSettings,
    /// A fixed per-topic budget, if one replaced the official counts.
    pub budget: Option<usize>,
    /// The relevance level.
    pub relevance_level: i32,
    /// Every way the simulation departs from HiCAL as TREC DL ran it.
    pub deviations: Vec<String>,
}

impl SettingsSummary {
    /// The settings of a study of `task`, as reported.
    pub fn new(
        task: &Task,
        collection: &Collection,
        settings: &StudySettings,
        held_out_teams: Vec<String>,
    ) -> Self {
        Self {
            seeds: (1..=settings.seeds).collect(),
            measures: settings.measures.iter().map(ToString::to_string).collect(),
            held_out_teams,
            features: if collection.uses_text() {
                "text"
            } else {
                "runs"
            }
            .to_string(),
            deviations: deviations(&settings.judge, collection, settings.budget),
            judge: settings.judge.clone(),
            budget: settings.budget,
            relevance_level: task.manifest.relevance_level,
        }
    }
}

/// Work done.
#[derive(Debug, Clone, Serialize)]
pub struct SimulationCounts {
    /// Trials (controls included).
    pub trials: usize,
    /// (trial, topic) units.
    pub units: usize,
    /// Distinct units judged (identical ones shared).
    pub distinct_units: usize,
    /// Model fits.
    pub retrains: usize,
    /// Units whose pool alone exceeded the budget (the whole pool was kept).
    pub pools_over_budget: usize,
}

/// The LOU ranking (each run on its own team's held-out qrels) against the official one.
#[derive(Debug, Clone, Serialize)]
pub struct LouSummary {
    /// Kendall's tau_b over seeds.
    pub tau_b: Option<Spread>,
    /// tau_ap over seeds.
    pub tau_ap: Option<Spread>,
    /// The largest rank drop over seeds.
    pub max_drop: Option<Spread>,
    /// Runs whose rank changed, over seeds.
    pub runs_changed: Option<Spread>,
}

/// Every trial's ranking of all runs against the official one.
#[derive(Debug, Clone, Serialize)]
pub struct TrialsSummary {
    /// tau_b over all leave-team-out trials.
    pub tau_b: Option<Spread>,
    /// tau_ap over all leave-team-out trials.
    pub tau_ap: Option<Spread>,
}

/// The control trials (nothing held out) against the official qrels.
#[derive(Debug, Clone, Serialize)]
pub struct ControlSummary {
    /// The fraction of official judgments the control qrels hold.
    pub overlap: Option<Spread>,
    /// The fraction of officially relevant documents found.
    pub recall: Option<Spread>,
    /// tau_b of the run ranking on the control qrels against the official ranking.
    pub tau_b: Option<Spread>,
}

/// Classic leave-out-uniques on the official qrels.
#[derive(Debug, Clone, Serialize)]
pub struct ClassicSummary {
    /// tau_b against the official ranking.
    pub tau_b: Option<f64>,
    /// tau_ap against the official ranking.
    pub tau_ap: Option<f64>,
    /// The largest rank drop.
    pub max_drop: f64,
    /// Runs whose rank changed.
    pub runs_changed: usize,
}

/// Rankings against the complete truth (synthetic tasks).
#[derive(Debug, Clone, Serialize)]
pub struct TruthSummary {
    /// The official ranking's tau_b against the truth ranking.
    pub official_tau_b: Option<f64>,
    /// The official ranking's tau_ap against the truth ranking.
    pub official_tau_ap: Option<f64>,
    /// The LOU rankings' tau_b against the truth, over seeds.
    pub lou_tau_b: Option<Spread>,
    /// The control rankings' tau_b against the truth, over seeds.
    pub control_tau_b: Option<Spread>,
    /// Every held-out trial's ranking of all runs against the truth.
    pub trials_tau_b: Option<Spread>,
    /// Classic LOU's tau_b against the truth.
    pub classic_lou_tau_b: Option<f64>,
}

/// Two runs whose order under the mean LOU scores differs from the official order.
#[derive(Debug, Clone, Serialize)]
pub struct SwappedPair {
    /// The officially better run.
    pub better: String,
    /// The officially worse run.
    pub worse: String,
    /// Official scores.
    pub official: [f64; 2],
    /// Mean LOU scores over seeds.
    pub lou_mean: [f64; 2],
    /// The paired t-test p-value of the official per-topic difference (two-sided).
    pub t_test_p: Option<f64>,
    /// The sign-flip randomization test p-value (10,000 permutations, fixed seed).
    pub randomization_p: Option<f64>,
    /// Topics both runs were scored on.
    pub topics: usize,
}

/// Held-out trials against the control trial of their seed: the leave-out effect with the
/// simulation's own noise paired away.
#[derive(Debug, Clone, Serialize)]
pub struct PairedSummary {
    /// tau_b of each held-out trial's ranking against its seed's control ranking.
    pub tau_b: Option<Spread>,
    /// tau_ap of each held-out trial's ranking against its seed's control ranking.
    pub tau_ap: Option<Spread>,
    /// Each held-out run's score in its team's trial less its score in the control.
    pub score_change: Option<Spread>,
    /// Each held-out run's rank in its team's trial less its rank in the control (positive =
    /// dropped).
    pub rank_change: Option<Spread>,
}

/// All statistics for one measure.
#[derive(Debug, Clone, Serialize)]
pub struct MeasureSummary {
    /// LOU ranking figures.
    pub lou: LouSummary,
    /// Per-trial ranking figures.
    pub trials: TrialsSummary,
    /// Control figures.
    pub control: ControlSummary,
    /// Held-out trials paired with their seed's control.
    pub paired: PairedSummary,
    /// Classic leave-out-uniques figures.
    pub classic_lou: ClassicSummary,
    /// Truth figures, on tasks with a truth file.
    pub truth: Option<TruthSummary>,
    /// Swapped pairs with significance tests.
    pub swapped_pairs: Vec<SwappedPair>,
}

/// The whole report of a study.
#[derive(Debug, Clone, Serialize)]
pub struct StudySummary {
    /// Task name.
    pub task: String,
    /// Settings and deviations.
    pub settings: SettingsSummary,
    /// Per measure (canonical name).
    pub measures: BTreeMap<String, MeasureSummary>,
    /// Work done.
    pub simulations: SimulationCounts,
    /// Wall time of the study.
    pub elapsed_seconds: f64,
    /// The budget curve, when the study has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetSummary>,
    /// Rows of runs.tsv.
    #[serde(skip)]
    pub runs: Vec<RunRow>,
    /// Rows of lou.tsv.
    #[serde(skip)]
    pub lou: Vec<LouRow>,
    /// Rows of trials.tsv.
    #[serde(skip)]
    pub trials: Vec<TrialRow>,
    /// Rows of heldout.tsv.
    #[serde(skip)]
    pub held_out: Vec<HeldOutRow>,
    /// Rows of ranks.tsv.
    #[serde(skip)]
    pub ranks: Vec<RankRow>,
    /// Rows of budget.tsv (none without a budget curve).
    #[serde(skip)]
    pub budget_rows: Vec<BudgetRow>,
}

impl StudySummary {
    /// Computes every statistic of `outcome`.
    pub fn new(
        task_name: &str,
        settings: SettingsSummary,
        outcome: &StudyOutcome,
        elapsed_seconds: f64,
    ) -> Self {
        let mut measures = BTreeMap::new();
        let (mut runs, mut lou, mut trials, mut held_out, mut ranks) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (index, name) in settings.measures.iter().enumerate() {
            let figures = MeasureFigures::new(outcome, index, name);
            let trial_rows = figures.trial_rows();
            let held_out_rows = figures.held_out_rows();
            let rank_rows = figures.rank_rows();
            measures.insert(name.clone(), figures.summary(&trial_rows, &held_out_rows));
            let (run_rows, lou_rows) = figures.run_rows(&rank_rows);
            runs.extend(run_rows);
            lou.extend(lou_rows);
            trials.extend(trial_rows);
            held_out.extend(held_out_rows);
            ranks.extend(rank_rows);
        }
        let (budget, budget_rows) = budget::budget_curve(outcome, &settings.measures);
        Self {
            task: task_name.to_string(),
            settings,
            measures,
            simulations: SimulationCounts {
                trials: outcome.trials.len(),
                units: outcome.units,
                distinct_units: outcome.distinct_units,
                retrains: outcome.retrains,
                pools_over_budget: outcome.pools_over_budget,
            },
            elapsed_seconds,
            budget,
            runs,
            lou,
            trials,
            held_out,
            ranks,
            budget_rows,
        }
    }
}

/// Every way a study departs from HiCAL as TREC Deep Learning ran it: text features over the
/// whole corpus, the whole corpus as candidates, Pegasos with 200,000 iterations, every grade
/// > 0 trained as relevant, the official budgets, and NIST's assessors judging in HiCALWeb.
pub fn deviations(
    judge: &JudgeSettings,
    collection: &Collection,
    budget: Option<usize>,
) -> Vec<String> {
    let mut deviations = Vec::new();
    if !collection.uses_text() {
        deviations.push(
            "run features (1/(60+rank) per run plus the fraction of runs) instead of HiCAL's \
             text features: the task has no corpus"
                .to_string(),
        );
    }
    if let Some(sample) = collection.corpus_sample {
        deviations.push(format!(
            "the corpus is too large to hold: random negatives{} come from a uniform sample of \
             {} of its {} documents (by a hash of the document id, whether judged or not)",
            if judge.candidates == CandidateSource::Corpus {
                " and corpus candidates"
            } else {
                ""
            },
            sample.sampled,
            sample.total
        ));
    }
    if judge.candidates == CandidateSource::Retrieved {
        deviations.push(
            "candidates are the documents the runs retrieved, not the whole corpus; official \
             judgments of documents no run retrieved are carried over unchanged"
                .to_string(),
        );
    }
    deviations.push(match judge.schedule {
        Schedule::Bmi => "BMI batches as HiCAL's command-line simulation keeps them; NIST's \
                          assessors judged in HiCALWeb, which retrains after every judgment \
                          (closest: schedule one)"
            .to_string(),
        Schedule::One => "a retrain after every judgment: HiCALWeb's asynchronous retraining, \
                          which NIST's assessors used, made synchronous"
            .to_string(),
    });
    if judge.train_level != HICAL_TRAIN_LEVEL {
        deviations.push(format!(
            "grades >= {} train as positive; HiCAL and NIST trained every grade > 0 as relevant",
            judge.train_level
        ));
    }
    if judge.learner == LearnerChoice::Logistic {
        deviations.push("logistic regression instead of HiCAL's Pegasos".to_string());
    } else if judge.iterations != DEFAULT_ITERATIONS {
        deviations.push(format!(
            "{} Pegasos iterations per retrain instead of HiCAL's {DEFAULT_ITERATIONS}",
            judge.iterations
        ));
    }
    if let Some(budget) = budget {
        deviations.push(format!(
            "a fixed budget of {budget} judgments per topic instead of the official counts"
        ));
    }
    deviations
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::settings::Withhold;
    use crate::sim::fixture::{hand_task, small_study};
    use crate::sim::study::{held_out_teams, run_study};

    #[test]
    fn the_lou_ranking_scores_each_run_on_its_own_teams_trial_or_the_control() {
        let dir = tempfile::tempdir().unwrap();
        let task = hand_task(dir.path(), false);
        let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
        let study = small_study(Withhold::Uniques, None);
        let teams = held_out_teams(&task, None).unwrap();
        let outcome = run_study(&task, &collection, &study, teams.clone(), &|_, _| {}).unwrap();
        let summary = StudySummary::new(
            "hand",
            SettingsSummary::new(&task, &collection, &study, teams),
            &outcome,
            0.0,
        );
        for row in summary.lou.iter().filter(|row| row.measure == "map") {
            let run = collection
                .runs
                .iter()
                .position(|r| r.tag == row.run)
                .unwrap();
            // D has no pooled run, so it is never held out: the control scores it.
            let held_out = (row.team != "D").then_some(row.team.as_str());
            let expected = outcome.trial(1, held_out).scores.summary[run][0];
            assert_eq!(row.score, expected, "{}", row.run);
        }
    }
}
