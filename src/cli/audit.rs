//! The arguments of `reusesim audit` (one run or several, the assessment sheet and the
//! returned judgments) and of `reusesim backtest`, which audits the runs of every team left out.

use std::path::PathBuf;

use reusesim::backtest::World;
use reusesim::collection::FeatureChoice;
use reusesim::jobs::audit::{AuditOptions, RulesOptions};
use reusesim::jobs::backtest::BacktestOptions;
use reusesim::relevance_model::reach::BeyondPool;
use reusesim::relevance_model::trials::AbsenceSource;
use reusesim::report::plots::FigureFormat;
use reusesim::stats::comparison::TestChoice;

use super::{choice, OutDirArgs, TaskArgs, ThreadsArgs};

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

/// The audit's verdict rules, shared by `audit` and `backtest`.
#[derive(Debug, Clone, clap::Args)]
pub struct RulesArgs {
    /// At most this many documents of one topic in the (merged) list to judge (0: no cap).
    #[arg(long, value_name = "K", default_value_t = RulesOptions::default().list_per_topic)]
    pub list_per_topic: usize,
    /// A measure is at risk when the probability that the run's rank moves exceeds this.
    #[arg(long, value_name = "P", default_value_t = RulesOptions::default().risk_threshold)]
    pub risk_threshold: f64,
    /// The list of documents to judge stops once the remaining probability is at most this.
    #[arg(long, value_name = "P", default_value_t = RulesOptions::default().settle_threshold)]
    pub settle_threshold: f64,
    /// A rank moves when it changes by at least this many places.
    #[arg(long, value_name = "R", default_value_t = RulesOptions::default().rank_margin)]
    pub rank_margin: f64,
    /// Measures (comma-separated; trec_eval or ir_measures spellings).
    #[arg(long, value_name = "LIST", default_value = reusesim::audit::DEFAULT_AUDIT_MEASURES)]
    pub measures: String,
    /// Features of the audit's judge model: text (needs a corpus and topics), runs, or auto.
    #[arg(long, value_parser = choice::<FeatureChoice>(), default_value_t = RulesOptions::default().features)]
    pub features: FeatureChoice,
    /// A secondary assessor's labels in qrels form (an LLM's grades, say): the calibration
    /// learns on the collection's own documents what each label grade is worth, and a
    /// labelled document's probability weighs its label.
    #[arg(long, value_name = "FILE")]
    pub labels: Option<PathBuf>,
}

impl RulesArgs {
    /// The rules' options.
    pub fn options(&self) -> RulesOptions {
        RulesOptions {
            measures: vec![self.measures.clone()],
            features: self.features,
            list_per_topic: self.list_per_topic,
            risk_threshold: self.risk_threshold,
            settle_threshold: self.settle_threshold,
            rank_margin: self.rank_margin,
            labels: self.labels.clone(),
        }
    }
}

/// Arguments of `reusesim audit`.
#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// The task.
    #[command(flatten)]
    pub task: TaskArgs,
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
    #[arg(long, value_name = "N", default_value_t = AuditOptions::default().study_seeds)]
    pub study_seeds: u64,
    /// What the calibration learns a team's absence loses from: pool (the documents only that
    /// team pooled, for a pooled collection) or trials (the leave-out trials that the study of
    /// --results kept with --keep-qrels, for a collection judged by active learning).
    #[arg(long, value_parser = choice::<AbsenceSource>(), default_value_t = AuditOptions::default().evidence)]
    pub evidence: AbsenceSource,
    /// How documents beyond the pool's reach (below the pool depth in every pooled run, the
    /// audited run counting as pooled) are treated: non-relevant (as the collection presumes
    /// them: how the run would be scored had it been pooled) or extrapolate (relevant with the
    /// probability the calibration extrapolates: what a complete judging would find).
    #[arg(long, value_parser = choice::<BeyondPool>(), default_value_t = AuditOptions::default().beyond_pool)]
    pub beyond_pool: BeyondPool,
    /// Write the documents to judge as `qid docid probability` lines, in priority order.
    #[arg(long, value_name = "FILE")]
    pub emit_pool: Option<PathBuf>,
    /// Write the assessment sheet: one row per document to judge with the topic's and the
    /// document's text and an empty grade column (tab-separated; comma-separated for `.csv`).
    #[arg(long, value_name = "FILE")]
    pub sheet: Option<PathBuf>,
    /// Write the label sheet: the documents a secondary assessor (an LLM) should label for a
    /// later --labels (the audited runs' unjudged documents, and judged ones to calibrate the
    /// labels on while too few are labelled), as JSON lines of umbrela's requests.
    #[arg(long, value_name = "FILE")]
    pub label_sheet: Option<PathBuf>,
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
    /// A baseline of the audited runs' claims ("significantly better than"): a task run's tag,
    /// a run file, best (the task's best run by each measure) or best:MEASURE; repeat it or
    /// give a comma-separated list.
    #[arg(long, value_name = "RUN", value_delimiter = ',')]
    pub against: Vec<String>,
    /// The claims' paired test and its correction over an audited run's claims of one
    /// measure (the studies' tests and corrections).
    #[arg(long, value_name = "TEST[,CORRECTION]", value_parser = TestChoice::parse, default_value_t = AuditOptions::default().significance)]
    pub significance: TestChoice,
    /// The claims' significance level.
    #[arg(long, default_value_t = AuditOptions::default().alpha)]
    pub alpha: f64,
    /// The verdict's rules, the measures and the features.
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Output layout.
    #[arg(long, value_enum, default_value_t = AuditFormat::Md)]
    pub format: AuditFormat,
    /// The worker threads.
    #[command(flatten)]
    pub threads: ThreadsArgs,
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

    /// The audit's options.
    pub fn options(&self) -> AuditOptions {
        AuditOptions {
            rules: self.rules.options(),
            beyond_pool: self.beyond_pool,
            budget: self.budget,
            results: self.results.clone(),
            study_seeds: self.study_seeds,
            evidence: self.evidence,
            judged: self.judged.clone(),
            override_official: self.override_official,
            emit_pool: self.emit_pool.clone(),
            sheet: self.sheet.clone(),
            label_sheet: self.label_sheet.clone(),
            against: self.against.clone(),
            significance: self.significance,
            alpha: self.alpha,
        }
    }
}

/// Arguments of `reusesim backtest`.
#[derive(Debug, clap::Args)]
pub struct BacktestArgs {
    /// The task.
    #[command(flatten)]
    pub task: TaskArgs,
    /// The collection without a team: classic (the official qrels less its unique documents)
    /// or simulated (its leave-out trial's qrels); or deeper (the official qrels, each audited
    /// run's truth completed from --truth-qrels).
    #[arg(long, value_parser = choice::<World>(), default_value_t = BacktestOptions::default().world)]
    pub world: World,
    /// With --world deeper: the qrels whose grades complete each run's truth (for example
    /// later rounds' judgments of the same topics). A document it lacks counts as non-relevant.
    #[arg(long, value_name = "FILE")]
    pub truth_qrels: Option<PathBuf>,
    /// With --world deeper: the runs to audit (comma-separated; default: the task's runs that
    /// were not pooled).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub runs: Option<Vec<String>>,
    /// How the audit treats documents beyond the pool's reach: extrapolate or non-relevant
    /// (default: non-relevant in the classic and simulated worlds, whose truths presume it;
    /// extrapolate in the deeper world).
    #[arg(long, value_parser = choice::<BeyondPool>())]
    pub beyond_pool: Option<BeyondPool>,
    /// With --world simulated: a `simulate --withhold uniques --keep-qrels --out DIR` folder
    /// whose trial qrels are the worlds (default: judge a 1-seed study here).
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// With --results: the seed whose trials are the worlds.
    #[arg(long, value_name = "N", default_value_t = BacktestOptions::default().seed)]
    pub seed: u64,
    /// With --world simulated and no --results: Pegasos iterations per retrain of the study.
    #[arg(long, default_value_t = BacktestOptions::default().iterations)]
    pub iterations: usize,
    /// Leave out only these teams (comma-separated; default: every team with a pooled run).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub teams: Option<Vec<String>>,
    /// What the audit's calibration learns a team's absence loses from: pool or trials (the
    /// other teams' trials; simulated world only). Default: pool in the classic world, trials
    /// in the simulated one.
    #[arg(long, value_parser = choice::<AbsenceSource>())]
    pub evidence: Option<AbsenceSource>,
    /// The audit's verdict rules, the measures and the features.
    #[command(flatten)]
    pub rules: RulesArgs,
    /// The output folder.
    #[command(flatten)]
    pub out: OutDirArgs,
    /// Which files to write for each figure.
    #[arg(long, value_parser = choice::<FigureFormat>(), default_value_t = BacktestOptions::default().format)]
    pub format: FigureFormat,
    /// The test of each audited run's claims against its baselines (the best pooled run and
    /// the pooled runs around it) and its correction over the run's claims of one measure.
    #[arg(long, value_name = "TEST[,CORRECTION]", value_parser = TestChoice::parse, default_value_t = BacktestOptions::default().significance)]
    pub significance: TestChoice,
    /// The claims' significance level.
    #[arg(long, default_value_t = BacktestOptions::default().alpha)]
    pub alpha: f64,
    /// The worker threads.
    #[command(flatten)]
    pub threads: ThreadsArgs,
}

impl BacktestArgs {
    /// The backtest's options.
    pub fn options(&self) -> BacktestOptions {
        BacktestOptions {
            world: self.world,
            truth_qrels: self.truth_qrels.clone(),
            runs: self.runs.clone(),
            beyond_pool: self.beyond_pool,
            results: self.results.clone(),
            seed: self.seed,
            iterations: self.iterations,
            teams: self.teams.clone(),
            evidence: self.evidence,
            rules: self.rules.options(),
            format: self.format,
            significance: self.significance,
            alpha: self.alpha,
        }
    }
}
