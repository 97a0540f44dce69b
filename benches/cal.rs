//! One CAL topic end to end on the embedded default task (`runs/synth-passage`, seed 2019):
//! judging the pool, then HiCAL's settings (text features, 200,000 Pegasos iterations per
//! retrain) up to the topic's official judgment count, with BMI batches
//! (`default_task_first_topic`) and with a retrain after every judgment
//! (`default_task_first_topic_one`, where reusing dot products between retrains saves most).
//! With run features at 20,000 iterations (`default_task_first_topic_run_features`), the kind of
//! retrain a TREC-COVID study makes, where the work around the fit (the training lists, the Gram
//! matrix, scoring the candidates) weighs most.
//! The collection (corpus features) is prepared once, outside the timing; the first topic in id
//! order is judged.
//! Also timed: preparing that collection, i.e. reading the 20,000-passage gzip corpus once and
//! building HiCAL's text features.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};

use reusesim::collection::Collection;
use reusesim::io::task::Task;
use reusesim::judge::assessor::OfficialAssessor;
use reusesim::judge::cal::judge_topic;
use reusesim::judge::schedule::Schedule;
use reusesim::judge::settings::JudgeSettings;

fn one_topic(criterion: &mut Criterion) {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/synth-passage/task.toml");
    let task = Task::open(&manifest).expect("the embedded task loads");
    let collection = Collection::prepare(&task, &task.qrels, true).expect("features build");
    let settings = JudgeSettings {
        seed: 1,
        ..JudgeSettings::hical(task.pool_depth)
    };
    let excluded = vec![false; task.runs.len()];
    let budget = collection.topics[0].grades.len();
    let official = OfficialAssessor::new(&collection);
    let mut group = criterion.benchmark_group("cal");
    group.sample_size(10);
    group.bench_function("default_task_text_features", |bencher| {
        bencher.iter(|| Collection::prepare(&task, &task.qrels, true).unwrap())
    });
    group.bench_function("default_task_first_topic", |bencher| {
        bencher
            .iter(|| judge_topic(&collection, 0, &excluded, budget, &settings, &official).unwrap())
    });
    let one = JudgeSettings {
        schedule: Schedule::One,
        ..settings.clone()
    };
    group.bench_function("default_task_first_topic_one", |bencher| {
        bencher.iter(|| judge_topic(&collection, 0, &excluded, budget, &one, &official).unwrap())
    });
    let run_features = Collection::prepare(&task, &task.qrels, false).expect("runs load");
    let run_official = OfficialAssessor::new(&run_features);
    let short_fits = JudgeSettings {
        iterations: 20_000,
        ..settings.clone()
    };
    group.finish();
    // A short judging, sampled more often, so that a few percent show.
    let mut group = criterion.benchmark_group("cal_short");
    group.sample_size(50);
    group.bench_function("default_task_first_topic_run_features", |bencher| {
        bencher.iter(|| {
            judge_topic(
                &run_features,
                0,
                &excluded,
                budget,
                &short_fits,
                &run_official,
            )
            .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, one_topic);
criterion_main!(benches);
