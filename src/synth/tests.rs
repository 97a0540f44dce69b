//! Tests that a synthetic collection looks like a TREC Deep Learning collection, and that it is
//! deterministic. Figures are printed (`--nocapture`) for docs/performance.md.

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Instant;

use rustc_hash::FxHashSet;

use super::corpus::DocumentRole;
use super::*;
use crate::eval::{parse_measures, EvalOptions, Evaluator};
use crate::features::text::stemmed_terms;
use crate::io::qrels::Qrels;
use crate::io::task::Task;

/// The seed of the embedded default task.
const EMBEDDED_SEED: u64 = 2019;

fn default_world() -> &'static SynthWorld {
    static WORLD: OnceLock<SynthWorld> = OnceLock::new();
    WORLD.get_or_init(|| {
        let start = Instant::now();
        let world = generate(Preset::Default, EMBEDDED_SEED).unwrap();
        eprintln!(
            "generated the default preset in {:.2} s",
            start.elapsed().as_secs_f64()
        );
        world
    })
}

/// Further seeds the shape tests also hold for, so they do not pass by luck of one seed.
const OTHER_SEEDS: [u64; 2] = [1, 77];

/// The default world of the embedded seed, then of [`OTHER_SEEDS`].
fn default_worlds() -> &'static [SynthWorld] {
    static WORLDS: OnceLock<Vec<SynthWorld>> = OnceLock::new();
    WORLDS.get_or_init(|| {
        std::iter::once(default_world().clone())
            .chain(
                OTHER_SEEDS
                    .iter()
                    .map(|&seed| generate(Preset::Default, seed).unwrap()),
            )
            .collect()
    })
}

fn read_folder(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    files
}

use std::path::{Path, PathBuf};

#[test]
fn same_seed_gives_identical_files_and_another_seed_does_not() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    let layout = TaskLayout::standalone("synth-passage");
    write_task(default_world(), first.path(), &layout, None).unwrap();
    let again = generate(Preset::Default, EMBEDDED_SEED).unwrap();
    write_task(&again, second.path(), &layout, None).unwrap();
    let first_files = read_folder(first.path());
    assert!(first_files.len() > 30, "{:?}", first_files.keys());
    assert_eq!(first_files, read_folder(second.path()));

    let other = generate(Preset::Default, EMBEDDED_SEED + 1).unwrap();
    let third = tempfile::tempdir().unwrap();
    write_task(&other, third.path(), &layout, None).unwrap();
    let third_files = read_folder(third.path());
    for name in ["corpus.tsv.gz", "topics.tsv", "truth.qrels"] {
        assert_ne!(
            first_files[Path::new(name)],
            third_files[Path::new(name)],
            "{name}"
        );
    }
}

#[test]
fn every_vocabulary_word_is_its_own_distinct_stem() {
    for seed in [EMBEDDED_SEED, 7] {
        let words = corpus::build_vocabulary(Preset::Dl19.params().vocabulary_size, seed).unwrap();
        let mut stems = FxHashSet::default();
        for word in &words {
            let terms = stemmed_terms(word);
            assert_eq!(terms, [word.as_str()], "{word} is not its own stem");
            assert!(stems.insert(terms[0].clone()), "{word} twice");
        }
    }
    assert_eq!(
        default_world().vocabulary().len(),
        Preset::Default.params().vocabulary_size
    );
}

#[test]
fn documents_hold_the_preset_number_of_distinct_terms() {
    let world = default_world();
    let range = &world.params.distinct_terms_per_document;
    for pos in (0..world.document_count()).step_by(97) {
        let mut terms = stemmed_terms(&world.document_text(pos));
        terms.sort_unstable();
        terms.dedup();
        assert!(
            range.contains(&terms.len()),
            "{}: {} distinct terms",
            world.document_id(pos),
            terms.len()
        );
    }
    assert_eq!(world.document_id(12_345), "p0012345");
    assert_eq!(
        world.corpus_lines(3..4),
        format!("p0000003\t{}\n", world.document_text(3))
    );
}

#[test]
fn relevant_counts_and_budgets_are_in_the_preset_ranges() {
    for world in default_worlds() {
        eprintln!("seed {}:", world.seed);
        let params = &world.params;
        assert_eq!(world.topics.len(), params.topic_count);
        assert_eq!(world.truth.topics.len(), params.topic_count);
        let mut relevant_counts = Vec::new();
        for topic in &world.topics {
            let truth = world.truth.topic(&topic.id).unwrap();
            let relevant = truth.relevant_count(1);
            relevant_counts.push(relevant);
            assert!(
                params.relevant_per_topic.contains(&relevant),
                "{}",
                topic.id
            );
            for grade in 1..=3 {
                assert!(
                    truth.grades().any(|found| found == grade),
                    "{} lacks grade {grade}",
                    topic.id
                );
            }
            assert!(
                truth.grades().any(|found| found == 0),
                "{} has no distractor",
                topic.id
            );
            assert!(params.judgment_budget.contains(&topic.judgment_budget));
            let words = topic.text.split(' ').count();
            assert!(params.query_terms.contains(&words), "{}", topic.text);
        }
        let budgets: Vec<usize> = world.topics.iter().map(|t| t.judgment_budget).collect();
        eprintln!("relevant per topic: {relevant_counts:?}");
        eprintln!("judgment budgets:   {budgets:?}");
    }
}

#[test]
fn teams_and_runs_have_the_preset_shape() {
    let world = default_world();
    let params = &world.params;
    assert_eq!(world.runs.len(), params.run_count);
    let team_names = world.teams.team_names();
    assert_eq!(team_names.len(), params.team_count);
    assert!(team_names.contains(&BASELINE_TEAM));
    for team in &team_names {
        let runs = world
            .teams
            .runs
            .values()
            .filter(|entry| &entry.team == team)
            .count();
        assert!(params.runs_per_team.contains(&runs), "{team}: {runs} runs");
    }
    for run in &world.runs {
        assert_eq!(run.topics.len(), params.topic_count, "{}", run.tag);
        for ranking in &run.topics {
            assert_eq!(
                ranking.docs.len(),
                params.run_depth,
                "{} {}",
                run.tag,
                ranking.topic
            );
            assert!(
                ranking
                    .docs
                    .windows(2)
                    .all(|pair| pair[0].score > pair[1].score),
                "{} {}: scores must strictly decrease",
                run.tag,
                ranking.topic
            );
        }
    }
}

fn pool_sizes(world: &SynthWorld) -> Vec<usize> {
    world
        .pool(world.params.pool_depth)
        .values()
        .map(|docs| docs.len())
        .collect()
}

#[test]
fn depth_10_pool_leaves_work_for_cal_within_every_budget() {
    for world in default_worlds() {
        eprintln!("seed {}:", world.seed);
        let sizes = pool_sizes(world);
        eprintln!("depth-10 pool per topic: {sizes:?}");
        for (topic, size) in world.topics.iter().zip(&sizes) {
            assert!(
                *size < *world.params.judgment_budget.start(),
                "topic {}: pool of {size} is not below the smallest budget",
                topic.id
            );
            assert!(
                *size >= 2 * world.params.pool_depth,
                "topic {}: runs barely differ",
                topic.id
            );
        }
    }
}

fn mean_average_precisions(world: &SynthWorld) -> Vec<(String, Vec<f64>)> {
    let options = EvalOptions {
        measures: parse_measures(&["map"]).unwrap(),
        relevance_level: 1,
        complete: true,
        max_docs: None,
        relstring: None,
    };
    let evaluator = Evaluator::new(&world.truth, options);
    world
        .runs
        .iter()
        .map(|run| {
            let evaluation = evaluator.evaluate(run);
            let per_topic = evaluation
                .topics
                .iter()
                .map(|(_, values)| values[0])
                .collect();
            (run.tag.clone(), per_topic)
        })
        .collect()
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

#[test]
fn run_quality_spreads_like_a_trec_track() {
    for world in default_worlds() {
        eprintln!("seed {}:", world.seed);
        let mut maps: Vec<(String, f64)> = mean_average_precisions(world)
            .into_iter()
            .map(|(tag, per_topic)| (tag, mean(&per_topic)))
            .collect();
        maps.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (tag, map) in &maps {
            eprintln!("{tag:>16} {map:.4}");
        }
        let (best, worst) = (maps[0].1, maps[maps.len() - 1].1);
        eprintln!(
            "MAP best {best:.4}, worst {worst:.4}, ratio {:.2}",
            best / worst
        );
        assert!(best / worst >= 1.8, "best {best}, worst {worst}");
        assert!(best < 0.95, "no run should be near perfect: {best}");
    }
}

/// The share of documents two rankings of one topic have in common.
fn overlap(first: &crate::io::run::RunTopic, second: &crate::io::run::RunTopic) -> f64 {
    let docs: FxHashSet<&str> = first.docs.iter().map(|doc| &*doc.docid).collect();
    let shared = second
        .docs
        .iter()
        .filter(|doc| docs.contains(&*doc.docid))
        .count();
    shared as f64 / first.docs.len().max(second.docs.len()).max(1) as f64
}

#[test]
fn a_teams_runs_agree_more_with_each_other_than_with_other_teams() {
    for world in default_worlds() {
        eprintln!("seed {}:", world.seed);
        let average_precisions = mean_average_precisions(world);
        let (mut same_overlap, mut other_overlap) = (Vec::new(), Vec::new());
        let (mut same_tau, mut other_tau) = (Vec::new(), Vec::new());
        for (i, first) in world.runs.iter().enumerate() {
            for (j, second) in world.runs.iter().enumerate().skip(i + 1) {
                let is_same_team = world.teams.get(&first.tag).unwrap().team
                    == world.teams.get(&second.tag).unwrap().team;
                let overlaps: Vec<f64> = first
                    .topics
                    .iter()
                    .zip(&second.topics)
                    .map(|(a, b)| overlap(a, b))
                    .collect();
                let tau = crate::stats::tau_b(&average_precisions[i].1, &average_precisions[j].1)
                    .expect("per-topic AP varies");
                if is_same_team {
                    same_overlap.push(mean(&overlaps));
                    same_tau.push(tau);
                } else {
                    other_overlap.push(mean(&overlaps));
                    other_tau.push(tau);
                }
            }
        }
        let (same_overlap, other_overlap) = (mean(&same_overlap), mean(&other_overlap));
        let (same_tau, other_tau) = (mean(&same_tau), mean(&other_tau));
        eprintln!("top-100 overlap: same team {same_overlap:.3}, other teams {other_overlap:.3}");
        eprintln!(
            "Kendall tau of AP over topics: same team {same_tau:.3}, other teams {other_tau:.3}"
        );
        assert!(same_overlap > other_overlap + 0.1);
        assert!(same_tau > other_tau);
    }
}

#[test]
fn written_task_loads_as_generated_and_fits_in_20_mb() {
    let world = default_world();
    let dir = tempfile::tempdir().unwrap();
    let task_dir = dir.path().join("runs").join("synth-passage");
    let layout = TaskLayout::embedded("synth-passage");
    write_task(world, &task_dir, &layout, None).unwrap();
    let task = Task::open(&task_dir.join("task.toml")).unwrap();
    assert_eq!(task.manifest.name, "synth-passage");
    assert_eq!(task.pool_depth, 10);
    assert_eq!(task.runs.len(), world.runs.len());
    for (read, generated) in task.runs.iter().zip(&world.runs) {
        assert_eq!(read.tag, generated.tag);
        assert_eq!(
            read.topics, generated.topics,
            "{}: read back differently",
            read.tag
        );
    }
    assert_eq!(task.teams, world.teams);
    assert_eq!(task.truth.as_ref(), Some(&world.truth));
    assert_eq!(
        task.qrels, world.truth,
        "provisional official qrels are the truth"
    );
    assert_eq!(task.topics.as_ref(), Some(&world.topic_texts()));
    assert!(dir.path().join("qrels/synth-passage.truth.qrels").is_file());

    let corpus = crate::io::gz::read_to_string(&task_dir.join("corpus.tsv.gz")).unwrap();
    assert_eq!(corpus.lines().count(), world.document_count());
    assert_eq!(
        corpus.lines().nth(17).unwrap(),
        world.corpus_lines(17..18).trim_end()
    );

    let total_bytes: usize = read_folder(dir.path()).values().map(Vec::len).sum();
    eprintln!("default task on disk: {:.2} MB", total_bytes as f64 / 1e6);
    assert!(total_bytes < 20_000_000);

    // Rewriting with the official qrels keeps the rest and replaces the provisional file.
    let mut official = Qrels::default();
    official
        .topics
        .entry(world.topics[0].id.as_str().into())
        .or_default()
        .insert("p0000001", 1);
    write_task(world, &task_dir, &layout, Some(&official)).unwrap();
    assert_eq!(
        Task::open(&task_dir.join("task.toml")).unwrap().qrels,
        official
    );
}

#[test]
fn a_folder_with_foreign_run_files_is_refused() {
    let world = default_world();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("runs")).unwrap();
    std::fs::write(dir.path().join("runs/old_run"), "1 Q0 d 1 1 old_run\n").unwrap();
    let error = write_task(world, dir.path(), &TaskLayout::standalone("t"), None).unwrap_err();
    assert!(error.to_string().contains("old_run"), "{error}");
}

#[test]
fn seed_mixing_is_fixed() {
    // The mixing function is part of the file format of every synthetic task: changing it
    // changes every committed file.
    assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
    assert_ne!(sub_seed(1, Part::Topics, 0), sub_seed(1, Part::Teams, 0));
    assert_ne!(
        sub_seed(1, Part::Documents, 1),
        sub_seed(1, Part::Documents, 2)
    );
    let draws: Vec<f64> = (0..20_000).map(|key| gaussian(mix(3, key))).collect();
    let average = mean(&draws);
    let variance = mean(
        &draws
            .iter()
            .map(|x| (x - average).powi(2))
            .collect::<Vec<_>>(),
    );
    assert!(
        average.abs() < 0.03 && (variance - 1.0).abs() < 0.05,
        "{average} {variance}"
    );
}

#[test]
fn dl19_has_the_shape_of_trec_dl_2019() {
    let start = Instant::now();
    let world = generate(Preset::Dl19, EMBEDDED_SEED).unwrap();
    eprintln!("generated dl19 in {:.2} s", start.elapsed().as_secs_f64());
    assert_eq!(world.topics.len(), 43);
    assert_eq!(world.runs.len(), 38);
    assert_eq!(world.teams.team_names().len(), 11);
    assert_eq!(world.document_count(), 200_000);
    let relevant: Vec<usize> = world
        .topics
        .iter()
        .map(|topic| world.truth.topic(&topic.id).unwrap().relevant_count(1))
        .collect();
    assert!(relevant
        .iter()
        .all(|count| world.params.relevant_per_topic.contains(count)));
    eprintln!(
        "dl19 relevant per topic: mean {:.1}",
        relevant.iter().sum::<usize>() as f64 / relevant.len() as f64
    );
    let sizes = pool_sizes(&world);
    eprintln!("dl19 depth-10 pool per topic: {sizes:?}");
    assert!(sizes
        .iter()
        .all(|&size| size < *world.params.judgment_budget.start()));
    let mut terms = stemmed_terms(&world.document_text(1234));
    terms.sort_unstable();
    terms.dedup();
    assert!(world
        .params
        .distinct_terms_per_document
        .contains(&terms.len()));
    let maps: Vec<f64> = mean_average_precisions(&world)
        .iter()
        .map(|(_, per_topic)| mean(per_topic))
        .collect();
    let best = maps.iter().copied().fold(0.0, f64::max);
    let worst = maps.iter().copied().fold(1.0, f64::min);
    eprintln!("dl19 MAP best {best:.4}, worst {worst:.4}");
    assert!(best / worst >= 1.8);
}

#[test]
fn the_world_does_not_depend_on_the_thread_count() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let single = pool.install(|| generate(Preset::Default, EMBEDDED_SEED).unwrap());
    let world = default_world();
    assert_eq!(single.runs, world.runs);
    assert_eq!(single.truth, world.truth);
    assert_eq!(single.topics, world.topics);
    assert_eq!(single.corpus_lines(0..2_000), world.corpus_lines(0..2_000));
}

#[test]
fn worlds_can_be_shared_between_threads() {
    fn is_send_and_sync<T: Send + Sync>() {}
    is_send_and_sync::<SynthWorld>();
}

mod background;
