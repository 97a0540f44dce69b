//! The study's results: the statistics (see docs/experiment.md#statistics) computed from its
//! scores (the official ranking, the leave-out-uniques (LOU) ranking per seed, each trial's ranking, the
//! control's agreement with the official qrels, classic leave-out-uniques, swapped pairs with
//! their significance, every ranking against the truth when there is one), the rows of the
//! result tables, and the files themselves ([`files`]); with a budget curve, the same statistics
//! at each budget fraction ([`budget`]). Rendering (JSON, Markdown, figures) is `report`'s.

pub mod agreement;
mod assessor;
pub mod budget;
mod figures;
pub mod files;
mod measure;
pub mod significance;
pub mod strategies;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::collection::CandidateSource;
use crate::io::task::Task;
use crate::judge::pegasos::DEFAULT_ITERATIONS;
use crate::judge::schedule::Schedule;
use crate::judge::settings::{Carried, JudgeSettings, LearnerChoice, Withhold, HICAL_TRAIN_LEVEL};
use crate::sim::study::{StudyOutcome, StudySettings};
use crate::stats::comparison::TestSettings;
pub use assessor::AssessorReport;
use budget::BudgetSummary;
use figures::MeasureFigures;
pub use files::{
    BudgetRow, HeldOutRow, LouRow, RankRow, RunRow, StrategyRow, StudyResults, TrialRow,
};
pub use measure::{
    AssessorSummary, ClassicSummary, ControlSummary, LouSummary, MeasureSummary, PairedSummary,
    SwappedPair, TrialsSummary, TruthSummary,
};
use significance::SignificanceBasis;
use strategies::StrategiesSummary;

/// Settings as reported, with every departure from HiCAL named.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// How differences between runs are judged significant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub significance: Option<TestSettings>,
}

impl SettingsSummary {
    /// The settings of the study of `task` that gave `outcome`, as reported.
    pub fn new(task: &Task, settings: &StudySettings, outcome: &StudyOutcome) -> Self {
        Self {
            seeds: (1..=settings.seeds).collect(),
            measures: settings.measures.iter().map(ToString::to_string).collect(),
            held_out_teams: outcome.held_out_teams.clone(),
            features: if outcome.collection.uses_text() {
                "text"
            } else {
                "runs"
            }
            .to_string(),
            deviations: deviations(&settings.judge, settings.budget, outcome),
            judge: settings.judge.clone(),
            budget: settings.budget,
            relevance_level: task.manifest.relevance_level,
            significance: Some(settings.significance),
        }
    }
}

/// Work done.
#[derive(Debug, Clone, Serialize, Deserialize)]
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

/// The whole report of a study.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// The comparison of judging strategies, when the study makes one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategies: Option<StrategiesSummary>,
    /// The simulated assessor and where its grades came from, when it is not the official one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assessor: Option<AssessorReport>,
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
    /// Rows of strategies.tsv (none without a comparison of strategies).
    #[serde(skip)]
    pub strategy_rows: Vec<StrategyRow>,
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
        let test =
            (settings.significance).unwrap_or_else(crate::sim::settings::default_significance);
        let basis = SignificanceBasis::new(outcome, &settings.measures, test);
        for (index, name) in settings.measures.iter().enumerate() {
            let figures = MeasureFigures::new(outcome, index, name, &basis);
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
        let (budget, budget_rows) = budget::budget_curve(outcome, &settings.measures, &basis);
        let (strategies, strategy_rows) =
            strategies::compare_strategies(outcome, &settings.measures, &basis);
        let assessor = AssessorReport::of(outcome, &settings.measures);
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
            strategies,
            assessor,
            runs,
            lou,
            trials,
            held_out,
            ranks,
            budget_rows,
            strategy_rows,
        }
    }
}

/// Every way a study departs from HiCAL as TREC Deep Learning ran it (text features over the
/// whole corpus, the whole corpus as candidates, Pegasos with 200,000 iterations, every
/// positive grade trained as relevant, the official budgets, and NIST's assessors judging in
/// HiCALWeb), each listed when it applies to the study that gave `outcome`.
pub fn deviations(
    judge: &JudgeSettings,
    budget: Option<usize>,
    outcome: &StudyOutcome,
) -> Vec<String> {
    let collection = outcome.collection;
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
            "candidates are the documents the runs retrieved, not the whole corpus".to_string(),
        );
    }
    deviations.extend(carried_deviation(judge, outcome));
    deviations.extend(unofficial_deviation(outcome));
    if judge.pool_depth > 0 {
        deviations.push(format!(
            "the pool (the top {} of every pooled run) is recorded as one batch before active \
             learning starts, so the first retrain learns from all of it at once",
            judge.pool_depth
        ));
    }
    if outcome.pools_over_budget > 0 {
        deviations.push(format!(
            "on {} (trial, topic) units the pool alone exceeded the judgment budget and was kept \
             whole, so those topics hold more judgments than the budget",
            outcome.pools_over_budget
        ));
    }
    deviations.push(schedule_deviation(judge.schedule));
    if judge.withhold == Withhold::Uniques {
        deviations.push(withheld_deviation(judge, outcome));
    }
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

/// The judgments of documents the official qrels never judged, and who graded them, when
/// there are any.
fn unofficial_deviation(outcome: &StudyOutcome) -> Option<String> {
    let sources = &outcome.sources;
    let unofficial = sources.unofficial();
    if unofficial == 0 {
        return None;
    }
    Some(match &outcome.assessor {
        None => format!(
            "{unofficial} judgments over all trials are of documents the official qrels never \
             judged: the simulated assessor grades them 0, where NIST's assessors would have \
             judged them"
        ),
        Some(assessor) => format!(
            "{unofficial} judgments over all trials are of documents the official qrels never \
             judged: the assessor {} graded {} from its file, drew {} from the relevance model \
             and presumed {} non-relevant",
            assessor.name, sources.file, sources.drawn, sources.presumed
        ),
    })
}

/// The carried judgments and what the judge does with them, when a trial carried any.
fn carried_deviation(judge: &JudgeSettings, outcome: &StudyOutcome) -> Option<String> {
    let carried = outcome.trials.first()?.agreement.carried;
    (carried > 0).then(|| {
        format!(
            "{carried} official judgments of documents no run retrieved (HiCAL found them \
             through their text) are carried into every trial's qrels unchanged; {}",
            match judge.carried {
                Carried::Train => {
                    "they train the judge from its first retrain and count toward BMI's judged \
                     total, as NIST's judge learned from them"
                }
                Carried::Ignore =>
                    "they never train the judge, though NIST's judge learned from them",
            }
        )
    })
}

/// How the schedule departs from NIST's judging in HiCALWeb.
fn schedule_deviation(schedule: Schedule) -> String {
    match schedule {
        Schedule::Bmi => "BMI batches as HiCAL's command-line simulation keeps them, each list \
                          judged before the next retrain; NIST's assessors judged in HiCALWeb, \
                          which retrains asynchronously as judgments arrive and serves lists \
                          of 51 documents (closest: schedule one)"
            .to_string(),
        Schedule::One => "a retrain after every judgment, each proposing one document: \
                          HiCALWeb's asynchronous retraining made synchronous, where NIST's \
                          assessors judged from lists of 51 documents while the model retrained"
            .to_string(),
    }
}

/// What `--withhold uniques` withholds, and how many documents it withheld.
fn withheld_deviation(judge: &JudgeSettings, outcome: &StudyOutcome) -> String {
    let withheld: usize = outcome.trials.iter().map(|trial| trial.withheld).sum();
    format!(
        "a leave-out trial withholds the team's unique documents from the simulated assessor \
         (never candidates, judged or carried): grade >= {}, and among every run of the task, \
         pooled or not, {}, only the team's runs retrieved them; {withheld} documents over all \
         leave-out trials",
        judge.train_level,
        match judge.unique_depth {
            Some(depth) => format!("each to its top {depth} in NIST's pooling order"),
            None => "at any depth".to_string(),
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::Collection;
    use crate::io::fixture::hand_task;
    use crate::sim::fixture::small_study;
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
            SettingsSummary::new(&task, &study, &outcome),
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

    /// The departures listed for a one-seed study of `task` with `judge` and `budget`.
    fn deviations_of(task: &Task, judge: JudgeSettings, budget: Option<usize>) -> Vec<String> {
        let collection = Collection::prepare(task, &task.qrels, false).unwrap();
        let study = StudySettings {
            judge,
            ..small_study(Withhold::Uniques, budget)
        };
        let teams = held_out_teams(task, None).unwrap();
        let outcome = run_study(task, &collection, &study, teams, &|_, _| {}).unwrap();
        SettingsSummary::new(task, &study, &outcome).deviations
    }

    /// Whether one of `deviations` contains every one of `parts`.
    fn lists(deviations: &[String], parts: &[&str]) -> bool {
        deviations
            .iter()
            .any(|deviation| parts.iter().all(|part| deviation.contains(part)))
    }

    #[test]
    fn every_departure_that_applies_is_listed() {
        let dir = tempfile::tempdir().unwrap();
        let task = crate::io::fixture::hand_task_with_carried(dir.path(), false);
        let judge = JudgeSettings {
            carried: Carried::Train,
            ..small_study(Withhold::Uniques, None).judge
        };
        // A budget above every topic's candidates: each trial judges n2 n3 n4 n6 n7 and t4,
        // which the official qrels never judged (6 per trial, 4 trials); A's trial withholds
        // ua and ua2, B's ub.
        let all = deviations_of(&task, judge.clone(), Some(100));
        for parts in [
            &["run features"][..],
            &["candidates are the documents the runs retrieved"],
            &[
                "1 official judgments of documents no run retrieved",
                "they train the judge",
            ],
            &["24 judgments over all trials", "grades them 0"],
            &["the top 2 of every pooled run", "one batch"],
            &["HiCALWeb", "asynchronously", "lists of 51 documents"],
            &[
                "withholds the team's unique documents",
                "grade >= 1",
                "3 documents",
            ],
            &["2000 Pegasos iterations"],
            &["a fixed budget of 100"],
        ] {
            assert!(lists(&all, parts), "{parts:?} not in {all:#?}");
        }
        assert!(!lists(&all, &["kept whole"]), "{all:#?}");
        // Carried judgments that do not train; a retrain after every judgment.
        let one = JudgeSettings {
            carried: Carried::Ignore,
            schedule: Schedule::One,
            withhold: Withhold::None,
            ..judge.clone()
        };
        let ignored = deviations_of(&task, one, Some(100));
        assert!(
            lists(&ignored, &["they never train the judge"]),
            "{ignored:#?}"
        );
        assert!(lists(
            &ignored,
            &["made synchronous", "lists of 51 documents"]
        ));
        assert!(!lists(&ignored, &["withholds"]), "{ignored:#?}");
        // Without carried judgments, and with a budget of 2: every pool but topic 2's without
        // A (t1 t3) is larger, so it is kept whole, and CAL judges nothing.
        let plain_dir = tempfile::tempdir().unwrap();
        let plain = hand_task(plain_dir.path(), false);
        let small = deviations_of(&plain, judge, Some(2));
        assert!(
            lists(&small, &["on 7 (trial, topic) units", "kept whole"]),
            "{small:#?}"
        );
        assert!(!lists(&small, &["no run retrieved"]), "{small:#?}");
        assert!(!lists(&small, &["grades them 0"]), "{small:#?}");
    }
}
