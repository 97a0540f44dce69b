//! The arguments of `reusesim audit`: one run or several, the assessment sheet and the
//! returned judgments.

use std::path::PathBuf;

use reusesim::audit::{AuditRules, AuditSettings, StudySource};
use reusesim::collection::FeatureChoice;
use reusesim::eval;
use reusesim::relevance_model::reach::BeyondPool;
use reusesim::relevance_model::trials::AbsenceSource;

use super::choice;

/// The audit report's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuditFormat {
    /// Markdown, the verdict first.
    Md,
    /// One JSON object (field names in docs/audit.md).
    Json,
    /// One self-contained HTML page with the Markdown's content, the verdict first.
    Html,
}

/// Arguments of `reusesim audit`.
#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// The task manifest (default: the embedded task runs/synth-passage/task.toml).
    #[arg(long, value_name = "TASK")]
    pub task: Option<PathBuf>,
    /// The corpus's feature store (written by `reusesim index`), read in place of the corpus
    /// (default: the task's `feature_store`, if any).
    #[arg(long, value_name = "STORE")]
    pub feature_store: Option<PathBuf>,
    /// A run file to audit (`qid Q0 docid rank score tag`, plain or gzip); give it once per
    /// run to audit several together.
    #[arg(long, value_name = "RUN", required_unless_present = "runs")]
    pub run: Vec<PathBuf>,
    /// A folder whose every run file (not hidden ones) is audited, with the --run files.
    #[arg(long, value_name = "DIR")]
    pub runs: Option<PathBuf>,
    /// A `reusesim simulate --out` folder of this task: its runs.tsv gives the leave-team-out
    /// comparison (default: a short study on the spot, when small enough).
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// Seeds of the study run on the spot when --results is not given (0: no study).
    #[arg(long, value_name = "N", default_value_t = reusesim::audit::SPOT_STUDY_SEEDS)]
    pub study_seeds: u64,
    /// What the calibration learns a team's absence loses from: pool (the documents only that
    /// team pooled, for a pooled collection) or trials (the leave-out trials that the study of
    /// --results kept with --keep-qrels, for a collection judged by active learning).
    #[arg(long, value_parser = choice::<AbsenceSource>(), default_value_t = AbsenceSource::Pool)]
    pub evidence: AbsenceSource,
    /// How documents beyond the pool's reach (below the pool depth in every pooled run, the
    /// audited run counting as pooled) are treated: extrapolate (relevant with the probability
    /// the calibration extrapolates; what deeper judging would find) or non-relevant (as the
    /// collection presumes them; what the collection's own judging would have said).
    #[arg(long, value_parser = choice::<BeyondPool>(), default_value_t = BeyondPool::Extrapolated)]
    pub beyond_pool: BeyondPool,
    /// At most this many documents of one topic in the (merged) list to judge (0: no cap).
    #[arg(long, value_name = "K", default_value_t = reusesim::audit::LIST_PER_TOPIC)]
    pub list_per_topic: usize,
    /// Write the documents to judge as `qid docid probability` lines, in priority order.
    #[arg(long, value_name = "FILE")]
    pub emit_pool: Option<PathBuf>,
    /// Write the assessment sheet: one row per document to judge with the topic's and the
    /// document's text and an empty grade column (tab-separated; comma-separated for `.csv`).
    #[arg(long, value_name = "FILE")]
    pub sheet: Option<PathBuf>,
    /// Returned judgments (a qrels file or the filled sheet), added to the task's qrels for
    /// this audit only: the report shows each run before and after them.
    #[arg(long, value_name = "FILE")]
    pub judged: Option<PathBuf>,
    /// Let a returned grade replace a different official one (otherwise an error).
    #[arg(long, requires = "judged")]
    pub override_official: bool,
    /// Propose at most N documents to judge.
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// A measure is at risk when the probability that the run's rank moves exceeds this.
    #[arg(long, value_name = "P", default_value_t = reusesim::audit::RISK_THRESHOLD)]
    pub risk_threshold: f64,
    /// The list of documents to judge stops once the remaining probability is at most this.
    #[arg(long, value_name = "P", default_value_t = reusesim::audit::SETTLE_THRESHOLD)]
    pub settle_threshold: f64,
    /// A rank moves when it changes by at least this many places.
    #[arg(long, value_name = "R", default_value_t = reusesim::audit::RANK_MARGIN)]
    pub rank_margin: f64,
    /// Measures to give intervals for (comma-separated; trec_eval or ir_measures spellings).
    #[arg(long, value_name = "LIST", default_value = reusesim::audit::DEFAULT_AUDIT_MEASURES)]
    pub measures: String,
    /// Features of the judge model: text (needs a corpus and topics), runs, or auto.
    #[arg(long, value_parser = choice::<FeatureChoice>(), default_value_t = FeatureChoice::Auto)]
    pub features: FeatureChoice,
    /// Output layout.
    #[arg(long, value_enum, default_value_t = AuditFormat::Md)]
    pub format: AuditFormat,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

impl AuditArgs {
    /// The run files to audit: the --run files, then the --runs folder's.
    ///
    /// # Errors
    /// A --runs folder that cannot be listed or holds no run file.
    pub fn run_files(&self) -> reusesim::Result<Vec<PathBuf>> {
        let mut inputs = self.run.clone();
        inputs.extend(self.runs.clone());
        Ok(reusesim::io::run::run_files(&inputs)?)
    }

    /// The audit settings.
    pub fn settings(&self) -> reusesim::Result<AuditSettings> {
        let study = match (&self.results, self.study_seeds) {
            (Some(dir), _) => StudySource::Results(dir.clone()),
            (None, 0) => StudySource::Skip,
            (None, seeds) => StudySource::OnTheSpot { seeds },
        };
        Ok(AuditSettings {
            measures: eval::parse_measures(&[self.measures.as_str()])?,
            features: self.features,
            rules: AuditRules {
                risk_threshold: self.risk_threshold,
                settle_threshold: self.settle_threshold,
                rank_margin: self.rank_margin,
                budget: self.budget,
                beyond_pool: self.beyond_pool,
                list_per_topic: (self.list_per_topic > 0).then_some(self.list_per_topic),
            }
            .check()?,
            study,
            evidence: self.evidence,
        })
    }
}
