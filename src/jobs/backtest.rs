//! `backtest`: how far the audit can be trusted on a task; run, summarised and written.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::backtest::{BacktestSettings, BacktestSummary, TrialSource, World};
use crate::base::error::Result;
use crate::base::progress::StagedProgress;
use crate::io::task::Task;
use crate::judge::pegasos::DEFAULT_ITERATIONS;
use crate::judge::settings::JudgeSettings;
use crate::relevance_model::reach::BeyondPool;
use crate::relevance_model::trials::AbsenceSource;
use crate::report::plots::FigureFormat;
use crate::sim::settings::{study_significance, DEFAULT_STUDY_ALPHA, DEFAULT_STUDY_TEST};
use crate::stats::comparison::TestChoice;

use super::audit::RulesOptions;

/// The options of `backtest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BacktestOptions {
    /// The collection without a team: classic, simulated or deeper.
    pub world: World,
    /// With the deeper world: the qrels whose grades complete each run's truth.
    pub truth_qrels: Option<PathBuf>,
    /// With the deeper world: the runs to audit (`None`: the task's runs that were not pooled).
    pub runs: Option<Vec<String>>,
    /// How the audit treats documents beyond the pool's reach (`None`: the world's own rule).
    pub beyond_pool: Option<BeyondPool>,
    /// With the simulated world: a study's results folder whose trial qrels are the worlds
    /// (`None`: judge a 1-seed study here).
    pub results: Option<PathBuf>,
    /// With `results`: the seed whose trials are the worlds.
    pub seed: u64,
    /// With the simulated world and no `results`: Pegasos iterations per retrain of the study.
    pub iterations: usize,
    /// Leave out only these teams (`None`: every team with a pooled run).
    pub teams: Option<Vec<String>>,
    /// What the calibration learns a team's absence loses from (`None`: the world's own).
    pub evidence: Option<AbsenceSource>,
    /// The audit's verdict rules, the measures and the features of the audit's judge model
    /// (and of the study's judge).
    #[serde(flatten)]
    pub rules: RulesOptions,
    /// Which files to write for each figure.
    pub format: FigureFormat,
    /// The claims' test and its correction over an audited run's claims of one measure.
    pub significance: TestChoice,
    /// The claims' significance level.
    pub alpha: f64,
}

impl Default for BacktestOptions {
    fn default() -> Self {
        Self {
            world: World::Classic,
            truth_qrels: None,
            runs: None,
            beyond_pool: None,
            results: None,
            seed: 1,
            iterations: DEFAULT_ITERATIONS,
            teams: None,
            evidence: None,
            rules: RulesOptions::default(),
            format: FigureFormat::Both,
            significance: DEFAULT_STUDY_TEST,
            alpha: DEFAULT_STUDY_ALPHA,
        }
    }
}

impl BacktestOptions {
    /// The backtest settings for `task`.
    ///
    /// # Errors
    /// Unknown measures, invalid rules, an alpha outside (0, 1), and the checks of
    /// [`BacktestSettings::check`].
    pub fn settings(&self, task: &Task) -> Result<BacktestSettings> {
        let trials = match &self.results {
            Some(dir) => TrialSource::Results {
                dir: dir.clone(),
                seed: self.seed,
            },
            None => TrialSource::Study(
                JudgeSettings {
                    iterations: self.iterations,
                    ..JudgeSettings::hical(task.pool_depth)
                }
                .check()?,
            ),
        };
        BacktestSettings {
            world: self.world,
            measures: self.rules.measures()?,
            features: self.rules.features,
            rules: (self.rules)
                .rules(None, self.beyond_pool.unwrap_or(self.world.beyond_pool()))?,
            teams: self.teams.clone(),
            trials,
            evidence: self.evidence.unwrap_or(self.world.default_evidence()),
            truth_qrels: self.truth_qrels.clone(),
            runs: self.runs.clone(),
            significance: study_significance(self.significance, self.alpha)?,
            labels: self.rules.labels.clone(),
        }
        .check()
    }
}

/// Where a backtest of `task` writes by default: `results/<task name>/backtest-<world>`.
pub fn default_out(task: &Task, options: &BacktestOptions) -> PathBuf {
    Path::new("results")
        .join(&task.manifest.name)
        .join(format!("backtest-{}", options.world))
}

/// Backtests the audit on `task` and writes `backtest.tsv`, `backtest.json`, the page and the
/// figures into `out`. `progress(stage, done, total)` is called as the work advances. Runs on
/// the current rayon pool. Returns the summary and the files written.
///
/// # Errors
/// Invalid options, the backtest's errors, and write errors.
pub fn backtest(
    task: &Task,
    options: &BacktestOptions,
    out: &Path,
    progress: StagedProgress<'_>,
) -> Result<(BacktestSummary, Vec<PathBuf>)> {
    let started = std::time::Instant::now();
    let settings = options.settings(task)?;
    let outcome = crate::backtest::run_backtest(task, &settings, progress)?;
    let summary = BacktestSummary::new(&outcome, &settings.rules, started.elapsed().as_secs_f64());
    let written = crate::backtest::files::write_outputs(out, &outcome, &summary, options.format)?;
    Ok((summary, written))
}
