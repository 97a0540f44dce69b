use std::collections::BTreeMap;

use super::*;
use crate::io::fixture::hand_task_with_carried;
use crate::io::task::Task;

/// The embedded task, prepared with its text features, and its completion model: a real
/// calibration with a spread of probabilities.
fn embedded() -> (Collection, CompletionModel) {
    let (_, collection, model) = embedded_task();
    (collection, model)
}

/// [`embedded`], with the task it was prepared from (whose truth grades every document).
fn embedded_task() -> (Task, Collection, CompletionModel) {
    let manifest =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/synth-passage/task.toml");
    let task = Task::open(&manifest).unwrap();
    let collection = Collection::prepare(&task, &task.qrels, true).unwrap();
    let model = CompletionModel::fit(&collection, task.pool_depth).unwrap();
    (task, collection, model)
}

#[test]
fn the_completion_expects_about_as_many_relevant_documents_as_the_truth_holds() {
    // The official judging of the embedded task found most relevant documents; of the 2,706
    // it never judged, the truth grades 80 relevant. A judge model that presumed them
    // non-relevant in training expected 14.
    let (task, collection, model) = embedded_task();
    let truth = task.truth.as_ref().expect("the embedded task has a truth");
    let (mut expected, mut relevant) = (0.0, 0_usize);
    for (index, topic) in collection.topics.iter().enumerate() {
        for doc in model.documents(index) {
            expected += model.probability(index, doc).unwrap();
            let grade = (truth.topic(&topic.id)).and_then(|t| t.grade(collection.docs.name(doc)));
            relevant += usize::from(grade.is_some_and(|g| g >= collection.relevance_level));
        }
    }
    assert!(relevant > 50, "a truth to compare with: {relevant}");
    let ratio = expected / relevant as f64;
    assert!(
        (0.5..=2.0).contains(&ratio),
        "expected {expected:.1} relevant documents, the truth holds {relevant}"
    );
}

#[test]
fn every_seed_draws_about_as_many_relevant_documents_as_the_point_fit_expects() {
    // Drawn around a bootstrap replicate of the calibration instead of its point fit, the
    // embedded task's seeds drew from 41 to 254 relevant documents where the point fit
    // expects 83: a study's few seeds would each stand in a different world.
    let (collection, model) = embedded();
    let expected: f64 = (0..collection.topics.len())
        .flat_map(|topic| model.documents(topic).map(move |doc| (topic, doc)))
        .map(|(topic, doc)| model.probability(topic, doc).unwrap())
        .sum();
    for seed in 1..=20 {
        let draws = model.draw(&collection, seed);
        let relevant = draws.drawn.iter().flatten().filter(|&&g| g > 0).count();
        let ratio = relevant as f64 / expected;
        assert!(
            (0.7..=1.4).contains(&ratio),
            "seed {seed} drew {relevant} relevant documents, the point fit expects {expected:.1}"
        );
    }
}

/// One seed's effects drawn here from their documented rule, not by the code under test: one
/// ChaCha8 stream keyed by (seed, "completion effects"), its standard normals taken for the
/// topic shifts in topic order, then each run's shift and slope in run order, then the run and
/// topic shifts topic by topic.
struct DocumentedEffects {
    topic_shifts: Vec<f64>,
    run_shifts: Vec<f64>,
    run_slopes: Vec<f64>,
    /// run_topic_shifts[topic][run].
    run_topic_shifts: Vec<Vec<f64>>,
}

impl DocumentedEffects {
    fn draw(calibration: &Calibration, topics: usize, runs: usize, seed: u64) -> Self {
        let mut rng = keyed_rng(seed, "completion effects");
        let mut normal = move || rng.sample::<f64, _>(rand_distr::StandardNormal);
        let topic_shifts = calibration
            .topic_sd
            .iter()
            .map(|sd| sd * normal())
            .collect();
        let (mut run_shifts, mut run_slopes) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            run_shifts.push(calibration.run_sd * normal());
            run_slopes.push(calibration.run_log_rank_sd * normal());
        }
        let run_topic_shifts = (0..topics)
            .map(|_| {
                (0..runs)
                    .map(|_| calibration.run_topic_sd * normal())
                    .collect()
            })
            .collect();
        Self {
            topic_shifts,
            run_shifts,
            run_slopes,
            run_topic_shifts,
        }
    }

    /// The probability of relevance of a document of `topic` whose evidence comes from `run`:
    /// its calibrated log-odds, moved from 0 by `conditional_log_odds` for the variance of the
    /// run's effects at its rank and of the run's effect on the topic, plus the drawn effects.
    fn probability(
        &self,
        calibration: &Calibration,
        topic: usize,
        run: usize,
        evidence: &DocumentFeatures,
    ) -> f64 {
        let tilt = (evidence.rank as f64).ln() - calibration.log_rank_center;
        let variance = calibration.run_sd.powi(2)
            + (calibration.run_log_rank_sd * tilt).powi(2)
            + calibration.run_topic_sd.powi(2);
        let marginal = calibration.log_odds(topic, evidence);
        sigmoid(
            crate::relevance_model::effects::conditional_log_odds(marginal, variance)
                + self.run_shifts[run]
                + self.run_slopes[run] * tilt
                + self.run_topic_shifts[topic][run]
                + self.topic_shifts[topic],
        )
    }
}

/// The grade of the documented rule: relevant when the first uniform keyed by (seed, topic id,
/// document name) falls below the probability, its grade the first of the topic's grades whose
/// cumulative chance exceeds the second uniform (the last one when none does).
fn documented_grade(uniforms: [f64; 2], probability: f64, chances: &[(Grade, f64)]) -> Grade {
    if uniforms[0] >= probability {
        return 0;
    }
    let mut cumulative = 0.0;
    for &(grade, chance) in chances {
        cumulative += chance;
        if uniforms[1] < cumulative {
            return grade;
        }
    }
    chances.last().expect("a relevant grade").0
}

#[test]
fn every_drawn_grade_is_the_one_the_documented_rule_gives() {
    let (collection, model) = embedded();
    let calibration = &model.calibration;
    let (topics, runs) = (collection.topics.len(), collection.runs.len());
    let (mut relevant, mut graded_above_one) = (0, 0);
    for seed in 1..=3 {
        let draws = model.draw(&collection, seed);
        let effects = DocumentedEffects::draw(calibration, topics, runs, seed);
        for (topic, completion) in model.topics.iter().enumerate() {
            let topic_id = &collection.topics[topic].id;
            for (completed, &grade) in completion.docs.iter().zip(&draws.drawn[topic]) {
                let name = collection.docs.name(completed.doc);
                let probability = effects.probability(
                    calibration,
                    topic,
                    completed.run as usize,
                    &completed.features,
                );
                let uniforms = document_uniforms(seed, topic_id, name);
                let expected = documented_grade(uniforms, probability, &completion.grade_chances);
                assert_eq!(grade, expected, "seed {seed}, topic {topic_id}, {name}");
                relevant += usize::from(grade > 0);
                graded_above_one += usize::from(grade > 1);
            }
        }
    }
    assert!(
        relevant > 100 && graded_above_one > 10,
        "draws to compare: {relevant} relevant, {graded_above_one} above grade 1"
    );
}

#[test]
fn draws_follow_their_probabilities_within_binomial_bounds() {
    let (collection, model) = embedded();
    let calibration = &model.calibration;
    let (topics, runs) = (collection.topics.len(), collection.runs.len());
    // Per band of the seed's probability: the expected count of relevant draws, its binomial
    // variance and the count drawn; per grade, the count expected and drawn.
    let mut bands: BTreeMap<u8, (f64, f64, usize)> = BTreeMap::new();
    let mut grades: BTreeMap<Grade, (f64, usize)> = BTreeMap::new();
    for seed in 1..=100 {
        let draws = model.draw(&collection, seed);
        let effects = DocumentedEffects::draw(calibration, topics, runs, seed);
        for (topic, completion) in model.topics.iter().enumerate() {
            for (completed, &grade) in completion.docs.iter().zip(&draws.drawn[topic]) {
                let run = completed.run as usize;
                let p = effects.probability(calibration, topic, run, &completed.features);
                let band = match p {
                    p if p < 0.01 => 0,
                    p if p < 0.1 => 1,
                    _ => 2,
                };
                let entry = bands.entry(band).or_default();
                entry.0 += p;
                entry.1 += p * (1.0 - p);
                if grade > 0 {
                    entry.2 += 1;
                    for &(g, chance) in &completion.grade_chances {
                        grades.entry(g).or_default().0 += chance;
                    }
                    grades.entry(grade).or_default().1 += 1;
                }
            }
        }
    }
    assert!(bands[&2].0 > 100.0, "enough likely documents: {bands:?}");
    for (band, (expected, variance, drawn)) in &bands {
        let bound = 4.0 * variance.sqrt() + 1.0;
        let gap = (*drawn as f64 - expected).abs();
        assert!(
            gap <= bound,
            "band {band}: drew {drawn}, expected {expected:.1} ± {bound:.1}"
        );
    }
    let relevant: usize = grades.values().map(|&(_, drawn)| drawn).sum();
    assert!(grades.len() > 1, "a grade mix to draw from: {grades:?}");
    for (grade, (expected, drawn)) in &grades {
        let share = expected / relevant as f64;
        let bound = 4.0 * (relevant as f64 * share * (1.0 - share)).sqrt() + 1.0;
        let gap = (*drawn as f64 - expected).abs();
        assert!(
            gap <= bound,
            "grade {grade}: drew {drawn}, expected {expected:.1} ± {bound:.1}"
        );
    }
}

#[test]
fn a_seed_draws_one_completion_and_another_seed_draws_afresh() {
    let (collection, model) = embedded();
    let first = model.draw(&collection, 1);
    assert_eq!(first, model.draw(&collection, 1));
    assert_ne!(first, model.draw(&collection, 2));
    let assessor = model.assessor(&collection, &first);
    for topic in 0..collection.topics.len() {
        for (pos, doc) in model.documents(topic).enumerate() {
            let assessment = assessor.assess(topic, doc);
            assert_eq!(assessment.source, GradeSource::Drawn);
            assert_eq!(assessment.grade, first.drawn[topic][pos]);
        }
    }
}

#[test]
fn official_grades_stay_and_what_no_run_retrieved_is_not_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task_with_carried(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let model = CompletionModel::fit(&collection, task.pool_depth).unwrap();
    let draws = model.draw(&collection, 3);
    let assessor = model.assessor(&collection, &draws);
    let topic = collection.topic_index("1").unwrap();
    let doc = |name: &str| collection.doc_id(name).unwrap();
    let official = |grade| Assessment {
        grade,
        source: GradeSource::Official,
    };
    // ua: judged 2; x1: judged 1 and retrieved by no run.
    assert_eq!(assessor.assess(topic, doc("ua")), official(2));
    assert_eq!(assessor.assess(topic, doc("x1")), official(1));
    // n2: retrieved, never judged: drawn.
    assert_eq!(assessor.assess(topic, doc("n2")).source, GradeSource::Drawn);
    let completed: Vec<DocId> = model.documents(topic).collect();
    let retrieved = &collection.topics[topic].retrieved;
    let never_judged: Vec<DocId> = (retrieved.iter())
        .filter(|doc| !collection.topics[topic].grades.contains_key(doc))
        .copied()
        .collect();
    assert_eq!(completed, never_judged);
    // t1 is topic 2's, not topic 1's: nothing to draw it from on topic 1.
    let presumed = assessor.assess(topic, doc("t1"));
    assert_eq!(presumed.source, GradeSource::Presumed);
    assert_eq!(presumed.grade, 0);
    // The completed qrels: every official judgment, then every drawn one.
    let judgments: Vec<(DocId, Grade)> = assessor.judgments(topic).collect();
    assert_eq!(
        judgments.len(),
        collection.topics[topic].grades.len() + never_judged.len()
    );
}
