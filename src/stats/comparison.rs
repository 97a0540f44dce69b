//! Pairs of runs compared on one measure, over the same topics: for each pair the mean
//! difference with its t-based 95% confidence interval, an effect size, the p-value of the
//! chosen test and its value corrected over the measure's pairs.
//!
//! The resampling tests draw from streams keyed by (seed, measure, pair) — or (seed, measure,
//! block of samples) for Tukey's test over all runs — so pairs and blocks run on any number of
//! threads and give the same numbers.

use rayon::prelude::*;
use serde::Serialize;

use super::correction::Correction;
use super::paired::check_samples;
use super::resampling::{
    bootstrap_test, exact_randomization_test, tukey_p_value, tukey_ranges,
    EXACT_RANDOMIZATION_MAX_TOPICS,
};
use super::significance::{paired_t_test, randomization_test, student_t_critical_value, TTest};
use super::wilcoxon::wilcoxon_test;
use crate::base::choice::{choice_enum, Choice};
use crate::base::error::StatsError;
use crate::base::seed::parts_keyed_rng;

choice_enum! {
    /// A paired significance test.
    pub enum SignificanceTest {
        /// Student's paired t-test.
        Student = "t",
        /// Wilcoxon's signed-rank test.
        Wilcoxon = "wilcoxon",
        /// Fisher's randomization test by sign flips (every flip with 10 topics or fewer).
        Randomization = "randomization",
        /// The paired bootstrap test of the mean difference.
        Bootstrap = "bootstrap",
        /// The randomised Tukey HSD test over all runs at once, its own correction.
        Tukey = "tukey",
    }
}

/// Significance is judged on the two tails of a 95% interval for the confidence intervals.
const CONFIDENCE_TAIL: f64 = 0.05;

/// Samples of Tukey's test drawn from one random stream: the unit of its parallel work.
const TUKEY_BLOCK: usize = 1_000;

/// How pairs are tested.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct TestSettings {
    /// The test.
    pub test: SignificanceTest,
    /// The correction over one measure's pairs.
    pub correction: Correction,
    /// A pair differs significantly when its corrected p-value is below this.
    pub alpha: f64,
    /// Random samples of the randomization, bootstrap and Tukey tests.
    pub permutations: usize,
    /// The seed of their random streams.
    pub seed: u64,
}

/// A test and the correction of its p-values, spelled `TEST[,CORRECTION]` (`t,holm`; a test
/// alone is uncorrected). Tukey's test is its own correction and takes none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TestChoice {
    /// The test.
    pub test: SignificanceTest,
    /// The correction over one measure's pairs.
    pub correction: Correction,
}

impl TestChoice {
    /// Reads `TEST[,CORRECTION]`.
    ///
    /// # Errors
    /// What was expected, when a name is unknown or Tukey's test is given a correction.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (test, correction) = text.split_once(',').unwrap_or((text, "none"));
        let expected = || {
            format!(
                "expected TEST[,CORRECTION] with TEST one of {} and CORRECTION one of {}, \
                 found {text:?}",
                names::<SignificanceTest>(),
                names::<Correction>()
            )
        };
        let test = SignificanceTest::from_name(test.trim()).ok_or_else(expected)?;
        let correction = Correction::from_name(correction.trim()).ok_or_else(expected)?;
        if test == SignificanceTest::Tukey && correction != Correction::None {
            return Err(format!(
                "the tukey test corrects for all pairs itself; expected no correction, found \
                 {correction}"
            ));
        }
        Ok(Self { test, correction })
    }
}

/// The names of every variant of `C`, comma-separated.
fn names<C: Choice>() -> String {
    (C::ALL.iter())
        .map(|c| c.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl std::fmt::Display for TestChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{}", self.test, self.correction)
    }
}

impl Serialize for TestChoice {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for TestChoice {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// One measure's scores of the runs compared: `scores[run][topic]`, the same topics for
/// every run, the runs named by `runs`.
#[derive(Debug, Clone, Copy)]
pub struct MeasureScores<'a> {
    /// The measure's name (part of the random streams' keys).
    pub measure: &'a str,
    /// The runs' names, in the order of `scores` (part of the keys).
    pub runs: &'a [String],
    /// Per run, per topic.
    pub scores: &'a [Vec<f64>],
}

/// Two runs compared on one measure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairComparison {
    /// The first run's position among the runs.
    pub first: usize,
    /// The second run's position (the baseline, when comparing with one).
    pub second: usize,
    /// The mean of the differences first − second over the topics.
    pub mean_difference: f64,
    /// The 95% confidence interval of the mean difference, from Student's t.
    pub confidence_interval: [f64; 2],
    /// The mean difference over the standard deviation of the differences; `None` when the
    /// differences do not vary.
    pub effect_size: Option<f64>,
    /// The test's p-value.
    pub p_value: f64,
    /// The p-value corrected over the measure's pairs.
    pub adjusted_p_value: f64,
    /// Whether the adjusted p-value is below the significance level.
    pub significant: bool,
}

/// Compares the `pairs` (positions in `scores.runs`) with the test of `settings`, corrected
/// over these pairs. Runs on the current rayon pool.
///
/// # Errors
/// Fewer than 2 topics, runs with different numbers of topics, a score that is not finite, or
/// zero samples for a resampling test.
pub fn compare_pairs(
    scores: MeasureScores,
    pairs: &[(usize, usize)],
    settings: &TestSettings,
) -> Result<Vec<PairComparison>, StatsError> {
    let topics = scores.scores.first().map_or(0, Vec::len);
    PairTest::new(settings, topics)?.compare(scores, pairs)
}

/// The test of `settings` over a given number of topics, ready to compare many sets of scores
/// alike: the confidence intervals' critical value is found once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairTest {
    settings: TestSettings,
    topics: usize,
    critical: f64,
}

impl PairTest {
    /// The test of `settings` over `topics` topics.
    ///
    /// # Errors
    /// Fewer than 2 topics.
    pub fn new(settings: &TestSettings, topics: usize) -> Result<Self, StatsError> {
        if topics < 2 {
            return Err(StatsError::TooFewValues {
                required: 2,
                found: topics,
            });
        }
        Ok(Self {
            settings: *settings,
            topics,
            critical: student_t_critical_value(CONFIDENCE_TAIL, (topics - 1) as f64),
        })
    }

    /// The number of topics the test compares runs over.
    pub fn topics(&self) -> usize {
        self.topics
    }

    /// Compares the `pairs` (positions in `scores.runs`), corrected over these pairs, as
    /// [`compare_pairs`] does. Runs on the current rayon pool.
    ///
    /// # Errors
    /// Runs with another number of topics than the test's, a score that is not finite, or zero
    /// samples for a resampling test.
    pub fn compare(
        &self,
        scores: MeasureScores,
        pairs: &[(usize, usize)],
    ) -> Result<Vec<PairComparison>, StatsError> {
        let (settings, topics) = (&self.settings, self.topics);
        let found = scores.scores.first().map_or(0, Vec::len);
        if found != topics {
            return Err(StatsError::LengthMismatch {
                left: topics,
                right: found,
            });
        }
        let sorted_ranges = match settings.test {
            SignificanceTest::Tukey => Some(sorted_tukey_ranges(scores, settings)?),
            _ => None,
        };
        let largest_score = (scores.scores.iter().flatten())
            .fold(0.0f64, |largest, score| largest.max(score.abs()));
        let mut compared = (pairs.par_iter())
            .map(|&(first, second)| {
                let (a, b) = (&scores.scores[first], &scores.scores[second]);
                let t_test = paired_t_test(a, b)?;
                let mut comparison = describe_pair(first, second, &t_test, topics, self.critical);
                comparison.p_value = match &sorted_ranges {
                    Some(ranges) => {
                        tukey_p_value(ranges, comparison.mean_difference, largest_score)
                    }
                    None => pair_p_value(scores, first, second, settings, &t_test)?,
                };
                Ok(comparison)
            })
            .collect::<Result<Vec<_>, StatsError>>()?;
        let p_values: Vec<f64> = compared.iter().map(|pair| pair.p_value).collect();
        for (pair, adjusted) in compared
            .iter_mut()
            .zip(settings.correction.adjust(&p_values))
        {
            pair.adjusted_p_value = adjusted;
            pair.significant = adjusted < settings.alpha;
        }
        Ok(compared)
    }
}

/// The pair's differences described by their t-test over `topics` topics: mean, confidence
/// interval and effect size (the p-values left at 1 until tested).
fn describe_pair(
    first: usize,
    second: usize,
    t_test: &TTest,
    topics: usize,
    critical: f64,
) -> PairComparison {
    let TTest {
        mean_difference,
        standard_deviation,
        ..
    } = *t_test;
    let varies = standard_deviation > 0.0;
    let half_width = critical * standard_deviation / (topics as f64).sqrt();
    PairComparison {
        first,
        second,
        mean_difference,
        confidence_interval: [mean_difference - half_width, mean_difference + half_width],
        effect_size: varies.then(|| mean_difference / standard_deviation),
        p_value: 1.0,
        adjusted_p_value: 1.0,
        significant: false,
    }
}

/// The p-value of one pair by a test of two runs (`t_test`: the pair's t-test, already made).
fn pair_p_value(
    scores: MeasureScores,
    first: usize,
    second: usize,
    settings: &TestSettings,
    t_test: &TTest,
) -> Result<f64, StatsError> {
    let (a, b) = (&scores.scores[first], &scores.scores[second]);
    let key = [scores.measure, &scores.runs[first], &scores.runs[second]];
    match settings.test {
        SignificanceTest::Student => Ok(t_test.p_value),
        SignificanceTest::Wilcoxon => wilcoxon_test(a, b),
        SignificanceTest::Randomization if a.len() <= EXACT_RANDOMIZATION_MAX_TOPICS => {
            exact_randomization_test(a, b)
        }
        SignificanceTest::Randomization => {
            let mut rng = parts_keyed_rng(settings.seed, &key);
            randomization_test(a, b, settings.permutations, &mut rng)
        }
        SignificanceTest::Bootstrap => {
            let mut rng = parts_keyed_rng(settings.seed, &key);
            bootstrap_test(a, b, settings.permutations, &mut rng)
        }
        SignificanceTest::Tukey => unreachable!("Tukey's test is over all runs at once"),
    }
}

/// Tukey's sampled ranges, in blocks drawn from their own streams, sorted ascending.
fn sorted_tukey_ranges(
    scores: MeasureScores,
    settings: &TestSettings,
) -> Result<Vec<f64>, StatsError> {
    check_samples(settings.permutations)?;
    let blocks = settings.permutations.div_ceil(TUKEY_BLOCK);
    let mut ranges: Vec<f64> = (0..blocks)
        .into_par_iter()
        .map(|block| {
            let samples = TUKEY_BLOCK.min(settings.permutations - block * TUKEY_BLOCK);
            let block_name = block.to_string();
            let mut rng = parts_keyed_rng(settings.seed, &[scores.measure, "tukey", &block_name]);
            tukey_ranges(scores.scores, samples, &mut rng)
        })
        .collect::<Result<Vec<_>, StatsError>>()?
        .concat();
    ranges.sort_by(f64::total_cmp);
    Ok(ranges)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::choice::Choice;
    use approx::assert_relative_eq;

    fn settings(test: SignificanceTest, correction: Correction) -> TestSettings {
        TestSettings {
            test,
            correction,
            alpha: 0.05,
            permutations: 2_000,
            seed: 1,
        }
    }

    const RUNS: [&str; 3] = ["a", "b", "c"];

    fn names() -> Vec<String> {
        RUNS.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn identical_runs_have_p_one_and_no_effect_size() {
        let scores = vec![
            vec![0.2, 0.4, 0.6, 0.1],
            vec![0.2, 0.4, 0.6, 0.1],
            vec![0.3; 4],
        ];
        let runs = names();
        let measure = MeasureScores {
            measure: "map",
            runs: &runs,
            scores: &scores,
        };
        for &test in SignificanceTest::ALL {
            let compared =
                compare_pairs(measure, &[(0, 1)], &settings(test, Correction::None)).unwrap();
            let pair = compared[0];
            assert_eq!(pair.p_value, 1.0, "{test}");
            assert_eq!(pair.effect_size, None);
            assert_eq!(pair.confidence_interval, [0.0, 0.0]);
            assert!(!pair.significant);
        }
    }

    #[test]
    fn mean_interval_and_effect_size_match_scipy() {
        // RUN_A and RUN_B of significance.rs: scipy 1.17.1 ttest_rel(a, b)
        // .confidence_interval() = (0.005047944072513133, 0.08445205592748688).
        let a = vec![
            0.488, 0.984, 0.146, 1.0, 0.366, 0.444, 0.8, 0.433, 0.601, 0.05, 0.933, 0.689,
        ];
        let b = vec![
            0.512, 0.95, 0.144, 0.949, 0.312, 0.423, 0.828, 0.409, 0.55, 0.028, 0.754, 0.538,
        ];
        let scores = vec![a, b];
        let runs = names()[..2].to_vec();
        let measure = MeasureScores {
            measure: "map",
            runs: &runs,
            scores: &scores,
        };
        let test = settings(SignificanceTest::Student, Correction::Bonferroni);
        let pair = compare_pairs(measure, &[(0, 1)], &test).unwrap()[0];
        assert_relative_eq!(pair.p_value, 0.030528633781855184, max_relative = 1e-10);
        assert_relative_eq!(
            pair.confidence_interval[0],
            0.005047944072513133,
            max_relative = 1e-9
        );
        assert_relative_eq!(
            pair.confidence_interval[1],
            0.08445205592748688,
            max_relative = 1e-9
        );
        // d̄ / s_d = t / √n.
        let effect = 2.480830869161881 / 12f64.sqrt();
        assert_relative_eq!(pair.effect_size.unwrap(), effect, max_relative = 1e-12);
        assert!(pair.significant);
    }

    #[test]
    fn a_pair_test_is_made_for_its_number_of_topics() {
        let test = settings(SignificanceTest::Student, Correction::None);
        assert_eq!(
            PairTest::new(&test, 1),
            Err(StatsError::TooFewValues {
                required: 2,
                found: 1
            })
        );
        let scores = vec![vec![0.1, 0.5, 0.3], vec![0.2, 0.4, 0.1]];
        let runs = names()[..2].to_vec();
        let measure = MeasureScores {
            measure: "map",
            runs: &runs,
            scores: &scores,
        };
        let pair_test = PairTest::new(&test, 4).unwrap();
        assert_eq!(
            pair_test.compare(measure, &[(0, 1)]),
            Err(StatsError::LengthMismatch { left: 4, right: 3 })
        );
        let on_three = PairTest::new(&test, 3).unwrap().compare(measure, &[(0, 1)]);
        assert_eq!(on_three, compare_pairs(measure, &[(0, 1)], &test));
    }

    #[test]
    fn tests_resample_the_same_numbers_on_any_number_of_threads() {
        let scores: Vec<Vec<f64>> = (0..4)
            .map(|run| {
                (0..25)
                    .map(|topic| f64::from((topic * 7 + run * 3) % 11) / 10.0)
                    .collect()
            })
            .collect();
        let runs: Vec<String> = (0..4).map(|run| format!("run{run}")).collect();
        let measure = MeasureScores {
            measure: "P_10",
            runs: &runs,
            scores: &scores,
        };
        let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
        for test in [
            SignificanceTest::Randomization,
            SignificanceTest::Bootstrap,
            SignificanceTest::Tukey,
        ] {
            let test = settings(test, Correction::Holm);
            let on = |threads| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| compare_pairs(measure, &pairs, &test).unwrap())
            };
            assert_eq!(on(1), on(3));
        }
    }
}
