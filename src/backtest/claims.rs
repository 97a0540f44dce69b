//! Each audited run's claims in the backtest: against the world's best pooled run by each
//! measure and the pooled runs directly above and below the run on the world's ranking (its
//! own team's runs aside), each claim's outcome on the collection, on condensed lists, by the
//! audit, on the truth's judgments and after the claims' list is judged.

use super::corrections::Corrections;
use super::outcome::{ClaimOutcome, ClaimPrediction};
use crate::audit::claims::summary::claim_directions;
use crate::audit::claims::{ChosenClaims, ClaimScores, ClaimSummary};
use crate::audit::AuditBasis;
use crate::base::error::{Context, Result};
use crate::sim::scoring::ScoreTable;
use crate::stats::comparison::{PairTest, TestSettings};
use crate::stats::pair_changes::Direction;

/// Per measure, the baselines of run `run` of `team` (collection indices with how each was
/// chosen): the best pooled run of another team on the world, then the pooled runs of other
/// teams directly above and below the run (ties: the first in the collection's order), each
/// once.
pub(super) fn claim_baselines(
    basis: &AuditBasis,
    team: &str,
    run: usize,
) -> Vec<Vec<(usize, &'static str)>> {
    let runs = &basis.collection.runs;
    let candidates: Vec<usize> = (0..runs.len())
        .filter(|&r| r != run && runs[r].is_pooled && runs[r].team != team)
        .collect();
    (0..basis.measures.len())
        .map(|m| {
            let score = |r: usize| basis.scores.summary[r][m];
            let own = score(run);
            let pick = |better: fn(f64, f64) -> bool, eligible: &dyn Fn(f64) -> bool| {
                (candidates.iter().copied())
                    .filter(|&r| eligible(score(r)))
                    .fold(None, |chosen: Option<usize>, r| match chosen {
                        Some(c) if !better(score(r), score(c)) => Some(c),
                        _ => Some(r),
                    })
            };
            let best = pick(|a, b| a > b, &|_| true);
            let above = pick(|a, b| a < b, &|s| s >= own);
            let below = pick(|a, b| a > b, &|s| s < own);
            let mut chosen: Vec<(usize, &'static str)> = Vec::new();
            for (pick, name) in [(best, "best"), (above, "above"), (below, "below")] {
                if let Some(r) = pick.filter(|r| chosen.iter().all(|&(c, _)| c != *r)) {
                    chosen.push((r, name));
                }
            }
            chosen
        })
        .collect()
}

/// What a run's claims are compared under: the truth's scores, the scores after judging the
/// claims' list, the world's condensed lists, and the test.
pub(super) struct ClaimTruths<'a> {
    /// Every run scored on the truth's judgments completed for the audited run.
    pub(super) truth: &'a ScoreTable,
    /// Every run scored on the world plus the claims' list graded by the truth.
    pub(super) judged: &'a ScoreTable,
    /// The same with the restricted audit's list (deeper world).
    pub(super) restricted_judged: Option<&'a ScoreTable>,
    /// The world's condensed-list scores.
    pub(super) corrections: &'a Corrections,
    /// The claims' test.
    pub(super) test: &'a TestSettings,
}

/// The claims of audited run `run` against `baselines` (as [`claim_baselines`] gives them),
/// as the audit (`chosen`) and the audit restricted to the truth's documents (`restricted`)
/// summarised them, with every predictor's outcome and the truth's.
///
/// # Errors
/// The test's errors (fewer than 2 topics).
pub(super) fn claim_outcomes<'a>(
    basis: &AuditBasis,
    run: usize,
    (chosen, restricted): (&'a ChosenClaims, Option<&'a ChosenClaims>),
    baselines: &[Vec<(usize, &'static str)>],
    truths: &ClaimTruths,
) -> Result<Vec<ClaimOutcome>> {
    let collection = basis.collection;
    let topics: Vec<usize> = (0..collection.topics.len())
        .filter(|&t| !collection.topics[t].rankings[run].is_empty())
        .collect();
    let tag = &collection.runs[run].tag;
    let test = PairTest::new(truths.test, topics.len())
        .with_context(|| format!("testing the claims of run {tag}"))?;
    let mut outcomes = Vec::new();
    for (m, baselines) in baselines.iter().enumerate() {
        let name = basis.measures[m].to_string();
        let of_measure =
            |chosen: &'a ChosenClaims| (chosen.claims.iter()).filter(|c| c.measure == name);
        let summaries: Vec<&ClaimSummary> = of_measure(chosen).collect();
        let restricted: Vec<Option<&ClaimSummary>> = match restricted {
            Some(restricted) => of_measure(restricted).map(Some).collect(),
            None => vec![None; summaries.len()],
        };
        let runs: Vec<usize> = std::iter::once(run)
            .chain(baselines.iter().map(|&(b, _)| b))
            .collect();
        let tags: Vec<String> = (runs.iter())
            .map(|&r| collection.runs[r].tag.clone())
            .collect();
        let directions = |per_topic: &dyn Fn(usize, usize) -> Option<f64>| {
            let scores: Option<Vec<Vec<f64>>> = (runs.iter())
                .map(|&r| topics.iter().map(|&t| per_topic(r, t)).collect())
                .collect();
            scores
                .map(|scores| {
                    let family = ClaimScores {
                        measure: &name,
                        runs: &tags,
                        collection: &scores,
                        samples: &[],
                    };
                    claim_directions(&family, &scores, &test)
                })
                .transpose()
                .with_context(|| format!("testing the claims of run {tag}"))
        };
        let on_table = |table: &ScoreTable| {
            directions(&|r, t| Some(table.per_topic[r][t].as_ref().map_or(0.0, |s| s[m])))
        };
        let truth = on_table(truths.truth)?.expect("every run has a score");
        let judged = on_table(truths.judged)?.expect("every run has a score");
        let restricted_judged = (truths.restricted_judged)
            .map(|table| on_table(table).map(|d| d.expect("every run has a score")))
            .transpose()?;
        let condensed = directions(&|r, t| truths.corrections.condensed_topic(r, m, t))?;
        for (claim, (summary, restricted)) in summaries.iter().zip(&restricted).enumerate() {
            let restricted = restricted.zip(restricted_judged.as_ref().map(|j| j[claim]));
            outcomes.push(claim_outcome(
                ((summary, judged[claim]), restricted),
                truth[claim],
                condensed.as_ref().map(|c| c[claim]),
            ));
        }
    }
    Ok(outcomes)
}

/// One claim's outcomes, as the audit and the restricted audit summarised it, each with the
/// outcome after its list is judged.
fn claim_outcome(
    ((summary, judged), restricted): (
        (&ClaimSummary, Direction),
        Option<(&ClaimSummary, Direction)>,
    ),
    truth: Direction,
    condensed: Option<Direction>,
) -> ClaimOutcome {
    let claimed = if summary.difference >= 0.0 {
        Direction::First
    } else {
        Direction::Second
    };
    let collection = match (summary.is_significant, summary.difference > 0.0) {
        (false, _) => Direction::Neither,
        (true, true) => Direction::First,
        (true, false) => Direction::Second,
    };
    ClaimOutcome {
        run: summary.run.clone(),
        baseline: summary.baseline.clone(),
        chosen_as: summary.chosen_as.clone(),
        measure: summary.measure.clone(),
        claimed,
        collection,
        condensed,
        audit: prediction((summary, judged), claimed, collection),
        restricted: restricted.map(|r| prediction(r, claimed, collection)),
        truth,
    }
}

/// The prediction of an audit's summary of a claim pointing `claimed`, whose collection
/// outcome is `collection`, with the claim's outcome after the audit's list.
fn prediction(
    (summary, after_list): (&ClaimSummary, Direction),
    claimed: Direction,
    collection: Direction,
) -> ClaimPrediction {
    let other = match claimed {
        Direction::First => Direction::Second,
        _ => Direction::First,
    };
    ClaimPrediction {
        probability: summary.probability_significant_as_claimed,
        outcome: most_probable(
            collection,
            [
                (claimed, summary.probability_significant_as_claimed),
                (Direction::Neither, summary.probability_not_significant),
                (other, summary.probability_reversed),
            ],
        ),
        verdict: summary.verdict,
        cannot_settle: summary.cannot_settle,
        after_list,
    }
}

/// The outcome of largest probability; on a tie, the collection's.
fn most_probable(collection: Direction, outcomes: [(Direction, f64); 3]) -> Direction {
    let top = outcomes.iter().map(|o| o.1).fold(f64::MIN, f64::max);
    (outcomes.iter())
        .filter(|o| o.1 == top)
        .map(|o| o.0)
        .find(|&d| d == collection)
        .unwrap_or_else(|| {
            outcomes
                .iter()
                .find(|o| o.1 == top)
                .expect("three outcomes")
                .0
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Direction::{First as F, Neither as N, Second as S};

    #[test]
    fn the_audits_outcome_is_the_most_probable_and_the_collections_on_a_tie() {
        assert_eq!(most_probable(F, [(F, 0.2), (N, 0.7), (S, 0.1)]), N);
        assert_eq!(most_probable(N, [(F, 0.45), (N, 0.1), (S, 0.45)]), F);
        assert_eq!(most_probable(N, [(S, 0.4), (N, 0.4), (F, 0.2)]), N);
        assert_eq!(most_probable(F, [(F, 0.5), (N, 0.5), (S, 0.0)]), F);
    }
}
