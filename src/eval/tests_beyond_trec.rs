//! Hand-computed cases of the measures trec_eval lacks (RBP and its residual, ERR) and of the
//! condensed variants, on one small topic with a tie in scores, an unjudged document, a
//! negative grade and a run shorter than some cutoffs.

use std::collections::BTreeMap;

use approx::assert_abs_diff_eq;

use super::tests::{qrels_of, run_of, scores};
use super::*;

/// Grades a=2, b=0, c=1, d=-1, e=3 (never retrieved), f=1; the run scores a 5, x 4 (unjudged),
/// c 3, b 3, d 2, f 1. The tie between c and b is broken as trec_eval does (docid descending),
/// so the ranking is a, x, c, b, d, f: six documents, relevant at level 1 at ranks 1, 3 and 6
/// (R = 4: a, c, e, f), and x and d (negative: in the pool but unjudged) unjudged.
pub(super) fn tied_example(measures: &str) -> BTreeMap<String, f64> {
    let qrels = qrels_of(&[
        ("1", "a", 2),
        ("1", "b", 0),
        ("1", "c", 1),
        ("1", "d", -1),
        ("1", "e", 3),
        ("1", "f", 1),
    ]);
    let mut run = run_of(&[("1", &["a", "x", "b", "c", "d", "f"])]);
    for (doc, score) in run.topics[0]
        .docs
        .iter_mut()
        .zip([5.0, 4.0, 3.0, 3.0, 2.0, 1.0])
    {
        doc.score = score;
    }
    run.topics[0].docs.sort_by(crate::io::run::trec_order);
    scores(&qrels, &run, measures, false)
}

#[test]
fn rbp_by_hand() {
    let values = tied_example("RBP(p=0.5) RBP(p=0.5)@2 RBP(p=0.5)@10 RBP(rel=2,p=0.5) RBP");
    // (1 - p) p^(rank - 1) at the relevant ranks 1, 3 and 6.
    let full = 0.5 * (1.0 + 0.25 + 0.5f64.powi(5));
    assert_abs_diff_eq!(values["RBP(p=0.5)/1"], full, epsilon = 1e-12);
    assert_abs_diff_eq!(values["RBP(p=0.5)@2/1"], 0.5, epsilon = 1e-12);
    // A cutoff past the end of the run adds nothing.
    assert_abs_diff_eq!(values["RBP(p=0.5)@10/1"], full, epsilon = 1e-12);
    // At level 2 only a counts; e (grade 3) was never retrieved.
    assert_abs_diff_eq!(values["RBP(rel=2,p=0.5)/1"], 0.5, epsilon = 1e-12);
    // The default persistence 0.8: ranks 1, 3, 6.
    let default = 0.2 * (1.0 + 0.8f64.powi(2) + 0.8f64.powi(5));
    assert_abs_diff_eq!(values["RBP(p=0.8)/1"], default, epsilon = 1e-12);
}

#[test]
fn rbp_residual_by_hand() {
    let values =
        tied_example("RBPResidual(p=0.5) RBPResidual(p=0.5)@2 RBPResidual(p=0.5)@10 RBP(p=0.5)@10");
    // Unjudged x at rank 2 and d at rank 5, plus the ranks past the run's six: p^6.
    let unjudged = 0.5 * (0.5 + 0.5f64.powi(4));
    assert_abs_diff_eq!(
        values["RBPResidual(p=0.5)/1"],
        unjudged + 0.5f64.powi(6),
        epsilon = 1e-12
    );
    // Within the top 2 only x is unjudged, and no rank is missing.
    assert_abs_diff_eq!(values["RBPResidual(p=0.5)@2/1"], 0.25, epsilon = 1e-12);
    // Ranks 7 to 10 are missing: p^6 - p^10.
    let at_10 = unjudged + 0.5f64.powi(6) - 0.5f64.powi(10);
    assert_abs_diff_eq!(values["RBPResidual(p=0.5)@10/1"], at_10, epsilon = 1e-12);
    // RBP + residual is RBP with every unjudged document and missing rank relevant: every
    // rank of the top 10 but b's, rank 4.
    let upper: f64 = (0..10)
        .filter(|&pos| pos != 3)
        .map(|pos| 0.5 * 0.5f64.powi(pos))
        .sum();
    assert_abs_diff_eq!(values["RBP(p=0.5)@10/1"] + at_10, upper, epsilon = 1e-12);
}

#[test]
fn err_by_hand() {
    let values = tied_example("ERR@1 ERR@3 ERR@10");
    // Stop probabilities (2^g - 1) / 16: a 3/16, c 1/16, f 1/16; x, b, d stop nobody.
    let (a, c, f) = (3.0 / 16.0, 1.0 / 16.0, 1.0 / 16.0);
    assert_abs_diff_eq!(values["ERR@1/1"], a, epsilon = 1e-12);
    let at_3 = a + (1.0 - a) * c / 3.0;
    assert_abs_diff_eq!(values["ERR@3/1"], at_3, epsilon = 1e-12);
    let at_10 = at_3 + (1.0 - a) * (1.0 - c) * f / 6.0;
    assert_abs_diff_eq!(values["ERR@10/1"], at_10, epsilon = 1e-12);
}

#[test]
fn err_counts_grades_above_four_as_four() {
    let qrels = qrels_of(&[("1", "a", 5), ("1", "b", 4)]);
    let run = run_of(&[("1", &["b", "a"])]);
    let values = scores(&qrels, &run, "ERR@5", false);
    let top = 15.0 / 16.0;
    assert_abs_diff_eq!(
        values["ERR@5/1"],
        top + (1.0 - top) * top / 2.0,
        epsilon = 1e-12
    );
}

#[test]
fn condensed_lists_drop_unjudged_documents_before_scoring() {
    let values = tied_example(
        "AP AP(judged_only=True) P@2 P(judged_only=True)@2 P(judged_only=True)@10 \
         nDCG(judged_only=True)@3 RR(judged_only=True)",
    );
    // The condensed ranking is a (2), c (1), b (0), f (1): x and the negative d are dropped.
    assert_abs_diff_eq!(
        values["map/1"],
        (1.0 + 2.0 / 3.0 + 3.0 / 6.0) / 4.0,
        epsilon = 1e-12
    );
    assert_abs_diff_eq!(
        values["map(judged_only=True)/1"],
        (1.0 + 1.0 + 3.0 / 4.0) / 4.0,
        epsilon = 1e-12
    );
    assert_abs_diff_eq!(values["P_2/1"], 0.5, epsilon = 1e-12);
    assert_abs_diff_eq!(values["P_2(judged_only=True)/1"], 1.0, epsilon = 1e-12);
    // Four judged documents, a cutoff of 10: missing ranks count as non-relevant.
    assert_abs_diff_eq!(values["P_10(judged_only=True)/1"], 0.3, epsilon = 1e-12);
    let discount = |rank: f64| (rank + 1.0).log2();
    let dcg = 2.0 + 1.0 / discount(2.0);
    // The ideal ranking is over every judged document: 3, 2, 1.
    let ideal = 3.0 + 2.0 / discount(2.0) + 1.0 / discount(3.0);
    assert_abs_diff_eq!(
        values["ndcg_cut_3(judged_only=True)/1"],
        dcg / ideal,
        epsilon = 1e-12
    );
    assert_abs_diff_eq!(
        values["recip_rank(judged_only=True)/1"],
        1.0,
        epsilon = 1e-12
    );
}

#[test]
fn commas_inside_parentheses_separate_parameters_not_measures() {
    let measures = parse_measures(&["map,RBP(rel=1, p=0.9),P.5,10 ERR@10"]).unwrap();
    let names: Vec<String> = measures.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["map", "RBP(rel=1,p=0.9)", "P_5", "P_10", "ERR@10"]);
    let error = parse_measures(&["RBP(rel=1,p=1.5)"])
        .unwrap_err()
        .to_string();
    assert!(error.contains("strictly between 0 and 1"), "{error}");
}
