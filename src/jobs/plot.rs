//! `plot`: a study's figures, or its page, drawn again from its results folder.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::error::{Context, Result};
use crate::report::PlotFormat;

/// The options of `plot`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlotOptions {
    /// Output folder (`None`: the results' `figures/`, or the results folder itself for the
    /// page).
    pub out: Option<PathBuf>,
    /// Which files to write for each figure, or the study's page `report.html`.
    pub format: PlotFormat,
}

impl Default for PlotOptions {
    fn default() -> Self {
        Self {
            out: None,
            format: PlotFormat::Both,
        }
    }
}

/// Draws the figures (or writes the page) of the study whose results are in `results`.
/// Returns the files written and the folder they are in.
///
/// # Errors
/// Missing or malformed results (naming the file), figures that cannot be drawn, write errors,
/// under the context `plotting RESULTS`.
pub fn plot(results: &Path, options: &PlotOptions) -> Result<(Vec<PathBuf>, PathBuf)> {
    let written = match options.format.figures() {
        Some(format) => {
            let out = (options.out.clone()).unwrap_or_else(|| results.join("figures"));
            crate::report::plots::plot_results(results, &out, format).map(|written| (written, out))
        }
        None => {
            let out = (options.out.clone()).unwrap_or_else(|| results.to_path_buf());
            crate::report::write_results_page(results, &out).map(|page| (vec![page], out))
        }
    };
    written.with_context(|| format!("plotting {}", results.display()))
}
