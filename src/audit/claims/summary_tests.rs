use super::*;
use crate::sim::settings::default_significance;
use crate::stats::correction::Correction;

/// The studies' test (the paired t-test at 0.05) with `correction`.
fn settings(correction: Correction) -> TestSettings {
    TestSettings {
        correction,
        ..default_significance()
    }
}

fn names(count: usize) -> Vec<String> {
    (0..count).map(|run| format!("r{run}")).collect()
}

/// The baseline's scores are the audited run's less `differences`.
fn pair(audited: &[f64], differences: &[f64]) -> Vec<Vec<f64>> {
    let baseline = audited
        .iter()
        .zip(differences)
        .map(|(a, d)| a - d)
        .collect();
    vec![audited.to_vec(), baseline]
}

const AUDITED: [f64; 4] = [0.6, 0.7, 0.8, 0.9];
/// Differences whose mean is far from 0 against their spread: p < 0.001.
const CLEAR: [f64; 4] = [0.5, 0.45, 0.6, 0.6];
/// Differences of mean 0: p = 1.
const NONE: [f64; 4] = [0.1, -0.1, 0.05, -0.05];

fn negated(values: [f64; 4]) -> [f64; 4] {
    values.map(|v| -v)
}

/// Four samples: as the collection, no difference, reversed, as the collection. By hand:
/// P(significant as claimed) = 2/4, P(reversed) = 1/4, P(not significant) = 1/4; the outcome
/// changes in 2 of 4 samples: at risk. The expected difference is the mean of the samples'
/// mean differences, (m + 0 − m + m) / 4 = m / 4 with m = 0.5375; the 5% and 95% quantiles
/// (nearest rank of 4) are the smallest and the largest.
#[test]
fn a_claim_reversed_in_one_sample_and_lost_in_another_is_at_risk() {
    let runs = names(2);
    let collection = pair(&AUDITED, &CLEAR);
    let samples = vec![
        pair(&AUDITED, &CLEAR),
        pair(&AUDITED, &NONE),
        pair(&AUDITED, &negated(CLEAR)),
        pair(&AUDITED, &CLEAR),
    ];
    let scores = ClaimScores {
        measure: "map",
        runs: &runs,
        collection: &collection,
        samples: &samples,
    };
    let [claim] = &summarize(&scores, &settings(Correction::None)).unwrap()[..] else {
        panic!("one claim")
    };
    let mean = 0.5375;
    assert!((claim.difference - mean).abs() < 1e-12, "{claim:?}");
    assert!(claim.is_significant && claim.p_value < 0.001, "{claim:?}");
    assert_eq!(claim.probability_significant_as_claimed, 0.5);
    assert_eq!(claim.probability_reversed, 0.25);
    assert_eq!(claim.probability_not_significant, 0.25);
    assert_eq!(claim.remaining_after_list, 0.5);
    assert!((claim.expected_difference - mean / 4.0).abs() < 1e-12);
    assert!((claim.difference_low + mean).abs() < 1e-12);
    assert!((claim.difference_high - mean).abs() < 1e-12);
    assert_eq!(claim.verdict, ClaimVerdict::AtRisk);
    assert_eq!((claim.run.as_str(), claim.baseline.as_str()), ("r0", "r1"));
    assert_eq!(claim.topics, 4);
}

/// The collection finds nothing; one sample of four finds the baseline better: 1/4 > 0.1,
/// "judging could make it significant", the claimed direction being the collection's sign
/// (here the audited run's, the mean difference being 0).
#[test]
fn a_difference_significant_only_in_some_samples_could_become_significant() {
    let runs = names(2);
    let collection = pair(&AUDITED, &NONE);
    let mut samples = vec![pair(&AUDITED, &NONE); 3];
    samples.push(pair(&AUDITED, &negated(CLEAR)));
    let scores = ClaimScores {
        measure: "P_10",
        runs: &runs,
        collection: &collection,
        samples: &samples,
    };
    let claim = &summarize(&scores, &settings(Correction::None)).unwrap()[0];
    assert!(!claim.is_significant);
    assert_eq!(claim.p_value, 1.0);
    assert_eq!(claim.probability_not_significant, 0.75);
    assert_eq!(claim.probability_reversed, 0.25);
    assert_eq!(claim.probability_significant_as_claimed, 0.0);
    assert_eq!(claim.verdict, ClaimVerdict::CouldBecomeSignificant);
    // Without that sample: no claim.
    let scores = ClaimScores {
        samples: &samples[..3],
        ..scores
    };
    let claim = &summarize(&scores, &settings(Correction::None)).unwrap()[0];
    assert_eq!(claim.verdict, ClaimVerdict::NoClaim);
    assert_eq!(claim.remaining_after_list, 0.0);
}

/// Differences 1, 2, 3: mean 2, standard deviation 1, t = 2√3 on 2 degrees of freedom, whose
/// two-sided p-value is 1 − t / √(t² + 2) = 0.0742 (Student's t with 2 degrees of freedom has
/// that closed form). Two baselines with these differences: Bonferroni doubles it; Holm
/// takes the larger of 2p and p for the second, so both are 2p too.
#[test]
fn the_p_value_is_the_paired_t_tests_corrected_over_the_runs_claims_of_the_measure() {
    let audited = [5.0, 5.0, 5.0];
    let differences = [1.0, 2.0, 3.0];
    let t: f64 = 2.0 * 3f64.sqrt();
    let p = 1.0 - t / (t * t + 2.0).sqrt();
    let mut collection = pair(&audited, &differences);
    collection.push(collection[1].clone());
    let runs = names(3);
    let samples = vec![collection.clone()];
    let scores = ClaimScores {
        measure: "map",
        runs: &runs,
        collection: &collection,
        samples: &samples,
    };
    let uncorrected = summarize(&scores, &settings(Correction::None)).unwrap();
    assert!((uncorrected[0].p_value - p).abs() < 1e-9, "{uncorrected:?}");
    for correction in [Correction::Bonferroni, Correction::Holm] {
        let corrected = summarize(&scores, &settings(correction)).unwrap();
        for claim in &corrected {
            assert!(
                (claim.p_value - 2.0 * p).abs() < 1e-9,
                "{correction}: {claim:?}"
            );
            assert!(!claim.is_significant);
        }
        assert_eq!(corrected[1].baseline, "r2");
    }
}

#[test]
fn verdicts_read_as_the_report_spells_them() {
    assert_eq!(ClaimVerdict::of(true, 0.1), ClaimVerdict::Safe);
    assert_eq!(ClaimVerdict::of(true, 0.105), ClaimVerdict::AtRisk);
    assert_eq!(ClaimVerdict::of(false, 0.1), ClaimVerdict::NoClaim);
    assert_eq!(
        ClaimVerdict::of(false, 0.5).to_string(),
        "judging could make it significant"
    );
    assert_eq!(
        serde_json::to_string(&ClaimVerdict::AtRisk).unwrap(),
        "\"at risk\""
    );
}
