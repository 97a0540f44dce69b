//! Hand-computed cases and invariants of the evaluator, on inline qrels and runs.

use std::collections::BTreeMap;

use approx::assert_abs_diff_eq;
use proptest::prelude::*;

use super::*;
use crate::base::error::Warning;
use crate::base::Grade;
use crate::io::qrels::Qrels;
use crate::io::qrels::TopicQrels;
use crate::io::run::Run;
use crate::io::run::{RankedDoc, RunTopic};

pub(super) fn qrels_of(judgments: &[(&str, &str, Grade)]) -> Qrels {
    let mut qrels = Qrels::default();
    for (topic, docid, grade) in judgments {
        qrels
            .topics
            .entry((*topic).into())
            .or_insert_with(TopicQrels::default)
            .insert(docid, *grade);
    }
    qrels
}

/// A run whose rankings are given best first (scores descend with position).
pub(super) fn run_of(rankings: &[(&str, &[&str])]) -> Run {
    let mut topics: Vec<RunTopic> = rankings
        .iter()
        .map(|(topic, docids)| RunTopic {
            topic: (*topic).into(),
            docs: docids
                .iter()
                .enumerate()
                .map(|(pos, docid)| RankedDoc {
                    docid: (*docid).into(),
                    score: (1000 - pos) as f32,
                })
                .collect(),
        })
        .collect();
    topics.sort_by(|a, b| a.topic.cmp(&b.topic));
    Run {
        tag: "run".into(),
        path: "run".into(),
        topics,
    }
}

pub(super) fn scores(
    qrels: &Qrels,
    run: &Run,
    specs: &str,
    complete: bool,
) -> BTreeMap<String, f64> {
    let options = EvalOptions {
        measures: parse_measures(&[specs]).unwrap(),
        relevance_level: 1,
        complete,
        max_docs: None,
        relstring: None,
    };
    let evaluator = Evaluator::new(qrels, options);
    let evaluation = evaluator.evaluate(run);
    let mut values = BTreeMap::new();
    for (topic, topic_values) in &evaluation.topics {
        for (measure, value) in evaluator.options().measures.iter().zip(topic_values) {
            values.insert(format!("{measure}/{topic}"), *value);
        }
    }
    for (measure, value) in evaluator.options().measures.iter().zip(&evaluation.summary) {
        values.insert(format!("{measure}/all"), *value);
    }
    values
}

#[test]
fn ncg_judged_and_unjudged_by_hand() {
    // Topic 1: grades a=3, b=1, c=0, e=2; the run retrieves b, x (unjudged), a, c.
    let qrels = qrels_of(&[("1", "a", 3), ("1", "b", 1), ("1", "c", 0), ("1", "e", 2)]);
    let run = run_of(&[("1", &["b", "x", "a", "c"])]);
    let values = scores(&qrels, &run, "ncg_cut.2,10 judged.2,10 unj.2,10", false);
    // NCG@2: gains 1+0 over ideal 3+2; NCG@10: 1+3 over 3+2+1.
    assert_eq!(values["ncg_cut_2/1"], 1.0 / 5.0);
    assert_eq!(values["ncg_cut_10/1"], 4.0 / 6.0);
    // Judged@2: 1 of 2; Judged@10 on a run of 4: 3 of min(10, 4).
    assert_eq!(values["judged_2/1"], 0.5);
    assert_eq!(values["judged_10/1"], 0.75);
    // unj@10 divides by 10 whatever the run length (trec_eval 10).
    assert_eq!(values["unj_2/1"], 0.5);
    assert_eq!(values["unj_10/1"], 0.1);
}

#[test]
fn ncg_with_graded_relevance_and_tied_scores_by_hand() {
    // Topic 1: grades a=3, b=2, c=1, d=0. Scores c 2, a 1, b 1, d 0.5: the tie between a and
    // b is broken as trec_eval does (docid descending), so the ranking is c, b, a, d.
    // Topic 2: grades p=2, q=2, r=2, s=1, t=-1; the run ranks s, t, y (unjudged), p.
    let qrels = qrels_of(&[
        ("1", "a", 3),
        ("1", "b", 2),
        ("1", "c", 1),
        ("1", "d", 0),
        ("2", "p", 2),
        ("2", "q", 2),
        ("2", "r", 2),
        ("2", "s", 1),
        ("2", "t", -1),
    ]);
    let mut run = run_of(&[("1", &["c", "a", "b", "d"]), ("2", &["s", "t", "y", "p"])]);
    for (doc, score) in run.topics[0].docs.iter_mut().zip([2.0, 1.0, 1.0, 0.5]) {
        doc.score = score;
    }
    run.topics[0].docs.sort_by(crate::io::run::trec_order);
    let values = scores(&qrels, &run, "ncg_cut.1,2,3,5", false);
    // Topic 1, ideal gains 3, 2, 1, (0).
    assert_abs_diff_eq!(values["ncg_cut_1/1"], 1.0 / 3.0);
    assert_abs_diff_eq!(values["ncg_cut_2/1"], (1.0 + 2.0) / (3.0 + 2.0));
    assert_abs_diff_eq!(values["ncg_cut_3/1"], (1.0 + 2.0 + 3.0) / (3.0 + 2.0 + 1.0));
    assert_abs_diff_eq!(values["ncg_cut_5/1"], 1.0);
    // Topic 2, ideal gains 2, 2, 2, 1; t's negative grade gains nothing.
    assert_abs_diff_eq!(values["ncg_cut_1/2"], 1.0 / 2.0);
    assert_abs_diff_eq!(values["ncg_cut_2/2"], 1.0 / (2.0 + 2.0));
    assert_abs_diff_eq!(values["ncg_cut_3/2"], 1.0 / (2.0 + 2.0 + 2.0));
    assert_abs_diff_eq!(values["ncg_cut_5/2"], (1.0 + 2.0) / (2.0 + 2.0 + 2.0 + 1.0));
    assert_abs_diff_eq!(
        values["ncg_cut_2/all"],
        (3.0 / 5.0 + 1.0 / 4.0) / 2.0,
        epsilon = 1e-12
    );
}

/// One topic for the hand-computed examples: grades a=2, b=0, c=1, d=1, e=0, f=2, so R = 4
/// relevant (a, c, d, f) and N = 2 judged non-relevant (b, e); the run ranks b, a, x
/// (unjudged), c, e, d and misses f. Relevant documents sit at ranks 2, 4 and 6.
fn hand_example(measures: &str) -> BTreeMap<String, f64> {
    let qrels = qrels_of(&[
        ("1", "a", 2),
        ("1", "b", 0),
        ("1", "c", 1),
        ("1", "d", 1),
        ("1", "e", 0),
        ("1", "f", 2),
    ]);
    let run = run_of(&[("1", &["b", "a", "x", "c", "e", "d"])]);
    scores(&qrels, &run, measures, false)
}

#[test]
fn map_and_map_cut_by_hand() {
    let values = hand_example("map map_cut.2,4");
    // AP: precision at each relevant rank (1/2, 2/4, 3/6), summed over R = 4 (f never found).
    assert_abs_diff_eq!(values["map/1"], (0.5 + 0.5 + 0.5) / 4.0, epsilon = 1e-12);
    // AP@k: only the relevant documents of the top k count; the denominator stays R.
    assert_abs_diff_eq!(values["map_cut_2/1"], 0.5 / 4.0, epsilon = 1e-12);
    assert_abs_diff_eq!(values["map_cut_4/1"], (0.5 + 0.5) / 4.0, epsilon = 1e-12);
}

#[test]
fn ndcg_and_ndcg_cut_by_hand() {
    let values = hand_example("ndcg ndcg_cut.3");
    let discount = |rank: f64| (rank + 1.0).log2();
    // Gains are the raw grades: a (2) at rank 2, c (1) at 4, d (1) at 6.
    let dcg = 2.0 / discount(2.0) + 1.0 / discount(4.0) + 1.0 / discount(6.0);
    // The ideal ranks every judged document by grade: 2, 2, 1, 1, 0, 0.
    let ideal =
        2.0 / discount(1.0) + 2.0 / discount(2.0) + 1.0 / discount(3.0) + 1.0 / discount(4.0);
    assert_abs_diff_eq!(values["ndcg/1"], dcg / ideal, epsilon = 1e-12);
    let dcg_3 = 2.0 / discount(2.0);
    let ideal_3 = 2.0 / discount(1.0) + 2.0 / discount(2.0) + 1.0 / discount(3.0);
    assert_abs_diff_eq!(values["ndcg_cut_3/1"], dcg_3 / ideal_3, epsilon = 1e-12);
}

#[test]
fn bpref_by_hand() {
    // trec_eval: 1/R * sum over retrieved relevant r of 1 - min(#judged non-relevant above r,
    // R) / min(R, N). a has b above (1), c has b (1; x is unjudged), d has b and e (2).
    let values = hand_example("bpref");
    let denominator = 2.0; // min(R = 4, N = 2)
    let expected = ((1.0 - 1.0 / denominator) + (1.0 - 1.0 / denominator) + 0.0) / 4.0;
    assert_abs_diff_eq!(values["bpref/1"], expected, epsilon = 1e-12);
}

#[test]
fn rprec_and_recall_by_hand() {
    let values = hand_example("Rprec recall.1,5,10");
    // R-precision: precision at rank R = 4, where a and c are relevant.
    assert_abs_diff_eq!(values["Rprec/1"], 2.0 / 4.0, epsilon = 1e-12);
    // Recall@k: relevant documents in the top k over R.
    assert_abs_diff_eq!(values["recall_1/1"], 0.0, epsilon = 1e-12);
    assert_abs_diff_eq!(values["recall_5/1"], 2.0 / 4.0, epsilon = 1e-12);
    assert_abs_diff_eq!(values["recall_10/1"], 3.0 / 4.0, epsilon = 1e-12);
}

#[test]
fn recip_rank_and_rr_at_k_by_hand() {
    let values = hand_example("recip_rank RR@1 RR@3");
    // The first relevant document is at rank 2; RR@1 sees no relevant document.
    assert_abs_diff_eq!(values["recip_rank/1"], 0.5, epsilon = 1e-12);
    assert_abs_diff_eq!(values["recip_rank_1/1"], 0.0, epsilon = 1e-12);
    assert_abs_diff_eq!(values["recip_rank_3/1"], 0.5, epsilon = 1e-12);
}

#[test]
fn a_topic_without_relevant_documents_scores_zero_but_is_counted() {
    let qrels = qrels_of(&[("1", "a", 1), ("2", "b", 0), ("2", "c", 0)]);
    let run = run_of(&[("1", &["a"]), ("2", &["b", "z"])]);
    let values = scores(&qrels, &run, "map ncg_cut_10 ndcg judged_10 unj_10", false);
    assert_eq!(values["map/2"], 0.0);
    assert_eq!(values["ncg_cut_10/2"], 0.0);
    assert_eq!(values["ndcg/2"], 0.0);
    assert_eq!(values["judged_10/2"], 0.5);
    assert_eq!(values["unj_10/2"], 0.1);
    assert_eq!(values["map/all"], 0.5, "mean over both topics");
}

#[test]
fn negative_grades_are_judged_for_judged_k_unjudged_for_unj_and_never_gain() {
    let qrels = qrels_of(&[("1", "a", -1), ("1", "b", 2), ("1", "c", 0)]);
    let run = run_of(&[("1", &["a", "b", "c"])]);
    let values = scores(
        &qrels,
        &run,
        "judged_3 unj_3 ncg_cut_3 bpref P_3 num_rel",
        false,
    );
    assert_eq!(values["judged_3/1"], 1.0, "Judged@k counts any grade");
    assert_eq!(
        values["unj_3/1"],
        1.0 / 3.0,
        "trec_eval counts a negative grade as unjudged"
    );
    assert_eq!(values["ncg_cut_3/1"], 1.0);
    assert_eq!(
        values["bpref/1"], 1.0,
        "the negative grade ranked above b is skipped"
    );
    assert_eq!(values["P_3/1"], 1.0 / 3.0);
    assert_eq!(values["num_rel/1"], 1.0);
}

#[test]
fn complete_counts_qrels_topics_missing_from_the_run_as_zero() {
    let qrels = qrels_of(&[("1", "a", 1), ("2", "b", 2)]);
    let run = run_of(&[("1", &["a"]), ("9", &["q"])]);
    let plain = scores(&qrels, &run, "ncg_cut_10 judged_10 unj_10 num_rel", false);
    assert_eq!(plain["ncg_cut_10/all"], 1.0);
    assert!(!plain.contains_key("ncg_cut_10/2"));
    let complete = scores(&qrels, &run, "ncg_cut_10 judged_10 unj_10 num_rel", true);
    assert_eq!(complete["ncg_cut_10/2"], 0.0);
    assert_eq!(complete["judged_10/2"], 0.0);
    assert_eq!(complete["unj_10/2"], 0.0);
    assert_eq!(complete["ncg_cut_10/all"], 0.5);
    assert_eq!(complete["judged_10/all"], 0.5);
    assert_eq!(
        complete["num_rel/all"], 2.0,
        "counts are summed, missing topics included"
    );
}

#[test]
fn run_topics_missing_from_the_qrels_are_ignored_with_a_warning() {
    let qrels = qrels_of(&[("1", "a", 1)]);
    let run = run_of(&[("1", &["a"]), ("9", &["q"])]);
    let options = EvalOptions {
        measures: parse_measures(&["map"]).unwrap(),
        relevance_level: 1,
        complete: false,
        max_docs: None,
        relstring: None,
    };
    let evaluation = Evaluator::new(&qrels, options).evaluate(&run);
    assert_eq!(evaluation.topics.len(), 1);
    assert_eq!(
        evaluation.warnings,
        vec![Warning::TopicNotJudged {
            run: "run".into(),
            topic: "9".into()
        }]
    );
}

#[test]
fn tie_order_decides_precision_at_one() {
    // Equal scores: trec_eval ranks docid "b" before "a" (docid descending).
    let qrels = qrels_of(&[("1", "a", 1), ("1", "b", 0)]);
    let mut run = run_of(&[("1", &["a", "b"])]);
    for doc in &mut run.topics[0].docs {
        doc.score = 1.0;
    }
    run.topics[0].docs.sort_by(crate::io::run::trec_order);
    let values = scores(&qrels, &run, "P_1 recip_rank", false);
    assert_eq!(values["P_1/1"], 0.0);
    assert_eq!(values["recip_rank/1"], 0.5);
}

/// A topic's qrels over documents d0..d29 and a run over some of them (unjudged ones included).
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

// The tied example ranks a (2), x (unjudged), c (1), b (0), d (-1: pooled, unjudged), f (1);
// e (3) is never retrieved. At level 1, R = 4 (a, c, e, f), relevant at ranks 1, 3 and 6.

fn qrels_and_run() -> impl Strategy<Value = (Vec<Option<Grade>>, Vec<usize>)> {
    (
        proptest::collection::vec(proptest::option::of(-1i32..4), 30),
        proptest::sample::subsequence((0..40).collect::<Vec<usize>>(), 0..40).prop_shuffle(),
    )
}

fn build(grades: &[Option<Grade>], ranking: &[usize]) -> (Qrels, Run) {
    let judgments: Vec<(String, Grade)> = grades
        .iter()
        .enumerate()
        .filter_map(|(doc, grade)| grade.map(|g| (format!("d{doc}"), g)))
        .chain(std::iter::once(("anchor".to_string(), 0)))
        .collect();
    let qrels = qrels_of(
        &judgments
            .iter()
            .map(|(docid, grade)| ("1", docid.as_str(), *grade))
            .collect::<Vec<_>>(),
    );
    let docids: Vec<String> = ranking.iter().map(|doc| format!("d{doc}")).collect();
    let docid_refs: Vec<&str> = docids.iter().map(String::as_str).collect();
    (qrels, run_of(&[("1", &docid_refs)]))
}

const ALL_MEASURES: &str =
    "map map_cut_10 P_5 recall_10 ndcg ndcg_cut_10 recip_rank RR@3 Rprec bpref judged_10 unj_10 ncg_cut_10";

proptest! {
    #![proptest_config(crate::base::fuzz::property_config(256))]
    #[test]
    fn every_score_lies_in_the_unit_interval((grades, ranking) in qrels_and_run()) {
        let (qrels, run) = build(&grades, &ranking);
        for (name, value) in scores(&qrels, &run, ALL_MEASURES, false) {
            prop_assert!((0.0..=1.0).contains(&value), "{} = {}", name, value);
        }
    }

    #[test]
    fn shuffling_the_lines_of_a_run_changes_nothing(
        (grades, ranking) in qrels_and_run(),
        seed in any::<u64>(),
    ) {
        let (qrels, run) = build(&grades, &ranking);
        let text: Vec<String> = run.topics[0].docs.iter().enumerate()
            .map(|(pos, doc)| format!("1 Q0 {} {} {} tag", doc.docid, pos + 1, doc.score))
            .collect();
        let mut shuffled = text.clone();
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        shuffled.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run");
        std::fs::write(&path, shuffled.join("\n") + "\n").unwrap();
        if !text.is_empty() {
            let reread = crate::io::run::read_run(&path).unwrap();
            prop_assert_eq!(
                scores(&qrels, &reread, ALL_MEASURES, false),
                scores(&qrels, &run, ALL_MEASURES, false)
            );
        }
    }

    #[test]
    fn the_ideal_ranking_scores_one(grades in proptest::collection::vec(-1i32..4, 1..40)) {
        prop_assume!(grades.iter().any(|&grade| grade >= 1));
        let mut order: Vec<usize> = (0..grades.len()).collect();
        order.sort_by_key(|&doc| std::cmp::Reverse(grades[doc]));
        let (qrels, run) = build(&grades.iter().map(|&g| Some(g)).collect::<Vec<_>>(), &order);
        let values = scores(&qrels, &run, "map ndcg ncg_cut_1000 recip_rank Rprec", false);
        for (name, value) in values {
            prop_assert!((value - 1.0).abs() < 1e-12, "{} = {}", name, value);
        }
    }
}
