//! A retrain allocates nothing: a counting allocator shows that judging a topic with more
//! retrains makes no more allocations, once the thread's buffers have grown to the topic's
//! sizes. Both kinds of features are tried on the embedded task: text features (the main job)
//! and run features (TREC-COVID's).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

use reusesim::collection::Collection;
use reusesim::io::task::Task;
use reusesim::judge::assessor::OfficialAssessor;
use reusesim::judge::cal::{judge_topic, TopicJudging};
use reusesim::judge::settings::JudgeSettings;

/// The system allocator, counting the allocations of each thread.
struct Counting;

thread_local! {
    // A constant initialiser and no destructor: the allocator may use it at any time.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_one() {
    // During thread teardown the counter may be gone; such allocations are not ours to count.
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
}

// SAFETY: every call is passed to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Judges topic 1 of the embedded task with nothing held out, returning the judging and the
/// allocations this thread made meanwhile.
fn judge_counting(collection: &Collection, budget: usize) -> (TopicJudging, u64) {
    let settings = JudgeSettings {
        iterations: 500,
        ..JudgeSettings::hical(10)
    };
    let nothing_excluded = vec![false; collection.runs.len()];
    let before = ALLOCATIONS.with(Cell::get);
    let judging = judge_topic(
        collection,
        0,
        &nothing_excluded,
        budget,
        &settings,
        &OfficialAssessor::new(collection),
    )
    .unwrap();
    (judging, ALLOCATIONS.with(Cell::get) - before)
}

fn assert_retrains_allocate_nothing(text_features: bool) {
    let task =
        Task::open(&Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/synth-passage/task.toml"))
            .unwrap();
    let collection = Collection::prepare(&task, &task.qrels, text_features).unwrap();
    // Both budgets reach past the topic's carried judgments and pool, so both retrain.
    let (few, many) = (200, 600);
    // The first judging grows the thread's buffers to the topic's sizes.
    judge_counting(&collection, many);
    let (short, short_allocations) = judge_counting(&collection, few);
    let (long, long_allocations) = judge_counting(&collection, many);
    assert!(
        long.retrains > short.retrains + 5,
        "the budgets should differ by several retrains: {} and {}",
        short.retrains,
        long.retrains
    );
    assert_eq!(
        long_allocations,
        short_allocations,
        "{} more retrains made {} more allocations",
        long.retrains - short.retrains,
        long_allocations as i64 - short_allocations as i64
    );
}

#[test]
fn a_retrain_with_text_features_allocates_nothing() {
    assert_retrains_allocate_nothing(true);
}

#[test]
fn a_retrain_with_run_features_allocates_nothing() {
    assert_retrains_allocate_nothing(false);
}
