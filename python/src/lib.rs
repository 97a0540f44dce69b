//! `reusesim._native`: the reusesim library for Python. This crate only converts: Python
//! values into the library's inputs and settings, results into columns and text that the
//! Python package (`reusesim/`) turns into pandas data frames. Reading, ranking, evaluation,
//! judging, studies and audits are the library's.

mod data;
mod errors;
mod jobs;
mod work;

use pyo3::prelude::*;

/// The compiled part of the `reusesim` Python package.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<data::Qrels>()?;
    module.add_class::<data::Runs>()?;
    module.add_class::<data::Task>()?;
    module.add_function(wrap_pyfunction!(data::read_teams, module)?)?;
    module.add_function(wrap_pyfunction!(data::read_topics, module)?)?;
    jobs::register(module)?;
    module.add("DEFAULT_MEASURES", reusesim::eval::DEFAULT_MEASURES)?;
    module.add(
        "DEFAULT_STUDY_MEASURES",
        reusesim::jobs::simulate::DEFAULT_STUDY_MEASURES,
    )?;
    module.add(
        "DEFAULT_AUDIT_MEASURES",
        reusesim::audit::DEFAULT_AUDIT_MEASURES,
    )?;
    Ok(())
}
