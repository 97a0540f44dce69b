//! What a study's results depend on, so that pieces made apart can be checked before they are
//! put together (see docs/cluster.md): a sha256 over the task's input files (`task.toml`, every
//! run file, teams, qrels, topics, the corpus or every file of a corpus folder, truth) and every
//! setting that changes results, with the reusesim version. Thread counts, output folders and
//! the task's location are left out: they never change a result. The budget fractions are
//! recorded but left out too: they change the evaluation only, never a judging, so one journal
//! or one set of shards serves any fractions. `merge` and `simulate --resume` compare
//! fingerprints and name what differs.
//!
//! [`StudyRecipe`] is the settings part: the study's settings as plain data, written into shard
//! manifests so `merge` can redo the study's plan without being told the settings again.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::base::choice::Choice;
use crate::base::error::{Error, Result};
use crate::base::Grade;
use crate::collection::CandidateSource;
use crate::io::task::Task;
use crate::judge::pegasos::GramPrecision;
use crate::judge::schedule::Schedule;
use crate::judge::settings::{Carried, JudgeSettings, LearnerChoice, Withhold};
use crate::judge::strategies::Strategy;
use crate::sim::settings::{
    check_budget_fractions, check_strategies, study_significance, AssessorChoice, StudySettings,
    DEFAULT_STUDY_ALPHA, DEFAULT_STUDY_TEST, OFFICIAL_BUDGET_ONLY,
};
use crate::stats::comparison::TestChoice;

/// A study's settings as plain data: every field of [`StudySettings`] and [`JudgeSettings`]
/// (the trial seed aside: the study sets it), whether text features are used, and the task's
/// resolved pool depth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyRecipe {
    /// Seeds 1..=seeds.
    pub seeds: u64,
    /// Measures, canonical names.
    pub measures: Vec<String>,
    /// The teams asked to be held out (`None`: every team with a pooled run).
    pub teams: Option<Vec<String>>,
    /// `text` or `runs`.
    pub features: String,
    /// The learner.
    pub learner: String,
    /// Pegasos iterations per retrain.
    pub iterations: usize,
    /// The precision of the Pegasos Gram matrix.
    pub precision: String,
    /// The batch schedule.
    pub schedule: String,
    /// Where candidates come from.
    pub candidates: String,
    /// The judge's pool depth.
    pub pool_depth: usize,
    /// Presumed non-relevant documents per retrain.
    pub random_negatives: usize,
    /// A judged grade >= this trains as positive.
    pub train_level: Grade,
    /// What a leave-out trial withholds.
    pub withhold: String,
    /// The unique depth of `withhold = uniques`.
    pub unique_depth: Option<usize>,
    /// Whether carried judgments train the judge.
    pub carried: String,
    /// A fixed per-topic budget.
    pub budget: Option<usize>,
    /// Whether every trial's qrels and trace are written.
    pub keep_qrels: bool,
    /// The fractions of the budget the study is also evaluated at: recorded, but not part of
    /// the fingerprint's sha256 (written only when other than the whole budget alone).
    #[serde(
        default = "official_budget_only",
        skip_serializing_if = "is_official_budget_only"
    )]
    pub budget_fractions: Vec<f64>,
    /// The judging strategies compared (written only when the study compares any).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub strategies: Vec<String>,
    /// The simulated assessor: `completed`, or a fuller qrels file's path (written only when
    /// it is not the official one; the file's contents are an input of the fingerprint, its
    /// path is not).
    #[serde(
        default = "official_assessor",
        skip_serializing_if = "is_official_assessor"
    )]
    pub assessor: String,
    /// The task's pool depth, `auto` resolved.
    pub task_pool_depth: usize,
    /// The significance test and correction, `TEST,CORRECTION`: recorded, but not part of the
    /// fingerprint's sha256 (written only when other than the default).
    #[serde(default = "default_test", skip_serializing_if = "is_default_test")]
    pub significance: TestChoice,
    /// The significance level: recorded, not part of the sha256 (written only when other than
    /// the default).
    #[serde(default = "default_alpha", skip_serializing_if = "is_default_alpha")]
    pub alpha: f64,
}

impl StudyRecipe {
    /// The recipe of a study of `task`. Destructures every settings type, so a new setting
    /// cannot be forgotten here.
    pub fn new(task: &Task, settings: &StudySettings, use_text: bool) -> Self {
        let StudySettings {
            seeds,
            measures,
            teams,
            judge,
            budget,
            keep_qrels,
            budget_fractions,
            strategies,
            assessor,
            significance,
        } = settings;
        let JudgeSettings {
            seed: _,
            learner,
            iterations,
            precision,
            schedule,
            candidates,
            pool_depth,
            random_negatives,
            train_level,
            withhold,
            unique_depth,
            carried,
        } = judge;
        Self {
            seeds: *seeds,
            measures: measures.iter().map(ToString::to_string).collect(),
            teams: teams.clone(),
            features: if use_text { "text" } else { "runs" }.to_string(),
            learner: learner.name().to_string(),
            iterations: *iterations,
            precision: precision.name().to_string(),
            schedule: schedule.name().to_string(),
            candidates: candidates.name().to_string(),
            pool_depth: *pool_depth,
            random_negatives: *random_negatives,
            train_level: *train_level,
            withhold: withhold.name().to_string(),
            unique_depth: *unique_depth,
            carried: carried.name().to_string(),
            budget: *budget,
            keep_qrels: *keep_qrels,
            budget_fractions: budget_fractions.clone(),
            strategies: strategies.iter().map(|s| s.name().to_string()).collect(),
            assessor: assessor.to_string(),
            task_pool_depth: task.pool_depth,
            significance: TestChoice {
                test: significance.test,
                correction: significance.correction,
            },
            alpha: significance.alpha,
        }
    }

    /// What the judging depends on: the recipe without its budget fractions and significance
    /// settings, and with a fuller assessor's file named `file` (its contents are an input).
    fn judging(&self) -> Self {
        let assessor = match AssessorChoice::parse(&self.assessor) {
            Ok(AssessorChoice::File(_)) => "file".to_string(),
            Ok(AssessorChoice::Hybrid(_)) => "hybrid:file".to_string(),
            _ => self.assessor.clone(),
        };
        Self {
            budget_fractions: official_budget_only(),
            assessor,
            significance: default_test(),
            alpha: default_alpha(),
            ..self.clone()
        }
    }

    /// The study settings and whether text features are used, checked as the command line's
    /// are.
    ///
    /// # Errors
    /// [`Error::Invalid`] for an unknown name or an invalid setting.
    pub fn settings(&self) -> Result<(StudySettings, bool)> {
        fn named<T: Choice>(what: &str, name: &str) -> Result<T> {
            T::from_name(name).ok_or_else(|| {
                Error::Invalid(format!(
                    "expected a {what} ({}), found {name:?}",
                    T::ALL
                        .iter()
                        .map(|c| c.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        }
        let use_text = match self.features.as_str() {
            "text" => true,
            "runs" => false,
            other => {
                return Err(Error::Invalid(format!(
                    "expected features text or runs, found {other:?}"
                )))
            }
        };
        let judge = JudgeSettings {
            seed: 0,
            learner: named::<LearnerChoice>("learner", &self.learner)?,
            iterations: self.iterations,
            precision: named::<GramPrecision>("precision", &self.precision)?,
            schedule: named::<Schedule>("schedule", &self.schedule)?,
            candidates: named::<CandidateSource>("candidate source", &self.candidates)?,
            pool_depth: self.pool_depth,
            random_negatives: self.random_negatives,
            train_level: self.train_level,
            withhold: named::<Withhold>("withhold setting", &self.withhold)?,
            unique_depth: self.unique_depth,
            carried: named::<Carried>("carried setting", &self.carried)?,
        }
        .check()?;
        let settings = StudySettings {
            seeds: self.seeds,
            measures: crate::eval::parse_measures(&self.measures)?,
            teams: self.teams.clone(),
            judge,
            budget: self.budget,
            keep_qrels: self.keep_qrels,
            budget_fractions: check_budget_fractions(&self.budget_fractions)?,
            strategies: check_strategies(
                &(self.strategies.iter())
                    .map(|name| named::<Strategy>("judging strategy", name))
                    .collect::<Result<Vec<_>>>()?,
            )?,
            assessor: AssessorChoice::parse(&self.assessor).map_err(Error::Invalid)?,
            significance: study_significance(self.significance, self.alpha)?,
        };
        Ok((settings, use_text))
    }
}

/// The budget fractions of a recipe that names none: the whole budget alone.
fn official_budget_only() -> Vec<f64> {
    OFFICIAL_BUDGET_ONLY.to_vec()
}

fn is_official_budget_only(fractions: &[f64]) -> bool {
    fractions == OFFICIAL_BUDGET_ONLY
}

fn default_test() -> TestChoice {
    DEFAULT_STUDY_TEST
}

fn is_default_test(choice: &TestChoice) -> bool {
    *choice == DEFAULT_STUDY_TEST
}

fn default_alpha() -> f64 {
    DEFAULT_STUDY_ALPHA
}

fn is_default_alpha(alpha: &f64) -> bool {
    *alpha == DEFAULT_STUDY_ALPHA
}

/// The assessor of a recipe that names none: the official one.
fn official_assessor() -> String {
    AssessorChoice::Official.to_string()
}

fn is_official_assessor(assessor: &str) -> bool {
    AssessorChoice::parse(assessor).is_ok_and(|choice| choice.is_official())
}

/// The fingerprint of a study: its inputs' and settings' sha256.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fingerprint {
    /// sha256 (hex) over the version, the inputs and the settings below.
    pub sha256: String,
    /// The reusesim version that made it.
    pub reusesim: String,
    /// sha256 (hex) of each input file, by role: `task.toml`, `runs/<file name>`, `teams`,
    /// `qrels`, `topics`, `corpus` (or `corpus/<file name>` for a corpus folder), `truth`.
    pub inputs: BTreeMap<String, String>,
    /// Every setting that changes results.
    pub settings: StudyRecipe,
}

/// The input role of a task built in memory: it has no files, so its fingerprint names the task
/// and covers the settings only (such a study is neither sharded nor resumed).
const IN_MEMORY: &str = "in-memory task";

/// The sha256 of each input file of a task read from the manifest at `manifest_path`.
fn input_files(
    task: &Task,
    manifest_path: &Path,
    inputs: &mut BTreeMap<String, String>,
) -> Result<()> {
    let manifest = &task.manifest;
    inputs.insert("task.toml".to_string(), file_sha256(manifest_path)?);
    if let Some(runs) = &manifest.runs {
        for file in crate::io::run::run_files(std::slice::from_ref(runs))? {
            let name = file.strip_prefix(runs).unwrap_or(&file).display();
            inputs.insert(format!("runs/{name}"), file_sha256(&file)?);
        }
    }
    let optional = [
        ("teams", manifest.teams.as_deref()),
        ("qrels", Some(manifest.qrels.as_path())),
        ("topics", manifest.topics.as_deref()),
        ("truth", manifest.truth.as_deref()),
    ];
    for (role, path) in optional {
        if let Some(path) = path {
            inputs.insert(role.to_string(), file_sha256(path)?);
        }
    }
    match (&manifest.feature_store, &manifest.corpus) {
        (Some(store), _) => store_corpus_files(store, inputs)?,
        (None, Some(corpus)) => corpus_files(corpus, inputs)?,
        (None, None) => {}
    }
    Ok(())
}

/// The corpus files a feature store was built from, with the sha256 it recorded of each: what
/// a study with the store depends on, named as [`corpus_files`] names them, so a study has one
/// fingerprint with and without the store.
fn store_corpus_files(store: &Path, inputs: &mut BTreeMap<String, String>) -> Result<()> {
    let store = crate::features::store::FeatureStore::open(store)?;
    for file in &store.header().corpus {
        inputs.insert(file.role.clone(), file.sha256.clone());
    }
    Ok(())
}

/// The sha256 of the corpus file (role `corpus`), or of every file a corpus folder is read
/// from (role `corpus/<file name>`).
fn corpus_files(corpus: &Path, inputs: &mut BTreeMap<String, String>) -> Result<()> {
    if !corpus.is_dir() {
        inputs.insert("corpus".to_string(), file_sha256(corpus)?);
        return Ok(());
    }
    for file in crate::io::corpus::corpus_files(corpus)? {
        let name = file.strip_prefix(corpus).unwrap_or(&file).display();
        inputs.insert(format!("corpus/{name}"), file_sha256(&file)?);
    }
    Ok(())
}

impl Fingerprint {
    /// The fingerprint of a study of `task` with `recipe`, from the files as they are now.
    ///
    /// # Errors
    /// A [`ParseError`](crate::base::error::ParseError) naming an input file that cannot be read.
    pub fn new(task: &Task, recipe: &StudyRecipe) -> Result<Self> {
        let mut inputs = BTreeMap::new();
        match &task.manifest.path {
            Some(path) => input_files(task, path, &mut inputs)?,
            None => {
                inputs.insert(IN_MEMORY.to_string(), task.manifest.name.clone());
            }
        }
        if let Some(path) = AssessorChoice::parse(&recipe.assessor)
            .ok()
            .as_ref()
            .and_then(AssessorChoice::file)
        {
            inputs.insert("assessor".to_string(), file_sha256(path)?);
        }
        let reusesim = env!("CARGO_PKG_VERSION").to_string();
        let sha256 = format!(
            "{:x}",
            Sha256::digest(
                serde_json::to_vec(&(&reusesim, &inputs, &recipe.judging()))
                    .expect("strings, numbers and maps always serialize"),
            )
        );
        Ok(Self {
            sha256,
            reusesim,
            inputs,
            settings: recipe.clone(),
        })
    }

    /// What differs between `self` and `other`, one phrase each (empty when they agree).
    pub fn differences(&self, other: &Self) -> Vec<String> {
        let mut differences = Vec::new();
        if self.reusesim != other.reusesim {
            differences.push(format!(
                "reusesim version ({} vs {})",
                self.reusesim, other.reusesim
            ));
        }
        let roles: std::collections::BTreeSet<&String> =
            self.inputs.keys().chain(other.inputs.keys()).collect();
        for role in roles {
            match (self.inputs.get(role), other.inputs.get(role)) {
                (Some(a), Some(b)) if a == b => {}
                (Some(_), Some(_)) => differences.push(format!("input {role} (other contents)")),
                (Some(_), None) => differences.push(format!("input {role} (only in the first)")),
                (None, _) => differences.push(format!("input {role} (only in the second)")),
            }
        }
        let settings = |recipe: &StudyRecipe| match serde_json::to_value(recipe) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => unreachable!("a recipe serializes to a JSON object"),
        };
        let (ours, theirs) = (
            settings(&self.settings.judging()),
            settings(&other.settings.judging()),
        );
        // A setting written only when it is not its default is missing on the other side.
        let names: std::collections::BTreeSet<&String> = ours.keys().chain(theirs.keys()).collect();
        for name in names {
            let (value, other) = (ours.get(name), theirs.get(name));
            if value != other {
                let null = serde_json::Value::Null;
                let (value, other) = (value.unwrap_or(&null), other.unwrap_or(&null));
                differences.push(format!("setting {name} ({value} vs {other})"));
            }
        }
        if differences.is_empty() && self.sha256 != other.sha256 {
            differences.push(format!("sha256 ({} vs {})", self.sha256, other.sha256));
        }
        differences
    }

    /// Checks that `found` (read from `path`) is this fingerprint.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `path` and every difference.
    pub fn check(&self, found: &Self, path: &Path) -> Result<()> {
        let differences = self.differences(found);
        if differences.is_empty() {
            return Ok(());
        }
        Err(Error::Invalid(format!(
            "{}: expected a study with fingerprint {}, found {} made from other inputs or \
             settings; differs in: {}",
            path.display(),
            short(&self.sha256),
            short(&found.sha256),
            differences.join(", ")
        )))
    }
}

/// The first 12 hex digits of a sha256, for messages.
fn short(sha256: &str) -> &str {
    sha256.get(..12).unwrap_or(sha256)
}

/// The sha256 (hex) of a file's bytes, as stored (compressed files are not decompressed).
///
/// # Errors
/// A [`ParseError`](crate::base::error::ParseError) naming the file when it cannot be read.
pub fn file_sha256(path: &Path) -> Result<String> {
    Ok(crate::io::gz::file_digest(path)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::fixture::hand_task;

    fn study() -> StudySettings {
        StudySettings {
            seeds: 2,
            measures: crate::eval::parse_measures(&["map,P_5"]).unwrap(),
            teams: None,
            judge: JudgeSettings::hical(2),
            budget: None,
            keep_qrels: false,
            budget_fractions: OFFICIAL_BUDGET_ONLY.to_vec(),
            strategies: Vec::new(),
            assessor: AssessorChoice::Official,
            significance: crate::sim::settings::default_significance(),
        }
    }

    #[test]
    fn the_recipe_round_trips_into_the_same_settings() {
        let dir = tempfile::tempdir().unwrap();
        let task = hand_task(dir.path(), false);
        let recipe = StudyRecipe::new(&task, &study(), false);
        let json = serde_json::to_string(&recipe).unwrap();
        let back: StudyRecipe = serde_json::from_str(&json).unwrap();
        assert_eq!(back.settings().unwrap(), (study(), false));
    }

    #[test]
    fn a_changed_setting_or_input_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let task = hand_task(dir.path(), false);
        let recipe = StudyRecipe::new(&task, &study(), false);
        let first = Fingerprint::new(&task, &recipe).unwrap();
        assert_eq!(first, Fingerprint::new(&task, &recipe).unwrap());
        let mut changed = study();
        changed.judge.iterations = 7;
        let second = Fingerprint::new(&task, &StudyRecipe::new(&task, &changed, false)).unwrap();
        assert_ne!(first.sha256, second.sha256);
        let error = first.check(&second, Path::new("x.json")).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("x.json: ") && message.contains("setting iterations (200000 vs 7)"),
            "{message}"
        );
        let qrels = task.manifest.qrels.clone();
        std::fs::write(&qrels, std::fs::read_to_string(&qrels).unwrap() + "\n").unwrap();
        let third = Fingerprint::new(&task, &recipe).unwrap();
        assert_eq!(first.differences(&third), ["input qrels (other contents)"]);
    }

    #[test]
    fn every_file_of_a_corpus_folder_is_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let mut task = hand_task(dir.path(), false);
        let folder = dir.path().join("corpus");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("a.tsv"), "d1\tone\n").unwrap();
        std::fs::write(
            folder.join("b.jsonl"),
            "{\"id\": \"d2\", \"text\": \"two\"}\n",
        )
        .unwrap();
        std::fs::write(folder.join(".hidden"), "not read\n").unwrap();
        task.manifest.corpus = Some(folder.clone());
        let recipe = StudyRecipe::new(&task, &study(), true);
        let first = Fingerprint::new(&task, &recipe).unwrap();
        let roles: Vec<&str> = first.inputs.keys().map(String::as_str).collect();
        assert!(roles.contains(&"corpus/a.tsv") && roles.contains(&"corpus/b.jsonl"));
        assert!(!roles
            .iter()
            .any(|role| *role == "corpus" || role.contains("hidden")));

        std::fs::write(
            folder.join("b.jsonl"),
            "{\"id\": \"d2\", \"text\": \"2\"}\n",
        )
        .unwrap();
        let changed = Fingerprint::new(&task, &recipe).unwrap();
        assert_ne!(first.sha256, changed.sha256);
        assert_eq!(
            first.differences(&changed),
            ["input corpus/b.jsonl (other contents)"]
        );

        std::fs::rename(folder.join("b.jsonl"), folder.join("c.jsonl")).unwrap();
        let renamed = Fingerprint::new(&task, &recipe).unwrap();
        assert_eq!(
            changed.differences(&renamed),
            [
                "input corpus/b.jsonl (only in the first)",
                "input corpus/c.jsonl (only in the second)"
            ]
        );
    }
}
