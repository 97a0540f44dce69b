//! The task a job runs on: a manifest named by the user, or the embedded default task.

use std::path::{Path, PathBuf};

use crate::base::error::{Context, Error, Result};
use crate::io::task::Task;

/// The embedded default task, relative to the working folder or, failing that, to the source
/// tree the library was built from.
pub fn default_task_path() -> PathBuf {
    let relative = Path::new("runs/synth-passage/task.toml");
    if relative.exists() {
        relative.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
    }
}

/// Opens the task whose manifest is `task` (the embedded default task when `None`), reading
/// text features from `feature_store` when given instead of the manifest's.
///
/// # Errors
/// A manifest or an input it names that cannot be read, under the context `loading task PATH`.
pub fn open_task(task: Option<&Path>, feature_store: Option<&Path>) -> Result<Task> {
    let path = task.map_or_else(default_task_path, Path::to_path_buf);
    let mut task = Task::open(&path).with_context(|| format!("loading task {}", path.display()))?;
    if let Some(store) = feature_store {
        task.manifest.feature_store = Some(store.to_path_buf());
    }
    Ok(task)
}

/// Refuses, naming the qrels file, a task whose qrels the relevance model cannot learn from
/// (see [`crate::relevance_model::calibration::require_non_relevant`]): the jobs that use the
/// model call it before any work.
///
/// # Errors
/// [`Error::Invalid`] naming the qrels file.
pub fn require_model_qrels(task: &Task) -> Result<()> {
    let grades = (task.qrels.topics.values()).flat_map(|topic| topic.grades());
    crate::relevance_model::calibration::require_non_relevant(grades, task.manifest.relevance_level)
        .map_err(|error| Error::Invalid(format!("{}: {error}", task.manifest.qrels.display())))
}
