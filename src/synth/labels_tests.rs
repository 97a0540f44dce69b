//! The labeller: the draw is the table at no shift, moves the whole table with the leniency,
//! spreads the topics with their effect, and gives each document the label its own key decides.
//! Expected values come from the documented rule, computed here apart from the code under test.

use super::*;
use crate::io::qrels::Qrels;

/// Qrels of `per_topic` documents of each true grade 0 to 3 for each of `topics` topics.
fn graded_truth(topics: usize, per_topic: usize) -> Qrels {
    let mut truth = Qrels::default();
    for topic in 0..topics {
        let grades = truth.topics.entry(format!("t{topic}").into()).or_default();
        for grade in 0..4 {
            for doc in 0..per_topic {
                grades.insert(&format!("g{grade}-d{doc}"), grade);
            }
        }
    }
    truth
}

/// Every (topic, document) the truth grades.
fn all_pairs(truth: &Qrels) -> Vec<(String, String)> {
    (truth.topics.iter())
        .flat_map(|(topic, grades)| {
            (grades.judgments().into_iter()).map(|(doc, _)| (topic.to_string(), doc.to_string()))
        })
        .collect()
}

fn as_refs(pairs: &[(String, String)]) -> impl Iterator<Item = (&str, &str)> {
    pairs
        .iter()
        .map(|(topic, doc)| (topic.as_str(), doc.as_str()))
}

/// counts[true grade][label grade] of `labels` against `truth`.
fn confusion_counts(truth: &Qrels, labels: &Qrels) -> [[f64; 4]; 4] {
    let mut counts = [[0.0; 4]; 4];
    for (topic, grades) in &labels.topics {
        for (doc, label) in grades.judgments() {
            let true_grade = truth.topic(topic).and_then(|t| t.grade(doc)).unwrap_or(0);
            counts[true_grade as usize][label as usize] += 1.0;
        }
    }
    counts
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The documented rule, written apart from the code: thresholds `logit(C_gk)` from the row's
/// cumulative shares, `P(label <= k) = logistic(logit(C_gk) - shift)`, and the label is the
/// number of k in 0..=2 with `u >= P(label <= k)`, `u` the document's first uniform keyed by
/// (`keyed_seed(seed, "labels")`, topic, document).
fn documented_label(
    table: &[[f64; 4]; 4],
    seed: u64,
    topic: &str,
    doc: &str,
    truth: i32,
    shift: f64,
) -> i32 {
    let row = table[truth.clamp(0, 3) as usize];
    let total: f64 = row.iter().sum();
    let uniform = document_uniforms(keyed_seed(seed, "labels"), topic, doc)[0];
    let mut cumulative = 0.0;
    let mut label = 0;
    for weight in &row[..3] {
        cumulative += weight / total;
        let threshold = (cumulative / (1.0 - cumulative)).ln(); // +inf when the rest is 0
        if uniform >= logistic(threshold - shift) {
            label += 1;
        }
    }
    label
}

#[test]
fn the_default_table_is_umbrelas_counts_against_nist() {
    let total: u32 = UMBRELA_GPT4_COUNTS.iter().flatten().sum();
    assert_eq!(total, 9_260 + 11_386 + 10_828, "DL19 + DL20 + DL21 pairs");
    let shares = Confusion::default().shares(3);
    // NIST grade 3: 194, 250, 790, 1195 of 2429.
    assert!((shares[3] - 1195.0 / 2429.0).abs() < 1e-12);
    assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert_eq!(Labeller::default().leniency, 0.0);
    assert_eq!(Labeller::default().topic_sd, 0.0);
}

#[test]
fn with_no_shift_the_labels_follow_the_table_within_sampling_error() {
    // 4 topics x 10,000 documents of each true grade: 40,000 draws per row. Pearson's
    // chi-square over the 16 cells (12 degrees of freedom: 4 rows of 4 cells with their totals
    // fixed) must stay under 32.91, its 0.999 quantile; and every cell within 5 binomial
    // standard deviations of its expectation.
    let truth = graded_truth(4, 10_000);
    let labeller = Labeller::default();
    let labels = labeller
        .draw(11, &truth, as_refs(&all_pairs(&truth)))
        .unwrap();
    let counts = confusion_counts(&truth, &labels);
    let mut chi_square = 0.0;
    for (grade, row) in counts.iter().enumerate() {
        let drawn: f64 = row.iter().sum();
        assert_eq!(drawn, 40_000.0);
        let weights = UMBRELA_GPT4_COUNTS[grade].map(f64::from);
        let total: f64 = weights.iter().sum();
        for (label, &count) in row.iter().enumerate() {
            let share = weights[label] / total;
            let expected = drawn * share;
            chi_square += (count - expected).powi(2) / expected;
            let sd = (drawn * share * (1.0 - share)).sqrt();
            assert!(
                (count - expected).abs() <= 5.0 * sd,
                "true {grade}, label {label}: {count} drawn, {expected:.0} expected"
            );
        }
    }
    assert!(chi_square < 32.91, "chi-square {chi_square:.1} on 12 df");
    for grade in 0..4 {
        let shares = labeller.label_shares(grade, 0.0);
        let table = labeller.confusion.shares(grade);
        for label in 0..4 {
            assert!((shares[label] - table[label]).abs() < 1e-12);
        }
    }
}

#[test]
fn every_label_is_the_one_the_documented_rule_gives() {
    let truth = graded_truth(3, 300);
    let pairs = all_pairs(&truth);
    let table = UMBRELA_GPT4_COUNTS.map(|row| row.map(f64::from));
    for (leniency, topic_sd) in [(0.0, 0.0), (1.3, 0.0), (-0.7, 0.8)] {
        let labeller = Labeller {
            leniency,
            topic_sd,
            ..Labeller::default()
        };
        let labels = labeller.draw(5, &truth, as_refs(&pairs)).unwrap();
        for (topic, doc) in &pairs {
            // The topic's effect as documented: topic_sd times the normal keyed by
            // (keyed_seed(seed, "label topic effects"), topic).
            let effect =
                topic_sd * gaussian(keyed_seed(keyed_seed(5, "label topic effects"), topic));
            let true_grade = truth.topic(topic).unwrap().grade(doc).unwrap();
            let expected = documented_label(&table, 5, topic, doc, true_grade, leniency + effect);
            assert_eq!(
                labels.topic(topic).unwrap().grade(doc),
                Some(expected),
                "{topic} {doc}"
            );
        }
    }
}

#[test]
fn leniency_moves_the_whole_table_towards_higher_labels() {
    let truth = graded_truth(4, 5_000);
    let pairs = all_pairs(&truth);
    let mean_labels = |leniency: f64| {
        let labeller = Labeller {
            leniency,
            ..Labeller::default()
        };
        let counts = confusion_counts(&truth, &labeller.draw(3, &truth, as_refs(&pairs)).unwrap());
        counts.map(|row| {
            let total: f64 = row.iter().sum();
            (row.iter().enumerate())
                .map(|(label, n)| label as f64 * n)
                .sum::<f64>()
                / total
        })
    };
    let (strict, neutral, lenient) = (mean_labels(-1.0), mean_labels(0.0), mean_labels(1.0));
    for grade in 0..4 {
        // 20,000 draws a row: a mean label's standard error is under 0.01.
        assert!(
            lenient[grade] > neutral[grade] + 0.1,
            "true {grade}: {lenient:?} vs {neutral:?}"
        );
        assert!(
            strict[grade] < neutral[grade] - 0.1,
            "true {grade}: {strict:?} vs {neutral:?}"
        );
    }
    // Proportional odds: at every true grade and threshold, +1 multiplies the odds of
    // "label above k" by e.
    let labeller = Labeller::default();
    for grade in 0..4 {
        let cumulative = |shift: f64| {
            let shares = labeller.label_shares(grade, shift);
            [
                shares[0],
                shares[0] + shares[1],
                shares[0] + shares[1] + shares[2],
            ]
        };
        let (before, after) = (cumulative(0.0), cumulative(1.0));
        for k in 0..3 {
            let odds_above = |c: f64| (1.0 - c) / c;
            let ratio = odds_above(after[k]) / odds_above(before[k]);
            assert!(
                (ratio - std::f64::consts::E).abs() < 1e-9,
                "true {grade}, k {k}: {ratio}"
            );
        }
    }
}

#[test]
fn the_topic_effect_spreads_the_topics_relevant_shares() {
    // 200 topics of 400 documents of true grade 2 each. The share labelled relevant (>= 2)
    // per topic has a binomial spread of about sqrt(0.72 x 0.28 / 400) = 0.022 without topic
    // effects; with topic_sd 1 the shares move with each topic's shift (about 0.15 at the
    // table's 0.72), several times as spread.
    let mut truth = Qrels::default();
    for topic in 0..200 {
        let grades = truth.topics.entry(format!("t{topic}").into()).or_default();
        for doc in 0..400 {
            grades.insert(&format!("d{doc}"), 2);
        }
    }
    let pairs = all_pairs(&truth);
    let spread = |topic_sd: f64| {
        let labeller = Labeller {
            topic_sd,
            ..Labeller::default()
        };
        let labels = labeller.draw(17, &truth, as_refs(&pairs)).unwrap();
        let shares: Vec<f64> = (labels.topics.values())
            .map(|grades| grades.relevant_count(2) as f64 / grades.len() as f64)
            .collect();
        let mean = shares.iter().sum::<f64>() / shares.len() as f64;
        let variance =
            shares.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (shares.len() - 1) as f64;
        (mean, variance.sqrt())
    };
    let (flat_mean, flat_sd) = spread(0.0);
    let (_, spread_sd) = spread(1.0);
    assert!((flat_mean - 0.717).abs() < 0.01, "{flat_mean}");
    assert!(flat_sd < 0.03, "without topic effects: {flat_sd}");
    assert!(spread_sd > 3.0 * flat_sd, "{spread_sd} against {flat_sd}");
    // The effects themselves: standard normal times the sd, one per topic.
    let labeller = Labeller {
        topic_sd: 2.0,
        ..Labeller::default()
    };
    let effects: Vec<f64> = (0..2_000)
        .map(|t| labeller.topic_effect(9, &format!("t{t}")))
        .collect();
    let mean = effects.iter().sum::<f64>() / 2_000.0;
    let sd = (effects.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / 1_999.0).sqrt();
    assert!(
        mean.abs() < 0.15 && (sd - 2.0).abs() < 0.15,
        "mean {mean}, sd {sd}"
    );
    assert_eq!(Labeller::default().topic_effect(9, "t1"), 0.0);
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_a_label_ignores_the_other_documents() {
    let truth = graded_truth(5, 200);
    let pairs = all_pairs(&truth);
    let labeller = Labeller {
        leniency: 0.4,
        topic_sd: 0.5,
        ..Labeller::default()
    };
    let bytes = |labels: &Qrels| {
        let mut out = Vec::new();
        labels.write_trec(&mut out).unwrap();
        out
    };
    let all = labeller.draw(23, &truth, as_refs(&pairs)).unwrap();
    assert_eq!(
        bytes(&all),
        bytes(&labeller.draw(23, &truth, as_refs(&pairs)).unwrap())
    );
    assert_ne!(
        bytes(&all),
        bytes(&labeller.draw(24, &truth, as_refs(&pairs)).unwrap())
    );
    // Every third document, in reverse order, with documents the truth does not know added.
    let mut some: Vec<(String, String)> = pairs.iter().step_by(3).rev().cloned().collect();
    some.push(("t0".into(), "unknown".into()));
    some.push(("t9".into(), "elsewhere".into()));
    let fewer = labeller.draw(23, &truth, as_refs(&some)).unwrap();
    for (topic, doc) in pairs.iter().step_by(3) {
        assert_eq!(
            fewer.topic(topic).unwrap().grade(doc),
            all.topic(topic).unwrap().grade(doc)
        );
    }
    assert_eq!(fewer.len(), pairs.len().div_ceil(3) + 2);
}

#[test]
fn a_document_the_truth_does_not_grade_is_labelled_as_true_grade_zero() {
    // Row 0 always labels 3, the other rows always 0: only true grade 0 gives a 3.
    let confusion = Confusion::new([
        [0.0, 0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [5.0, 0.0, 0.0, 0.0],
    ])
    .unwrap();
    let labeller = Labeller {
        confusion,
        ..Labeller::default()
    };
    let mut truth = Qrels::default();
    let grades = truth.topics.entry("1".into()).or_default();
    grades.insert("judged", 2);
    grades.insert("high", 7);
    let pairs = [
        ("1", "judged"),
        ("1", "high"),
        ("1", "unjudged"),
        ("2", "other topic"),
    ];
    let labels = labeller.draw(1, &truth, pairs).unwrap();
    let label = |topic: &str, doc: &str| labels.topic(topic).unwrap().grade(doc).unwrap();
    assert_eq!(label("1", "judged"), 0);
    assert_eq!(label("1", "high"), 0, "grades above 3 count as 3");
    assert_eq!(label("1", "unjudged"), 3);
    assert_eq!(label("2", "other topic"), 3);
}

#[test]
fn a_cell_of_weight_zero_is_never_drawn_however_lenient() {
    let confusion = Confusion::new([[1.0, 1.0, 0.0, 0.0]; 4]).unwrap();
    let labeller = Labeller {
        confusion,
        leniency: 30.0,
        topic_sd: 3.0,
    };
    let truth = graded_truth(2, 500);
    let labels = labeller
        .draw(2, &truth, as_refs(&all_pairs(&truth)))
        .unwrap();
    let counts = confusion_counts(&truth, &labels);
    assert!(
        counts.iter().all(|row| row[2] == 0.0 && row[3] == 0.0),
        "{counts:?}"
    );
    assert!(counts.iter().all(|row| row[1] > 0.0));
}

#[test]
fn bad_settings_are_refused() {
    assert!(Confusion::new([[1.0, 0.0, 0.0, 0.0], [0.0; 4], [1.0; 4], [1.0; 4]]).is_err());
    assert!(Confusion::new([[1.0, -1.0, 1.0, 0.0], [1.0; 4], [1.0; 4], [1.0; 4]]).is_err());
    assert!(Confusion::new([[1.0, f64::NAN, 1.0, 0.0], [1.0; 4], [1.0; 4], [1.0; 4]]).is_err());
    assert!(Confusion::new([[1e308, 1e308, 0.0, 0.0], [1.0; 4], [1.0; 4], [1.0; 4]]).is_err());
    let truth = graded_truth(1, 1);
    for (leniency, topic_sd) in [
        (f64::NAN, 0.0),
        (f64::INFINITY, 0.0),
        (0.0, -1.0),
        (0.0, f64::NAN),
    ] {
        let labeller = Labeller {
            leniency,
            topic_sd,
            ..Labeller::default()
        };
        let error = labeller.draw(1, &truth, [("t0", "g0-d0")]).unwrap_err();
        assert!(error.to_string().contains("label"), "{error}");
    }
}

#[test]
fn run_tops_hold_each_runs_top_documents_once() {
    use crate::io::run::{RankedDoc, RunTopic};
    let ranking = |topic: &str, docs: &[&str]| RunTopic {
        topic: topic.into(),
        docs: (docs.iter())
            .map(|doc| RankedDoc {
                docid: (*doc).into(),
                score: 1.0,
            })
            .collect(),
    };
    let run = |tag: &str, topics: Vec<RunTopic>| Run {
        tag: tag.into(),
        path: tag.into(),
        topics,
    };
    let runs = [
        run(
            "a",
            vec![ranking("1", &["x", "y", "z"]), ranking("2", &["x"])],
        ),
        run("b", vec![ranking("1", &["y", "w", "v"])]),
    ];
    let tops: Vec<(&str, &str)> = run_tops(&runs, 2).into_iter().collect();
    assert_eq!(tops, [("1", "w"), ("1", "x"), ("1", "y"), ("2", "x")]);
}

#[test]
fn the_labeller_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Labeller>();
}
