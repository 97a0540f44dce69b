//! `simulate`: the leave-team-out study, in one process or as one shard of N, and `merge`,
//! which computes a sharded study's outputs once every shard is judged.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::base::error::{Context, Result, Warning};
use crate::eval;
use crate::io::task::Task;
use crate::judge::cal::TopicJudging;
use crate::judge::strategies::Strategy;
use crate::report::assessors::{assessor_rows, write_assessors, AssessorFolder, AssessorsSummary};
use crate::report::content::ReportRows;
use crate::report::plots::{draw_figures, FigureFormat};
use crate::report::{write_page, write_study};
use crate::sim::analysis::{SettingsSummary, StudyResults, StudySummary};
use crate::sim::journal::JOURNAL_FILE;
use crate::sim::lock::{FolderAccess, FolderLock};
use crate::sim::runner::{read_shards, ShardReport, Study};
use crate::sim::settings::{
    check_budget_fractions, check_strategies, study_significance, AssessorChoice, Assessors,
    DEFAULT_STUDY_ALPHA, DEFAULT_STUDY_TEST, OFFICIAL_BUDGET_ONLY,
};
use crate::sim::shard::ShardSpec;
use crate::sim::study::StudySettings;
use crate::stats::comparison::TestChoice;

use super::judge::JudgeOptions;
use crate::base::progress::{stage, StagedProgress, JUDGING_UNITS};

/// The measures a study compares rankings on by default.
pub const DEFAULT_STUDY_MEASURES: &str = "map,P_10,ndcg_cut_10";

/// The seeds of a study by default (trials use seeds 1..=N).
pub const DEFAULT_SEEDS: u64 = 10;

/// The options of `simulate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimulateOptions {
    /// Number of seeds (trials use seeds 1..=N).
    pub seeds: u64,
    /// Measures to compare rankings on (each a list, trec_eval or ir_measures spellings).
    pub measures: Vec<String>,
    /// Hold out only these teams (`None`: every team with a pooled run).
    pub teams: Option<Vec<String>>,
    /// Also write every trial's simulated qrels and trace.
    pub keep_qrels: bool,
    /// Budget fractions the study is also evaluated at.
    pub budget_fractions: Vec<f64>,
    /// Judging strategies compared on the same trials (none: hical alone).
    pub strategies: Vec<Strategy>,
    /// The judge's options.
    pub judge: JudgeOptions,
    /// The test and correction that judge which differences between runs are significant,
    /// `TEST[,CORRECTION]`.
    pub significance: TestChoice,
    /// The significance level.
    pub alpha: f64,
}

impl Default for SimulateOptions {
    fn default() -> Self {
        Self {
            seeds: DEFAULT_SEEDS,
            measures: vec![DEFAULT_STUDY_MEASURES.to_string()],
            teams: None,
            keep_qrels: false,
            budget_fractions: OFFICIAL_BUDGET_ONLY.to_vec(),
            strategies: Vec::new(),
            judge: JudgeOptions::default(),
            significance: DEFAULT_STUDY_TEST,
            alpha: DEFAULT_STUDY_ALPHA,
        }
    }
}

/// The main job (`reusesim` without a command, `cargo run --release`): the study of the
/// embedded task with its budget curve at a quarter, half, three quarters and all of each
/// topic's budget.
pub fn main_job() -> SimulateOptions {
    SimulateOptions {
        budget_fractions: vec![0.25, 0.5, 0.75, 1.0],
        ..SimulateOptions::default()
    }
}

impl SimulateOptions {
    /// The study settings for `task` and whether text features are used.
    ///
    /// # Errors
    /// No seed, unknown measures, invalid budget fractions or strategies, an alpha outside (0, 1),
    /// the judge's errors.
    pub fn settings(&self, task: &Task) -> Result<(StudySettings, bool)> {
        if self.seeds == 0 {
            return Err(crate::base::error::Error::Invalid(
                "expected at least 1 seed, found 0".to_string(),
            ));
        }
        let (judge, use_text) = self.judge.settings(task, 0)?;
        let settings = StudySettings {
            seeds: self.seeds,
            measures: eval::parse_measures(&self.measures)?,
            teams: self.teams.clone(),
            judge,
            budget: self.judge.budget,
            keep_qrels: self.keep_qrels,
            budget_fractions: check_budget_fractions(&self.budget_fractions)?,
            strategies: check_strategies(&self.strategies)?,
            assessor: self.judge.assessor.choices()[0].clone(),
            significance: study_significance(self.significance, self.alpha)?,
        };
        Ok((settings, use_text))
    }
}

/// Where a study of `task` writes by default: `results/<task name>`.
pub fn default_out(task: &Task) -> PathBuf {
    Path::new("results").join(&task.manifest.name)
}

/// A finished study: its summary and the files drawn.
#[derive(Debug)]
pub struct StudyReport {
    /// The statistics, as written to `summary.json` and the tables.
    pub summary: StudySummary,
    /// The figure files written, in order.
    pub figures: Vec<PathBuf>,
    /// The study's page, `report.html`.
    pub page: PathBuf,
    /// Judged units taken from a journal (resumed) or from shards (merged).
    pub resumed: usize,
    /// Problems met on the way (a torn journal tail dropped).
    pub warnings: Vec<Warning>,
}

/// Runs the leave-team-out study of `task` and writes every output and figure into `out`;
/// `progress` hears of the judging units as they finish. Each finished unit goes to the
/// journal `out/units.journal`; with `access.resume`, the units already there are not judged
/// again. The folder is locked for the whole run ([`crate::sim::lock`]).
///
/// # Errors
/// Invalid options, unknown held-out teams, corpus and learner errors, a journal of another
/// study, and write errors.
pub fn simulate(
    task: &Task,
    options: &SimulateOptions,
    out: &Path,
    access: FolderAccess<'_>,
    progress: StagedProgress<'_>,
) -> Result<StudyReport> {
    let started = Instant::now();
    let (settings, use_text) = options.settings(task)?;
    options.judge.check_assessor(task)?;
    refuse_several(
        options,
        "a study of several assessors writes its own folder layout",
    )?;
    let mut lock = FolderLock::open(out)?;
    let _held = lock.hold(access.when_locked, access.on_wait)?;
    let study = Study::prepare(task, &settings, use_text)?;
    let judged = study.judge_journalled(
        &study.all_units(),
        &out.join(JOURNAL_FILE),
        None,
        access.resume,
        &stage(progress, JUDGING_UNITS),
    )?;
    let judgings = judged.judgings.into_values().collect();
    let mut report = render(&study, judgings, out, started)?;
    report.resumed = judged.resumed;
    report.warnings = judged.warnings;
    Ok(report)
}

/// `simulate --shard I/N`: judges shard `shard` of the study into `out/shards/I-of-N/`,
/// without statistics (see [`crate::sim::runner::judge_shard`]).
///
/// # Errors
/// As [`simulate`].
pub fn simulate_shard(
    task: &Task,
    options: &SimulateOptions,
    out: &Path,
    shard: ShardSpec,
    access: FolderAccess<'_>,
    progress: StagedProgress<'_>,
) -> Result<ShardReport> {
    let (settings, use_text) = options.settings(task)?;
    options.judge.check_assessor(task)?;
    refuse_several(options, "--shard judges one assessor's study")?;
    let progress = stage(progress, JUDGING_UNITS);
    crate::sim::runner::judge_shard(task, &settings, use_text, out, shard, access, &progress)
}

/// `merge`: reads the N finished shards in `out/shards/`, checks that every unit is there
/// exactly once and that all were made from the task's current inputs and the same settings,
/// then computes and writes the study's outputs as [`simulate`] does: byte for byte the same
/// files, `elapsed_seconds` aside. `task` replaces the task manifest path the shards recorded
/// (a task moved since), and `feature_store` the task's feature store.
///
/// # Errors
/// Missing, unfinished or inconsistent shards, a fingerprint mismatch (naming what differs),
/// and the errors of [`simulate`], under the context `merging the shards of DIR`.
pub fn merge(out: &Path, task: Option<&Path>, feature_store: Option<&Path>) -> Result<StudyReport> {
    merge_shards(out, task, feature_store)
        .with_context(|| format!("merging the shards of {}", out.display()))
}

fn merge_shards(
    out: &Path,
    task: Option<&Path>,
    feature_store: Option<&Path>,
) -> Result<StudyReport> {
    let started = Instant::now();
    let shards = read_shards(out)?;
    let mut task = Task::open(task.unwrap_or(shards.task()))?;
    if let Some(store) = feature_store {
        task.manifest.feature_store = Some(store.to_path_buf());
    }
    let (settings, use_text) = shards.fingerprint().settings.settings()?;
    let study = Study::prepare(&task, &settings, use_text)?;
    study
        .fingerprint
        .check(shards.fingerprint(), &shards.first_manifest())?;
    let judgings = study.shard_judgings(&shards)?;
    let mut report = render(&study, judgings, out, started)?;
    report.resumed = study.plan.units.len();
    Ok(report)
}

/// The statistics of `study` from its judgings (in unit order), written with the figures and
/// the page.
fn render(
    study: &Study,
    judgings: Vec<TopicJudging>,
    out: &Path,
    started: Instant,
) -> Result<StudyReport> {
    let outcome = study.outcome(judgings);
    let summary = StudySummary::new(
        &study.task.manifest.name,
        SettingsSummary::new(study.task, &study.settings, &outcome),
        &outcome,
        started.elapsed().as_secs_f64(),
    );
    write_study(out, &summary, &study.fingerprint, &outcome)?;
    let results = StudyResults::read(out)?;
    let figures = draw_figures(&results, &out.join("figures"), FigureFormat::Both)?;
    let rows = ReportRows {
        runs: &summary.runs,
        ranks: &summary.ranks,
        strategies: &summary.strategy_rows,
    };
    let page = write_page(out, &summary, rows, &results)?;
    Ok(StudyReport {
        summary,
        figures,
        page,
        resumed: 0,
        warnings: Vec::new(),
    })
}

/// Refuses several assessors where one study is meant (`why`).
fn refuse_several(options: &SimulateOptions, why: &str) -> Result<()> {
    let assessors = &options.judge.assessor;
    if assessors.choices().len() > 1 {
        return Err(crate::base::error::Error::Invalid(format!(
            "expected one assessor, found {} ({assessors}): {why}; several assessors run \
             together with `reusesim simulate` in one process",
            assessors.choices().len()
        )));
    }
    Ok(())
}

/// A study of several assessors: each one's study and where it was written.
#[derive(Debug)]
pub struct AssessorsReport {
    /// Each assessor's study, in the order given, with its folder.
    pub studies: Vec<(PathBuf, StudyReport)>,
    /// The side-by-side summary written in the top folder.
    pub summary: AssessorsSummary,
    /// The side-by-side figures written.
    pub figures: Vec<PathBuf>,
}

/// The sub-folder of each assessor (`official`, `completed`, a file's stem, `hybrid-` and the
/// file's stem), numbered `-2`, `-3` when two would share a name.
pub fn assessor_folders(assessors: &Assessors) -> Vec<String> {
    let stem = |path: &Path| {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let safe: String = (name.chars())
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if safe.is_empty() {
            "file".to_string()
        } else {
            safe
        }
    };
    let mut folders: Vec<String> = Vec::new();
    for choice in assessors.choices() {
        let base = match choice {
            AssessorChoice::Official => "official".to_string(),
            AssessorChoice::Completed => "completed".to_string(),
            AssessorChoice::File(path) => stem(path),
            AssessorChoice::Hybrid(path) => format!("hybrid-{}", stem(path)),
        };
        let mut name = base.clone();
        let mut number = 2;
        while folders.contains(&name) {
            name = format!("{base}-{number}");
            number += 1;
        }
        folders.push(name);
    }
    folders
}

/// Runs the study of `task` once per assessor of `options` (two or more), on the same seeds,
/// trials and pools, each into its own sub-folder of `out` (a results folder as a one-assessor
/// study writes it, journal included), then writes the assessors side by side in `out`. The
/// task's collection (its documents, rankings and features), held-out teams and scoring setup
/// (the official, classic leave-out-uniques and truth scores) are prepared once and shared
/// (docs/assessor.md).
///
/// # Errors
/// As [`simulate`], for any assessor; every assessor is checked before any work.
pub fn simulate_assessors(
    task: &Task,
    options: &SimulateOptions,
    out: &Path,
    access: FolderAccess<'_>,
    progress: StagedProgress<'_>,
) -> Result<AssessorsReport> {
    let started = Instant::now();
    let (settings, use_text) = options.settings(task)?;
    options.judge.check_assessor(task)?;
    let mut lock = FolderLock::open(out)?;
    let _held = lock.hold(access.when_locked, access.on_wait)?;
    let folders = assessor_folders(&options.judge.assessor);
    let first = Study::prepare(task, &settings, use_text)?;
    let shared = first.shared();
    let mut studies = vec![first];
    for choice in &options.judge.assessor.choices()[1..] {
        let settings = StudySettings {
            assessor: choice.clone(),
            ..settings.clone()
        };
        studies.push(Study::prepare_on(
            task,
            &settings,
            use_text,
            shared.clone(),
        )?);
    }
    let mut reports = Vec::new();
    let mut rows = Vec::new();
    let total: usize = studies.iter().map(|study| study.plan.units.len()).sum();
    let mut before = 0;
    for (study, folder) in studies.iter().zip(&folders) {
        let dir = out.join(folder);
        let study_started = Instant::now();
        let units = study.plan.units.len();
        let judged = study.judge_journalled(
            &study.all_units(),
            &dir.join(JOURNAL_FILE),
            None,
            access.resume,
            &|done, _| progress(JUDGING_UNITS, before + done, total),
        )?;
        before += units;
        let judgings = judged.judgings.into_values().collect();
        let mut report = render(study, judgings, &dir, study_started)?;
        report.resumed = judged.resumed;
        report.warnings = judged.warnings;
        rows.extend(assessor_rows(
            &study.settings.assessor.to_string(),
            folder,
            &report.summary,
        ));
        reports.push((dir, report));
    }
    // Measure by measure, the assessors in the order given.
    rows.sort_by(|a, b| a.measure.cmp(&b.measure));
    let summary = AssessorsSummary {
        task: task.manifest.name.clone(),
        assessors: (options.judge.assessor.choices().iter().zip(&folders))
            .map(|(choice, folder)| AssessorFolder {
                name: choice.to_string(),
                folder: folder.clone(),
            })
            .collect(),
        rows,
        elapsed_seconds: started.elapsed().as_secs_f64(),
    };
    let figures = write_assessors(out, &summary)?;
    Ok(AssessorsReport {
        studies: reports,
        summary,
        figures,
    })
}
