use std::collections::BTreeMap;

use super::*;
use crate::io::fixture::hand_task;
use crate::io::task::Task;
use crate::judge::assessor::{Assessor, GradeSource};
use crate::judge::cal::withheld_documents;
use crate::judge::settings::{JudgeSettings, Withhold};
use crate::judge::strategies::Strategy;
use crate::sim::fixture::small_study;
use crate::sim::settings::StudySettings;
use crate::sim::study::{held_out_teams, judge_units, StudyPlan};

#[test]
fn a_document_gets_one_grade_in_every_trial_and_strategy_of_a_seed() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/synth-passage/task.toml");
    let task = Task::open(&manifest).unwrap();
    let collection = Collection::prepare(&task, &task.qrels, true).unwrap();
    let settings = StudySettings {
        seeds: 2,
        strategies: vec![Strategy::Hical, Strategy::Depth, Strategy::Mtf],
        assessor: AssessorChoice::Completed,
        ..small_study(Withhold::Uniques, None)
    };
    let assessor = crate::sim::study::prepare_assessor(&collection, &settings).unwrap();
    let teams = held_out_teams(&task, None).unwrap();
    let plan = StudyPlan::new(&task, &collection, &settings, &teams, &assessor);
    let all: Vec<usize> = (0..plan.units.len()).collect();
    let judgings = judge_units(
        &collection,
        &settings,
        (&plan, &assessor),
        &all,
        &|| {},
        &|_, _| Ok(()),
    )
    .unwrap();
    let StudyAssessor::Completed { model, .. } = &assessor else {
        unreachable!("a completed assessor")
    };
    // Per (seed, topic, document): every grade any trial or strategy of the seed gave it.
    let mut grades: BTreeMap<(u64, usize, DocId), Vec<Grade>> = BTreeMap::new();
    let unit_tables =
        std::iter::once(&plan.unit_of).chain(plan.compared.iter().map(|c| &c.unit_of));
    for unit_of in unit_tables {
        for (trial, units) in plan.trials.iter().zip(unit_of) {
            for &unit in units {
                let judging = &judgings[unit];
                for step in judging
                    .trace
                    .iter()
                    .filter(|s| s.source == GradeSource::Drawn)
                {
                    let key = (trial.seed, judging.topic, step.doc);
                    grades.entry(key).or_default().push(step.grade);
                }
            }
        }
    }
    // How sure it is that grades drawn per trial would disagree somewhere: the sum over
    // documents judged more than once of their chance of two different draws.
    let mut disagreement = 0.0;
    for (&(seed, topic, doc), seen) in &grades {
        assert!(
            seen.iter().all(|&grade| grade == seen[0]),
            "seed {seed}: {} of topic {topic} graded {seen:?}",
            collection.docs.name(doc)
        );
        let p = model.probability(topic, doc).unwrap();
        disagreement += (seen.len() - 1) as f64 * 2.0 * p * (1.0 - p);
    }
    assert!(
        disagreement > 14.0,
        "too few repeated uncertain draws: {disagreement:.1}"
    );
    // And each seed's grades are the seed's completion's.
    for (&(seed, topic, doc), seen) in &grades {
        assert_eq!(
            assessor
                .for_seed(&collection, seed)
                .assess(topic, doc)
                .grade,
            seen[0]
        );
    }
}

/// The hand-made task with a fuller assessor file in its folder: s1 graded 0 (officially 1),
/// n2 graded 2 (never judged officially, only A's a1 retrieves it), `extra` graded 1 (no run
/// retrieves it).
fn with_fuller_file(dir: &Path) -> (Task, std::path::PathBuf) {
    let task = hand_task(dir, false);
    let file = dir.join("fuller.qrels");
    std::fs::write(&file, "1 0 s1 0\n1 0 n2 2\n1 0 extra 1\n").unwrap();
    (task, file)
}

#[test]
fn a_fuller_file_grades_first_and_withholds_by_its_grades() {
    let dir = tempfile::tempdir().unwrap();
    let (task, file) = with_fuller_file(dir.path());
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let assessor =
        StudyAssessor::prepare(&collection, &AssessorChoice::File(file), 2, &[1]).unwrap();
    let fuller = assessor.for_seed(&collection, 1);
    let doc = |name: &str| collection.doc_id(name).unwrap();
    let assess = |name: &str| {
        let assessment = fuller.assess(0, doc(name));
        (assessment.grade, assessment.source)
    };
    assert_eq!(assess("s1"), (0, GradeSource::Official)); // the file's grade wins
    assert_eq!(assess("n2"), (2, GradeSource::File));
    assert_eq!(assess("ua"), (2, GradeSource::Official)); // the file lacks it
    assert_eq!(assess("n3"), (0, GradeSource::Presumed));
    // A's unique relevant documents: ua and ua2 officially; n2 too by the file.
    let judge = JudgeSettings::hical(2);
    let team_a: Vec<bool> = task.runs.iter().map(|r| r.tag.starts_with('a')).collect();
    let names = |docs: Vec<DocId>| -> Vec<String> {
        let mut names: Vec<String> = docs
            .iter()
            .map(|&d| collection.docs.name(d).into())
            .collect();
        names.sort();
        names
    };
    let official = StudyAssessor::Official;
    let official = official.for_seed(&collection, 1);
    assert_eq!(
        names(withheld_documents(
            &collection,
            0,
            &team_a,
            &judge,
            &official
        )),
        ["ua", "ua2"]
    );
    assert_eq!(
        names(withheld_documents(&collection, 0, &team_a, &judge, &fuller)),
        ["n2", "ua", "ua2"]
    );
    // The assessor's own qrels hold every grade of the file, `extra` included, and the
    // official grades the file lacks.
    let reference = assessor.reference_grades(&collection, 1).unwrap();
    let official_relevant = collection.topics[0]
        .grades
        .values()
        .filter(|&&g| g > 0)
        .count();
    let num_rel = crate::eval::parse_measures(&["num_rel"]).unwrap();
    let scores =
        crate::sim::scoring::RunScorer::new(&collection, num_rel).score(&reference, |_| true);
    let relevant = scores.per_topic[0][0].as_ref().unwrap()[0];
    // s1 leaves the relevant documents, n2 and extra join them.
    assert_eq!(relevant, (official_relevant - 1 + 2) as f64);
}

#[test]
fn a_bad_assessor_file_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let refusal = |text: Option<&str>| {
        let file = dir.path().join("assessor.qrels");
        let _ = std::fs::remove_file(&file);
        if let Some(text) = text {
            std::fs::write(&file, text).unwrap();
        }
        let choice = AssessorChoice::File(file);
        StudyAssessor::prepare(&collection, &choice, 2, &[1])
            .unwrap_err()
            .to_string()
    };
    let missing = refusal(None);
    assert!(missing.contains("assessor.qrels"), "{missing}");
    let cases = [
        (
            "1 0 s1 1\n9 0 s1 1\n",
            "assessor.qrels:2: topic \"9\" is not a topic of the task",
        ),
        (
            "1 0 s1 1\n1 0 s2 high\n",
            "assessor.qrels:2: expected an integer grade",
        ),
        ("1 0 s1\n", "assessor.qrels:1: expected 4 columns"),
    ];
    for (text, expected) in cases {
        let message = refusal(Some(text));
        assert!(message.contains(expected), "{message}");
    }
}

#[test]
fn a_hybrid_grades_every_strategys_depth_pool_officially_and_the_rest_by_its_file() {
    use crate::judge::assessor::FullerAssessor;
    use crate::judge::cal::{pool_of, TrialTopic};
    use crate::judge::strategies::judge_topic_with;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/synth-passage");
    let task = Task::open(&root.join("task.toml")).unwrap();
    let collection = Collection::prepare(&task, &task.qrels, true).unwrap();
    let labels = AssessorChoice::Hybrid(root.join("labels.qrels"));
    let judge = JudgeSettings {
        iterations: 2000,
        ..JudgeSettings::hical(task.pool_depth)
    };
    let assessor = StudyAssessor::prepare(&collection, &labels, judge.pool_depth, &[1]).unwrap();
    let hybrid = assessor.for_seed(&collection, 1);
    let StudyAssessor::Hybrid { grades, .. } = &assessor else {
        panic!("a hybrid assessor")
    };
    let fuller = FullerAssessor::new(&collection, grades);
    let excluded: Vec<bool> = (task.runs.iter())
        .map(|r| r.tag.starts_with("team01"))
        .collect();
    let (mut pooled, mut added) = (0, 0);
    for strategy in [
        Strategy::Hical,
        Strategy::Depth,
        Strategy::Mtf,
        Strategy::Bandit,
    ] {
        for topic in 0..3 {
            let trial_topic = TrialTopic {
                topic,
                excluded_runs: &excluded,
                withheld: &[],
            };
            let pool = pool_of(
                &collection,
                &collection.topics[topic],
                &excluded,
                &[],
                judge.pool_depth,
            );
            let budget = collection.topics[topic].grades.len();
            let judging =
                judge_topic_with(strategy, &collection, trial_topic, budget, &judge, &hybrid)
                    .unwrap();
            for step in &judging.trace {
                let expected = if pool.binary_search(&step.doc).is_ok() {
                    pooled += 1;
                    let official = collection.topics[topic].grades.get(&step.doc);
                    official.copied().unwrap_or(0)
                } else {
                    added += 1;
                    fuller.assess(topic, step.doc).grade
                };
                assert_eq!(
                    step.grade, expected,
                    "{strategy} topic {topic} step {}",
                    step.step
                );
            }
        }
    }
    assert!(pooled > 0 && added > 0, "{pooled} {added}");
}
