//! How long work tells its caller how far it has come.

/// A job's progress callback: `done` of `total` steps of the stage named `stage` (`total` is 0
/// while it is not known), called from worker threads (so `Sync`). Every job reports through
/// one; a stage's own work takes a [`Progress`] made by [`stage`].
pub type StagedProgress<'a> = &'a (dyn Fn(&str, usize, usize) + Sync);

/// The stage in which a study judges its units (a trial's topic each).
pub const JUDGING_UNITS: &str = "judging units";

/// The progress callback of one stage: `done` of `total` steps.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// The callback through which the stage named `name` reports to `progress`.
pub fn stage<'a>(progress: StagedProgress<'a>, name: &'a str) -> impl Fn(usize, usize) + Sync + 'a {
    move |done, total| progress(name, done, total)
}
