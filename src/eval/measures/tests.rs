//! Hand-computed cases of the measures beyond trec_eval's classic ones, scored through the
//! evaluator: those trec_eval lacks (RBP and its residual, ERR), the condensed variants, and
//! trec_eval's own newer ones (infAP, the geometric means, interpolated precision, the gain
//! measures, the set measures, trec_eval's graded RBP). Most use one small topic with a tie in
//! scores, an unjudged document, a negative grade and a run shorter than some cutoffs.

use std::collections::BTreeMap;

use approx::assert_abs_diff_eq;

use crate::eval::tests::{qrels_of, run_of, scores};
use crate::eval::TrecEvalVersion;

/// Grades a=2, b=0, c=1, d=-1, e=3 (never retrieved), f=1; the run scores a 5, x 4 (unjudged),
/// c 3, b 3, d 2, f 1. The tie between c and b is broken as trec_eval does (docid descending),
/// so the ranking is a, x, c, b, d, f: six documents, relevant at level 1 at ranks 1, 3 and 6
/// (R = 4: a, c, e, f), and x and d (negative: in the pool but unjudged) unjudged.
fn tied_example(measures: &str) -> BTreeMap<String, f64> {
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
fn set_measures_and_utility_by_hand() {
    let values = tied_example(
        "set_P set_recall set_relative_P set_map set_F set_F.0.5 utility utility.2,-1,-1,0 \
         utility.1,-1,0,2 num_nonrel_judged_ret",
    );
    // Six retrieved, three of them relevant, of four relevant in all.
    let (precision, recall) = (3.0 / 6.0, 3.0 / 4.0);
    assert_abs_diff_eq!(values["set_P/1"], precision, epsilon = 1e-12);
    assert_abs_diff_eq!(values["set_recall/1"], recall, epsilon = 1e-12);
    assert_abs_diff_eq!(values["set_relative_P/1"], 3.0 / 4.0, epsilon = 1e-12);
    assert_abs_diff_eq!(values["set_map/1"], precision * recall, epsilon = 1e-12);
    let f = |beta: f64| (beta + 1.0) * precision * recall / (beta * precision + recall);
    assert_abs_diff_eq!(values["set_F/1"], f(1.0), epsilon = 1e-12);
    assert_abs_diff_eq!(values["set_F_0.5/1"], f(0.5), epsilon = 1e-12);
    // 1 × relevant retrieved − 1 × the others retrieved; then 2, −1, −1 × relevant missed.
    assert_abs_diff_eq!(values["utility/1"], 3.0 - 3.0, epsilon = 1e-12);
    assert_abs_diff_eq!(
        values["utility_2,-1,-1,0/1"],
        6.0 - 3.0 - 1.0,
        epsilon = 1e-12
    );
    // The fourth coefficient weighs the documents neither retrieved nor relevant: the
    // collection's size (trec_eval's default -N, 0) less the 6 retrieved and the 1 relevant
    // missed, -7.
    assert_abs_diff_eq!(
        values["utility_1,-1,0,2/1"],
        3.0 - 3.0 + 2.0 * -7.0,
        epsilon = 1e-12
    );
    // b alone: x is not judged and d's negative grade means pooled but not judged.
    assert_eq!(values["num_nonrel_judged_ret/1"], 1.0);
    assert_eq!(values["num_nonrel_judged_ret/all"], 1.0, "a count sums");
}

#[test]
fn success_relative_precision_and_r_precision_multiples_by_hand() {
    let values = tied_example("success.1,2 relative_P.2,5,10 Rprec_mult.0.2,0.5,0.6,2.0");
    assert_eq!(values["success_1/1"], 1.0);
    assert_eq!(values["success_2/1"], 1.0);
    // Relevant in the top k over min(k, R).
    assert_abs_diff_eq!(values["relative_P_2/1"], 1.0 / 2.0, epsilon = 1e-12);
    assert_abs_diff_eq!(values["relative_P_5/1"], 2.0 / 4.0, epsilon = 1e-12);
    assert_abs_diff_eq!(values["relative_P_10/1"], 3.0 / 4.0, epsilon = 1e-12);
    // Precision at ⌊m × R + 0.9⌋: ranks 1, 2, 3 and 8 (past the run's six documents).
    assert_abs_diff_eq!(values["Rprec_mult_0.20/1"], 1.0, epsilon = 1e-12);
    assert_abs_diff_eq!(values["Rprec_mult_0.50/1"], 1.0 / 2.0, epsilon = 1e-12);
    assert_abs_diff_eq!(values["Rprec_mult_0.60/1"], 2.0 / 3.0, epsilon = 1e-12);
    assert_abs_diff_eq!(values["Rprec_mult_2.00/1"], 3.0 / 8.0, epsilon = 1e-12);
}

#[test]
fn success_at_one_follows_the_tie_order() {
    // b and a tie: trec_eval ranks the larger docid first, so b (non-relevant) comes first.
    let qrels = qrels_of(&[("1", "a", 1), ("1", "b", 0)]);
    let mut run = run_of(&[("1", &["a", "b"])]);
    for doc in &mut run.topics[0].docs {
        doc.score = 1.0;
    }
    run.topics[0].docs.sort_by(crate::io::run::trec_order);
    let values = scores(&qrels, &run, "success.1,2", false);
    assert_eq!(values["success_1/1"], 0.0);
    assert_eq!(values["success_2/1"], 1.0);
}

#[test]
fn inferred_average_precision_by_hand() {
    let values = tied_example("infAP");
    let epsilon = 0.00001;
    // At each judged relevant document at rank k > 1: 1/k + (k−1)/k × (judged and pooled
    // above)/(k−1) × (relevant above + ε)/(judged above + 2ε). x was never pooled and counts
    // as non-relevant; d is pooled but unjudged.
    let at_c = 1.0 / 3.0 + (2.0 / 3.0) * (1.0 / 2.0) * ((1.0 + epsilon) / (1.0 + 2.0 * epsilon));
    let at_f = 1.0 / 6.0 + (5.0 / 6.0) * (4.0 / 5.0) * ((2.0 + epsilon) / (3.0 + 2.0 * epsilon));
    assert_abs_diff_eq!(
        values["infAP/1"],
        (1.0 + at_c + at_f) / 4.0,
        epsilon = 1e-12
    );
}

#[test]
fn geometric_means_floor_a_zero_at_one_in_a_hundred_thousand() {
    // Topic 1: AP 1/2 (its only relevant document at rank 2), bpref 0 (b above it);
    // topic 2: nothing relevant retrieved.
    let qrels = qrels_of(&[("1", "a", 1), ("1", "b", 0), ("2", "c", 1)]);
    let run = run_of(&[("1", &["b", "a"]), ("2", &["z"])]);
    let values = scores(&qrels, &run, "map gm_map gm_bpref", false);
    let floor: f64 = 0.00001;
    assert_abs_diff_eq!(values["gm_map/1"], 0.5f64.ln(), epsilon = 1e-12);
    assert_abs_diff_eq!(values["gm_map/2"], floor.ln(), epsilon = 1e-12);
    let geometric = ((0.5f64.ln() + floor.ln()) / 2.0).exp();
    assert_abs_diff_eq!(values["gm_map/all"], geometric, epsilon = 1e-12);
    assert_abs_diff_eq!(values["map/all"], 0.25, epsilon = 1e-12);
    assert_abs_diff_eq!(values["gm_bpref/1"], floor.ln(), epsilon = 1e-12);
    assert_abs_diff_eq!(values["gm_bpref/all"], floor, epsilon = 1e-12);
}

/// Relevant, non-relevant, relevant, non-relevant, non-relevant, relevant; R = 4, so the
/// precision at the relevant ranks is 1, 2/3 and 1/2, and recall 1 is never reached.
fn interpolated_example(measures: &str, version: TrecEvalVersion) -> BTreeMap<String, f64> {
    let qrels = qrels_of(&[
        ("1", "r1", 1),
        ("1", "n1", 0),
        ("1", "r2", 1),
        ("1", "n2", 0),
        ("1", "n3", 0),
        ("1", "r3", 1),
        ("1", "r4", 1),
    ]);
    let run = run_of(&[("1", &["r1", "n1", "r2", "n2", "n3", "r3"])]);
    let measures = crate::eval::selection::Selection::parse(&[measures], version)
        .unwrap()
        .measures;
    let options = crate::eval::EvalOptions {
        measures,
        relevance_level: 1,
        complete: false,
        max_docs: None,
        relstring: None,
    };
    let evaluator = crate::eval::Evaluator::new(&qrels, options);
    let evaluation = evaluator.evaluate(&run);
    evaluator
        .options()
        .measures
        .iter()
        .zip(&evaluation.summary)
        .map(|(measure, value)| (measure.to_string(), *value))
        .collect()
}

#[test]
fn interpolated_precision_by_hand_in_both_versions() {
    let levels = "iprec_at_recall.0,.25,.5,.6,.75,1";
    let nine = interpolated_example(levels, TrecEvalVersion::Nine);
    // The highest precision at or after the rank of the ⌊L × 4 + 0.9⌋-th relevant document.
    assert_abs_diff_eq!(nine["iprec_at_recall_0.00"], 1.0, epsilon = 1e-12);
    assert_abs_diff_eq!(nine["iprec_at_recall_0.25"], 1.0, epsilon = 1e-12);
    assert_abs_diff_eq!(nine["iprec_at_recall_0.50"], 2.0 / 3.0, epsilon = 1e-12);
    assert_abs_diff_eq!(nine["iprec_at_recall_0.60"], 1.0 / 2.0, epsilon = 1e-12);
    assert_abs_diff_eq!(nine["iprec_at_recall_0.75"], 1.0 / 2.0, epsilon = 1e-12);
    assert_abs_diff_eq!(nine["iprec_at_recall_1.00"], 0.0, epsilon = 1e-12);
    // trec_eval 10 rounds L × 4: 2.4 is 2 relevant documents, where 9.0.8 needs 3.
    let ten = interpolated_example(levels, TrecEvalVersion::Ten);
    assert_abs_diff_eq!(ten["iprec_at_recall_0.60"], 2.0 / 3.0, epsilon = 1e-12);
    assert_abs_diff_eq!(ten["iprec_at_recall_0.50"], 2.0 / 3.0, epsilon = 1e-12);
    // 11 points: 1 at 0, .1, .2; 2/3 at .3, .4, .5; 1/2 at .6, .7; 0 from .8 on.
    let eleven = interpolated_example("11pt_avg", TrecEvalVersion::Nine);
    assert_abs_diff_eq!(
        eleven["11pt_avg"],
        (3.0 + 3.0 * 2.0 / 3.0 + 2.0 * 0.5) / 11.0,
        epsilon = 1e-12
    );
    let three = interpolated_example("11pt_avg..25,.5,.75", TrecEvalVersion::Nine);
    assert_abs_diff_eq!(
        three["11pt_avg_.25,.5,.75"],
        (1.0 + 2.0 / 3.0 + 0.5) / 3.0,
        epsilon = 1e-12
    );
}

#[test]
fn binary_g_follows_the_tie_order() {
    let values = tied_example("binG");
    // 1 / log2(2 + the documents above that are not relevant) at a, c and f, over R = 4; c
    // ranks above b, its tied partner, so only x is above it.
    let expected = (1.0 / 2f64.log2() + 1.0 / 3f64.log2() + 1.0 / 5f64.log2()) / 4.0;
    assert_abs_diff_eq!(values["binG/1"], expected, epsilon = 1e-12);
}

#[test]
fn gain_measures_by_hand() {
    let values = tied_example("G ndcg_rel Rndcg");
    let log2 = |x: f64| x.log2();
    // Gains are the grades; the ideal ranking is e (3), a (2), c (1), f (1).
    // G: each gain over log2(2 + cost so far − gain so far), the cost of a rank being its
    // ideal gain, at least 1: costs 3, 2, 1, 1, 1, 1.
    let g =
        (2.0 / log2(2.0 + 3.0 - 2.0) + 1.0 / log2(2.0 + 6.0 - 3.0) + 1.0 / log2(2.0 + 9.0 - 4.0))
            / 7.0;
    assert_abs_diff_eq!(values["G/1"], g, epsilon = 1e-12);
    // The discounted gains so far, and the ideal's, after ranks 1 to 4.
    let dcg = [2.0, 2.0, 2.0 + 1.0 / log2(4.0), 2.0 + 1.0 / log2(4.0)];
    let ideal = [
        3.0,
        3.0 + 2.0 / log2(3.0),
        3.0 + 2.0 / log2(3.0) + 1.0 / log2(4.0),
        3.0 + 2.0 / log2(3.0) + 1.0 / log2(4.0) + 1.0 / log2(5.0),
    ];
    let dcg_end = dcg[3] + 1.0 / log2(7.0);
    // ndcg_rel: nDCG at each relevant document retrieved (ranks 1, 3, 6), and at the end for
    // e, which the run misses, over the four relevant documents.
    let ndcg_rel = (dcg[0] / ideal[0] + dcg[2] / ideal[2] + 2.0 * dcg_end / ideal[3]) / 4.0;
    assert_abs_diff_eq!(values["ndcg_rel/1"], ndcg_rel, epsilon = 1e-12);
    // Rndcg: nDCG where the ideal gain changes (after ranks 1, 2 and 4) and at the run's end.
    let rndcg =
        (dcg[0] / ideal[0] + dcg[1] / ideal[1] + dcg[3] / ideal[3] + dcg_end / ideal[3]) / 4.0;
    assert_abs_diff_eq!(values["Rndcg/1"], rndcg, epsilon = 1e-12);
}

#[test]
fn graded_gains_can_be_given() {
    let values = tied_example("ndcg.1=3,2=9,3=0");
    let log2 = |x: f64| x.log2();
    // a gains 9, c and f 3, e nothing: the ideal ranking is a, c, f.
    let dcg = 9.0 + 3.0 / log2(4.0) + 3.0 / log2(7.0);
    let ideal = 9.0 + 3.0 / log2(3.0) + 3.0 / log2(4.0);
    assert_abs_diff_eq!(values["ndcg_1=3,2=9,3=0/1"], dcg / ideal, epsilon = 1e-12);
}

#[test]
fn trec_eval_graded_rbp_and_its_residual_by_hand() {
    let values = tied_example("rbp rbp.p=0.5 rbp_resid");
    // Gains rescaled into [0, 1] by the highest grade, 3: a 2/3, c and f 1/3.
    let rbp = |p: f64| (1.0 - p) * (2.0 / 3.0 + p.powi(2) / 3.0 + p.powi(5) / 3.0);
    assert_abs_diff_eq!(values["rbp/1"], rbp(0.9), epsilon = 1e-12);
    assert_abs_diff_eq!(values["rbp_p=0.5/1"], rbp(0.5), epsilon = 1e-12);
    // The weight of x (rank 2) and d (rank 5), and all of it past rank 6.
    let residual = 0.1 * (0.9 + 0.9f64.powi(4)) + 0.9f64.powi(6);
    assert_abs_diff_eq!(values["rbp_resid/1"], residual, epsilon = 1e-12);
}

#[test]
fn set_measures_score_an_empty_ranking_zero() {
    // Topic 2 is in the qrels only; with -c it counts as an empty ranking.
    let qrels = qrels_of(&[("1", "a", 1), ("2", "b", 1), ("2", "c", 0)]);
    let run = run_of(&[("1", &["a"])]);
    let values = scores(
        &qrels,
        &run,
        "set_P set_recall set_F utility infAP binG G",
        true,
    );
    for measure in [
        "set_P",
        "set_recall",
        "set_F",
        "utility",
        "infAP",
        "binG",
        "G",
    ] {
        assert_eq!(values[&format!("{measure}/2")], 0.0, "{measure}");
    }
    assert_abs_diff_eq!(values["set_P/all"], 0.5, epsilon = 1e-12);
}

#[test]
fn ranx_measures_by_hand() {
    let values = tied_example(
        "hits hits@3 hits@10 f1 f1@2 f1@10 dcg@3 dcg_burges@3 ndcg_burges@3 ndcg_burges",
    );
    // Relevant at ranks 1, 3 and 6 (a grade 2, c grade 1, f grade 1); R = 4.
    assert_eq!(values["hits/1"], 3.0);
    assert_eq!(values["hits@3/1"], 2.0);
    assert_eq!(values["hits@10/1"], 3.0);
    assert_eq!(
        values["hits/all"], 3.0,
        "hits is a mean over topics, not a sum"
    );
    let f1 = |precision: f64, recall: f64| 2.0 * precision * recall / (precision + recall);
    assert_abs_diff_eq!(values["f1/1"], f1(3.0 / 6.0, 3.0 / 4.0), epsilon = 1e-12);
    assert_abs_diff_eq!(values["f1@2/1"], f1(1.0 / 2.0, 1.0 / 4.0), epsilon = 1e-12);
    // Precision at 10 divides by 10 although the run has 6 documents.
    assert_abs_diff_eq!(
        values["f1@10/1"],
        f1(3.0 / 10.0, 3.0 / 4.0),
        epsilon = 1e-12
    );
    // Gains at ranks 1 and 3, discounts log2(2) = 1 and log2(4) = 2.
    assert_abs_diff_eq!(values["dcg@3/1"], 2.0 + 1.0 / 2.0, epsilon = 1e-12);
    let burges = 3.0 + 1.0 / 2.0;
    assert_abs_diff_eq!(values["dcg_burges@3/1"], burges, epsilon = 1e-12);
    // The ideal ranking: e (3), a (2), c (1), f (1), gains 7, 3, 1, 1.
    let ideal_at_3 = 7.0 + 3.0 / 3f64.log2() + 1.0 / 2.0;
    assert_abs_diff_eq!(
        values["ndcg_burges@3/1"],
        burges / ideal_at_3,
        epsilon = 1e-12
    );
    let dcg = burges + 1.0 / 7f64.log2();
    let ideal = ideal_at_3 + 1.0 / 5f64.log2();
    assert_abs_diff_eq!(values["ndcg_burges/1"], dcg / ideal, epsilon = 1e-12);
}
