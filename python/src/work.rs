//! Long library work run from Python: off the GIL, on a rayon pool of the requested size,
//! reporting progress to a Python callback (tqdm), and stoppable with Ctrl-C.
//!
//! The work runs on a worker thread while the calling (main) thread waits without the GIL and
//! wakes every [`POLL_INTERVAL`] to run Python's signal handlers (only the main thread can)
//! and to pass progress on. On `KeyboardInterrupt` it raises a flag; the library's progress
//! callback sees the flag at the next finished unit and unwinds out of the work with a private
//! payload (no panic message, no partial output: the library writes files atomically, after
//! the work). Work without a progress callback runs to its end before the interrupt is raised.
//! For tests, `REUSESIM_TEST_STOP_AFTER_UNITS` presses Ctrl-C after that many steps (see
//! [`Progress::report`]), so that an interrupted study does not depend on the clock.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::errors::to_py_err;

/// How often the waiting thread checks for Ctrl-C and reports progress.
const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// How long a test's Ctrl-C waits to be seen before the work goes on (then the test fails).
const PRESS_TIMEOUT: Duration = Duration::from_secs(60);

/// The unwinding payload that stops interrupted work.
struct Interrupted;

/// Progress shared between the work and the waiting thread.
#[derive(Default)]
pub struct Progress {
    done: AtomicUsize,
    total: AtomicUsize,
    is_cancelled: AtomicBool,
    /// For tests: the step after which Ctrl-C is pressed (see [`Progress::press_ctrl_c`]).
    stop_after: Option<usize>,
    is_pressed: AtomicBool,
}

impl Progress {
    /// Records that `done` of `total` steps are finished; unwinds out of the work when the
    /// user pressed Ctrl-C. Called from the library's worker threads.
    pub fn report(&self, done: usize, total: usize) {
        self.total.store(total, Ordering::Relaxed);
        self.done.fetch_max(done, Ordering::Relaxed);
        if self.stop_after == Some(done) && !self.is_pressed.swap(true, Ordering::Relaxed) {
            self.press_ctrl_c();
        }
        if self.is_cancelled.load(Ordering::Relaxed) {
            resume_unwind(Box::new(Interrupted));
        }
    }

    /// [`report`](Self::report) as the jobs' progress callback (Python is not told the stage).
    pub fn callback(&self) -> impl Fn(&str, usize, usize) + Sync + '_ {
        move |_, done, total| self.report(done, total)
    }

    /// For tests (`REUSESIM_TEST_STOP_AFTER_UNITS`): Ctrl-C as a user presses it, through
    /// Python's own SIGINT handling, then a wait until the waiting thread has seen it, so
    /// that the work cannot end first.
    fn press_ctrl_c(&self) {
        // SAFETY: the C API allows this call from any thread, without the GIL.
        unsafe { pyo3::ffi::PyErr_SetInterrupt() };
        let deadline = Instant::now() + PRESS_TIMEOUT;
        while !self.is_cancelled.load(Ordering::Relaxed) && Instant::now() < deadline {
            std::thread::sleep(POLL_INTERVAL / 10);
        }
    }

    fn snapshot(&self) -> (usize, usize) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }
}

/// A flag the worker raises when it ends, which the waiting thread sleeps on.
#[derive(Default)]
struct Finished {
    is_finished: Mutex<bool>,
    changed: Condvar,
}

impl Finished {
    fn set(&self) {
        *self
            .is_finished
            .lock()
            .expect("the flag's lock is never poisoned") = true;
        self.changed.notify_all();
    }

    /// Waits up to `timeout`; whether the worker has ended.
    fn wait(&self, timeout: Duration) -> bool {
        let guard = self
            .is_finished
            .lock()
            .expect("the flag's lock is never poisoned");
        let (guard, _) = self
            .changed
            .wait_timeout_while(guard, timeout, |is_finished| !*is_finished)
            .expect("the flag's lock is never poisoned");
        *guard
    }
}

/// Runs `work` on a rayon pool of `threads` threads (all cores when `None`) without the GIL,
/// calling `on_progress(done, total)` from this thread as the work reports progress.
///
/// # Errors
/// The work's error as a Python exception, `KeyboardInterrupt` on Ctrl-C, a callback's error,
/// and `RuntimeError` when the thread pool cannot start.
pub fn run<T: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    on_progress: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce(&Progress) -> reusesim::Result<T> + Send,
) -> PyResult<T> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|error| PyRuntimeError::new_err(format!("starting worker threads: {error}")))?;
    let progress = Progress {
        stop_after: reusesim::sim::runner::stop_after_units(),
        ..Progress::default()
    };
    let finished = Finished::default();
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let outcome = catch_unwind(AssertUnwindSafe(|| pool.install(|| work(&progress))));
            finished.set();
            outcome
        });
        let mut stop: Option<PyErr> = None;
        let mut shown = (0, 0);
        while !py.detach(|| finished.wait(POLL_INTERVAL)) {
            if stop.is_some() {
                continue;
            }
            let reported = progress.snapshot();
            let callback_result = match on_progress {
                Some(callback) if reported != shown => {
                    shown = reported;
                    callback.call1(reported).map(drop)
                }
                _ => Ok(()),
            };
            if let Err(error) = callback_result.and_then(|()| py.check_signals()) {
                progress.is_cancelled.store(true, Ordering::Relaxed);
                stop = Some(error);
            }
        }
        let outcome = worker.join().expect("the worker catches its own panics");
        if let Some(error) = stop {
            return Err(error);
        }
        if let Some(callback) = on_progress {
            let reported = progress.snapshot();
            if reported != shown {
                callback.call1(reported)?;
            }
        }
        match outcome {
            Ok(result) => result.map_err(to_py_err),
            Err(payload) if payload.is::<Interrupted>() => {
                unreachable!("the work is interrupted only after a stop was recorded")
            }
            Err(payload) => resume_unwind(payload),
        }
    })
}
