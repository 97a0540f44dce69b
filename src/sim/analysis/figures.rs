//! The statistics of one measure: the official ranking against the LOU ranking of every seed,
//! every trial's ranking, the control, classic leave-out-uniques, the truth, and swapped pairs.

use std::sync::OnceLock;

use rayon::prelude::*;

use super::files::{Counts, HeldOutRow, LouRow, RankRow, RunRow, TrialRow};
use super::measure::{
    ClassicSummary, ControlSummary, LouSummary, MeasureSummary, PairedSummary, SwappedPair,
    TrialsSummary, TruthSummary,
};
use super::significance::{
    changes, changes_among, significant, ChangeSummary, Directions, DiscriminativePower,
    SignificanceBasis, SignificanceSummary,
};
use crate::sim::study::StudyOutcome;
use crate::sim::trials::TrialOutcome;
use crate::stats::pair_changes::{pair_index, PairChanges};
use crate::stats::{dominant_rank, official_ranks, swapped_pairs, RankComparison, Spread};

fn spread(values: impl IntoIterator<Item = f64>) -> Option<Spread> {
    Spread::of(&values.into_iter().collect::<Vec<_>>())
}

pub(super) fn spread_of_options(values: impl IntoIterator<Item = Option<f64>>) -> Option<Spread> {
    let values: Option<Vec<f64>> = values.into_iter().collect();
    values.and_then(|values| Spread::of(&values))
}

/// The scores of one measure, arranged for the statistics.
pub(super) struct MeasureFigures<'o> {
    pub(super) outcome: &'o StudyOutcome<'o>,
    pub(super) measure: usize,
    name: &'o str,
    pub(super) official: Vec<f64>,
    /// The seeds, in trial order.
    pub(super) seeds: Vec<u64>,
    /// lou[seed][run]
    pub(super) lou: Vec<Vec<f64>>,
    /// How the study tests significance, and the references' directions.
    pub(super) basis: &'o SignificanceBasis,
    /// The directions of every pair of runs in each trial, trial order, each tested when
    /// first asked for (a strategy's rows need only the controls').
    directions: Vec<OnceLock<Directions>>,
}

impl<'o> MeasureFigures<'o> {
    pub(super) fn new(
        outcome: &'o StudyOutcome<'o>,
        measure: usize,
        name: &'o str,
        basis: &'o SignificanceBasis,
    ) -> Self {
        let official = outcome.official.measure(measure);
        let mut seeds: Vec<u64> = outcome.trials.iter().map(|t| t.trial.seed).collect();
        seeds.dedup();
        let lou = seeds
            .iter()
            .map(|&seed| {
                outcome
                    .collection
                    .runs
                    .iter()
                    .enumerate()
                    .map(|(run, info)| {
                        let is_held_out = outcome.held_out_teams.contains(&info.team);
                        let held_out = is_held_out.then_some(info.team.as_str());
                        outcome.trial(seed, held_out).scores.summary[run][measure]
                    })
                    .collect()
            })
            .collect();
        Self {
            outcome,
            measure,
            name,
            official,
            seeds,
            lou,
            basis,
            directions: outcome.trials.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    fn compare(&self, other: &[f64]) -> RankComparison {
        RankComparison::new(&self.official, other).expect("one score per run on both sides")
    }

    /// The control trials (nothing held out).
    fn controls(&self) -> Vec<&'o TrialOutcome> {
        self.outcome
            .trials
            .iter()
            .filter(|t| t.trial.held_out.is_none())
            .collect()
    }

    pub(super) fn summary(&self, trials: &[TrialRow], held_out: &[HeldOutRow]) -> MeasureSummary {
        let controls = self.controls();
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
            lou: self.lou_summary(),
            trials: self.trials_summary(),
            control: self.control_summary(),
            classic_lou: ClassicSummary {
                tau_b: classic.tau_b,
                tau_ap: classic.tau_ap,
                max_drop: classic.max_drop,
                runs_changed: classic.runs_changed,
            },
            truth,
            assessor: self.assessor_summary(),
            paired: self.paired_summary(trials, held_out),
            significance: Some(self.significance_summary()),
            swapped_pairs: self.swapped_pairs(),
        }
    }

    /// The LOU rankings against the official one, over seeds.
    pub(super) fn lou_summary(&self) -> LouSummary {
        let lou: Vec<RankComparison> = self.lou.iter().map(|scores| self.compare(scores)).collect();
        LouSummary {
            tau_b: spread_of_options(lou.iter().map(|c| c.tau_b)),
            tau_ap: spread_of_options(lou.iter().map(|c| c.tau_ap)),
            max_drop: spread(lou.iter().map(|c| c.max_drop)),
            runs_changed: spread(lou.iter().map(|c| c.runs_changed as f64)),
        }
    }

    /// Every held-out trial's ranking against the official one.
    pub(super) fn trials_summary(&self) -> TrialsSummary {
        let held_out_trials: Vec<RankComparison> = self
            .outcome
            .trials
            .iter()
            .filter(|t| t.trial.held_out.is_some())
            .map(|t| self.compare(&t.scores.measure(self.measure)))
            .collect();
        TrialsSummary {
            tau_b: spread_of_options(held_out_trials.iter().map(|c| c.tau_b)),
            tau_ap: spread_of_options(held_out_trials.iter().map(|c| c.tau_ap)),
        }
    }

    /// The control trials against the official qrels and ranking.
    pub(super) fn control_summary(&self) -> ControlSummary {
        let controls = self.controls();
        ControlSummary {
            overlap: spread(controls.iter().map(|t| t.agreement.overlap)),
            recall: spread(controls.iter().map(|t| t.agreement.recall)),
            carried: spread(controls.iter().map(|t| t.agreement.carried as f64)),
            overlap_found: spread(controls.iter().map(|t| t.agreement.overlap_found)),
            recall_found: spread(controls.iter().map(|t| t.agreement.recall_found)),
            tau_b: spread_of_options(
                controls
                    .iter()
                    .map(|t| self.compare(&t.scores.measure(self.measure)).tau_b),
            ),
        }
    }

    /// Pairs of runs whose mean LOU order differs from the official order, each with its
    /// official comparison by the study's test (corrected over every pair of runs).
    pub(super) fn swapped_pairs(&self) -> Vec<SwappedPair> {
        let runs = self.outcome.collection.runs.len();
        let lou_mean: Vec<f64> = (0..runs)
            .map(|run| self.lou.iter().map(|s| s[run]).sum::<f64>() / self.lou.len() as f64)
            .collect();
        let pairs = swapped_pairs(&self.official, &lou_mean).expect("equal lengths");
        let official = self.basis.references[self.measure].official.as_ref();
        let tag = |run: usize| self.outcome.collection.runs[run].tag.clone();
        pairs
            .into_iter()
            .map(|(better, worse)| {
                let compared = official
                    .map(|pairs| pairs[pair_index(runs, better.min(worse), better.max(worse))]);
                SwappedPair {
                    better: tag(better),
                    worse: tag(worse),
                    official: [self.official[better], self.official[worse]],
                    lou_mean: [lou_mean[better], lou_mean[worse]],
                    p_value: compared.map(|pair| pair.p_value),
                    adjusted_p_value: compared.map(|pair| pair.adjusted_p_value),
                    significant: compared.is_some_and(|pair| pair.significant),
                }
            })
            .collect()
    }

    /// The rows of `runs.tsv` and `lou.tsv` (per run, its LOU score and rank in every seed);
    /// `ranks` are this measure's rows of `ranks.tsv`.
    pub(super) fn run_rows(&self, ranks: &[RankRow]) -> (Vec<RunRow>, Vec<LouRow>) {
        let official_ranking = official_ranks(&self.official);
        let over_trials = trials_dominant_ranks(ranks, self.official.len());
        let lou_ranks: Vec<Vec<f64>> = self.lou.iter().map(|s| official_ranks(s)).collect();
        let truth = self.outcome.truth.as_ref().map(|t| t.measure(self.measure));
        let (mut runs, mut lou) = (Vec::new(), Vec::new());
        for (run, info) in self.outcome.collection.runs.iter().enumerate() {
            let scores: Vec<f64> = self.lou.iter().map(|s| s[run]).collect();
            let ranks: Vec<f64> = lou_ranks.iter().map(|r| r[run]).collect();
            let dominant = dominant_rank(&ranks).expect("at least one seed");
            runs.push(RunRow {
                run: info.tag.clone(),
                team: info.team.clone(),
                measure: self.name.to_string(),
                official_score: self.official[run],
                official_rank: official_ranking[run],
                lou_score: Spread::of(&scores).expect("finite scores"),
                lou_rank: Spread::of(&ranks).expect("finite ranks"),
                dominant_rank: dominant.rank,
                dominant_rank_frequency: dominant.frequency,
                trials_dominant_rank: over_trials[run].0,
                trials_dominant_rank_share: over_trials[run].1,
                truth_score: truth.as_ref().map(|t| t[run]),
            });
            lou.extend(self.seeds.iter().zip(scores.iter().zip(&ranks)).map(
                |(&seed, (&score, &rank))| LouRow {
                    seed,
                    run: info.tag.clone(),
                    team: info.team.clone(),
                    measure: self.name.to_string(),
                    score,
                    rank,
                },
            ));
        }
        (runs, lou)
    }

    /// The directions of every pair of runs in trial `index`.
    pub(super) fn directions(&self, index: usize) -> &Directions {
        self.directions[index].get_or_init(|| {
            (self.basis).directions(&self.outcome.trials[index].scores, self.measure)
        })
    }

    /// The rows of `trials.tsv`, every trial tested for significance (in parallel).
    pub(super) fn trial_rows(&self) -> Vec<TrialRow> {
        (0..self.directions.len())
            .into_par_iter()
            .for_each(|index| {
                self.directions(index);
            });
        self.rows(true)
    }

    /// The rows of `trials.tsv` without the comparisons by significance (`NA`), for what
    /// needs only the rankings.
    pub(super) fn ranking_rows(&self) -> Vec<TrialRow> {
        self.rows(false)
    }

    fn rows(&self, with_significance: bool) -> Vec<TrialRow> {
        self.outcome
            .trials
            .iter()
            .enumerate()
            .map(|(index, t)| {
                let scores = t.scores.measure(self.measure);
                let comparison = self.compare(&scores);
                let paired = t.trial.held_out.is_some().then(|| {
                    let control = self.outcome.trial(t.trial.seed, None);
                    RankComparison::new(&control.scores.measure(self.measure), &scores)
                        .expect("one score per run on both sides")
                });
                let against_assessor = self.assessor_scores(t.trial.seed).map(|reference| {
                    RankComparison::new(&reference, &scores).expect("one score per run")
                });
                let pairs = if with_significance {
                    self.trial_changes(index)
                } else {
                    TrialChanges::default()
                };
                TrialRow {
                    seed: t.trial.seed,
                    held_out: t.trial.held_out.clone(),
                    measure: self.name.to_string(),
                    tau_b: comparison.tau_b,
                    tau_ap: comparison.tau_ap,
                    paired_tau_b: paired.as_ref().and_then(|p| p.tau_b),
                    paired_tau_ap: paired.as_ref().and_then(|p| p.tau_ap),
                    overlap: t.agreement.overlap,
                    recall: t.agreement.recall,
                    carried: t.agreement.carried,
                    overlap_found: t.agreement.overlap_found,
                    recall_found: t.agreement.recall_found,
                    withheld: t.withheld,
                    significant: if with_significance {
                        significant(self.directions(index))
                    } else {
                        None
                    },
                    official: Counts::of(pairs.official),
                    paired: Counts::of(pairs.paired),
                    held_out_pairs: Counts::of(pairs.held_out),
                    truth: Counts::of(pairs.truth),
                    assessor_tau_b: against_assessor.as_ref().map(|c| c.tau_b),
                    assessor_tau_ap: against_assessor.as_ref().map(|c| c.tau_ap),
                    assessor_recall: t.assessor_recall,
                    assessor: pairs.assessor.map(Counts::of),
                }
            })
            .collect()
    }

    pub(super) fn held_out_rows(&self) -> Vec<HeldOutRow> {
        let official_ranking = official_ranks(&self.official);
        let mut rows = Vec::new();
        for t in &self.outcome.trials {
            let Some(team) = &t.trial.held_out else {
                continue;
            };
            let scores = t.scores.measure(self.measure);
            let ranks = official_ranks(&scores);
            let control_scores = self
                .outcome
                .trial(t.trial.seed, None)
                .scores
                .measure(self.measure);
            let control_ranks = official_ranks(&control_scores);
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
                        control_score: control_scores[run],
                        control_rank: control_ranks[run],
                    });
                }
            }
        }
        rows
    }
}

impl MeasureFigures<'_> {
    /// The rows of `ranks.tsv`: every run's score and rank in every trial, trial order.
    pub(super) fn rank_rows(&self) -> Vec<RankRow> {
        let mut rows = Vec::new();
        for t in &self.outcome.trials {
            let scores = t.scores.measure(self.measure);
            let ranks = official_ranks(&scores);
            for (run, info) in self.outcome.collection.runs.iter().enumerate() {
                rows.push(RankRow {
                    seed: t.trial.seed,
                    held_out: t.trial.held_out.clone(),
                    run: info.tag.clone(),
                    team: info.team.clone(),
                    measure: self.name.to_string(),
                    score: scores[run],
                    rank: ranks[run],
                });
            }
        }
        rows
    }

    /// The paired figures: held-out trials against the control of their seed.
    pub(super) fn paired_summary(
        &self,
        trials: &[TrialRow],
        held_out: &[HeldOutRow],
    ) -> PairedSummary {
        let held_out_trials: Vec<&TrialRow> =
            trials.iter().filter(|t| t.held_out.is_some()).collect();
        PairedSummary {
            tau_b: spread_of_options(held_out_trials.iter().map(|t| t.paired_tau_b)),
            tau_ap: spread_of_options(held_out_trials.iter().map(|t| t.paired_tau_ap)),
            score_change: spread(held_out.iter().map(HeldOutRow::paired_score_change)),
            rank_change: spread(held_out.iter().map(HeldOutRow::paired_rank_change)),
        }
    }
}

/// One trial's significant pairs against each reference (`None` where a side is untested or
/// the reference does not apply).
#[derive(Default)]
pub(super) struct TrialChanges {
    /// Against the official qrels.
    pub(super) official: Option<PairChanges>,
    /// Against the seed's control (held-out trials only).
    pub(super) paired: Option<PairChanges>,
    /// The same over the pairs that involve a run of the held-out team.
    pub(super) held_out: Option<PairChanges>,
    /// Against the truth.
    pub(super) truth: Option<PairChanges>,
    /// Against the assessor's qrels of the seed (`None`: the official assessor).
    pub(super) assessor: Option<Option<PairChanges>>,
    /// Against the seed's control at the whole budget.
    pub(super) full: Option<PairChanges>,
}

impl MeasureFigures<'_> {
    /// The position of the control trial of `seed`.
    fn control_index(&self, seed: u64) -> usize {
        (self.outcome.trials.iter())
            .position(|t| t.trial.seed == seed && t.trial.held_out.is_none())
            .expect("every seed has a control")
    }

    /// The significant pairs of trial `index` against every reference.
    pub(super) fn trial_changes(&self, index: usize) -> TrialChanges {
        let trial = &self.outcome.trials[index].trial;
        let own = self.directions(index);
        let references = &self.basis.references[self.measure];
        let control = self.directions(self.control_index(trial.seed));
        let (paired, held_out) = match &trial.held_out {
            Some(team) => (
                changes(control, own),
                changes_among(control, own, &self.basis.held_out_pairs(team)),
            ),
            None => (None, None),
        };
        let none: Directions = None;
        TrialChanges {
            official: changes(&references.official_directions, own),
            paired,
            held_out,
            truth: changes(&references.truth, own),
            assessor: self
                .outcome
                .assessor
                .as_ref()
                .map(|_| changes(references.assessor.get(&trial.seed).unwrap_or(&none), own)),
            full: changes(references.controls.get(&trial.seed).unwrap_or(&none), own),
        }
    }

    /// The comparisons by significance of every trial.
    pub(super) fn significance_summary(&self) -> SignificanceSummary {
        let references = &self.basis.references[self.measure];
        let of_trials: Vec<(bool, TrialChanges)> = (0..self.outcome.trials.len())
            .map(|index| {
                let held_out = self.outcome.trials[index].trial.held_out.is_some();
                (held_out, self.trial_changes(index))
            })
            .collect();
        let of = |held_out: bool, pick: fn(&TrialChanges) -> Option<PairChanges>| {
            ChangeSummary::of(
                (of_trials.iter())
                    .filter(|(is_held_out, _)| *is_held_out == held_out)
                    .map(|(_, trial)| pick(trial)),
            )
        };
        let pairs = self.basis.pairs();
        let share = |directions: &Directions| {
            significant(directions).map(|count| count as f64 / pairs.max(1) as f64)
        };
        let shares = |held_out: bool| {
            spread_of_options(
                (self.outcome.trials.iter().enumerate())
                    .filter(|(_, t)| t.trial.held_out.is_some() == held_out)
                    .map(|(index, _)| share(self.directions(index))),
            )
        };
        SignificanceSummary {
            pairs,
            discriminative_power: DiscriminativePower {
                official: share(&references.official_directions),
                controls: shares(false),
                trials: shares(true),
            },
            trials: of(true, |t| t.official),
            paired: of(true, |t| t.paired),
            paired_held_out: of(true, |t| t.held_out),
            control: of(false, |t| t.official),
            official_truth: ChangeSummary::of([changes(
                &references.truth,
                &references.official_directions,
            )]),
            control_truth: of(false, |t| t.truth),
            control_assessor: of(false, |t| t.assessor.flatten()),
        }
    }
}

/// Per run (run index order), its most frequent rank over every trial and that rank's share.
fn trials_dominant_ranks(ranks: &[RankRow], runs: usize) -> Vec<(f64, f64)> {
    (0..runs)
        .map(|run| {
            let of_run: Vec<f64> = ranks
                .iter()
                .skip(run)
                .step_by(runs)
                .map(|r| r.rank)
                .collect();
            let dominant = dominant_rank(&of_run).expect("at least one trial");
            (
                dominant.rank,
                dominant.frequency as f64 / of_run.len() as f64,
            )
        })
        .collect()
}

#[cfg(test)]
#[path = "figures_tests.rs"]
mod tests;
