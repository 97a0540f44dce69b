//! `judge`: replay the judging of a task once (the pool, then HiCAL-like CAL), and the judge's
//! options, which a study shares.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use crate::base::error::{Context, Result};
use crate::collection::{CandidateSource, Collection, FeatureChoice};
use crate::io::qrels::Qrels;
use crate::io::task::Task;
use crate::judge::pegasos::{GramPrecision, DEFAULT_ITERATIONS};
use crate::judge::schedule::Schedule;
use crate::judge::settings::{
    Carried, JudgeSettings, LearnerChoice, Withhold, DEFAULT_CARRIED, DEFAULT_WITHHOLD,
    HICAL_TRAIN_LEVEL, RANDOM_NEGATIVES,
};
use crate::sim::analysis::files::{to_qrels, write_traces, TraceColumns};
use crate::sim::assessor::StudyAssessor;
use crate::sim::settings::{AssessorChoice, Assessors};

use super::task::require_model_qrels;
use crate::base::progress::StagedProgress;

/// The simulated judge's options, shared by `judge` and `simulate`. The defaults are HiCAL's
/// settings as TREC DL ran them, with the task's pool depth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JudgeOptions {
    /// Features: text (HiCAL's, needs a corpus and topics), runs, or auto.
    pub features: FeatureChoice,
    /// The learner retrained after each batch.
    pub learner: LearnerChoice,
    /// Pegasos iterations per retrain.
    pub iterations: usize,
    /// Pegasos Gram matrix precision.
    pub precision: GramPrecision,
    /// The batch schedule.
    pub schedule: Schedule,
    /// Where candidates come from.
    pub candidates: CandidateSource,
    /// Pool depth (`None`: the task's).
    pub pool_depth: Option<usize>,
    /// A fixed number of judgments per topic instead of the official count.
    pub budget: Option<usize>,
    /// What a trial leaving a team out also withholds from the simulated assessor.
    pub withhold: Withhold,
    /// With withheld uniques: count only the top K of every run (`None`: any depth).
    pub unique_depth: Option<usize>,
    /// Whether carried judgments train the judge.
    pub carried: Carried,
    /// A judged grade >= this trains the judge as positive.
    pub train_level: i32,
    /// Who grades what is judged (several: a study per assessor, `simulate` only).
    pub assessor: Assessors,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        Self {
            features: FeatureChoice::Auto,
            learner: LearnerChoice::Pegasos,
            iterations: DEFAULT_ITERATIONS,
            precision: GramPrecision::F32,
            schedule: Schedule::Bmi,
            candidates: CandidateSource::Retrieved,
            pool_depth: None,
            budget: None,
            withhold: DEFAULT_WITHHOLD,
            unique_depth: None,
            carried: DEFAULT_CARRIED,
            train_level: HICAL_TRAIN_LEVEL,
            assessor: Assessors::default(),
        }
    }
}

impl JudgeOptions {
    /// The judge settings for `task` (the trial seed `seed`) and whether text features are used.
    ///
    /// # Errors
    /// Text features without a corpus, and the checks of [`JudgeSettings::check`].
    pub fn settings(&self, task: &Task, seed: u64) -> Result<(JudgeSettings, bool)> {
        let use_text = crate::judge::resolve_features(task, self.features, self.candidates)?;
        let settings = JudgeSettings {
            seed,
            learner: self.learner,
            iterations: self.iterations,
            precision: self.precision,
            schedule: self.schedule,
            candidates: self.candidates,
            pool_depth: self.pool_depth.unwrap_or(task.pool_depth),
            random_negatives: RANDOM_NEGATIVES,
            train_level: self.train_level,
            withhold: self.withhold,
            unique_depth: self.unique_depth,
            carried: self.carried,
        };
        Ok((settings.check()?, use_text))
    }

    /// Refuses, before any work, an assessor that cannot grade `task`.
    ///
    /// # Errors
    /// The completed assessor on qrels without a non-relevant judgment.
    pub fn check_assessor(&self, task: &Task) -> Result<()> {
        for choice in self.assessor.choices() {
            if *choice == AssessorChoice::Completed {
                require_model_qrels(task)?;
            }
        }
        Ok(())
    }
}

/// The options of `judge`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JudgeJobOptions {
    /// The trial seed.
    pub seed: u64,
    /// The teams whose runs leave the pool and the features.
    pub leave_out: Vec<String>,
    /// The judge's options.
    pub judge: JudgeOptions,
}

impl Default for JudgeJobOptions {
    fn default() -> Self {
        Self {
            seed: 1,
            leave_out: Vec::new(),
            judge: JudgeOptions::default(),
        }
    }
}

/// One judging of a task.
#[derive(Debug)]
pub struct Judging {
    /// The simulated qrels.
    pub qrels: Qrels,
    /// The trace of every judgment, as `trace.tsv` holds it.
    pub trace: Vec<u8>,
    /// Topics judged.
    pub topics: usize,
    /// Topics whose pool alone exceeded the budget (the whole pool was kept).
    pub pools_over_budget: usize,
    /// Documents withheld from the assessor, over all topics.
    pub withheld: usize,
    /// Retrains over all topics.
    pub retrains: usize,
}

/// Judges `task` once with `options`; `progress(started, topics)` is called as each topic
/// starts, and once all are done. Runs on the current rayon pool.
///
/// # Errors
/// Unknown teams, invalid settings, an assessor that cannot grade the task, corpus and learner
/// errors.
pub fn judge(
    task: &Task,
    options: &JudgeJobOptions,
    progress: StagedProgress<'_>,
) -> Result<Judging> {
    let choice = options.judge.assessor.single("judge")?;
    let excluded_runs = crate::judge::excluded_runs(task, &options.leave_out)?;
    let (settings, use_text) = options.judge.settings(task, options.seed)?;
    options.judge.check_assessor(task)?;
    let collection = Collection::prepare(task, &task.qrels, use_text)?;
    let assessor =
        StudyAssessor::prepare(&collection, choice, settings.pool_depth, &[options.seed])
            .with_context(|| "preparing the assessor")?;
    let topics = collection.topics.len();
    let started = AtomicUsize::new(0);
    // The budget is asked for as each topic starts: the moment to report progress.
    let judgings = crate::judge::cal::judge_trial(
        &collection,
        &excluded_runs,
        |topic| {
            progress(
                "judging topics",
                started.fetch_add(1, Ordering::Relaxed),
                topics,
            );
            options.judge.budget.unwrap_or(topic.grades.len())
        },
        &settings,
        &assessor.for_seed(&collection, options.seed),
    )?;
    progress("judging topics", topics, topics);
    let mut trace = Vec::new();
    let columns = TraceColumns {
        sources: !choice.is_official(),
        graders: matches!(choice, AssessorChoice::Hybrid(_)),
    };
    write_traces(&mut trace, &collection, &judgings, columns)
        .expect("writing into memory cannot fail");
    Ok(Judging {
        qrels: to_qrels(&collection, &judgings),
        trace,
        topics,
        pools_over_budget: judgings.iter().filter(|j| j.is_pool_over_budget).count(),
        withheld: judgings.iter().map(|j| j.withheld).sum(),
        retrains: judgings.iter().map(|j| j.retrains).sum(),
    })
}
