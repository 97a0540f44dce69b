//! The backtest's figures over all audited runs, per measure: each estimator's error against
//! the true score, the verdict's confusion against rank moves, the intervals' coverage, the
//! list's size and the error left after judging it; and the judge model's reliability.

use serde::Serialize;

use super::claims_summary::{claims_summary, MeasureClaims};
pub use super::confusion::Confusion;
use super::outcome::{BacktestOutcome, BacktestRow, ProbabilityOutcome};
use crate::audit::AuditRules;

/// The risk thresholds the summary also scores the verdict at, to choose the default by.
pub const THRESHOLD_SWEEP: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/// The upper ends of the reliability table's probability bins.
pub const PROBABILITY_BINS: [f64; 8] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0];

/// The upper ends of the reliability table's rank bins.
pub const RANK_BINS: [usize; 4] = [10, 20, 50, 100];

/// The upper ends of the rank bands of the table of documents the truth judged.
pub const JUDGED_RANK_BANDS: [usize; 3] = [10, 30, 100];

/// One estimator's error against the true score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EstimatorError {
    /// `collection` (the score the collection gives), `expected` (the audit's), `webber_park`,
    /// `anti_precision`, `condensed` (condensed-list scoring), `rbp_residual_midpoint` (the
    /// middle of RBP's residual interval), or with labels `labels_filled` (naive filling) and
    /// `labels_table` (the grade table's filling).
    pub estimator: String,
    /// Mean absolute error.
    pub mae: f64,
    /// Mean signed error (estimate − truth).
    pub mean_signed_error: f64,
}

/// The verdict scored at one threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThresholdScore {
    /// The risk threshold.
    pub threshold: f64,
    /// Against "the rank moves by >= 2".
    pub moves_2: Confusion,
    /// Among runs whose rank does not move (by >= 1), the share not at risk.
    pub quiet_when_rank_stays: Option<f64>,
}

/// One measure's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasureSummary {
    /// The measure.
    pub measure: String,
    /// Audited runs.
    pub runs: usize,
    /// Runs whose rank moves by >= 1 between the collection and the truth.
    pub runs_rank_moves_1: usize,
    /// By >= 2.
    pub runs_rank_moves_2: usize,
    /// Each estimator's error.
    pub errors: Vec<EstimatorError>,
    /// The verdict (this measure at risk) against "the rank moves by >= 1".
    pub verdict_moves_1: Confusion,
    /// Against ">= 2".
    pub verdict_moves_2: Confusion,
    /// Among runs whose rank does not move by >= 1, the share told "no extra judgments
    /// needed" (no measure at risk).
    pub no_judgments_when_rank_stays: Option<f64>,
    /// The verdict at other thresholds.
    pub threshold_sweep: Vec<ThresholdScore>,
    /// The share of runs whose true score lies between the collection's score and the upper
    /// end.
    pub interval_coverage: f64,
    /// The share of runs whose true score lies in the 90% sample range.
    pub sample_coverage: f64,
    /// The mean width of the 90% sample range.
    pub sample_range_width: f64,
    /// The share of runs whose true score lies in RBP's residual interval (RBP only).
    pub residual_interval_coverage: Option<f64>,
    /// The mean width of RBP's residual interval: the mean residual (RBP only).
    pub residual_interval_width: Option<f64>,
    /// The share of runs whose true score lies in the 90% sample range of the audit restricted
    /// to the documents the truth's grades cover (the others certainly non-relevant, as the
    /// truth counts them): the coverage that a truth which is only a lower bound can check
    /// (deeper world only).
    pub truth_judged_sample_coverage: Option<f64>,
    /// The restricted audit's expected score: mean absolute error against the true score.
    pub truth_judged_mae: Option<f64>,
    /// And its mean signed error.
    pub truth_judged_mean_signed_error: Option<f64>,
    /// The restricted audit's verdict against "the rank moves by >= 2" under the lower-bound
    /// truth (deeper world only).
    pub truth_judged_verdict_moves_2: Option<Confusion>,
    /// The share of runs within 1 rank of the truth on the collection.
    pub within_one_rank_before: f64,
    /// After judging the audit's list.
    pub within_one_rank_after: f64,
    /// After judging the oracle's list of the same size per topic: the run's relevant
    /// documents of largest gain, chosen knowing the truth (no ceiling on the rank, since the
    /// other runs rise with the same documents).
    pub within_one_rank_after_oracle_list: f64,
    /// Mean absolute error of the score after judging the list.
    pub judged_mae: f64,
    /// The share of runs within one rank of the truth after judging at most `budget` documents
    /// of each run's list, its first ones, for every budget from 0 to the longest list: how
    /// fast the list brings the ranks right, against the documents it costs.
    pub list_curve: Vec<ListCurvePoint>,
}

/// One budget of [`MeasureSummary::list_curve`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListCurvePoint {
    /// The most documents judged of each run's list (its first ones).
    pub budget: usize,
    /// The mean documents judged per audited run at that budget (a run's whole list when it
    /// is shorter).
    pub documents_per_run: f64,
    /// The share of runs within one rank of the truth after them.
    pub within_one_rank: f64,
}

/// One bin of the reliability table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReliabilityBin {
    /// The bin: `p < 0.01`, `rank <= 10`, ….
    pub bin: String,
    /// Documents in the bin.
    pub documents: usize,
    /// Mean predicted probability.
    pub predicted: f64,
    /// Share officially relevant.
    pub observed: f64,
}

/// The list's size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListSummary {
    /// Mean documents per topic per audited run.
    pub mean_per_topic: f64,
    /// Mean documents per audited run.
    pub mean_per_run: f64,
    /// Runs given a list.
    pub runs_with_list: usize,
    /// Runs told "no extra judgments needed" that were given a list anyway (should be 0).
    pub lists_without_verdict: usize,
    /// The share of the listed documents that the truth judges relevant (None without a list).
    pub relevant_share: Option<f64>,
    /// The share of the audited runs' relevant unjudged documents that their lists hold (None
    /// when the truth finds none).
    pub relevant_found: Option<f64>,
}

/// Everything `backtest.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BacktestSummary {
    /// The task.
    pub task: String,
    /// `classic`, `simulated` or `deeper`.
    pub world: String,
    /// Where the audit's calibration learned what a team's absence loses: `pool` or `trials`.
    pub evidence: String,
    /// Teams left out.
    pub teams: usize,
    /// Runs audited.
    pub runs: usize,
    /// The risk threshold in force.
    pub risk_threshold: f64,
    /// The settle threshold in force.
    pub settle_threshold: f64,
    /// The rank margin in force.
    pub rank_margin: f64,
    /// Among runs whose rank moves by < 1 on every measure, the share told "no extra judgments
    /// needed".
    pub no_judgments_when_ranks_stay: Option<f64>,
    /// The list's size.
    pub list: ListSummary,
    /// Per measure.
    pub measures: Vec<MeasureSummary>,
    /// The judge model's reliability by probability bin.
    pub reliability: Vec<ReliabilityBin>,
    /// And by rank bin.
    pub reliability_by_rank: Vec<ReliabilityBin>,
    /// The mean share of an audited run's unjudged top that the truth's grades cover.
    pub truth_coverage: f64,
    /// Among the unjudged documents the truth judged, by rank band (1-10, 11-30, 31-100): the
    /// audit's mean probability and the share judged relevant. In the deeper world these
    /// documents were chosen by later pools, which favoured likely relevant ones.
    pub truth_judged_by_rank: Vec<ReliabilityBin>,
    /// Wall time.
    pub elapsed_seconds: f64,
    /// The claims of the audited runs against their baselines, per measure and over all.
    pub claims: Vec<MeasureClaims>,
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = values.fold((0.0, 0usize), |(s, c), v| (s + v, c + 1));
    if count == 0 {
        0.0
    } else {
        sum / count as f64
    }
}

fn ratio(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

fn share(flags: impl Iterator<Item = bool>) -> Option<f64> {
    let (hits, count) = flags.fold((0usize, 0usize), |(h, c), f| (h + usize::from(f), c + 1));
    (count > 0).then(|| hits as f64 / count as f64)
}

fn moves(row: &BacktestRow, by: f64) -> bool {
    (row.true_rank - row.collection_rank).abs() >= by
}

fn error(
    estimator: &str,
    rows: &[&BacktestRow],
    estimate: impl Fn(&BacktestRow) -> f64,
) -> EstimatorError {
    EstimatorError {
        estimator: estimator.to_string(),
        mae: mean(rows.iter().map(|r| (estimate(r) - r.true_score).abs())),
        mean_signed_error: mean(rows.iter().map(|r| estimate(r) - r.true_score)),
    }
}

/// The mean of `value(row, low, high, expected)` over the rows' restricted audits (deeper
/// world); None when the rows have none.
fn restricted(
    rows: &[&BacktestRow],
    value: impl Fn(&BacktestRow, f64, f64, f64) -> f64,
) -> Option<f64> {
    let values: Vec<f64> = rows
        .iter()
        .filter_map(|r| {
            let (low, high, expected) = (
                r.truth_judged_sample_low?,
                r.truth_judged_sample_high?,
                r.truth_judged_expected?,
            );
            Some(value(r, low, high, expected))
        })
        .collect();
    (!values.is_empty()).then(|| mean(values.into_iter()))
}

/// An estimator that applies to some measures only.
type OptionalEstimate = fn(&BacktestRow) -> Option<f64>;

fn measure_summary(measure: &str, rows: &[&BacktestRow]) -> MeasureSummary {
    let mut errors = vec![
        error("collection", rows, |r| r.collection_score),
        error("expected", rows, |r| r.expected_score),
        error("median", rows, |r| r.median_score),
        error("webber_park", rows, |r| r.webber_park_score),
    ];
    let optional: [(&str, OptionalEstimate); 5] = [
        ("anti_precision", |r| r.anti_precision_score),
        ("condensed", |r| r.condensed_score),
        ("labels_filled", |r| r.labels_filled_score),
        ("labels_table", |r| r.labels_table_score),
        ("rbp_residual_midpoint", |r| {
            r.rbp_residual_upper
                .map(|upper| (r.collection_score + upper) / 2.0)
        }),
    ];
    for (name, estimate) in optional {
        if rows.iter().all(|r| estimate(r).is_some()) && !rows.is_empty() {
            errors.push(error(name, rows, |r| estimate(r).unwrap_or(f64::NAN)));
        }
    }
    let residual_intervals: Option<Vec<(f64, f64, f64)>> = rows
        .iter()
        .map(|r| Some((r.collection_score, r.rbp_residual_upper?, r.true_score)))
        .collect::<Option<Vec<_>>>()
        .filter(|intervals| !intervals.is_empty());
    let within = |rank: fn(&BacktestRow) -> f64| {
        share(rows.iter().map(|r| (rank(r) - r.true_rank).abs() <= 1.0)).unwrap_or(0.0)
    };
    let threshold_sweep = THRESHOLD_SWEEP
        .iter()
        .map(|&threshold| ThresholdScore {
            threshold,
            moves_2: Confusion::of(
                rows.iter()
                    .map(|r| (r.probability_rank_moves > threshold, moves(r, 2.0))),
            ),
            quiet_when_rank_stays: share(
                rows.iter()
                    .filter(|r| !moves(r, 1.0))
                    .map(|r| r.probability_rank_moves <= threshold),
            ),
        })
        .collect();
    MeasureSummary {
        measure: measure.to_string(),
        runs: rows.len(),
        runs_rank_moves_1: rows.iter().filter(|r| moves(r, 1.0)).count(),
        runs_rank_moves_2: rows.iter().filter(|r| moves(r, 2.0)).count(),
        errors,
        verdict_moves_1: Confusion::of(rows.iter().map(|r| (r.is_at_risk, moves(r, 1.0)))),
        verdict_moves_2: Confusion::of(rows.iter().map(|r| (r.is_at_risk, moves(r, 2.0)))),
        no_judgments_when_rank_stays: share(
            rows.iter()
                .filter(|r| !moves(r, 1.0))
                .map(|r| !r.needs_judging),
        ),
        threshold_sweep,
        interval_coverage: share(rows.iter().map(|r| {
            let (low, high) = (
                r.collection_score.min(r.upper),
                r.collection_score.max(r.upper),
            );
            (low - 1e-12..=high + 1e-12).contains(&r.true_score)
        }))
        .unwrap_or(0.0),
        sample_coverage: share(
            rows.iter()
                .map(|r| (r.sample_low - 1e-12..=r.sample_high + 1e-12).contains(&r.true_score)),
        )
        .unwrap_or(0.0),
        sample_range_width: mean(rows.iter().map(|r| r.sample_high - r.sample_low)),
        residual_interval_coverage: residual_intervals.as_ref().and_then(|intervals| {
            share(
                intervals
                    .iter()
                    .map(|&(low, high, truth)| (low - 1e-12..=high + 1e-12).contains(&truth)),
            )
        }),
        residual_interval_width: residual_intervals
            .as_ref()
            .map(|intervals| mean(intervals.iter().map(|&(low, high, _)| high - low))),
        truth_judged_sample_coverage: restricted(rows, |r, low, high, _| {
            f64::from(u8::from(
                (low - 1e-12..=high + 1e-12).contains(&r.true_score),
            ))
        }),
        truth_judged_mae: restricted(rows, |r, _, _, expected| (expected - r.true_score).abs()),
        truth_judged_mean_signed_error: restricted(rows, |r, _, _, expected| {
            expected - r.true_score
        }),
        truth_judged_verdict_moves_2: rows
            .iter()
            .map(|r| Some((r.truth_judged_is_at_risk?, moves(r, 2.0))))
            .collect::<Option<Vec<_>>>()
            .filter(|pairs| !pairs.is_empty())
            .map(|pairs| Confusion::of(pairs.into_iter())),
        within_one_rank_before: within(|r| r.collection_rank),
        within_one_rank_after: within(|r| r.judged_rank),
        within_one_rank_after_oracle_list: within(|r| r.oracle_judged_rank),
        judged_mae: mean(rows.iter().map(|r| (r.judged_score - r.true_score).abs())),
        list_curve: list_curve(rows),
    }
}

/// [`MeasureSummary::list_curve`].
fn list_curve(rows: &[&BacktestRow]) -> Vec<ListCurvePoint> {
    let longest = rows.iter().map(|r| r.list_size).max().unwrap_or(0);
    (0..=longest)
        .map(|budget| {
            let judged = |r: &BacktestRow| r.list_size.min(budget);
            ListCurvePoint {
                budget,
                documents_per_run: mean(rows.iter().map(|r| judged(r) as f64)),
                within_one_rank: share(
                    rows.iter().map(|r| {
                        (r.ranks_after_list_prefixes[judged(r)] - r.true_rank).abs() <= 1.0
                    }),
                )
                .unwrap_or(0.0),
            }
        })
        .collect()
}

fn reliability<K: Copy>(
    probabilities: &[ProbabilityOutcome],
    bins: &[K],
    key: impl Fn(&ProbabilityOutcome) -> usize,
    label: impl Fn(usize) -> String,
) -> Vec<ReliabilityBin> {
    (0..bins.len())
        .map(|bin| {
            let members: Vec<&ProbabilityOutcome> =
                probabilities.iter().filter(|p| key(p) == bin).collect();
            ReliabilityBin {
                bin: label(bin),
                documents: members.len(),
                predicted: mean(members.iter().map(|p| p.probability)),
                observed: mean(members.iter().map(|p| f64::from(u8::from(p.is_relevant)))),
            }
        })
        .collect()
}

impl BacktestSummary {
    /// The summary of `outcome`, with the rules that were in force.
    pub fn new(outcome: &BacktestOutcome, rules: &AuditRules, elapsed_seconds: f64) -> Self {
        let mut measures: Vec<String> = Vec::new();
        for row in &outcome.rows {
            if !measures.contains(&row.measure) {
                measures.push(row.measure.clone());
            }
        }
        let first = measures.first().cloned().unwrap_or_default();
        let per_run: Vec<&BacktestRow> =
            outcome.rows.iter().filter(|r| r.measure == first).collect();
        let probability_bin = |p: &ProbabilityOutcome| {
            PROBABILITY_BINS
                .iter()
                .position(|&upper| p.probability < upper)
                .unwrap_or(PROBABILITY_BINS.len() - 1)
        };
        let rank_bin = |p: &ProbabilityOutcome| {
            RANK_BINS
                .iter()
                .position(|&upper| p.rank <= upper)
                .unwrap_or(RANK_BINS.len() - 1)
        };
        Self {
            task: outcome.task.clone(),
            world: outcome.world.to_string(),
            evidence: outcome.evidence.to_string(),
            teams: outcome.teams.len(),
            runs: per_run.len(),
            risk_threshold: rules.risk_threshold,
            settle_threshold: rules.settle_threshold,
            rank_margin: rules.rank_margin,
            no_judgments_when_ranks_stay: share(
                per_run
                    .iter()
                    .filter(|r| {
                        outcome
                            .rows
                            .iter()
                            .filter(|row| row.run == r.run)
                            .all(|row| !moves(row, 1.0))
                    })
                    .map(|r| !r.needs_judging),
            ),
            list: ListSummary {
                mean_per_topic: mean(
                    per_run
                        .iter()
                        .map(|r| r.list_size as f64 / r.topics.max(1) as f64),
                ),
                mean_per_run: mean(per_run.iter().map(|r| r.list_size as f64)),
                runs_with_list: per_run.iter().filter(|r| r.list_size > 0).count(),
                lists_without_verdict: per_run
                    .iter()
                    .filter(|r| r.list_size > 0 && !r.needs_judging)
                    .count(),
                relevant_share: ratio(
                    per_run.iter().map(|r| r.list_relevant).sum(),
                    per_run.iter().map(|r| r.list_size).sum(),
                ),
                relevant_found: ratio(
                    per_run.iter().map(|r| r.list_relevant).sum(),
                    per_run.iter().map(|r| r.unjudged_relevant).sum(),
                ),
            },
            measures: measures
                .iter()
                .map(|measure| {
                    let rows: Vec<&BacktestRow> = outcome
                        .rows
                        .iter()
                        .filter(|r| &r.measure == measure)
                        .collect();
                    measure_summary(measure, &rows)
                })
                .collect(),
            reliability: reliability(
                &outcome.probabilities,
                &PROBABILITY_BINS,
                probability_bin,
                |bin| {
                    let low = if bin == 0 {
                        0.0
                    } else {
                        PROBABILITY_BINS[bin - 1]
                    };
                    format!("{low} <= p < {}", PROBABILITY_BINS[bin])
                },
            ),
            reliability_by_rank: reliability(&outcome.probabilities, &RANK_BINS, rank_bin, |bin| {
                let low = if bin == 0 { 1 } else { RANK_BINS[bin - 1] + 1 };
                format!("rank {low}-{}", RANK_BINS[bin])
            }),
            truth_coverage: mean(per_run.iter().map(|r| r.truth_coverage)),
            truth_judged_by_rank: judged_by_rank(&outcome.probabilities),
            elapsed_seconds,
            claims: claims_summary(
                &measures,
                &outcome.claims,
                (&outcome.claim_lists, &outcome.restricted_claim_lists),
            ),
        }
    }
}

/// [`BacktestSummary::truth_judged_by_rank`].
fn judged_by_rank(probabilities: &[ProbabilityOutcome]) -> Vec<ReliabilityBin> {
    let judged: Vec<ProbabilityOutcome> = probabilities
        .iter()
        .filter(|p| p.is_judged)
        .cloned()
        .collect();
    let band = |p: &ProbabilityOutcome| {
        JUDGED_RANK_BANDS
            .iter()
            .position(|&upper| p.rank <= upper)
            .unwrap_or(JUDGED_RANK_BANDS.len() - 1)
    };
    reliability(&judged, &JUDGED_RANK_BANDS, band, |bin| {
        let low = if bin == 0 {
            1
        } else {
            JUDGED_RANK_BANDS[bin - 1] + 1
        };
        format!("rank {low}-{}", JUDGED_RANK_BANDS[bin])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confusion_counts_and_ratios() {
        let c = Confusion::of(
            [
                (true, true),
                (true, false),
                (false, true),
                (false, false),
                (true, true),
            ]
            .into_iter(),
        );
        assert_eq!(
            (
                c.true_positives,
                c.false_positives,
                c.false_negatives,
                c.true_negatives
            ),
            (2, 1, 1, 1)
        );
        assert_eq!(c.precision, Some(2.0 / 3.0));
        assert_eq!(c.recall, Some(2.0 / 3.0));
        let none = Confusion::of([(false, false)].into_iter());
        assert_eq!((none.precision, none.recall), (None, None));
    }

    #[test]
    fn the_list_curve_judges_each_runs_first_documents_up_to_the_budget() {
        let row = |list_size, true_rank, ranks: &[f64]| BacktestRow {
            list_size,
            true_rank,
            ranks_after_list_prefixes: ranks.to_vec(),
            ..BacktestRow::default()
        };
        let rows = [
            // No list, and within one rank from the start.
            row(0, 5.0, &[5.0]),
            // Within one rank after its first document.
            row(2, 3.0, &[6.0, 4.0, 3.0]),
            // Only after its whole list of 3.
            row(3, 1.0, &[4.0, 4.0, 3.0, 1.0]),
        ];
        let curve = list_curve(&rows.iter().collect::<Vec<_>>());
        let points: Vec<(usize, f64, f64)> = curve
            .iter()
            .map(|p| (p.budget, p.documents_per_run, p.within_one_rank))
            .collect();
        assert_eq!(
            points,
            [
                (0, 0.0, 1.0 / 3.0),
                (1, 2.0 / 3.0, 2.0 / 3.0),
                (2, 4.0 / 3.0, 2.0 / 3.0),
                (3, 5.0 / 3.0, 1.0),
            ]
        );
    }
}
