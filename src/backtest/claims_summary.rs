//! The backtest's figures of the audited runs' claims, per measure: each predictor of "the
//! claim is significant in the claimed direction under the truth" scored by its Brier score
//! and by how the truth classifies the claims it calls significant; the verdict "at risk"
//! against the claims whose truth differs from the collection; and the claims that agree with
//! the truth once their list is judged.

use serde::Serialize;

use super::confusion::Confusion;
use super::outcome::{ClaimOutcome, ClaimPrediction};
use crate::stats::pair_changes::{Direction, PairChanges};

/// One predictor of the truth of claims.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimPredictor {
    /// `collection` (1 when the collection's test is significant), `condensed` (1 when the test
    /// on condensed lists is significant in the claimed direction), `audit` (its
    /// P(significant as claimed)) or `restricted audit` (the same of the audit restricted to
    /// the documents the truth grades, deeper world).
    pub predictor: String,
    /// The claims it predicts.
    pub claims: usize,
    /// The mean squared difference between its probability and whether the truth is
    /// significant in the claimed direction (1) or not (0).
    pub brier: f64,
    /// Claims it calls significant that the truth finds significant the same way.
    pub confirmed: usize,
    /// Claims it calls significant that the truth does not.
    pub lost: usize,
    /// Claims it calls significant that the truth finds significant the other way.
    pub reversed: usize,
    /// Claims it calls not significant that the truth finds significant.
    pub gained: usize,
    /// Claims that neither it nor the truth finds significant.
    pub neither: usize,
}

/// The claims of one measure (or of all, `all`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasureClaims {
    /// The measure, or `all`.
    pub measure: String,
    /// The claims.
    pub claims: usize,
    /// The claims the collection finds significant.
    pub significant: usize,
    /// The claims whose outcome under the truth differs from the collection's.
    pub truth_differs: usize,
    /// The predictors.
    pub predictors: Vec<ClaimPredictor>,
    /// The audit's verdicts and list.
    pub audit: AuditClaims,
    /// The same of the audit restricted to the documents the truth grades (deeper world).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restricted: Option<AuditClaims>,
}

/// An audit's verdicts on claims and what its list does to them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AuditClaims {
    /// The verdict (at risk, or judging could make it significant) against "the truth's
    /// outcome differs from the collection's".
    pub verdict: Confusion,
    /// The claims whose outcome the audit says judging its list cannot settle.
    pub cannot_settle: usize,
    /// The share of claims whose outcome after judging the list equals the truth's.
    pub agree_after_list: Option<f64>,
    /// The same among the claims the audit does not say its list cannot settle.
    pub agree_after_list_where_settleable: Option<f64>,
    /// The mean length of the audited runs' lists, which serve their ranks and claims.
    pub list_per_run: f64,
}

/// The figures of `claims` for each of `measures` and over all; `lists` holds each audited
/// run's list length, and `restricted_lists` the restricted audit's (none outside the deeper
/// world).
pub(super) fn claims_summary(
    measures: &[String],
    claims: &[ClaimOutcome],
    (lists, restricted_lists): (&[usize], &[usize]),
) -> Vec<MeasureClaims> {
    let mean = |lists: &[usize]| lists.iter().sum::<usize>() as f64 / lists.len().max(1) as f64;
    let list_per_run = (
        mean(lists),
        (!restricted_lists.is_empty()).then(|| mean(restricted_lists)),
    );
    let of_measure = |measure: &str| -> Vec<&ClaimOutcome> {
        (claims.iter())
            .filter(|c| measure == "all" || c.measure == measure)
            .collect()
    };
    (measures.iter().map(String::as_str))
        .chain(std::iter::once("all"))
        .map(|measure| measure_claims(measure, &of_measure(measure), list_per_run))
        .collect()
}

/// The figures of `claims`, all of `measure`, whose runs' lists (and restricted lists) hold
/// `list_per_run` documents on average.
fn measure_claims(
    measure: &str,
    claims: &[&ClaimOutcome],
    (list_per_run, restricted_list_per_run): (f64, Option<f64>),
) -> MeasureClaims {
    let mut predictors = vec![
        predictor("collection", claims, |c| {
            Some((
                c.collection,
                f64::from(u8::from(c.collection.is_significant())),
            ))
        }),
        predictor("condensed", claims, |c| {
            let outcome = c.condensed?;
            Some((outcome, f64::from(u8::from(outcome == c.claimed))))
        }),
        predictor("audit", claims, |c| {
            Some((c.audit.outcome, c.audit.probability))
        }),
        predictor("restricted audit", claims, |c| {
            c.restricted.map(|r| (r.outcome, r.probability))
        }),
    ];
    predictors.retain(|p| p.claims > 0 || (claims.is_empty() && p.predictor != "restricted audit"));
    let is_restricted = claims.iter().any(|c| c.restricted.is_some());
    MeasureClaims {
        measure: measure.to_string(),
        claims: claims.len(),
        significant: claims
            .iter()
            .filter(|c| c.collection.is_significant())
            .count(),
        truth_differs: claims.iter().filter(|c| c.truth != c.collection).count(),
        predictors,
        audit: audit_claims(claims, |c| Some(c.audit), list_per_run)
            .expect("every claim is audited"),
        restricted: is_restricted
            .then(|| audit_claims(claims, |c| c.restricted, restricted_list_per_run?))
            .flatten(),
    }
}

/// The verdicts and list of the audit whose predictions `of` gives (`None`: the audit did not
/// predict every claim), with lists of `list_per_run` documents on average.
fn audit_claims(
    claims: &[&ClaimOutcome],
    of: impl Fn(&ClaimOutcome) -> Option<ClaimPrediction>,
    list_per_run: f64,
) -> Option<AuditClaims> {
    let predicted: Vec<(&ClaimOutcome, ClaimPrediction)> = (claims.iter())
        .map(|&c| of(c).map(|p| (c, p)))
        .collect::<Option<_>>()?;
    let agree = |keep: &dyn Fn(&ClaimPrediction) -> bool| {
        let kept: Vec<bool> = (predicted.iter())
            .filter(|(_, p)| keep(p))
            .map(|(c, p)| p.after_list == c.truth)
            .collect();
        (!kept.is_empty()).then(|| kept.iter().filter(|&&a| a).count() as f64 / kept.len() as f64)
    };
    Some(AuditClaims {
        verdict: Confusion::of(
            (predicted.iter()).map(|(c, p)| (p.verdict.is_unsettled(), c.truth != c.collection)),
        ),
        cannot_settle: predicted.iter().filter(|(_, p)| p.cannot_settle).count(),
        agree_after_list: agree(&|_| true),
        agree_after_list_where_settleable: agree(&|p| !p.cannot_settle),
        list_per_run,
    })
}

/// Predictor `name` over `claims`: `predict` gives its outcome and its probability that the
/// claim is significant in the claimed direction (`None`: it does not predict the claim).
fn predictor(
    name: &str,
    claims: &[&ClaimOutcome],
    predict: impl Fn(&ClaimOutcome) -> Option<(Direction, f64)>,
) -> ClaimPredictor {
    let predicted: Vec<(&ClaimOutcome, Direction, f64)> = (claims.iter())
        .filter_map(|&c| predict(c).map(|(outcome, p)| (c, outcome, p)))
        .collect();
    let outcomes: Vec<Direction> = predicted.iter().map(|p| p.1).collect();
    let truths: Vec<Direction> = predicted.iter().map(|p| p.0.truth).collect();
    let changes = PairChanges::classify(&outcomes, &truths, |_| true);
    let squared_errors = predicted.iter().map(|&(c, _, p)| {
        let happened = f64::from(u8::from(c.truth == c.claimed));
        (p - happened).powi(2)
    });
    ClaimPredictor {
        predictor: name.to_string(),
        claims: predicted.len(),
        brier: squared_errors.sum::<f64>() / predicted.len().max(1) as f64,
        confirmed: changes.kept,
        lost: changes.lost,
        reversed: changes.reversed,
        gained: changes.new,
        neither: predicted.len() - changes.reference_significant() - changes.new,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::claims::ClaimVerdict;
    use Direction::{First as F, Neither as N, Second as S};

    /// A claim of `measure` with its outcomes: claimed, collection, condensed, the audit's
    /// probability and outcome, its verdict, the truth and after the list.
    fn claim(
        measure: &str,
        (claimed, collection, condensed): (Direction, Direction, Option<Direction>),
        (audit_probability, audit, verdict): (f64, Direction, ClaimVerdict),
        (truth, judged): (Direction, Direction),
    ) -> ClaimOutcome {
        ClaimOutcome {
            run: "r".into(),
            baseline: "b".into(),
            chosen_as: "best".into(),
            measure: measure.into(),
            claimed,
            collection,
            condensed,
            audit: ClaimPrediction {
                probability: audit_probability,
                outcome: audit,
                verdict,
                cannot_settle: false,
                after_list: judged,
            },
            restricted: None,
            truth,
        }
    }

    #[test]
    fn brier_scores_classifications_verdict_and_agreement_by_hand() {
        use ClaimVerdict::{AtRisk, NoClaim, Safe};
        let claims = [
            // A: significant as claimed everywhere.
            claim("map", (F, F, Some(F)), (0.9, F, Safe), (F, F)),
            // B: the truth loses it; condensed and the audit saw it coming.
            claim("map", (F, F, Some(N)), (0.3, N, AtRisk), (N, N)),
            // C: the truth reverses it; the list does not.
            claim("map", (S, S, Some(S)), (0.6, S, AtRisk), (F, S)),
            // D: not significant on the collection, significant as claimed by the truth.
            claim("map", (F, N, Some(F)), (0.2, N, NoClaim), (F, F)),
            // E: another measure, without a condensed variant; nothing significant.
            claim("P_10", (S, N, None), (0.0, N, NoClaim), (N, N)),
        ];
        let summary = claims_summary(&["map".into(), "P_10".into()], &claims, (&[2, 4], &[]));
        assert_eq!(
            summary
                .iter()
                .map(|m| m.measure.as_str())
                .collect::<Vec<_>>(),
            ["map", "P_10", "all"]
        );
        let map = &summary[0];
        assert_eq!((map.claims, map.significant, map.truth_differs), (4, 3, 3));
        let of = |m: &MeasureClaims, name: &str| {
            let p = m.predictors.iter().find(|p| p.predictor == name).unwrap();
            (
                p.claims,
                (p.confirmed, p.lost, p.reversed, p.gained, p.neither),
                p.brier,
            )
        };
        // Truth significant as claimed: A 1, B 0, C 0, D 1.
        // Collection 1, 1, 1, 0: (0 + 1 + 1 + 1) / 4.
        assert_eq!(of(map, "collection"), (4, (1, 1, 1, 1, 0), 0.75));
        // Condensed as claimed 1, 0, 1, 1: (0 + 0 + 1 + 0) / 4.
        assert_eq!(of(map, "condensed"), (4, (2, 0, 1, 0, 1), 0.25));
        // Audit 0.9, 0.3, 0.6, 0.2: (0.01 + 0.09 + 0.36 + 0.64) / 4.
        let (claims_audit, counts, brier) = of(map, "audit");
        assert_eq!((claims_audit, counts), (4, (1, 0, 1, 1, 1)));
        assert!((brier - 0.275).abs() < 1e-12, "{brier}");
        // At risk: B, C; the truth differs for B, C, D.
        let verdict = map.audit.verdict;
        assert_eq!((verdict.true_positives, verdict.false_positives), (2, 0));
        assert_eq!((verdict.false_negatives, verdict.true_negatives), (1, 1));
        assert_eq!(verdict.precision, Some(1.0));
        assert!((verdict.recall.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(map.audit.agree_after_list, Some(0.75), "C disagrees");
        assert_eq!(map.audit.list_per_run, 3.0);

        let p10 = &summary[1];
        assert_eq!(
            p10.predictors
                .iter()
                .map(|p| p.predictor.as_str())
                .collect::<Vec<_>>(),
            ["collection", "audit"],
            "no condensed outcome, no condensed predictor"
        );
        assert_eq!(of(p10, "collection"), (1, (0, 0, 0, 0, 1), 0.0));
        assert_eq!(
            (p10.audit.verdict.precision, p10.audit.verdict.recall),
            (None, None)
        );

        let all = &summary[2];
        assert_eq!((all.claims, all.significant, all.truth_differs), (5, 3, 3));
        assert_eq!(of(all, "collection"), (5, (1, 1, 1, 1, 1), 0.6));
        assert_eq!(of(all, "condensed"), (4, (2, 0, 1, 0, 1), 0.25));
        let (_, _, brier) = of(all, "audit");
        assert!((brier - 0.22).abs() < 1e-12, "{brier}");
        assert_eq!(all.audit.verdict.true_negatives, 2);
        assert_eq!(all.audit.agree_after_list, Some(0.8));
    }

    #[test]
    fn the_restricted_audit_is_a_predictor_with_its_own_verdict_only_where_it_was_run() {
        use ClaimVerdict::{AtRisk, Safe};
        let restricted = |probability, outcome, verdict, after_list| ClaimPrediction {
            probability,
            outcome,
            verdict,
            cannot_settle: false,
            after_list,
        };
        let mut lost = claim("map", (F, F, Some(F)), (0.9, F, Safe), (N, N));
        let mut kept = claim("map", (F, F, Some(F)), (0.9, F, Safe), (F, F));
        let mut unsettled = claim("map", (F, F, Some(F)), (0.9, F, Safe), (N, F));
        let summary =
            |claims: &[ClaimOutcome]| claims_summary(&["map".into()], claims, (&[1, 3], &[2, 4]));
        let plain = summary(&[lost.clone(), kept.clone()]);
        assert!(plain[0].restricted.is_none());
        assert!(plain[0]
            .predictors
            .iter()
            .all(|p| p.predictor != "restricted audit"));

        // The restricted audit sees the first loss coming (0.2 as claimed, at risk) and its
        // list settles it; it keeps the second claim (0.7, safe, not judged again); the third
        // (0.4, at risk) its list cannot settle, and after it the claim still reads F.
        // Brier ((0.2 - 0)^2 + (0.7 - 1)^2 + (0.4 - 0)^2) / 3.
        lost.restricted = Some(restricted(0.2, N, AtRisk, N));
        kept.restricted = Some(restricted(0.7, F, Safe, F));
        unsettled.restricted = Some(ClaimPrediction {
            cannot_settle: true,
            ..restricted(0.4, N, AtRisk, F)
        });
        let with = summary(&[lost, kept, unsettled]);
        let map = &with[0];
        let predictor = (map.predictors.iter())
            .find(|p| p.predictor == "restricted audit")
            .unwrap();
        assert_eq!(predictor.claims, 3);
        assert!(
            (predictor.brier - 0.29 / 3.0).abs() < 1e-12,
            "{}",
            predictor.brier
        );
        assert_eq!(
            (predictor.confirmed, predictor.lost, predictor.neither),
            (1, 0, 2)
        );
        let restricted = map.restricted.unwrap();
        let verdict = restricted.verdict;
        assert_eq!((verdict.true_positives, verdict.true_negatives), (2, 1));
        assert_eq!((verdict.precision, verdict.recall), (Some(1.0), Some(1.0)));
        assert_eq!(restricted.cannot_settle, 1);
        assert!((restricted.agree_after_list.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(restricted.agree_after_list_where_settleable, Some(1.0));
        assert_eq!(
            (map.audit.list_per_run, restricted.list_per_run),
            (2.0, 3.0)
        );
        // The audit itself calls all three safe and misses both losses.
        assert_eq!(map.audit.verdict.false_negatives, 2);
    }
}
