//! The statistics of a study (DESIGN section 5), computed from its scores: the official
//! ranking, the leave-out-uniques (LOU) ranking per seed, each trial's ranking, the control's
//! agreement with the official qrels, classic leave-out-uniques, swapped pairs with their
//! significance, and every ranking against the truth when there is one.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::sim::scoring::ScoreTable;
use crate::sim::study::StudyOutcome;
use crate::stats::{
    dominant_rank, official_ranks, paired_t_test, randomization_test, swapped_pairs,
    RankComparison, Spread, DEFAULT_RANDOMIZATION_PERMUTATIONS,
};

/// The seed of the randomization tests' sign flips (fixed, so reports are reproducible).
pub const RANDOMIZATION_SEED: u64 = 2021;

/// Settings as reported, with every departure from HiCAL named.
#[derive(Debug, Clone, Serialize)]
pub struct SettingsSummary {
    /// Seeds 1..=seeds.
    pub seeds: u64,
    /// The measures, canonical names.
    pub measures: Vec<String>,
    /// The teams held out.
    pub held_out_teams: Vec<String>,
    /// `text` or `runs`.
    pub features: String,
    /// The judge's settings.
    pub judge: crate::judge::cal::JudgeSettings,
    /// A fixed per-topic budget, if one replaced the official counts.
    pub budget: Option<usize>,
    /// The relevance level.
    pub relevance_level: i32,
    /// Every way the simulation departs from HiCAL as TREC DL ran it.
    pub deviations: Vec<String>,
}

/// Work done.
#[derive(Debug, Clone, Serialize)]
pub struct SimulationCounts {
    /// Trials (controls included).
    pub trials: usize,
    /// (trial, topic) units.
    pub units: usize,
    /// Distinct units judged (identical ones shared).
    pub distinct_units: usize,
    /// Model fits.
    pub retrains: usize,
    /// Units whose pool alone exceeded the budget (the whole pool was kept).
    pub pools_over_budget: usize,
}

/// The LOU ranking (each run on its own team's held-out qrels) against the official one.
#[derive(Debug, Clone, Serialize)]
pub struct LouSummary {
    /// Kendall's tau_b over seeds.
    pub tau_b: Option<Spread>,
    /// tau_ap over seeds.
    pub tau_ap: Option<Spread>,
    /// The largest rank drop over seeds.
    pub max_drop: Option<Spread>,
    /// Runs whose rank changed, over seeds.
    pub runs_changed: Option<Spread>,
}

/// Every trial's ranking of all runs against the official one.
#[derive(Debug, Clone, Serialize)]
pub struct TrialsSummary {
    /// tau_b over all leave-team-out trials.
    pub tau_b: Option<Spread>,
    /// tau_ap over all leave-team-out trials.
    pub tau_ap: Option<Spread>,
}

/// The control trials (nothing held out) against the official qrels.
#[derive(Debug, Clone, Serialize)]
pub struct ControlSummary {
    /// The fraction of official judgments the control qrels hold.
    pub overlap: Option<Spread>,
    /// The fraction of officially relevant documents found.
    pub recall: Option<Spread>,
    /// tau_b of the run ranking on the control qrels against the official ranking.
    pub tau_b: Option<Spread>,
}

/// Classic leave-out-uniques on the official qrels.
#[derive(Debug, Clone, Serialize)]
pub struct ClassicSummary {
    /// tau_b against the official ranking.
    pub tau_b: Option<f64>,
    /// tau_ap against the official ranking.
    pub tau_ap: Option<f64>,
    /// The largest rank drop.
    pub max_drop: f64,
    /// Runs whose rank changed.
    pub runs_changed: usize,
}

/// Rankings against the complete truth (synthetic tasks).
#[derive(Debug, Clone, Serialize)]
pub struct TruthSummary {
    /// The official ranking's tau_b against the truth ranking.
    pub official_tau_b: Option<f64>,
    /// The official ranking's tau_ap against the truth ranking.
    pub official_tau_ap: Option<f64>,
    /// The LOU rankings' tau_b against the truth, over seeds.
    pub lou_tau_b: Option<Spread>,
    /// The control rankings' tau_b against the truth, over seeds.
    pub control_tau_b: Option<Spread>,
    /// Every held-out trial's ranking of all runs against the truth.
    pub trials_tau_b: Option<Spread>,
    /// Classic LOU's tau_b against the truth.
    pub classic_lou_tau_b: Option<f64>,
}

/// Two runs whose order under the mean LOU scores differs from the official order.
#[derive(Debug, Clone, Serialize)]
pub struct SwappedPair {
    /// The officially better run.
    pub better: String,
    /// The officially worse run.
    pub worse: String,
    /// Official scores.
    pub official: [f64; 2],
    /// Mean LOU scores over seeds.
    pub lou_mean: [f64; 2],
    /// The paired t-test p-value of the official per-topic difference (two-sided).
    pub t_test_p: Option<f64>,
    /// The sign-flip randomization test p-value (10,000 permutations, fixed seed).
    pub randomization_p: Option<f64>,
    /// Topics both runs were scored on.
    pub topics: usize,
}

/// All statistics for one measure.
#[derive(Debug, Clone, Serialize)]
pub struct MeasureSummary {
    /// LOU ranking figures.
    pub lou: LouSummary,
    /// Per-trial ranking figures.
    pub trials: TrialsSummary,
    /// Control figures.
    pub control: ControlSummary,
    /// Classic leave-out-uniques figures.
    pub classic_lou: ClassicSummary,
    /// Truth figures, on tasks with a truth file.
    pub truth: Option<TruthSummary>,
    /// Swapped pairs with significance tests.
    pub swapped_pairs: Vec<SwappedPair>,
}

/// One run's figures for one measure (a row of runs.tsv).
#[derive(Debug, Clone, Serialize)]
pub struct RunRow {
    /// Run tag.
    pub run: String,
    /// Team.
    pub team: String,
    /// Measure name.
    pub measure: String,
    /// Official score.
    pub official_score: f64,
    /// Official rank (average for ties).
    pub official_rank: f64,
    /// LOU score over seeds.
    pub lou_score: Spread,
    /// LOU rank over seeds.
    pub lou_rank: Spread,
    /// The most frequent LOU rank and how many seeds gave it.
    pub dominant_rank: f64,
    /// How many seeds gave the dominant rank.
    pub dominant_rank_frequency: usize,
    /// Per seed: LOU score and rank (seed order).
    pub lou_by_seed: Vec<(f64, f64)>,
    /// Truth score, when the task has one.
    pub truth_score: Option<f64>,
}

/// One trial's figures for one measure (a row of trials.tsv).
#[derive(Debug, Clone, Serialize)]
pub struct TrialRow {
    /// Seed.
    pub seed: u64,
    /// The held-out team, `None` for the control.
    pub held_out: Option<String>,
    /// Measure name.
    pub measure: String,
    /// tau_b against official.
    pub tau_b: Option<f64>,
    /// tau_ap against official.
    pub tau_ap: Option<f64>,
    /// Overlap with the official qrels.
    pub overlap: f64,
    /// Recall of officially relevant documents.
    pub recall: f64,
}

/// One held-out run in one trial (a row of heldout.tsv).
#[derive(Debug, Clone, Serialize)]
pub struct HeldOutRow {
    /// Seed.
    pub seed: u64,
    /// The held-out team.
    pub team: String,
    /// Run tag.
    pub run: String,
    /// Measure name.
    pub measure: String,
    /// Score on the trial's qrels.
    pub score: f64,
    /// Rank among all runs on the trial's qrels.
    pub rank: f64,
    /// Official score.
    pub official_score: f64,
    /// Official rank.
    pub official_rank: f64,
}

/// The whole report of a study.
#[derive(Debug, Clone, Serialize)]
pub struct StudySummary {
    /// Task name.
    pub task: String,
    /// Settings and deviations.
    pub settings: SettingsSummary,
    /// Per measure (canonical name).
    pub measures: BTreeMap<String, MeasureSummary>,
    /// Work done.
    pub simulations: SimulationCounts,
    /// Wall time of the study.
    pub elapsed_seconds: f64,
    /// Rows of runs.tsv.
    #[serde(skip)]
    pub runs: Vec<RunRow>,
    /// Rows of trials.tsv.
    #[serde(skip)]
    pub trials: Vec<TrialRow>,
    /// Rows of heldout.tsv.
    #[serde(skip)]
    pub held_out: Vec<HeldOutRow>,
}

fn spread(values: impl IntoIterator<Item = f64>) -> Option<Spread> {
    Spread::of(&values.into_iter().collect::<Vec<_>>())
}

fn spread_of_options(values: impl IntoIterator<Item = Option<f64>>) -> Option<Spread> {
    let values: Option<Vec<f64>> = values.into_iter().collect();
    values.and_then(|values| Spread::of(&values))
}

impl StudySummary {
    /// Computes every statistic of `outcome`.
    pub fn new(
        task_name: &str,
        settings: SettingsSummary,
        outcome: &StudyOutcome,
        elapsed_seconds: f64,
    ) -> Self {
        let mut measures = BTreeMap::new();
        let (mut runs, mut trials, mut held_out) = (Vec::new(), Vec::new(), Vec::new());
        for (index, name) in settings.measures.iter().enumerate() {
            let figures = MeasureFigures::new(outcome, index, name);
            measures.insert(name.clone(), figures.summary());
            runs.extend(figures.run_rows());
            trials.extend(figures.trial_rows());
            held_out.extend(figures.held_out_rows());
        }
        Self {
            task: task_name.to_string(),
            settings,
            measures,
            simulations: SimulationCounts {
                trials: outcome.trials.len(),
                units: outcome.units,
                distinct_units: outcome.distinct_units,
                retrains: outcome.retrains,
                pools_over_budget: outcome.pools_over_budget,
            },
            elapsed_seconds,
            runs,
            trials,
            held_out,
        }
    }
}

/// The scores of one measure, arranged for the statistics.
struct MeasureFigures<'o> {
    outcome: &'o StudyOutcome,
    measure: usize,
    name: &'o str,
    official: Vec<f64>,
    /// lou[seed][run]
    lou: Vec<Vec<f64>>,
}

impl<'o> MeasureFigures<'o> {
    fn new(outcome: &'o StudyOutcome, measure: usize, name: &'o str) -> Self {
        let official = outcome.official.measure(measure);
        let mut seeds: Vec<u64> = outcome.trials.iter().map(|t| t.trial.seed).collect();
        seeds.dedup();
        let lou = seeds
            .iter()
            .map(|&seed| {
                let of_seed = |held_out: Option<&str>| {
                    outcome
                        .trials
                        .iter()
                        .find(|t| t.trial.seed == seed && t.trial.held_out.as_deref() == held_out)
                        .expect("every seed has a control and a trial per held-out team")
                };
                let control = of_seed(None);
                outcome
                    .collection
                    .runs
                    .iter()
                    .enumerate()
                    .map(|(run, info)| {
                        let is_held_out = outcome.held_out_teams.contains(&info.team);
                        let trial = if is_held_out {
                            of_seed(Some(&info.team))
                        } else {
                            control
                        };
                        trial.scores.summary[run][measure]
                    })
                    .collect()
            })
            .collect();
        Self {
            outcome,
            measure,
            name,
            official,
            lou,
        }
    }

    fn compare(&self, other: &[f64]) -> RankComparison {
        RankComparison::new(&self.official, other).expect("one score per run on both sides")
    }

    fn summary(&self) -> MeasureSummary {
        let lou: Vec<RankComparison> = self.lou.iter().map(|scores| self.compare(scores)).collect();
        let held_out_trials: Vec<RankComparison> = self
            .outcome
            .trials
            .iter()
            .filter(|t| t.trial.held_out.is_some())
            .map(|t| self.compare(&t.scores.measure(self.measure)))
            .collect();
        let controls: Vec<_> = self
            .outcome
            .trials
            .iter()
            .filter(|t| t.trial.held_out.is_none())
            .collect();
        let classic = self.compare(&self.outcome.classic_lou.measure(self.measure));
        let truth = self.outcome.truth.as_ref().map(|truth| {
            let truth_scores = truth.measure(self.measure);
            let against_truth = |scores: &[f64]| crate::stats::tau_b(&truth_scores, scores).ok();
            TruthSummary {
                official_tau_b: against_truth(&self.official),
                official_tau_ap: crate::stats::tau_ap(&truth_scores, &self.official).ok(),
                lou_tau_b: spread_of_options(self.lou.iter().map(|s| against_truth(s))),
                control_tau_b: spread_of_options(
                    controls
                        .iter()
                        .map(|t| against_truth(&t.scores.measure(self.measure))),
                ),
                trials_tau_b: spread_of_options(
                    self.outcome
                        .trials
                        .iter()
                        .filter(|t| t.trial.held_out.is_some())
                        .map(|t| against_truth(&t.scores.measure(self.measure))),
                ),
                classic_lou_tau_b: against_truth(&self.outcome.classic_lou.measure(self.measure)),
            }
        });
        MeasureSummary {
            lou: LouSummary {
                tau_b: spread_of_options(lou.iter().map(|c| c.tau_b)),
                tau_ap: spread_of_options(lou.iter().map(|c| c.tau_ap)),
                max_drop: spread(lou.iter().map(|c| c.max_drop)),
                runs_changed: spread(lou.iter().map(|c| c.runs_changed as f64)),
            },
            trials: TrialsSummary {
                tau_b: spread_of_options(held_out_trials.iter().map(|c| c.tau_b)),
                tau_ap: spread_of_options(held_out_trials.iter().map(|c| c.tau_ap)),
            },
            control: ControlSummary {
                overlap: spread(controls.iter().map(|t| t.overlap)),
                recall: spread(controls.iter().map(|t| t.recall)),
                tau_b: spread_of_options(
                    controls
                        .iter()
                        .map(|t| self.compare(&t.scores.measure(self.measure)).tau_b),
                ),
            },
            classic_lou: ClassicSummary {
                tau_b: classic.tau_b,
                tau_ap: classic.tau_ap,
                max_drop: classic.max_drop,
                runs_changed: classic.runs_changed,
            },
            truth,
            swapped_pairs: self.swapped_pairs(),
        }
    }

    fn swapped_pairs(&self) -> Vec<SwappedPair> {
        let runs = self.outcome.collection.runs.len();
        let lou_mean: Vec<f64> = (0..runs)
            .map(|run| self.lou.iter().map(|s| s[run]).sum::<f64>() / self.lou.len() as f64)
            .collect();
        let pairs = swapped_pairs(&self.official, &lou_mean).expect("equal lengths");
        pairs
            .into_iter()
            .map(|(better, worse)| {
                let (a, b) =
                    paired_topic_scores(&self.outcome.official, better, worse, self.measure);
                let mut rng = ChaCha8Rng::seed_from_u64(RANDOMIZATION_SEED);
                let tag = |run: usize| self.outcome.collection.runs[run].tag.clone();
                SwappedPair {
                    better: tag(better),
                    worse: tag(worse),
                    official: [self.official[better], self.official[worse]],
                    lou_mean: [lou_mean[better], lou_mean[worse]],
                    t_test_p: paired_t_test(&a, &b).ok().map(|t| t.p_value),
                    randomization_p: randomization_test(
                        &a,
                        &b,
                        DEFAULT_RANDOMIZATION_PERMUTATIONS,
                        &mut rng,
                    )
                    .ok(),
                    topics: a.len(),
                }
            })
            .collect()
    }

    fn run_rows(&self) -> Vec<RunRow> {
        let official_ranking = official_ranks(&self.official);
        let lou_ranks: Vec<Vec<f64>> = self.lou.iter().map(|s| official_ranks(s)).collect();
        let truth = self.outcome.truth.as_ref().map(|t| t.measure(self.measure));
        self.outcome
            .collection
            .runs
            .iter()
            .enumerate()
            .map(|(run, info)| {
                let scores: Vec<f64> = self.lou.iter().map(|s| s[run]).collect();
                let ranks: Vec<f64> = lou_ranks.iter().map(|r| r[run]).collect();
                let dominant = dominant_rank(&ranks).expect("at least one seed");
                RunRow {
                    run: info.tag.clone(),
                    team: info.team.clone(),
                    measure: self.name.to_string(),
                    official_score: self.official[run],
                    official_rank: official_ranking[run],
                    lou_score: Spread::of(&scores).expect("finite scores"),
                    lou_rank: Spread::of(&ranks).expect("finite ranks"),
                    dominant_rank: dominant.rank,
                    dominant_rank_frequency: dominant.frequency,
                    lou_by_seed: scores.into_iter().zip(ranks).collect(),
                    truth_score: truth.as_ref().map(|t| t[run]),
                }
            })
            .collect()
    }

    fn trial_rows(&self) -> Vec<TrialRow> {
        self.outcome
            .trials
            .iter()
            .map(|t| {
                let comparison = self.compare(&t.scores.measure(self.measure));
                TrialRow {
                    seed: t.trial.seed,
                    held_out: t.trial.held_out.clone(),
                    measure: self.name.to_string(),
                    tau_b: comparison.tau_b,
                    tau_ap: comparison.tau_ap,
                    overlap: t.overlap,
                    recall: t.recall,
                }
            })
            .collect()
    }

    fn held_out_rows(&self) -> Vec<HeldOutRow> {
        let official_ranking = official_ranks(&self.official);
        let mut rows = Vec::new();
        for t in &self.outcome.trials {
            let Some(team) = &t.trial.held_out else {
                continue;
            };
            let scores = t.scores.measure(self.measure);
            let ranks = official_ranks(&scores);
            for (run, info) in self.outcome.collection.runs.iter().enumerate() {
                if &info.team == team {
                    rows.push(HeldOutRow {
                        seed: t.trial.seed,
                        team: team.clone(),
                        run: info.tag.clone(),
                        measure: self.name.to_string(),
                        score: scores[run],
                        rank: ranks[run],
                        official_score: self.official[run],
                        official_rank: official_ranking[run],
                    });
                }
            }
        }
        rows
    }
}

/// Per-topic official scores of two runs over the topics both were scored on.
fn paired_topic_scores(
    table: &ScoreTable,
    first: usize,
    second: usize,
    measure: usize,
) -> (Vec<f64>, Vec<f64>) {
    table.per_topic[first]
        .iter()
        .zip(&table.per_topic[second])
        .filter_map(|(a, b)| Some((a.as_ref()?[measure], b.as_ref()?[measure])))
        .unzip()
}

/// Every way the given settings depart from HiCAL as TREC Deep Learning ran it (text features,
/// the whole corpus as candidates, 200,000 Pegasos iterations, BMI batches, official budgets).
pub fn deviations(
    judge: &crate::judge::cal::JudgeSettings,
    use_text: bool,
    budget: Option<usize>,
) -> Vec<String> {
    use crate::judge::cal::LearnerChoice;
    use crate::collection::CandidateSource;
    let mut deviations = Vec::new();
    if !use_text {
        deviations.push(
            "run features (1/(60+rank) per run plus the fraction of runs) instead of HiCAL's \
             text features: the task has no corpus"
                .to_string(),
        );
    }
    if judge.candidates == CandidateSource::Retrieved {
        deviations.push(
            "candidates are the documents the runs retrieved, not the whole corpus; official \
             judgments of documents no run retrieved are carried over unchanged"
                .to_string(),
        );
    }
    if judge.learner == LearnerChoice::Logistic {
        deviations.push("logistic regression (linfa) instead of HiCAL's Pegasos".to_string());
    } else if judge.iterations != crate::judge::pegasos::DEFAULT_ITERATIONS {
        deviations.push(format!(
            "{} Pegasos iterations per retrain instead of HiCAL's {}",
            judge.iterations,
            crate::judge::pegasos::DEFAULT_ITERATIONS
        ));
    }
    if let Some(budget) = budget {
        deviations.push(format!(
            "a fixed budget of {budget} judgments per topic instead of the official counts"
        ));
    }
    deviations
}
