use super::*;
use crate::base::error::LearnerError;

#[test]
fn check_rejects_invalid_settings() {
    for lambda in [0.0, -1e-4, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            PegasosParams::new().lambda(lambda).check(),
            Err(LearnerError::InvalidLambda(_))
        ));
    }
    assert_eq!(
        PegasosParams::new().iterations(0).check(),
        Err(LearnerError::ZeroIterations)
    );
    let valid = PegasosParams::default()
        .check()
        .expect("defaults are valid");
    assert_eq!(valid.lambda(), DEFAULT_LAMBDA);
    assert_eq!(valid.iterations(), DEFAULT_ITERATIONS);
    assert_eq!(valid.solver(), Solver::Auto);
    assert_eq!(valid.precision(), GramPrecision::F32);
}
