//! The study's plan, withholding, classic leave-out-uniques and shared units, on the hand-made
//! task.

use super::*;
use crate::io::fixture::hand_task;
use crate::judge::assessor::OfficialAssessor;
use crate::judge::cal::judge_topic;
use crate::judge::settings::{Carried, Withhold};
use crate::judge::strategies::{judge_topic_with, Strategy};
use crate::sim::assessor::StudyAssessor;
use crate::sim::fixture::small_study as settings;
use crate::sim::settings::OFFICIAL_BUDGET_ONLY;

/// The simulated qrels of every trial of a study: (held-out team, topic) -> judged docids.
fn study_qrels(
    task: &Task,
    collection: &Collection,
    settings: &StudySettings,
) -> BTreeMap<(Option<String>, String), BTreeSet<String>> {
    let teams = held_out_teams(task, None).unwrap();
    let outcome = run_study(task, collection, settings, teams, &|_, _| {}).unwrap();
    let mut qrels = BTreeMap::new();
    for trial in &outcome.trials {
        for judging in trial.judgings.as_ref().unwrap() {
            let topic = collection.topics[judging.topic].id.clone();
            let docs = judging
                .judgments
                .iter()
                .map(|&(doc, _)| collection.docs.name(doc).to_string())
                .collect();
            qrels.insert((trial.trial.held_out.clone(), topic), docs);
        }
    }
    qrels
}

fn key(team: Option<&str>, topic: &str) -> (Option<String>, String) {
    (team.map(str::to_string), topic.to_string())
}

/// The official assessor of `collection`.
fn official(collection: &Collection) -> OfficialAssessor<'_> {
    OfficialAssessor::new(collection)
}
#[test]
fn uniques_withholds_a_teams_unique_relevant_documents() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    // A budget larger than every candidate set: everything not withheld gets judged.
    let qrels = study_qrels(&task, &collection, &settings(Withhold::Uniques, Some(100)));
    let team_a = &qrels[&key(Some("A"), "1")];
    assert!(
        !team_a.contains("ua") && !team_a.contains("ua2"),
        "{team_a:?}"
    );
    // sh is relevant and retrieved by B too: never withheld.
    assert!(team_a.contains("sh"), "{team_a:?}");
    // The control withholds nothing; B's trial withholds ub but not A's documents.
    let control = &qrels[&key(None, "1")];
    assert!(control.contains("ua") && control.contains("ua2") && control.contains("ub"));
    let team_b = &qrels[&key(Some("B"), "1")];
    assert!(
        !team_b.contains("ub") && team_b.contains("ua"),
        "{team_b:?}"
    );
}

#[test]
fn under_none_the_judge_can_find_the_teams_unique_documents() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let qrels = study_qrels(&task, &collection, &settings(Withhold::None, Some(100)));
    let team_a = &qrels[&key(Some("A"), "1")];
    assert!(
        team_a.contains("ua") && team_a.contains("ua2"),
        "{team_a:?}"
    );
}

#[test]
fn the_unique_depth_limits_what_a_team_owns() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let excluded: Vec<bool> = task.runs.iter().map(|r| r.tag.starts_with('a')).collect();
    let names = |settings: &JudgeSettings| -> Vec<String> {
        withheld_documents(&collection, 0, &excluded, settings, &official(&collection))
            .into_iter()
            .map(|doc| collection.docs.name(doc).to_string())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    let mut judge = JudgeSettings {
        withhold: Withhold::Uniques,
        ..JudgeSettings::hical(2)
    };
    assert_eq!(names(&judge), ["ua", "ua2"]);
    judge.unique_depth = Some(2); // ua is a1's third document
    assert_eq!(names(&judge), ["ua2"]);
}

#[test]
fn every_topic_ends_at_its_official_count_in_both_modes() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    for withhold in [Withhold::None, Withhold::Uniques] {
        let qrels = study_qrels(&task, &collection, &settings(withhold, None));
        for ((team, topic), docs) in &qrels {
            let official = task.qrels.topic(topic).unwrap().len();
            assert_eq!(docs.len(), official, "{withhold} {team:?} topic {topic}");
        }
    }
}

#[test]
fn identical_units_are_judged_once() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), true);
    let collection = Collection::prepare(&task, &task.qrels, true).unwrap();
    let study = settings(Withhold::None, None);
    let teams = held_out_teams(&task, None).unwrap();
    assert_eq!(teams, ["A", "B", "C"]);
    let plan = StudyPlan::new(&task, &collection, &study, &teams, &StudyAssessor::Official);
    // Text features: B's and C's trials have the control's pools on both topics (their
    // pooled documents are pooled by another team too), so they share its units; A's trial
    // changes both pools. Four distinct units of eight.
    let control = &plan.unit_of[0];
    assert_eq!(&plan.unit_of[2], control);
    assert_eq!(&plan.unit_of[3], control);
    assert!(plan.unit_of[1].iter().zip(control).all(|(a, c)| a != c));
    assert_eq!(plan.units.len(), 4);
    // With run features a held-out team changes the features, so no trial shares.
    let runs_collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let plan = StudyPlan::new(
        &task,
        &runs_collection,
        &study,
        &teams,
        &StudyAssessor::Official,
    );
    assert_eq!(plan.units.len(), 4 * 2);
}

#[test]
fn classic_leave_out_uniques_drops_only_the_teams_sole_pool_contributions() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let study = settings(Withhold::None, None);
    let scorer = RunScorer::new(&collection, study.measures.clone());
    let official_grades = qrels_grades(&collection, &task.qrels);
    let official = scorer.score(&official_grades, |_| true);
    let classic = classic_lou_scores(&collection, &scorer, &official_grades, &official, &study);
    // A's pool (depth 2) is s1 s2 ua2, and only ua2 is A's alone: a2's AP on topic 1 loses
    // it. The official qrels without ua2, scored by the evaluator, must agree.
    let mut reduced = crate::io::qrels::Qrels::default();
    for (topic, judgments) in &task.qrels.topics {
        let kept = reduced.topics.entry(topic.clone()).or_default();
        for (docid, grade) in judgments.judgments() {
            if docid != "ua2" {
                kept.insert(docid, grade);
            }
        }
    }
    let evaluator = crate::eval::Evaluator::new(
        &reduced,
        crate::eval::EvalOptions {
            measures: study.measures.clone(),
            relevance_level: 1,
            complete: false,
            max_docs: None,
            relstring: None,
        },
    );
    let a2 = task.runs.iter().position(|r| r.tag == "a2").unwrap();
    let expected = evaluator.evaluate(&task.runs[a2]).summary;
    assert!((classic.summary[a2][0] - expected[0]).abs() < 1e-12);
    assert!(classic.summary[a2][0] < official.summary[a2][0]);
    // Runs of other teams, and the unpooled team's, keep their official scores.
    for (run, info) in collection.runs.iter().enumerate() {
        if info.team != "A" {
            assert_eq!(classic.summary[run], official.summary[run], "{}", info.tag);
        }
    }
}

#[test]
fn unit_ids_do_not_depend_on_the_other_trials() {
    let dir = tempfile::tempdir().unwrap();
    let task = crate::io::fixture::hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let settings = StudySettings {
        seeds: 2,
        measures: crate::eval::parse_measures(&["map"]).unwrap(),
        teams: None,
        judge: crate::judge::settings::JudgeSettings::hical(2),
        budget: None,
        keep_qrels: false,
        budget_fractions: OFFICIAL_BUDGET_ONLY.to_vec(),
        strategies: Vec::new(),
        assessor: crate::sim::settings::AssessorChoice::Official,
        significance: crate::sim::settings::default_significance(),
    };
    let plan = |teams: &[&str]| {
        let teams: Vec<String> = teams.iter().map(|team| team.to_string()).collect();
        StudyPlan::new(
            &task,
            &collection,
            &settings,
            &teams,
            &StudyAssessor::Official,
        )
    };
    // The ids of each (trial, topic), keyed by (seed, held-out team, topic).
    let ids = |plan: &StudyPlan| {
        let mut ids = std::collections::BTreeMap::new();
        for (trial, units) in plan.trials.iter().zip(&plan.unit_of) {
            for (topic, &unit) in units.iter().enumerate() {
                ids.insert((trial.seed, trial.held_out.clone(), topic), plan.ids[unit]);
            }
        }
        ids
    };
    let (all, only_b) = (ids(&plan(&["A", "B", "C"])), ids(&plan(&["B"])));
    assert_eq!(only_b.len(), 2 * 2 * 2);
    for (key, id) in &only_b {
        assert_eq!(all[key], *id, "{key:?}");
    }
    // Seeds and topics get ids of their own, and a team's trial differs from the control.
    let control = |seed, topic| all[&(seed, None, topic)];
    assert_ne!(control(1, 0), control(2, 0));
    assert_ne!(control(1, 0), control(1, 1));
    assert_ne!(all[&(1, Some("A".to_string()), 0)], control(1, 0));
}

/// The names of `docs`, sorted.
fn names(collection: &Collection, docs: &[DocId]) -> Vec<String> {
    let mut names: Vec<String> = docs
        .iter()
        .map(|&doc| collection.docs.name(doc).to_string())
        .collect();
    names.sort();
    names
}

/// Which runs of the task belong to `team`.
fn runs_of(collection: &Collection, team: &str) -> Vec<bool> {
    collection.runs.iter().map(|run| run.team == team).collect()
}

#[test]
fn classic_leave_out_uniques_and_withholding_each_remove_the_set_their_parameters_define() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let (topic1, topic2) = (&collection.topics[0], &collection.topics[1]);
    // Classic: pooled runs, their top 2 (the pool depth), any grade.
    let classic = UniqueRule::classic(2);
    let classic_of = |topic, team| {
        let docs = collection.unique_documents(topic, &classic, &runs_of(&collection, team));
        names(&collection, &docs)
    };
    assert_eq!(classic_of(topic1, "A"), ["ua2"]); // ua is a1's third document
    assert_eq!(classic_of(topic2, "A"), ["t2"]); // grade 0 counts; b1 has t2 only at rank 3
    assert!(classic_of(topic1, "D").is_empty()); // d1 is not pooled
                                                 // Withholding: every run, pooled or not, at any depth, grade >= the training level.
    let judge = JudgeSettings {
        withhold: Withhold::Uniques,
        ..JudgeSettings::hical(2)
    };
    let withheld_of = |topic: &crate::collection::TopicData, team, judge: &JudgeSettings| {
        let index = collection.topic_index(&topic.id).unwrap();
        let team_runs = runs_of(&collection, team);
        let official = official(&collection);
        let docs = withheld_documents(&collection, index, &team_runs, judge, &official);
        names(&collection, &docs)
    };
    assert_eq!(withheld_of(topic1, "A", &judge), ["ua", "ua2"]); // n1: A's alone, grade 0
    assert!(withheld_of(topic2, "A", &judge).is_empty());
    assert_eq!(withheld_of(topic1, "D", &judge), ["ud"]);
    let level_2 = JudgeSettings {
        train_level: 2,
        ..judge.clone()
    };
    assert_eq!(withheld_of(topic1, "A", &level_2), ["ua"]);
    // The study's leave-out trial withholds exactly that set.
    let outcome = run_study(
        &task,
        &collection,
        &settings(Withhold::Uniques, None),
        held_out_teams(&task, None).unwrap(),
        &|_, _| {},
    )
    .unwrap();
    let trial_a = outcome.trial(1, Some("A")).judgings.as_ref().unwrap();
    assert_eq!((trial_a[0].withheld, trial_a[1].withheld), (2, 0));
}

#[test]
fn the_unique_depth_counts_ranks_in_nists_pooling_order() {
    // a1 ties d2 and d1 at its top: NIST's pooling order puts d1 first (docno ascending),
    // trec_eval's order d2.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("runs")).unwrap();
    std::fs::write(
        dir.path().join("runs/a1"),
        "1 Q0 d2 1 5 a1\n1 Q0 d1 2 5 a1\n1 Q0 d3 3 4 a1\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("runs/b1"), "1 Q0 d3 1 9 b1\n").unwrap();
    std::fs::write(dir.path().join("qrels"), "1 0 d1 1\n1 0 d2 1\n1 0 d3 1\n").unwrap();
    std::fs::write(dir.path().join("teams.tsv"), "a1\tA\nb1\tB\n").unwrap();
    std::fs::write(
        dir.path().join("task.toml"),
        "name = \"ties\"\nruns = \"runs\"\nteams = \"teams.tsv\"\nqrels = \"qrels\"\n\
         pool_depth = 1\n",
    )
    .unwrap();
    let task = Task::open(&dir.path().join("task.toml")).unwrap();
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let topic = &collection.topics[0];
    let team_a = runs_of(&collection, "A");
    let judge = JudgeSettings {
        withhold: Withhold::Uniques,
        unique_depth: Some(1),
        ..JudgeSettings::hical(1)
    };
    let withheld = withheld_documents(&collection, 0, &team_a, &judge, &official(&collection));
    assert_eq!(names(&collection, &withheld), ["d1"]);
    let classic = collection.unique_documents(topic, &UniqueRule::classic(1), &team_a);
    assert_eq!(names(&collection, &classic), ["d1"]);
    let pool = pool_of(&collection, topic, &[false, false], &[], 1);
    assert_eq!(names(&collection, &pool), ["d1", "d3"]);
}

/// Topic 1 of a trial with nothing held out, judged with `carried`.
fn judge_topic_1(collection: &Collection, carried: Carried, budget: usize) -> TopicJudging {
    let judge = JudgeSettings {
        iterations: 2_000,
        carried,
        ..JudgeSettings::hical(2)
    };
    let nothing_excluded = vec![false; collection.runs.len()];
    let official = official(collection);
    judge_topic(collection, 0, &nothing_excluded, budget, &judge, &official).unwrap()
}

/// A trace as (document, batch, score bits), comparable across collections.
fn trace_of(collection: &Collection, judging: &TopicJudging) -> Vec<(String, u32, u32)> {
    judging
        .trace
        .iter()
        .map(|step| {
            let name = collection.docs.name(step.doc).to_string();
            (name, step.batch, step.score.to_bits())
        })
        .collect()
}

#[test]
fn carried_judgments_train_the_judge_and_count_for_bmi_only_when_told_to() {
    let (plain_dir, carried_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let plain_task = hand_task(plain_dir.path(), false);
    let plain = Collection::prepare(&plain_task, &plain_task.qrels, false).unwrap();
    let carried_task = crate::io::fixture::hand_task_with_carried(carried_dir.path(), false);
    let with_x1 = Collection::prepare(&carried_task, &carried_task.qrels, false).unwrap();
    // Topic 1: a pool of 4, then 6 CAL judgments (10 official judgments without x1).
    let without = judge_topic_1(&plain, Carried::Ignore, 10);
    let ignored = judge_topic_1(&with_x1, Carried::Ignore, 11);
    let trained = judge_topic_1(&with_x1, Carried::Train, 11);
    assert_eq!((ignored.carried, trained.carried), (1, 1));
    assert_eq!(ignored.judgments[0].0, with_x1.docs.get("x1").unwrap());
    // Ignored, x1 changes nothing: the same judgments, lists and scores as without it.
    assert_eq!(trace_of(&with_x1, &ignored), trace_of(&plain, &without));
    // BMI counts judged documents: 4 pooled (ignore) or 5 (train) before CAL. After iteration 0
    // T = 1, B = 2; iterations then run at 4, 5, 6 judged (T reaches 10) under ignore, and at
    // 5, 6, 7, 10 judged under train, before the budget of 11 ends the topic.
    assert_eq!((ignored.retrains, trained.retrains), (3, 4));
    // Trained, x1 is a positive from the first retrain: the first list's scores differ.
    assert_ne!(
        trace_of(&with_x1, &trained)[4],
        trace_of(&with_x1, &ignored)[4]
    );
}

#[test]
fn recall_found_counts_what_the_pool_and_cal_judged_of_what_they_could_judge() {
    let dir = tempfile::tempdir().unwrap();
    let task = crate::io::fixture::hand_task_with_carried(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let agreement_of = |budget, team: Option<&str>| {
        let outcome = run_study(
            &task,
            &collection,
            &settings(Withhold::Uniques, Some(budget)),
            held_out_teams(&task, None).unwrap(),
            &|_, _| {},
        )
        .unwrap();
        outcome.trial(1, team).agreement
    };
    // 14 official judgments, 10 relevant (x1 among them, carried). With a budget of 5 the
    // control judges topic 1's pool (s1 s2 s3 ua2) beside x1, and topic 2's pool (t1 t2 t3)
    // and t4, which the official qrels never judged.
    let control = agreement_of(5, None);
    assert_eq!(control.carried, 1);
    assert_eq!(control.overlap, 8.0 / 14.0); // s1 s2 s3 ua2 x1, t1 t2 t3
    assert_eq!(control.recall, 6.0 / 10.0); // s1 s2 ua2 x1, t1 t3
    assert_eq!(control.overlap_found, 7.0 / 13.0); // x1 was never a candidate
    assert_eq!(control.recall_found, 5.0 / 9.0);
    // Leaving A out withholds ua and ua2: never candidates either. With a budget larger than
    // every topic, the trial judges every candidate.
    let trial_a = agreement_of(100, Some("A"));
    assert_eq!(trial_a.carried, 1);
    assert_eq!(trial_a.overlap, 12.0 / 14.0);
    assert_eq!(trial_a.recall, 8.0 / 10.0);
    assert_eq!(trial_a.overlap_found, 1.0);
    assert_eq!(trial_a.recall_found, 1.0);
}

#[test]
fn depth_deepens_the_trials_pool_and_skips_withheld_documents() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let judge = settings(Withhold::Uniques, None).judge;
    let names = |judging: &TopicJudging| -> Vec<String> {
        let steps = judging.trace.iter();
        steps
            .map(|step| collection.doc_name(step.doc).to_string())
            .collect()
    };
    let judge_with = |excluded: &[bool], budget: usize| {
        let official = official(&collection);
        let withheld = withheld_documents(&collection, 0, excluded, &judge, &official);
        let trial_topic = TrialTopic {
            topic: 0,
            excluded_runs: excluded,
            withheld: &withheld,
        };
        judge_topic_with(
            Strategy::Depth,
            &collection,
            trial_topic,
            budget,
            &judge,
            &official,
        )
        .unwrap()
    };
    // Control, pooled runs a1 a2 b1 c1 (d1 is not pooled). Depth 1: s1 (a1; a2's too), s2,
    // s3. Depth 2: a2's ua2 (a1's s2, b1's s3, c1's s1 are judged). Depth 3: ua, sh, ub, n6.
    // Depth 4: n1, n4 (the budget of 10 cuts it in run order).
    let control = judge_with(&[false; 5], 10);
    let expected = ["s1", "s2", "s3", "ua2", "ua", "sh", "ub", "n6", "n1", "n4"];
    assert_eq!(names(&control), expected);
    // n6 and n4 have no official grade: judged 0 and unofficial.
    let unofficial: Vec<&str> = (control.trace.iter())
        .filter(|step| !step.is_official())
        .map(|step| collection.doc_name(step.doc))
        .collect();
    assert_eq!(unofficial, ["n6", "n4"]);
    assert_eq!(
        (control.pool_size, control.retrains, control.carried),
        (0, 0, 0)
    );
    // A held out: only b1 and c1, and A's unique relevant ua and ua2 are withheld. b1's s2,
    // c1's s3; c1's s1 (b1's s3 is judged); b1's ub, c1's n6; n5, n7; b1's sh. Every
    // document is judged before the budget of 10 is met.
    let a_out: Vec<bool> = task.runs.iter().map(|r| r.tag.starts_with('a')).collect();
    let held_out = judge_with(&a_out, 10);
    assert_eq!(
        names(&held_out),
        ["s2", "s3", "s1", "ub", "n6", "n5", "n7", "sh"]
    );
    assert_eq!(held_out.withheld, 2);
    assert_eq!(names(&judge_with(&a_out, 3)), ["s2", "s3", "s1"]);
}

#[test]
fn strategies_without_learning_share_their_units_across_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let mut study = settings(Withhold::Uniques, None);
    study.seeds = 3;
    let teams = held_out_teams(&task, None).unwrap();
    let hical_units = StudyPlan::new(&task, &collection, &study, &teams, &StudyAssessor::Official)
        .units
        .len();
    study.strategies = vec![Strategy::Hical, Strategy::Depth, Strategy::Bandit];
    let plan = StudyPlan::new(&task, &collection, &study, &teams, &StudyAssessor::Official);
    // hical's units come first and are the study's own.
    assert!(plan.units[..hical_units]
        .iter()
        .all(|unit| unit.strategy == Strategy::Hical));
    assert_eq!(plan.compared[0].unit_of, plan.unit_of);
    // One unit per (team or control, topic) and strategy, whatever the seeds.
    let per_strategy = (1 + teams.len()) * collection.topics.len();
    assert_eq!(plan.units.len(), hical_units + 2 * per_strategy);
    let depth = &plan.compared[1].unit_of;
    let trials_per_seed = 1 + teams.len();
    assert_eq!(depth[0], depth[trials_per_seed]);
    assert_eq!(depth[1], depth[2 * trials_per_seed + 1]);
    assert_ne!(depth[0], plan.compared[2].unit_of[0]);
}

#[test]
fn every_strategy_carries_the_official_judgments_no_run_retrieved() {
    let dir = tempfile::tempdir().unwrap();
    let task = crate::io::fixture::hand_task_with_carried(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let judge = settings(Withhold::Uniques, None).judge;
    let x1 = collection.doc_id("x1").unwrap();
    for strategy in [Strategy::Depth, Strategy::Mtf, Strategy::Bandit] {
        // Topic 1 has 11 official judgments now: x1 carried, then 10 judged.
        let official = official(&collection);
        let withheld = withheld_documents(&collection, 0, &[false; 5], &judge, &official);
        let judge_to = |budget| {
            let trial_topic = TrialTopic {
                topic: 0,
                excluded_runs: &[false; 5],
                withheld: &withheld,
            };
            judge_topic_with(
                strategy,
                &collection,
                trial_topic,
                budget,
                &judge,
                &official,
            )
            .unwrap()
        };
        let judging = judge_to(11);
        assert_eq!(judging.carried, 1, "{strategy}");
        assert_eq!(judging.judgments[0], (x1, 1), "{strategy}");
        assert_eq!(judging.trace.len(), 10, "{strategy}");
        assert!(judging.trace.iter().all(|step| step.doc != x1));
        // A budget below the carried judgments keeps them and judges nothing.
        let none = judge_to(0);
        assert_eq!((none.judgments.len(), none.is_pool_over_budget), (1, true));
    }
}
