//! What a study does: its seeds, measures, held-out teams, judge, budget, the fractions of the
//! budget it is also evaluated at, whether it keeps the simulated qrels, the judging
//! strategies it compares, its simulated assessor and how it tests significance. The plain settings type sits below everything that reads it (the
//! study's plan, its fingerprint, its shards), so that those import in one direction only.

use std::path::PathBuf;

use crate::base::error::{Error, Result};
use crate::eval::Measure;
use crate::judge::settings::JudgeSettings;
use crate::judge::strategies::Strategy;
use crate::stats::comparison::{SignificanceTest, TestChoice, TestSettings};
use crate::stats::correction::Correction;
use crate::stats::DEFAULT_RANDOMIZATION_PERMUTATIONS;

/// What the study does.
#[derive(Debug, Clone, PartialEq)]
pub struct StudySettings {
    /// Seeds 1..=seeds.
    pub seeds: u64,
    /// The measures to compare rankings on.
    pub measures: Vec<Measure>,
    /// The teams to hold out (default: every team with a pooled run).
    pub teams: Option<Vec<String>>,
    /// The judge (its seed is replaced by each trial's).
    pub judge: JudgeSettings,
    /// A fixed number of judgments per topic instead of the official count.
    pub budget: Option<usize>,
    /// Keep every trial's simulated qrels and trace in the outcome.
    pub keep_qrels: bool,
    /// The fractions of each topic's budget the study is also evaluated at (ascending, each in
    /// (0, 1]; see [`crate::sim::budget`]). [`OFFICIAL_BUDGET_ONLY`] evaluates the budget itself
    /// and nothing more.
    pub budget_fractions: Vec<f64>,
    /// The judging strategies compared on the study's trials (see
    /// [`crate::judge::strategies`]); empty: no comparison, the study judges with `hical` alone.
    pub strategies: Vec<Strategy>,
    /// Who grades what the judging processes judge.
    pub assessor: AssessorChoice,
    /// How the study judges which differences between runs are significant.
    pub significance: TestSettings,
}

/// The test and correction a study judges significance by unless told otherwise: the paired
/// t-test with Holm's correction, the test most IR papers report, corrected for the many
/// pairs a study compares at once.
pub const DEFAULT_STUDY_TEST: TestChoice = TestChoice {
    test: SignificanceTest::Student,
    correction: Correction::Holm,
};

/// The significance level of a study unless told otherwise.
pub const DEFAULT_STUDY_ALPHA: f64 = 0.05;

/// The seed of a study's randomization, bootstrap and Tukey tests (fixed, so reports are
/// reproducible).
pub const SIGNIFICANCE_SEED: u64 = 2021;

/// The significance settings of a study told nothing about them.
pub fn default_significance() -> TestSettings {
    study_significance(DEFAULT_STUDY_TEST, DEFAULT_STUDY_ALPHA).expect("the default alpha is valid")
}

/// The significance settings of a study testing with `choice` at level `alpha`: the sampled
/// tests draw [`DEFAULT_RANDOMIZATION_PERMUTATIONS`] samples from [`SIGNIFICANCE_SEED`].
///
/// # Errors
/// [`Error::Invalid`] when `alpha` is not between 0 and 1.
pub fn study_significance(choice: TestChoice, alpha: f64) -> Result<TestSettings> {
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(Error::Invalid(format!(
            "expected alpha between 0 and 1, found {alpha}"
        )));
    }
    Ok(TestSettings {
        test: choice.test,
        correction: choice.correction,
        alpha,
        permutations: DEFAULT_RANDOMIZATION_PERMUTATIONS,
        seed: SIGNIFICANCE_SEED,
    })
}

/// The simulated assessor of a study or a judging run (see docs/assessor.md).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AssessorChoice {
    /// The official qrels; a document they never judged is presumed non-relevant.
    #[default]
    Official,
    /// A fuller qrels file first, then the official qrels, then a presumed 0.
    File(PathBuf),
    /// The official qrels completed by grades drawn from the calibrated relevance model.
    Completed,
    /// People for the pool, a file for the rest: the official grades for the judging's depth
    /// pool, and for every document the judging adds after it, the file's grade, else the
    /// official one, else a presumed 0 (as [`AssessorChoice::File`]).
    Hybrid(PathBuf),
}

/// What `--assessor` accepts, for messages.
const ASSESSOR_SPELLINGS: &str = "official, completed, hybrid:FILE or the path of a qrels file";

impl AssessorChoice {
    /// `official`, `completed`, `hybrid:FILE`, or else the path of a qrels file (`./completed`
    /// and `./hybrid` name files called so).
    ///
    /// # Errors
    /// A message for an empty text, and for `hybrid` or `hybrid:` without a file.
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        Ok(match text {
            "" => return Err(format!("expected {ASSESSOR_SPELLINGS}, found \"\"")),
            "official" => Self::Official,
            "completed" => Self::Completed,
            "hybrid" | "hybrid:" => {
                return Err(format!(
                    "expected hybrid:FILE, the qrels file that grades what the judging adds \
                     after the pool, found {text:?} (a file called hybrid is ./hybrid)"
                ))
            }
            _ => match text.strip_prefix("hybrid:") {
                Some(path) => Self::Hybrid(PathBuf::from(path)),
                None => Self::File(PathBuf::from(text)),
            },
        })
    }

    /// The qrels file the assessor reads, if any (a fuller file's or a hybrid's).
    pub fn file(&self) -> Option<&std::path::Path> {
        match self {
            Self::File(path) | Self::Hybrid(path) => Some(path),
            Self::Official | Self::Completed => None,
        }
    }

    /// Whether this is the official assessor, the default.
    pub fn is_official(&self) -> bool {
        *self == Self::Official
    }
}

impl std::fmt::Display for AssessorChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Official => f.write_str("official"),
            Self::Completed => f.write_str("completed"),
            Self::File(path) => write!(f, "{}", path.display()),
            Self::Hybrid(path) => write!(f, "hybrid:{}", path.display()),
        }
    }
}

impl serde::Serialize for AssessorChoice {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for AssessorChoice {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// The assessors a study compares on the same seeds (`--assessor official,FILE,hybrid:FILE`):
/// one or more, none twice. One assessor is a study as ever; several are one study per
/// assessor, sharing what they can (see docs/assessor.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessors(Vec<AssessorChoice>);

impl Default for Assessors {
    fn default() -> Self {
        Self(vec![AssessorChoice::Official])
    }
}

impl Assessors {
    /// A comma-separated list of assessors, each as [`AssessorChoice::parse`] reads it.
    ///
    /// # Errors
    /// A message for an assessor that cannot be read, an empty one between commas, and an
    /// assessor given twice.
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        let mut choices = Vec::new();
        for part in text.split(',') {
            if part.is_empty() && text.contains(',') {
                return Err(format!(
                    "expected an assessor between every two commas, found {text:?}"
                ));
            }
            let choice = AssessorChoice::parse(part)?;
            if choices.contains(&choice) {
                return Err(format!("assessor {choice} is given twice"));
            }
            choices.push(choice);
        }
        Ok(Self(choices))
    }

    /// The assessors, in the order given.
    pub fn choices(&self) -> &[AssessorChoice] {
        &self.0
    }

    /// The only assessor, for a job that grades with one.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `job` when several are given.
    pub fn single(&self, job: &str) -> Result<&AssessorChoice> {
        match self.0.as_slice() {
            [only] => Ok(only),
            several => Err(Error::Invalid(format!(
                "{job} grades with one assessor, found {}: {self} (several are for simulate)",
                several.len()
            ))),
        }
    }
}

impl std::fmt::Display for Assessors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (pos, choice) in self.0.iter().enumerate() {
            if pos > 0 {
                f.write_str(",")?;
            }
            write!(f, "{choice}")?;
        }
        Ok(())
    }
}

impl serde::Serialize for Assessors {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Assessors {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// The default budget fractions: the whole budget alone, no budget curve.
pub const OFFICIAL_BUDGET_ONLY: [f64; 1] = [1.0];

impl StudySettings {
    /// Whether the study draws a budget curve: fractions other than the whole budget alone.
    pub fn has_budget_curve(&self) -> bool {
        self.budget_fractions != OFFICIAL_BUDGET_ONLY
    }
}

/// Checks budget fractions and returns them ascending: at least one, each a number above 0
/// and at most 1 (beyond the official count the simulated assessor has no official label to
/// give), no two equal.
///
/// # Errors
/// [`Error::Invalid`] naming the fraction refused and the rule.
pub fn check_budget_fractions(fractions: &[f64]) -> Result<Vec<f64>> {
    if fractions.is_empty() {
        return Err(Error::Invalid(
            "expected at least one budget fraction, found none".to_string(),
        ));
    }
    for &fraction in fractions {
        if fraction > 1.0 {
            return Err(Error::Invalid(format!(
                "budget fraction {fraction} is above 1: beyond the official number of \
                 judgments the simulated assessor has no official label to give"
            )));
        }
        if fraction.is_nan() || fraction <= 0.0 {
            return Err(Error::Invalid(format!(
                "expected budget fractions above 0 and at most 1, found {fraction}"
            )));
        }
    }
    let mut ascending = fractions.to_vec();
    ascending.sort_by(f64::total_cmp);
    if let Some(pair) = ascending.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(Error::Invalid(format!(
            "budget fraction {} is given twice",
            pair[0]
        )));
    }
    Ok(ascending)
}

/// Checks a list of judging strategies: none named twice.
///
/// # Errors
/// [`Error::Invalid`] naming the strategy given twice.
pub fn check_strategies(strategies: &[Strategy]) -> Result<Vec<Strategy>> {
    for (pos, strategy) in strategies.iter().enumerate() {
        if strategies[..pos].contains(strategy) {
            return Err(Error::Invalid(format!(
                "judging strategy {strategy} is given twice"
            )));
        }
    }
    Ok(strategies.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_fractions_are_sorted_and_checked() {
        assert_eq!(
            check_budget_fractions(&[1.0, 0.25, 0.5]).unwrap(),
            [0.25, 0.5, 1.0]
        );
        let message =
            |fractions: &[f64]| check_budget_fractions(fractions).unwrap_err().to_string();
        assert!(
            message(&[0.5, 1.5]).contains("1.5 is above 1"),
            "{}",
            message(&[1.5])
        );
        assert!(message(&[0.0]).contains("above 0"));
        assert!(message(&[-0.5]).contains("above 0"));
        assert!(message(&[f64::NAN]).contains("above 0"));
        assert!(message(&[0.5, 0.5]).contains("0.5 is given twice"));
        assert!(message(&[]).contains("at least one"));
    }

    #[test]
    fn a_strategy_is_compared_once() {
        let both = [Strategy::Depth, Strategy::Mtf];
        assert_eq!(check_strategies(&both).unwrap(), both);
        let error = check_strategies(&[Strategy::Mtf, Strategy::Depth, Strategy::Mtf]);
        assert!(error
            .unwrap_err()
            .to_string()
            .contains("mtf is given twice"));
    }
}
