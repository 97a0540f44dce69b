//! The command line, declared with clap derive: one subcommand per job.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};
use reusesim::base::choice::Choice;

use reusesim::audit::AuditRules;
use reusesim::backtest::{BacktestSettings, TrialSource, World};
use reusesim::collection::{CandidateSource, FeatureChoice};
use reusesim::eval::format::Format;
use reusesim::eval::{self, EvalOptions, Selection, TrecEvalVersion};
use reusesim::io::task::Task;
use reusesim::judge::pegasos::Precision;
use reusesim::judge::schedule::Schedule;
use reusesim::judge::settings::{
    Carried, JudgeSettings, LearnerChoice, Withhold, DEFAULT_CARRIED, DEFAULT_WITHHOLD,
    RANDOM_NEGATIVES,
};
use reusesim::judge::strategies::Strategy;
use reusesim::relevance_model::reach::BeyondPool;
use reusesim::relevance_model::trials::AbsenceSource;
use reusesim::report::plots::FigureFormat;
use reusesim::report::PlotFormat;
use reusesim::sim::settings::{check_budget_fractions, check_strategies, AssessorChoice};
use reusesim::sim::shard::ShardSpec;
use reusesim::sim::study::StudySettings;

/// A value parser for a library setting with named variants: clap lists and checks the names,
/// the library owns them.
fn choice<T: Choice + Clone + Send + Sync>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::ALL.iter().map(|variant| variant.name()))
        .map(|name| T::from_name(&name).expect("clap accepts only the listed names"))
}

/// Tests whether IR test collections built by pooling plus active-learning judging are reusable.
#[derive(Debug, Parser)]
#[command(name = "reusesim", version, about, long_about = None)]
pub struct Cli {
    /// The job to do.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The jobs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Score runs against qrels exactly as trec_eval does.
    Eval(EvalArgs),
    /// List the measures `eval` knows, with both spellings.
    Measures,
    /// The leave-team-out study (the default job): replay the judging with and without each
    /// team over seeded trials, score every run on every trial, compare rankings.
    Simulate(SimulateArgs),
    /// Compute a study's statistics, reports and figures from the N finished shards of
    /// `simulate --shard I/N` in DIR/shards/ (the same files one `simulate` run writes).
    Merge(MergeArgs),
    /// Generate a synthetic task whose complete truth is known (corpus, topics, teams, runs,
    /// truth and official qrels made by pool plus CAL).
    Synth(SynthArgs),
    /// Draw a study's figures (rank change, tau_b per held-out team, official vs LOU scores,
    /// rankings vs the truth) from a results folder written by `simulate`.
    Plot(PlotArgs),
    /// Replay the judging of a task once (pool, then HiCAL-like CAL) and write the trace and
    /// the simulated qrels.
    Judge(JudgeCommandArgs),
    /// Write one seed's completed qrels: the official qrels, completed by grades drawn from the
    /// calibrated relevance model for every document a run retrieved that they never judged
    /// (what `--assessor completed` grades with).
    Complete(CompleteArgs),
    /// Write a corpus's feature store: every document's HiCAL vector, memory-mapped by every
    /// command that names it (`feature_store` in task.toml, or `--feature-store`).
    Index(IndexArgs),
    /// Audit a new run: how much of its top is judged, its score and rank intervals, and which
    /// documents to judge so the collection scores it fairly.
    Audit(AuditArgs),
    /// Measure how far the audit can be trusted on a task: leave each pooled team out, audit
    /// its runs as new runs, and compare with the truth (the collection completed for each run
    /// with the official grades), beside the published corrections.
    Backtest(BacktestArgs),
}

/// Arguments of `reusesim backtest`.
#[derive(Debug, clap::Args)]
pub struct BacktestArgs {
    /// The task manifest (default: the embedded task runs/synth-passage/task.toml).
    #[arg(long, value_name = "TASK")]
    pub task: Option<PathBuf>,
    /// The corpus's feature store (written by `reusesim index`), read in place of the corpus
    /// (default: the task's `feature_store`, if any).
    #[arg(long, value_name = "STORE")]
    pub feature_store: Option<PathBuf>,
    /// The collection without a team: classic (the official qrels less its unique documents)
    /// or simulated (its leave-out trial's qrels); or deeper (the official qrels, each audited
    /// run's truth completed from --truth-qrels).
    #[arg(long, value_parser = choice::<World>(), default_value_t = World::Classic)]
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
    /// At most this many documents of one topic in the list to judge (0: no cap).
    #[arg(long, value_name = "K", default_value_t = reusesim::audit::LIST_PER_TOPIC)]
    pub list_per_topic: usize,
    /// With --world simulated: a `simulate --withhold uniques --keep-qrels --out DIR` folder
    /// whose trial qrels are the worlds (default: judge a 1-seed study here).
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// With --results: the seed whose trials are the worlds.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// With --world simulated and no --results: Pegasos iterations per retrain of the study.
    #[arg(long, default_value_t = reusesim::judge::pegasos::DEFAULT_ITERATIONS)]
    pub iterations: usize,
    /// Measures (comma-separated; trec_eval or ir_measures spellings).
    #[arg(long, value_name = "LIST", default_value = reusesim::audit::DEFAULT_AUDIT_MEASURES)]
    pub measures: String,
    /// Leave out only these teams (comma-separated; default: every team with a pooled run).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub teams: Option<Vec<String>>,
    /// Features of the audit's judge model (and of the study's judge): text, runs, or auto.
    #[arg(long, value_parser = choice::<FeatureChoice>(), default_value_t = FeatureChoice::Auto)]
    pub features: FeatureChoice,
    /// What the audit's calibration learns a team's absence loses from: pool or trials (the
    /// other teams' trials; simulated world only). Default: pool in the classic world, trials
    /// in the simulated one.
    #[arg(long, value_parser = choice::<AbsenceSource>())]
    pub evidence: Option<AbsenceSource>,
    /// The audit's risk threshold.
    #[arg(long, value_name = "P", default_value_t = reusesim::audit::RISK_THRESHOLD)]
    pub risk_threshold: f64,
    /// The audit's settle threshold.
    #[arg(long, value_name = "P", default_value_t = reusesim::audit::SETTLE_THRESHOLD)]
    pub settle_threshold: f64,
    /// The audit's rank margin.
    #[arg(long, value_name = "R", default_value_t = reusesim::audit::RANK_MARGIN)]
    pub rank_margin: f64,
    /// Output folder (default: results/<task name>/backtest-<world>).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Which files to write for each figure.
    #[arg(long, value_parser = choice::<FigureFormat>(), default_value_t = FigureFormat::Both)]
    pub format: FigureFormat,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

impl BacktestArgs {
    /// The backtest settings for `task`.
    pub fn settings(&self, task: &Task) -> reusesim::Result<BacktestSettings> {
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
            measures: eval::parse_measures(&[self.measures.as_str()])?,
            features: self.features,
            rules: AuditRules {
                risk_threshold: self.risk_threshold,
                settle_threshold: self.settle_threshold,
                rank_margin: self.rank_margin,
                budget: None,
                beyond_pool: self.beyond_pool.unwrap_or(self.world.beyond_pool()),
                list_per_topic: (self.list_per_topic > 0).then_some(self.list_per_topic),
            }
            .check()?,
            teams: self.teams.clone(),
            trials,
            evidence: self.evidence.unwrap_or(self.world.default_evidence()),
            truth_qrels: self.truth_qrels.clone(),
            runs: self.runs.clone(),
        }
        .check()
    }
}

/// Options of the simulated judge, shared by `judge` and `simulate`.
#[derive(Debug, Clone, clap::Args)]
pub struct JudgeArgs {
    /// Features: text (HiCAL's, needs a corpus and topics), runs, or auto (text when possible).
    #[arg(long, value_parser = choice::<FeatureChoice>(), default_value_t = FeatureChoice::Auto)]
    pub features: FeatureChoice,
    /// The learner retrained after each batch.
    #[arg(long, value_parser = choice::<LearnerChoice>(), default_value_t = LearnerChoice::Pegasos)]
    pub learner: LearnerChoice,
    /// Pegasos iterations per retrain (HiCAL: 200000).
    #[arg(long, default_value_t = reusesim::judge::pegasos::DEFAULT_ITERATIONS)]
    pub iterations: usize,
    /// Pegasos Gram matrix precision: f32 (twice as fast, as close to exact as HiCAL's own f32
    /// classifier) or f64.
    #[arg(long, value_parser = choice::<Precision>(), default_value_t = Precision::F32)]
    pub precision: Precision,
    /// Batch schedule: bmi (batches grow by ceil(B/10)) or one (retrain after every judgment).
    #[arg(long, value_parser = choice::<Schedule>(), default_value_t = Schedule::Bmi)]
    pub schedule: Schedule,
    /// Candidates: documents the runs retrieved for the topic, or the whole corpus (HiCAL's).
    #[arg(long, value_parser = choice::<CandidateSource>(), default_value_t = CandidateSource::Retrieved)]
    pub candidates: CandidateSource,
    /// Pool depth (default: the task's).
    #[arg(long, value_name = "K")]
    pub pool_depth: Option<usize>,
    /// A fixed number of judgments per topic instead of the official count N_t.
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// What a trial leaving a team out also withholds from the simulated assessor: uniques
    /// (its unique relevant documents, which no other team's run retrieved: had the team never
    /// taken part, would its runs be scored fairly?) or none (only the team's runs leave: could
    /// the judge have found its documents anyway?).
    #[arg(long, value_parser = choice::<Withhold>(), default_value_t = DEFAULT_WITHHOLD)]
    pub withhold: Withhold,
    /// With --withhold uniques: count only the top K of every run, in NIST's pooling order
    /// (default: every run at any depth).
    #[arg(long, value_name = "K")]
    pub unique_depth: Option<usize>,
    /// Official judgments of documents no candidate holds are carried into the qrels
    /// unchanged; train: they also train the judge (as NIST's judge learned from them), or
    /// ignore: they do not.
    #[arg(long, value_parser = choice::<Carried>(), default_value_t = DEFAULT_CARRIED)]
    pub carried: Carried,
    /// A judged grade >= L trains the judge as positive (HiCAL and NIST: 1, every grade > 0),
    /// separate from the evaluation's relevance level.
    #[arg(long, value_name = "L", default_value_t = 1)]
    pub train_level: i32,
    /// Who grades what is judged: official (the task's qrels; a document they never judged
    /// counts as non-relevant), completed (the official qrels, completed by grades drawn from
    /// the calibrated relevance model, afresh for each seed), or the path of a fuller qrels
    /// file (its grades first, then the official ones, then 0).
    #[arg(long, value_name = "ASSESSOR", default_value = "official", value_parser = assessor)]
    pub assessor: AssessorChoice,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// `--assessor`'s value: `official`, `completed` or a file's path.
fn assessor(text: &str) -> Result<AssessorChoice, String> {
    if text.is_empty() {
        return Err("expected official, completed or the path of a qrels file".to_string());
    }
    Ok(AssessorChoice::parse(text))
}

/// Arguments of `reusesim simulate`.
#[derive(Debug, Clone, clap::Args)]
pub struct SimulateArgs {
    /// The task manifest (default: the embedded task runs/synth-passage/task.toml).
    #[arg(long, value_name = "TASK")]
    pub task: Option<PathBuf>,
    /// The corpus's feature store (written by `reusesim index`), read in place of the corpus
    /// (default: the task's `feature_store`, if any).
    #[arg(long, value_name = "STORE")]
    pub feature_store: Option<PathBuf>,
    /// Number of seeds (trials use seeds 1..=N).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub seeds: u64,
    /// Measures to compare rankings on (comma-separated; trec_eval or ir_measures spellings).
    #[arg(long, value_name = "LIST", default_value = "map,P_10,ndcg_cut_10")]
    pub measures: String,
    /// Hold out only these teams (comma-separated; default: every team with a pooled run).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub teams: Option<Vec<String>>,
    /// Also write every trial's simulated qrels and trace under DIR/qrels/.
    #[arg(long)]
    pub keep_qrels: bool,
    /// Output folder (default: results/<task name>).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Judge only shard I of N (0-based, as $SLURM_ARRAY_TASK_ID) into DIR/shards/I-of-N/,
    /// without statistics; `reusesim merge DIR` computes them once all N shards are done.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<ShardSpec>,
    /// Continue from the journal of finished units in DIR (or in the shard's folder): only
    /// the units it lacks are judged. Without a journal, start afresh.
    #[arg(long)]
    pub resume: bool,
    /// When another process is using the output folder (or the shard's folder), wait for it
    /// to end instead of stopping with an error.
    #[arg(long)]
    pub wait_lock: bool,
    /// Also evaluate the study with each topic's judgments cut to these fractions of its budget
    /// (comma-separated, each above 0 and at most 1): budget.tsv, a budget block in
    /// summary.json, budget figures and a report section. The judging is done once.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "1")]
    pub budget_fractions: Vec<f64>,
    /// Also judge every trial with these judging strategies (comma-separated: hical, depth,
    /// mtf, bandit) and compare them: strategies.tsv, a strategies block in summary.json,
    /// strategy figures and a report section. Without it the study judges with hical alone.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = choice::<Strategy>())]
    pub strategies: Vec<Strategy>,
    /// The judge's options.
    #[command(flatten)]
    pub judge: JudgeArgs,
}

/// Arguments of `reusesim merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The study's output folder: the shards are read from DIR/shards/, the outputs written
    /// into DIR.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The task manifest, when it moved since the shards were judged (default: the path they
    /// recorded). Its inputs must be the same.
    #[arg(long, value_name = "TASK")]
    pub task: Option<PathBuf>,
    /// The corpus's feature store (written by `reusesim index`), read in place of the corpus
    /// (default: the task's `feature_store`, if any).
    #[arg(long, value_name = "STORE")]
    pub feature_store: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

impl SimulateArgs {
    /// The main job (`reusesim` without a command): the study of the embedded task with its
    /// budget curve at a quarter, half, three quarters and all of each topic's budget.
    pub fn main_job() -> Self {
        Self {
            budget_fractions: MAIN_JOB_BUDGET_FRACTIONS.to_vec(),
            ..Self::default()
        }
    }
}

/// The budget fractions of the main job.
const MAIN_JOB_BUDGET_FRACTIONS: [f64; 4] = [0.25, 0.5, 0.75, 1.0];

impl Default for SimulateArgs {
    fn default() -> Self {
        use clap::FromArgMatches;
        let matches = <Self as clap::Args>::augment_args(clap::Command::new("simulate"))
            .get_matches_from(["simulate"]);
        Self::from_arg_matches(&matches).expect("the defaults parse")
    }
}

/// Arguments of `reusesim plot`.
#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    /// The results folder written by `simulate` (summary.json, runs.tsv, lou.tsv, trials.tsv).
    #[arg(value_name = "RESULTS_DIR")]
    pub results: PathBuf,
    /// Output folder (default: RESULTS_DIR/figures; RESULTS_DIR itself with `--format html`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Which files to write for each figure, or `html` for the study's page `report.html`.
    #[arg(long, value_parser = choice::<PlotFormat>(), default_value_t = PlotFormat::Both)]
    pub format: PlotFormat,
}

/// Arguments of `reusesim index`.
#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// The corpus: files or folders of files (TSV or JSONL, plain or gzip), read in the order
    /// given, a folder's files in name order.
    #[arg(long, value_name = "PATH", num_args = 1.., required = true)]
    pub corpus: Vec<PathBuf>,
    /// The store to write.
    #[arg(long, value_name = "STORE")]
    pub out: PathBuf,
    /// How corpus lines are laid out: tsv, jsonl, or auto (decided per file).
    #[arg(long, value_name = "FORMAT")]
    pub corpus_format: Option<String>,
    /// JSONL: the fields a document's id may be in, the first present taken (comma separated).
    #[arg(long, value_name = "FIELDS", value_delimiter = ',')]
    pub corpus_id_fields: Option<Vec<String>>,
    /// JSONL: the parts of a document's text (comma separated), each field names joined by `|`
    /// as alternatives.
    #[arg(long, value_name = "PARTS", value_delimiter = ',')]
    pub corpus_text_fields: Option<Vec<String>>,
    /// Worker threads (default: all cores). The store does not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// Arguments of `reusesim synth`.
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// The shape: default (passage-like, small enough for a fast study) or dl19 (TREC DL 2019
    /// document-task shape).
    #[arg(long, value_parser = choice::<reusesim::synth::Preset>(), default_value_t = reusesim::synth::Preset::Default)]
    pub preset: reusesim::synth::Preset,
    /// The seed.
    #[arg(long, default_value_t = 2019)]
    pub seed: u64,
    /// Write in the repository layout: the task in DIR/runs/<name>/ and its qrels in
    /// DIR/qrels/ (how the embedded default task is made, with --out .).
    #[arg(long)]
    pub embedded: bool,
    /// Write only DIR/corpus.tsv.gz, the preset's corpus (extended by --documents), without
    /// topics, runs or judging.
    #[arg(long, conflicts_with_all = ["embedded", "iterations"])]
    pub corpus_only: bool,
    /// With --corpus-only: the corpus size, at least the preset's; documents past the preset's
    /// own are background documents (default: the preset's count).
    #[arg(long, value_name = "N", requires = "corpus_only")]
    pub documents: Option<usize>,
    /// Pegasos iterations per retrain when judging (HiCAL: 200000).
    #[arg(long, default_value_t = reusesim::judge::pegasos::DEFAULT_ITERATIONS)]
    pub iterations: usize,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Output folder.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Arguments of `reusesim judge`.
#[derive(Debug, clap::Args)]
pub struct JudgeCommandArgs {
    /// The task manifest (default: the embedded task runs/synth-passage/task.toml).
    #[arg(long, value_name = "TASK")]
    pub task: Option<PathBuf>,
    /// The corpus's feature store (written by `reusesim index`), read in place of the corpus
    /// (default: the task's `feature_store`, if any).
    #[arg(long, value_name = "STORE")]
    pub feature_store: Option<PathBuf>,
    /// The trial seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Leave this team's runs out of the pool and the features (repeatable).
    #[arg(long = "leave-out", value_name = "TEAM")]
    pub leave_out: Vec<String>,
    /// The judge's options.
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Output folder: trace.tsv and qrels are written there.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Arguments of `reusesim complete`.
#[derive(Debug, clap::Args)]
pub struct CompleteArgs {
    /// The task manifest (default: the embedded task runs/synth-passage/task.toml).
    #[arg(long, value_name = "TASK")]
    pub task: Option<PathBuf>,
    /// The corpus's feature store (written by `reusesim index`), read in place of the corpus
    /// (default: the task's `feature_store`, if any).
    #[arg(long, value_name = "STORE")]
    pub feature_store: Option<PathBuf>,
    /// The seed whose completion is drawn (a study's seed S draws the same).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Features of the relevance model: text (needs a corpus and topics), runs, or auto (text
    /// when possible), as a study's judge uses.
    #[arg(long, value_parser = choice::<FeatureChoice>(), default_value_t = FeatureChoice::Auto)]
    pub features: FeatureChoice,
    /// Pool depth of the calibration's leave-team-out evidence (default: the task's).
    #[arg(long, value_name = "K")]
    pub pool_depth: Option<usize>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// The completed qrels file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// Arguments of `reusesim eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// A measure, in trec_eval (`map`, `P.5,10`, `ndcg_cut_10`, `all_trec`) or ir_measures
    /// (`AP`, `P@10`, `nDCG@10`, `AP(rel=2)`) spelling; repeatable. Default: trec_eval's
    /// `official` set, printed as trec_eval prints it.
    #[arg(short = 'm', long = "measure", value_name = "MEASURE")]
    pub measures: Vec<String>,
    /// A grade >= LEVEL counts as relevant for binary measures (trec_eval -l).
    #[arg(short = 'l', long = "level", value_name = "LEVEL", default_value_t = 1)]
    pub relevance_level: i32,
    /// Print per-topic values too (trec_eval -q).
    #[arg(short = 'q', long = "per-topic")]
    pub per_topic: bool,
    /// Average over every qrels topic; topics missing from a run score 0 (trec_eval -c).
    #[arg(short = 'c', long = "complete")]
    pub complete: bool,
    /// Only the top N documents of each topic count (trec_eval -M).
    #[arg(short = 'M', long = "max-docs", value_name = "N")]
    pub max_docs: Option<usize>,
    /// Print no summary (trec_eval -n).
    #[arg(short = 'n', long = "no-summary")]
    pub no_summary: bool,
    /// Print z-scores against the means and standard deviations in FILE, lines
    /// `qid measure mean stddev` (trec_eval -Z).
    #[arg(short = 'Z', long = "zscores", value_name = "FILE")]
    pub zscores: Option<PathBuf>,
    /// The trec_eval release whose arithmetic to follow where releases differ
    /// (iprec_at_recall and 11pt_avg turn a recall level into documents differently).
    #[arg(long = "trec-eval", value_name = "VERSION", value_parser = choice::<TrecEvalVersion>(),
          default_value_t = TrecEvalVersion::Nine)]
    pub trec_eval: TrecEvalVersion,
    /// Output layout.
    #[arg(long, value_parser = choice::<Format>(), default_value_t = Format::Trec)]
    pub format: Format,
    /// The qrels file (`qid iter docid grade`; plain or gzip).
    pub qrels: PathBuf,
    /// Run files or directories of run files (plain or gzip).
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
}

// The command line mapped into the library's settings types, each validated once.

impl JudgeArgs {
    /// The judge settings for `task` (the trial seed `seed`) and whether text features are used.
    pub fn settings(&self, task: &Task, seed: u64) -> reusesim::Result<(JudgeSettings, bool)> {
        let use_text = reusesim::judge::resolve_features(task, self.features, self.candidates)?;
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
}

impl SimulateArgs {
    /// The study settings for `task` and whether text features are used.
    pub fn settings(&self, task: &Task) -> reusesim::Result<(StudySettings, bool)> {
        let (judge, use_text) = self.judge.settings(task, 0)?;
        let settings = StudySettings {
            seeds: self.seeds,
            measures: eval::parse_measures(&[self.measures.as_str()])?,
            teams: self.teams.clone(),
            judge,
            budget: self.judge.budget,
            keep_qrels: self.keep_qrels,
            budget_fractions: check_budget_fractions(&self.budget_fractions)?,
            strategies: check_strategies(&self.strategies)?,
            assessor: self.judge.assessor.clone(),
        };
        Ok((settings, use_text))
    }
}

impl EvalArgs {
    /// What to print: the measures in trec_eval's order, `runid` and `relstring`.
    pub fn selection(&self) -> reusesim::Result<Selection> {
        let selection = if self.measures.is_empty() {
            Selection::parse(&[eval::DEFAULT_MEASURES], self.trec_eval)?
        } else {
            Selection::parse(&self.measures, self.trec_eval)?
        };
        Ok(selection.in_trec_eval_order())
    }

    /// The evaluation options for `selection`.
    pub fn options(&self, selection: &Selection) -> reusesim::Result<EvalOptions> {
        Ok(EvalOptions {
            measures: selection.measures.clone(),
            relevance_level: reusesim::base::relevance::check_relevance_level(
                self.relevance_level,
            )?,
            complete: self.complete,
            max_docs: self.max_docs,
            relstring: selection
                .relstring
                .as_ref()
                .map(|relstring| relstring.length),
        })
    }
}

mod audit;

pub use audit::{AuditArgs, AuditFormat};

#[cfg(test)]
mod tests;
