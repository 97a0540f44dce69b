//! The kept qrels of a study's leave-out trials, as the calibration's evidence of what a
//! team's absence loses from a collection judged by active learning
//! ([`super::calibration_sample::TeamAbsence::Trials`]).

use std::collections::BTreeMap;
use std::path::Path;

use rustc_hash::FxHashMap;

use crate::base::choice::choice_enum;
use crate::base::error::{Error, Result};
use crate::base::DocumentGrades;
use crate::collection::Collection;
use crate::io::qrels::read_qrels;

choice_enum! {
    /// Where the calibration learns what a team's absence leaves unjudged (resolved with what
    /// it reads from as a [`super::calibration_sample::TeamAbsence`]).
    pub enum AbsenceSource {
        /// The pool: the documents only the team pooled (classic leave-out-uniques).
        Pool = "pool",
        /// The leave-out trials a study kept (`simulate --keep-qrels`).
        Trials = "trials",
    }
}

/// The judgments of every topic of a collection (collection topic order).
pub type Judgments = Vec<DocumentGrades>;

/// Each team's kept leave-out trials: team name to its trials' judgments, one per seed.
pub type TrialJudgments = BTreeMap<String, Vec<Judgments>>;

/// A trial's qrels file as judgments of the collection's topics.
///
/// # Errors
/// An unreadable or malformed file, or a document the task neither judges nor retrieves.
pub fn read_trial(collection: &Collection, path: &Path) -> Result<Judgments> {
    let qrels = read_qrels(path)?;
    let mut world: Judgments = vec![FxHashMap::default(); collection.topics.len()];
    for (topic_id, judged) in &qrels.topics {
        let Some(topic) = collection.topic_index(topic_id) else {
            continue;
        };
        for (docid, grade) in judged.judgments() {
            let doc = collection.doc_id(docid).ok_or_else(|| {
                Error::Invalid(format!(
                    "{}: document {docid:?} of topic {topic_id} is neither judged nor retrieved \
                     in this task: are these the trial qrels of another task?",
                    path.display()
                ))
            })?;
            world[topic].insert(doc, grade);
        }
    }
    Ok(world)
}

/// The path of the kept qrels of `team`'s trial of `seed` in the results folder `dir`.
pub fn trial_path(dir: &Path, team: &str, seed: u64) -> std::path::PathBuf {
    dir.join("qrels").join(format!("{team}-s{seed}.qrels"))
}

/// The kept trials of every team of the collection in `dir/qrels/` (`{team}-s{seed}.qrels`),
/// of `seed` only when given.
///
/// # Errors
/// A folder without any such trial, and the errors of [`read_trial`].
pub fn read_kept_trials(
    collection: &Collection,
    dir: &Path,
    seed: Option<u64>,
) -> Result<TrialJudgments> {
    let folder = dir.join("qrels");
    let names: Vec<String> = match std::fs::read_dir(&folder) {
        Ok(entries) => entries
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    let teams: std::collections::BTreeSet<&str> = collection
        .runs
        .iter()
        .map(|run| run.team.as_str())
        .collect();
    let mut trials = TrialJudgments::new();
    for team in teams {
        let mut seeds: Vec<u64> = names
            .iter()
            .filter_map(|name| {
                let rest = name.strip_prefix(team)?.strip_prefix("-s")?;
                rest.strip_suffix(".qrels")?.parse().ok()
            })
            .filter(|&found| seed.is_none_or(|wanted| wanted == found))
            .collect();
        seeds.sort_unstable();
        for found in seeds {
            let judgments = read_trial(collection, &trial_path(dir, team, found))?;
            trials.entry(team.to_string()).or_default().push(judgments);
        }
    }
    if trials.is_empty() {
        return Err(Error::Invalid(format!(
            "{}: expected the kept qrels of leave-out trials (TEAM-sSEED.qrels{}), found none: \
             run `reusesim simulate --keep-qrels --out {}` first",
            folder.display(),
            seed.map_or(String::new(), |seed| format!(" of seed {seed}")),
            dir.display()
        )));
    }
    Ok(trials)
}
