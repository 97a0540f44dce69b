use super::*;
use crate::audit::others::tests::{table, topic};
use crate::audit::scenarios::{Draw, GainTable, TopicScenarios};
use crate::audit::topic::{TopicAudit, UnjudgedDoc};
use crate::base::{DocId, DocumentGrades};
use crate::eval::{Family, Measure};

/// A draw of the topic's one relevant grade when `is_relevant`.
fn relevant_if(is_relevant: bool) -> Draw {
    if is_relevant {
        Draw::relevant(0)
    } else {
        Draw::NonRelevant
    }
}

/// One topic whose first ranking is the audited run's, with `unjudged` its unjudged
/// documents (ranked first, each with probability 0.5 and one relevant grade, drawn as
/// `draws` and each adding `gain` to its score on `measure`), and the other runs moved by
/// them.
fn one_topic(
    rankings: Vec<Vec<DocId>>,
    judgments: &DocumentGrades,
    measure: Measure,
    unjudged: &[DocId],
    (draws, gain): (Vec<Vec<Draw>>, f64),
) -> (TopicOutcome, OtherRuns, Vec<TopicShifts>) {
    let measures = [measure];
    let others = OtherRuns::new(&table(&rankings, judgments, &measures), &measures, 0);
    // Grade 1 alone, at level 1.
    let grades = TopicScenarios::new(judgments, &[], &measures, 1).grades(&[]);
    let shifts = vec![others.topic_shifts(
        &topic(rankings),
        judgments,
        unjudged,
        &grades.grades,
        (&measures, 1),
    )];
    let mut gains = GainTable::new(1, 1);
    for _ in unjudged {
        gains.push_document([vec![gain]]);
    }
    let outcome = TopicOutcome {
        audit: TopicAudit {
            topic: "1".into(),
            coverage: Default::default(),
            is_model_fitted: true,
            unjudged: (1..=unjudged.len())
                .map(|rank| UnjudgedDoc {
                    docid: format!("new{rank}"),
                    rank,
                    probability: 0.5,
                    is_beyond_pool: false,
                    label: None,
                })
                .collect(),
            scores: Vec::new(),
        },
        unjudged_ids: unjudged.to_vec(),
        samples: draws
            .iter()
            .map(|d| vec![d.iter().filter_map(|drawn| drawn.grade()).count() as f64 * gain])
            .collect(),
        draws,
        grades,
        graded: vec![0.5; unjudged.len()],
        gains,
    };
    (outcome, others, shifts)
}

/// P@1 of an audited run whose one unjudged document, ranked first, is drawn relevant in
/// half the samples; the task's two runs that score 1 rank a judged relevant document first,
/// and its two runs that score 0 rank `rivals_first` first. Returns the risk and the other
/// runs' sampled scores.
fn p1_risk(rivals_first: DocId) -> (MeasureRisk, Vec<Vec<f64>>) {
    const NEW: DocId = 9;
    let judgments: DocumentGrades = [(1, 1), (2, 0)].into_iter().collect();
    let rankings: Vec<Vec<DocId>> = vec![
        vec![NEW, 2],
        vec![1, 2],
        vec![1, 2],
        vec![rivals_first, 2],
        vec![rivals_first, 2],
    ];
    let draws: Vec<Vec<Draw>> = (0..10).map(|s| vec![relevant_if(s % 2 == 0)]).collect();
    let measure = Measure::new(Family::Precision, Some(1));
    let (outcome, others, shifts) = one_topic(rankings, &judgments, measure, &[NEW], (draws, 1.0));
    let outcomes = [outcome];
    (
        measure_risk(&outcomes, (&others, &shifts), 0, 0.0, 2.0),
        others.sample_scores(&outcomes, &shifts, 0),
    )
}

/// The judging list of a run ranking two unjudged documents first on P@2, each drawn
/// relevant in half the samples (independently); the two runs tied with it rank the first
/// of them first too, and the task's two best runs rank judged relevant documents.
#[test]
fn the_list_puts_a_document_the_nearby_runs_share_after_one_only_the_run_ranks() {
    let judgments: DocumentGrades = [(1, 1), (2, 0), (3, 1), (4, 0)].into_iter().collect();
    let rankings: Vec<Vec<DocId>> = vec![
        vec![8, 9, 2],
        vec![1, 3, 2],
        vec![1, 3, 2],
        vec![8, 2, 4],
        vec![8, 2, 4],
    ];
    let draws: Vec<Vec<Draw>> = (0..8)
        .map(|s| vec![relevant_if(s % 2 == 0), relevant_if(s / 2 % 2 == 0)])
        .collect();
    let measure = Measure::new(Family::Precision, Some(2));
    let (outcome, others, shifts) = one_topic(rankings, &judgments, measure, &[8, 9], (draws, 0.5));
    let outcomes = [outcome];
    let risk = measure_risk(&outcomes, (&others, &shifts), 0, 0.0, 2.0);
    let listed = judging_list(
        &outcomes,
        (&others, &shifts),
        std::slice::from_ref(&risk),
        ListMeasures {
            at_risk: &[true],
            served: &[true],
        },
        ListRules {
            threshold: 0.0,
            rank_margin: 2.0,
            per_topic: None,
        },
    );
    let order: Vec<usize> = listed.iter().map(|entry| entry.doc).collect();
    assert_eq!(order[0], 1, "{listed:?}");
    assert!(listed[0].priority > listed.get(1).map_or(0.0, |e| e.priority));
}

/// The run ranks 4th of 5 on the collection; found relevant, its document lifts it to 2nd,
/// unless the two runs tied with it rank that document first too and rise with it (3rd).
#[test]
fn other_runs_that_rank_the_same_documents_rise_with_them() {
    let (alone, _) = p1_risk(2);
    assert_eq!(alone.standings.rank(0.0), 4.0);
    assert_eq!(alone.probability_rank_moves, 0.5);
    let (shared, other_samples) = p1_risk(9);
    assert_eq!(shared.standings.rank(0.0), 4.0);
    assert_eq!(shared.probability_rank_moves, 0.0);
    assert_eq!(other_samples[0], vec![1.0; 4]);
    assert_eq!(other_samples[1], vec![1.0, 1.0, 0.0, 0.0]);
}

#[test]
fn standings_rank_as_rank_among_does() {
    let others = vec![0.5, 0.3, 0.3, 0.1];
    let standings = Standings::new(others.clone());
    for score in [0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0] {
        assert_eq!(standings.rank(score), rank_among(&others, score), "{score}");
    }
}

/// A run whose P@4 rises three places only when both its unjudged documents are relevant (each
/// adds 0.25; one alone lifts it one place): judging one of them leaves the rank as likely to
/// move as before, so a list of one document a topic cannot settle it, and one of two can.
#[test]
fn a_measure_whose_own_list_the_cap_cuts_short_cannot_settle() {
    let judgments: DocumentGrades = [(1, 1), (2, 0), (3, 1), (4, 0), (5, 0)]
        .into_iter()
        .collect();
    let rankings: Vec<Vec<DocId>> = vec![
        vec![8, 9, 2, 4],
        vec![1, 3, 2, 4],
        vec![1, 3, 2, 4],
        vec![1, 2, 4, 5],
        vec![1, 2, 4, 5],
    ];
    let draws: Vec<Vec<Draw>> = (0..4)
        .map(|s| vec![relevant_if(s % 2 == 0), relevant_if(s / 2 % 2 == 0)])
        .collect();
    let measure = Measure::new(Family::Precision, Some(4));
    let (outcome, others, shifts) =
        one_topic(rankings, &judgments, measure, &[8, 9], (draws, 0.25));
    let outcomes = [outcome];
    let risk = measure_risk(&outcomes, (&others, &shifts), 0, 0.0, 2.0);
    assert_eq!(risk.standings.rank(0.0), 5.0);
    assert_eq!(risk.probability_rank_moves, 0.25);
    let settle = |per_topic| {
        let rules = ListRules {
            threshold: 0.1,
            rank_margin: 2.0,
            per_topic,
        };
        let risks = std::slice::from_ref(&risk);
        settling(&outcomes, (&others, &shifts), risks, 0, rules)
    };
    let capped = settle(Some(1));
    assert!(capped.cannot_settle, "{capped:?}");
    assert_eq!(capped.documents_per_topic, 2.0);
    assert_eq!(capped.beyond_pool_per_topic, 0.0);
    assert!(!settle(Some(2)).cannot_settle);
    assert!(!settle(None).cannot_settle);
}
