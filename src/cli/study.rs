//! The arguments of the study's commands: `simulate`, `merge`, `judge` and `complete`, and the
//! judge's options that `simulate` and `judge` share.

use std::path::PathBuf;

use reusesim::collection::{CandidateSource, FeatureChoice};
use reusesim::jobs::complete::CompleteOptions;
use reusesim::jobs::judge::{JudgeJobOptions, JudgeOptions};
use reusesim::jobs::simulate::SimulateOptions;
use reusesim::judge::pegasos::GramPrecision;
use reusesim::judge::schedule::Schedule;
use reusesim::judge::settings::{Carried, LearnerChoice, Withhold};
use reusesim::judge::strategies::Strategy;
use reusesim::sim::settings::Assessors;
use reusesim::sim::shard::ShardSpec;
use reusesim::stats::comparison::TestChoice;

use super::{choice, OutDirArgs, TaskArgs, ThreadsArgs};

/// Options of the simulated judge, shared by `judge` and `simulate`.
#[derive(Debug, Clone, clap::Args)]
pub struct JudgeArgs {
    /// Features: text (HiCAL's, needs a corpus and topics), runs, or auto (text when possible).
    #[arg(long, value_parser = choice::<FeatureChoice>(), default_value_t = JudgeOptions::default().features)]
    pub features: FeatureChoice,
    /// The learner retrained after each batch.
    #[arg(long, value_parser = choice::<LearnerChoice>(), default_value_t = JudgeOptions::default().learner)]
    pub learner: LearnerChoice,
    /// Pegasos iterations per retrain (HiCAL: 200000).
    #[arg(long, default_value_t = JudgeOptions::default().iterations)]
    pub iterations: usize,
    /// Pegasos Gram matrix precision: f32 (twice as fast, as close to exact as HiCAL's own f32
    /// classifier) or f64.
    #[arg(long, value_parser = choice::<GramPrecision>(), default_value_t = JudgeOptions::default().precision)]
    pub precision: GramPrecision,
    /// Batch schedule: bmi (batches grow by ceil(B/10)) or one (retrain after every judgment).
    #[arg(long, value_parser = choice::<Schedule>(), default_value_t = JudgeOptions::default().schedule)]
    pub schedule: Schedule,
    /// Candidates: documents the runs retrieved for the topic, or the whole corpus (HiCAL's).
    #[arg(long, value_parser = choice::<CandidateSource>(), default_value_t = JudgeOptions::default().candidates)]
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
    #[arg(long, value_parser = choice::<Withhold>(), default_value_t = JudgeOptions::default().withhold)]
    pub withhold: Withhold,
    /// With --withhold uniques: count only the top K of every run, in NIST's pooling order
    /// (default: every run at any depth).
    #[arg(long, value_name = "K")]
    pub unique_depth: Option<usize>,
    /// Official judgments of documents no candidate holds are carried into the qrels
    /// unchanged; train: they also train the judge (as NIST's judge learned from them), or
    /// ignore: they do not.
    #[arg(long, value_parser = choice::<Carried>(), default_value_t = JudgeOptions::default().carried)]
    pub carried: Carried,
    /// A judged grade >= L trains the judge as positive (HiCAL and NIST: 1, every grade > 0),
    /// separate from the evaluation's relevance level.
    #[arg(long, value_name = "L", default_value_t = JudgeOptions::default().train_level)]
    pub train_level: i32,
    /// Who grades what is judged: official (the task's qrels; a document they never judged
    /// counts as non-relevant), completed (the official qrels, completed by grades drawn from
    /// the calibrated relevance model, afresh for each seed), the path of a fuller qrels
    /// file (its grades first, then the official ones, then 0), or hybrid:FILE (the official
    /// grades for the depth pool, the file's as above for what the judging adds after it).
    /// simulate takes several, separated by commas (official,FILE,hybrid:FILE): a study of
    /// each on the same seeds, side by side.
    #[arg(long, value_name = "ASSESSOR", default_value_t = JudgeOptions::default().assessor, value_parser = assessor)]
    pub assessor: Assessors,
}

/// `--assessor`'s value: `official`, `completed`, `hybrid:FILE` or a file's path, or several
/// of them separated by commas.
fn assessor(text: &str) -> Result<Assessors, String> {
    Assessors::parse(text)
}

impl JudgeArgs {
    /// The judge's options.
    pub fn options(&self) -> JudgeOptions {
        JudgeOptions {
            features: self.features,
            learner: self.learner,
            iterations: self.iterations,
            precision: self.precision,
            schedule: self.schedule,
            candidates: self.candidates,
            pool_depth: self.pool_depth,
            budget: self.budget,
            withhold: self.withhold,
            unique_depth: self.unique_depth,
            carried: self.carried,
            train_level: self.train_level,
            assessor: self.assessor.clone(),
        }
    }
}

/// Arguments of `reusesim simulate`.
#[derive(Debug, Clone, clap::Args)]
pub struct SimulateArgs {
    /// The task.
    #[command(flatten)]
    pub task: TaskArgs,
    /// Number of seeds (trials use seeds 1..=N).
    #[arg(long, default_value_t = SimulateOptions::default().seeds)]
    pub seeds: u64,
    /// Measures to compare rankings on (comma-separated; trec_eval or ir_measures spellings).
    #[arg(long, value_name = "LIST", default_value = reusesim::jobs::simulate::DEFAULT_STUDY_MEASURES)]
    pub measures: String,
    /// Hold out only these teams (comma-separated; default: every team with a pooled run).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub teams: Option<Vec<String>>,
    /// Also write every trial's simulated qrels and trace under DIR/qrels/.
    #[arg(long)]
    pub keep_qrels: bool,
    /// The output folder.
    #[command(flatten)]
    pub out: OutDirArgs,
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
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = SimulateOptions::default().budget_fractions)]
    pub budget_fractions: Vec<f64>,
    /// Also judge every trial with these judging strategies (comma-separated: hical, depth,
    /// mtf, bandit) and compare them: strategies.tsv, a strategies block in summary.json,
    /// strategy figures and a report section. Without it the study judges with hical alone.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = choice::<Strategy>())]
    pub strategies: Vec<Strategy>,
    /// Which differences between runs are significant, for the comparisons by significance:
    /// TEST[,CORRECTION] with TEST t, wilcoxon, randomization, bootstrap or tukey and
    /// CORRECTION none, bonferroni, holm or bh (over each measure's pairs of runs).
    #[arg(long, value_name = "TEST[,CORRECTION]", value_parser = TestChoice::parse, default_value_t = SimulateOptions::default().significance)]
    pub significance: TestChoice,
    /// The significance level.
    #[arg(long, default_value_t = SimulateOptions::default().alpha)]
    pub alpha: f64,
    /// The judge's options.
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// The worker threads.
    #[command(flatten)]
    pub threads: ThreadsArgs,
}

impl SimulateArgs {
    /// The study's options.
    pub fn options(&self) -> SimulateOptions {
        SimulateOptions {
            seeds: self.seeds,
            measures: vec![self.measures.clone()],
            teams: self.teams.clone(),
            keep_qrels: self.keep_qrels,
            budget_fractions: self.budget_fractions.clone(),
            strategies: self.strategies.clone(),
            judge: self.judge.options(),
            significance: self.significance,
            alpha: self.alpha,
        }
    }
}

impl Default for SimulateArgs {
    fn default() -> Self {
        use clap::FromArgMatches;
        let matches = <Self as clap::Args>::augment_args(clap::Command::new("simulate"))
            .get_matches_from(["simulate"]);
        Self::from_arg_matches(&matches).expect("the defaults parse")
    }
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
    /// The worker threads.
    #[command(flatten)]
    pub threads: ThreadsArgs,
}

/// Arguments of `reusesim judge`.
#[derive(Debug, clap::Args)]
pub struct JudgeCommandArgs {
    /// The task.
    #[command(flatten)]
    pub task: TaskArgs,
    /// The trial seed.
    #[arg(long, default_value_t = JudgeJobOptions::default().seed)]
    pub seed: u64,
    /// Leave this team's runs out of the pool and the features (repeatable).
    #[arg(long = "leave-out", value_name = "TEAM")]
    pub leave_out: Vec<String>,
    /// The judge's options.
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// The worker threads.
    #[command(flatten)]
    pub threads: ThreadsArgs,
    /// Output folder: trace.tsv and qrels are written there.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

impl JudgeCommandArgs {
    /// The judging's options.
    pub fn options(&self) -> JudgeJobOptions {
        JudgeJobOptions {
            seed: self.seed,
            leave_out: self.leave_out.clone(),
            judge: self.judge.options(),
        }
    }
}

/// Arguments of `reusesim complete`.
#[derive(Debug, clap::Args)]
pub struct CompleteArgs {
    /// The task.
    #[command(flatten)]
    pub task: TaskArgs,
    /// The seed whose completion is drawn (a study's seed S draws the same).
    #[arg(long, default_value_t = CompleteOptions::default().seed)]
    pub seed: u64,
    /// Features of the relevance model: text (needs a corpus and topics), runs, or auto (text
    /// when possible), as a study's judge uses.
    #[arg(long, value_parser = choice::<FeatureChoice>(), default_value_t = CompleteOptions::default().features)]
    pub features: FeatureChoice,
    /// Pool depth of the calibration's leave-team-out evidence (default: the task's).
    #[arg(long, value_name = "K")]
    pub pool_depth: Option<usize>,
    /// The worker threads.
    #[command(flatten)]
    pub threads: ThreadsArgs,
    /// The completed qrels file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

impl CompleteArgs {
    /// The completion's options.
    pub fn options(&self) -> CompleteOptions {
        CompleteOptions {
            seed: self.seed,
            features: self.features,
            pool_depth: self.pool_depth,
        }
    }
}
