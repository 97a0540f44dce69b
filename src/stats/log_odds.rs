//! Probabilities on the log-odds scale: the logistic function, its inverse, and the smoothed
//! rate of a count that keeps its log-odds finite.

/// The logistic function: the probability of log-odds `log_odds`.
pub fn sigmoid(log_odds: f64) -> f64 {
    1.0 / (1.0 + (-log_odds).exp())
}

/// The logistic function evaluated through the exponential of a non-positive number only:
/// [`sigmoid`] from 0 up, `e^x / (1 + e^x)` below it, so that no exponential overflows.
pub fn sigmoid_by_sign(log_odds: f64) -> f64 {
    if log_odds >= 0.0 {
        sigmoid(log_odds)
    } else {
        let odds = log_odds.exp();
        odds / (1.0 + odds)
    }
}

/// The log-odds of probability `probability`: ln(p / (1 − p)).
pub fn logit(probability: f64) -> f64 {
    (probability / (1.0 - probability)).ln()
}

/// The share of `hits` among `trials`, smoothed by half a hit: (hits + 0.5) / (trials + 1),
/// strictly between 0 and 1 so that its [`logit`] stays finite.
pub fn smoothed_rate(hits: usize, trials: usize) -> f64 {
    (hits as f64 + 0.5) / (trials as f64 + 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logit_inverts_the_sigmoid() {
        for log_odds in [-30.0, -2.5, 0.0, 0.7, 12.0] {
            assert!((logit(sigmoid(log_odds)) - log_odds).abs() < 1e-9);
        }
        assert_eq!(sigmoid(0.0), 0.5);
        assert_eq!(logit(0.5), 0.0);
    }

    #[test]
    fn both_forms_of_the_sigmoid_agree_and_stay_finite() {
        for log_odds in [-40.0, -3.0, -0.1, 0.0, 0.1, 3.0, 40.0] {
            assert!((sigmoid_by_sign(log_odds) - sigmoid(log_odds)).abs() < 1e-15);
        }
        assert!(sigmoid_by_sign(-800.0) >= 0.0 && sigmoid_by_sign(800.0) == 1.0);
    }

    #[test]
    fn smoothed_rates_are_never_certain() {
        assert_eq!(smoothed_rate(1, 2), 0.5);
        assert_eq!(smoothed_rate(0, 0), 0.5);
        assert!(smoothed_rate(0, 9) > 0.0 && smoothed_rate(9, 9) < 1.0);
        assert!(logit(smoothed_rate(40, 40)).is_finite());
    }
}
