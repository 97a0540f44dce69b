//! Each strategy's judging order on small hand-made rankings, computed by hand.

use super::bandit::MaxMeanNonStationary;
use super::depth::DepthFirst;
use super::mtf::MoveToFront;
use super::*;

/// The order `chooser` judges `rankings` in, `relevant` the relevant documents, 8 withheld.
fn order(
    rankings: &[&[DocId]],
    relevant: &[DocId],
    limit: usize,
    chooser: &mut dyn RunChooser,
) -> Vec<DocId> {
    judging_order(
        rankings,
        |doc| doc != 8,
        |doc| relevant.contains(&doc),
        limit,
        chooser,
    )
}

#[test]
fn depth_judges_the_pool_depth_by_depth_each_depth_in_run_order() {
    // Depth 1: 1 2 7. Depth 2: A's 2 is judged; B's 5; C's 1 is judged. Depth 3: A's 3; B's
    // 1 is judged; C's 8 is withheld. Depth 4: A's 4, B's 6.
    let rankings: [&[DocId]; 3] = [&[1, 2, 3, 4], &[2, 5, 1, 6], &[7, 1, 8]];
    let whole = order(&rankings, &[], 100, &mut DepthFirst);
    assert_eq!(whole, [1, 2, 7, 5, 3, 4, 6]);
    // A budget met within depth 4 cuts it in run order.
    assert_eq!(
        order(&rankings, &[], 6, &mut DepthFirst),
        [1, 2, 7, 5, 3, 4]
    );
    assert_eq!(order(&rankings, &[], 0, &mut DepthFirst), [] as [DocId; 0]);
}

#[test]
fn move_to_front_keeps_a_run_while_it_finds_relevant_documents() {
    // Relevant: 1 5 6 8 (8 withheld). A: 1 relevant, stays at 0; 2 not, A at -1. B (0): 4
    // not, -1. C (0): 7 not, -1. All at -1: A's 3 not, A at -2 (and A is done). B (-1): 5 and
    // 6 relevant, B stays at -1. C: 9 not.
    let rankings: [&[DocId]; 3] = [&[1, 2, 3], &[4, 5, 6], &[7, 8, 9]];
    let relevant = [1, 5, 6, 8];
    let mut after_failures = MoveToFront::new(3);
    let first = order(&rankings, &relevant, 4, &mut after_failures);
    assert_eq!(first, [1, 2, 4, 7]);
    assert_eq!(after_failures.priority, [-1, -1, -1]);
    let mut chooser = MoveToFront::new(3);
    let whole = order(&rankings, &relevant, 100, &mut chooser);
    assert_eq!(whole, [1, 2, 4, 7, 3, 5, 6, 9]);
    assert_eq!(chooser.priority, [-2, -1, -2]);
}

#[test]
fn max_mean_non_stationary_pulls_the_arm_with_the_highest_discounted_mean() {
    let open: Vec<OpenRun> = (0..3).map(|arm| OpenRun { arm, next_rank: 1 }).collect();
    let mut bandit = MaxMeanNonStationary::new(3);
    // No outcome yet: every mean is 1/2 and the first arm wins the tie.
    assert_eq!(bandit.choose(&open), 0);
    // Arm 0: relevant, then not: counts 0.9 and 1, mean 1.9 / 3.9 (stationary MaxMean: 2/4).
    bandit.observe(0, true);
    bandit.observe(0, false);
    // Arm 1: not relevant: mean 1/3.
    bandit.observe(1, false);
    assert!((bandit.mean(0) - 1.9 / 3.9).abs() < 1e-12);
    assert!((bandit.mean(1) - 1.0 / 3.0).abs() < 1e-12);
    // Arm 2 (1/2) beats arm 0 (0.487); without the discount arm 0 would tie it and win.
    assert_eq!(bandit.choose(&open), 2);
    bandit.observe(2, false);
    assert_eq!(bandit.choose(&open), 0);
    // Only the open arms compete.
    let later = &open[1..];
    assert_eq!(
        later[bandit.choose(later)].arm,
        1,
        "arm 2 (1/3) ties arm 1 (1/3)"
    );
}

#[test]
fn max_mean_non_stationary_orders_a_small_task() {
    // Relevant: 1 4 5. A: 1 relevant (2/3); 2 not (1.9/3.9 = 0.487). B (1/2): 4 relevant
    // (2/3), 5 relevant (2.9/3.9 = 0.744), 6 not (2.71/4.71 = 0.575), B is done. A: 3.
    let rankings: [&[DocId]; 2] = [&[1, 2, 3], &[4, 5, 6]];
    let mut bandit = MaxMeanNonStationary::new(2);
    let whole = order(&rankings, &[1, 4, 5], 100, &mut bandit);
    assert_eq!(whole, [1, 2, 4, 5, 6, 3]);
    assert!((bandit.mean(1) - 2.71 / 4.71).abs() < 1e-12);
}

#[test]
fn strategies_have_one_name_each() {
    use crate::base::choice::Choice;
    let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["hical", "depth", "mtf", "bandit"]);
    assert_eq!(Strategy::from_name("mtf"), Some(Strategy::Mtf));
    assert!(Strategy::Hical.is_learning() && !Strategy::Depth.is_learning());
}
