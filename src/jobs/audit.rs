//! `audit`: one run or several audited together against a task, with the returned judgments
//! when given, and the files the documents to judge are written to (the pool lines, the
//! assessment sheet).

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::audit::claims::{add_baseline_run, resolve_against, ClaimSettings};
use crate::audit::{
    self, AuditRules, AuditSettings, DocumentTexts, StudySource, TeamAuditReport,
    DEFAULT_AUDIT_MEASURES, LIST_PER_TOPIC, RANK_MARGIN, RISK_THRESHOLD, SETTLE_THRESHOLD,
    SPOT_STUDY_SEEDS,
};
use crate::base::error::{Context, Result, Warning};
use crate::collection::FeatureChoice;
use crate::eval;
use crate::io::atomic::write_atomically;
use crate::io::run::Run;
use crate::io::task::Task;
use crate::relevance_model::reach::BeyondPool;
use crate::relevance_model::trials::AbsenceSource;
use crate::sim::settings::{study_significance, DEFAULT_STUDY_ALPHA, DEFAULT_STUDY_TEST};
use crate::stats::comparison::TestChoice;

use super::task::require_model_qrels;

/// The audit's verdict rules, its measures and the features of its judge model: the options
/// `audit` and `backtest` share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RulesOptions {
    /// Measures to give intervals for (each a list, trec_eval or ir_measures spellings).
    pub measures: Vec<String>,
    /// Features of the judge model: text, runs, or auto.
    pub features: FeatureChoice,
    /// At most this many documents of one topic in the list to judge (0: no cap).
    pub list_per_topic: usize,
    /// A measure is at risk when the probability that the run's rank moves exceeds this.
    pub risk_threshold: f64,
    /// The list stops once the remaining probability is at most this.
    pub settle_threshold: f64,
    /// A rank moves when it changes by at least this many places.
    pub rank_margin: f64,
    /// A secondary assessor's labels (qrels form: an LLM's grades, say), weighed as evidence
    /// by the calibration.
    pub labels: Option<PathBuf>,
}

impl Default for RulesOptions {
    fn default() -> Self {
        Self {
            measures: vec![DEFAULT_AUDIT_MEASURES.to_string()],
            features: FeatureChoice::Auto,
            list_per_topic: LIST_PER_TOPIC,
            risk_threshold: RISK_THRESHOLD,
            settle_threshold: SETTLE_THRESHOLD,
            rank_margin: RANK_MARGIN,
            labels: None,
        }
    }
}

impl RulesOptions {
    /// The measures, parsed.
    ///
    /// # Errors
    /// Unknown measures.
    pub fn measures(&self) -> Result<Vec<eval::Measure>> {
        eval::parse_measures(&self.measures)
    }

    /// The audit's rules, with the list's `budget` and the treatment of documents beyond the
    /// pool's reach, which the two jobs decide differently.
    ///
    /// # Errors
    /// Invalid rules.
    pub fn rules(&self, budget: Option<usize>, beyond_pool: BeyondPool) -> Result<AuditRules> {
        AuditRules {
            risk_threshold: self.risk_threshold,
            settle_threshold: self.settle_threshold,
            rank_margin: self.rank_margin,
            budget,
            beyond_pool,
            list_per_topic: (self.list_per_topic > 0).then_some(self.list_per_topic),
        }
        .check()
    }
}

/// The options of `audit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditOptions {
    /// The verdict rules, the measures and the features.
    #[serde(flatten)]
    pub rules: RulesOptions,
    /// How documents beyond the pool's reach are treated.
    pub beyond_pool: BeyondPool,
    /// Propose at most this many documents to judge.
    pub budget: Option<usize>,
    /// A study's results folder for the leave-team-out comparison.
    pub results: Option<PathBuf>,
    /// Seeds of the study run on the spot without `results` (0: no study).
    pub study_seeds: u64,
    /// What the calibration learns a team's absence loses from.
    pub evidence: AbsenceSource,
    /// Returned judgments (a qrels file or the filled sheet), added for this audit only.
    pub judged: Option<PathBuf>,
    /// Let a returned grade replace a different official one.
    pub override_official: bool,
    /// Write the documents to judge as `qid docid probability` lines, in priority order.
    pub emit_pool: Option<PathBuf>,
    /// Write the assessment sheet (tab-separated; comma-separated for `.csv`).
    pub sheet: Option<PathBuf>,
    /// Write the label sheet: the documents a secondary assessor (an LLM) should label, as
    /// JSON lines of umbrela's requests.
    pub label_sheet: Option<PathBuf>,
    /// The baselines of the audited runs' claims: task runs by tag, run files, `best` (the
    /// task's best run by each measure) or `best:MEASURE`; none: no claims.
    pub against: Vec<String>,
    /// The claims' test and its correction over an audited run's claims of one measure.
    pub significance: TestChoice,
    /// The claims' significance level.
    pub alpha: f64,
}

impl Default for AuditOptions {
    fn default() -> Self {
        Self {
            rules: RulesOptions::default(),
            beyond_pool: BeyondPool::NonRelevant,
            budget: None,
            results: None,
            study_seeds: SPOT_STUDY_SEEDS,
            evidence: AbsenceSource::Pool,
            judged: None,
            override_official: false,
            emit_pool: None,
            sheet: None,
            label_sheet: None,
            against: Vec::new(),
            significance: DEFAULT_STUDY_TEST,
            alpha: DEFAULT_STUDY_ALPHA,
        }
    }
}

impl AuditOptions {
    /// The audit's settings.
    ///
    /// The settings of the claims are those of `against`'s baselines once resolved against
    /// the task (see [`audit`]): none here.
    ///
    /// # Errors
    /// Unknown measures, invalid rules and an alpha outside (0, 1).
    pub fn settings(&self) -> Result<AuditSettings> {
        let study = match (&self.results, self.study_seeds) {
            (Some(dir), _) => StudySource::Results(dir.clone()),
            (None, 0) => StudySource::Skip,
            (None, seeds) => StudySource::OnTheSpot { seeds },
        };
        Ok(AuditSettings {
            measures: self.rules.measures()?,
            features: self.rules.features,
            rules: self.rules.rules(self.budget, self.beyond_pool)?,
            study,
            evidence: self.evidence,
            claims: ClaimSettings {
                baselines: Vec::new(),
                test: study_significance(self.significance, self.alpha)?,
            },
            labels: self.rules.labels.clone(),
        })
    }
}

/// Audits `runs` together against `task` (and again with the returned judgments of
/// `options.judged`), with their claims against the baselines of `options.against` (a run
/// file among them enters the task, not pooled), then writes the pool lines and the sheet that
/// `options` asks for: every input is read and checked, and the audit done, before any file is
/// written. Runs on the current rayon pool.
///
/// # Errors
/// Invalid options, a baseline that is neither a task run, a readable run file nor `best` on
/// an audited measure, an audited run as a baseline, qrels the relevance model cannot learn
/// from, malformed returned judgments, the audit's errors, and write errors.
pub fn audit(
    mut task: Task,
    runs: Vec<Run>,
    options: &AuditOptions,
) -> Result<(TeamAuditReport, Vec<Warning>)> {
    let mut settings = options.settings()?;
    let (baselines, files) = resolve_against(&options.against, &task, &runs, &settings.measures)?;
    settings.claims.baselines = baselines;
    files
        .into_iter()
        .for_each(|run| add_baseline_run(&mut task, run));
    require_model_qrels(&task)?;
    let judged = (options.judged.as_deref())
        .map(audit::read_judged)
        .transpose()
        .with_context(|| "reading the returned judgments")?;
    let (report, warnings) = match &judged {
        Some(judged) => audit::audit_with_judgments(
            task.clone(),
            runs,
            &settings,
            (judged, options.override_official),
        )?,
        None => audit::audit_runs(task.clone(), runs, &settings)?,
    };
    write_lists(&task, &report, options)?;
    Ok((report, warnings))
}

/// Writes the documents to judge as pool lines and as the assessment sheet, where asked.
fn write_lists(task: &Task, report: &TeamAuditReport, options: &AuditOptions) -> Result<()> {
    let mut docids = BTreeSet::new();
    if options.sheet.is_some() {
        docids.extend(report.to_judge.iter().map(|e| e.docid.as_str()));
    }
    if options.label_sheet.is_some() {
        docids.extend(report.label_requests.iter().map(|r| r.docid.as_str()));
    }
    let texts = match docids.is_empty() {
        false => {
            DocumentTexts::read(task, &docids).with_context(|| "reading the documents' texts")?
        }
        true => DocumentTexts::default(),
    };
    if let Some(path) = &options.emit_pool {
        write_atomically(path, |out| audit::write_pool(out, &report.to_judge))?;
    }
    if let Some(path) = &options.sheet {
        let is_csv = audit::judged::is_csv(path);
        write_atomically(path, |out| {
            audit::write_sheet(out, report, task, &texts, is_csv)
        })?;
    }
    if let Some(path) = &options.label_sheet {
        write_atomically(path, |out| {
            audit::write_label_sheet(out, &report.label_requests, task, &|d| texts.text(d))
        })?;
    }
    Ok(())
}
