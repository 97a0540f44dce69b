//! How long work tells its caller how far it has come.

/// A progress callback: `done` of `total` steps, called from worker threads (so `Sync`).
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);
