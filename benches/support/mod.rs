//! What the benchmarks share: HiCAL's judge settings and the `dl19` synthetic collection,
//! generated once into `target/bench-synth-dl19/` and reused.

use std::path::{Path, PathBuf};
use std::time::Instant;

use reusesim::base::choice::Choice;
use reusesim::collection::CandidateSource;
use reusesim::eval::parse_measures;
use reusesim::io::task::Task;
use reusesim::judge::schedule::Schedule;
use reusesim::judge::settings::JudgeSettings;
use reusesim::sim::study::StudySettings;
use reusesim::synth::{build_task, write::TaskLayout, Preset, TaskLabels};

/// HiCAL's settings with the candidates and the schedule (`REUSESIM_BENCH_SCHEDULE`, default
/// `bmi`) asked for.
pub fn judge_settings(seed: u64, candidates: CandidateSource) -> JudgeSettings {
    let schedule = std::env::var("REUSESIM_BENCH_SCHEDULE")
        .ok()
        .map(|name| Schedule::from_name(&name).expect("REUSESIM_BENCH_SCHEDULE is bmi or one"))
        .unwrap_or(Schedule::Bmi);
    JudgeSettings {
        seed,
        candidates,
        schedule,
        ..JudgeSettings::hical(10)
    }
}

/// The `dl19` task (corpus, runs, official qrels made by pool plus CAL), built once.
pub fn dl19_task_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-synth-dl19");
    if !dir.join("task.toml").exists() || !dir.join("qrels.txt").exists() {
        let started = Instant::now();
        build_task(
            Preset::Dl19,
            2019,
            &dir,
            &TaskLayout::standalone("synth-dl19"),
            &judge_settings(2019, CandidateSource::Corpus),
            &TaskLabels::default(),
        )
        .expect("the dl19 collection builds");
        eprintln!(
            "generated the dl19 collection in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    dir
}

/// A study of `task` with `seeds` seeds, HiCAL's judge and the three measures of the paper.
pub fn study_settings(task: &Task, seeds: u64) -> StudySettings {
    StudySettings {
        seeds,
        measures: parse_measures(&["map,P_10,ndcg_cut_10"]).unwrap(),
        teams: None,
        judge: JudgeSettings {
            pool_depth: task.pool_depth,
            ..judge_settings(0, CandidateSource::Retrieved)
        },
        budget: None,
        keep_qrels: false,
        budget_fractions: reusesim::sim::settings::OFFICIAL_BUDGET_ONLY.to_vec(),
        strategies: Vec::new(),
        assessor: reusesim::sim::settings::AssessorChoice::Official,
        significance: reusesim::sim::settings::default_significance(),
    }
}
