//! The binary's side of each job: turn arguments into library calls, print results and
//! warnings. The library never prints.

use std::io::Write;

use anyhow::{Context, Result};

use crate::cli::EvalArgs;
use reusesim::eval::{self, format, EvalOptions, Evaluator};
use reusesim::Warning;

/// Prints a warning on stderr.
pub fn warn(warning: &Warning) {
    eprintln!("reusesim: warning: {warning}");
}

/// `reusesim eval`.
pub fn eval(args: EvalArgs) -> Result<()> {
    let measures = if args.measures.is_empty() {
        eval::parse_measures(&[eval::DEFAULT_MEASURES])?
    } else {
        eval::parse_measures(&args.measures)?
    };
    let qrels = reusesim::io::qrels::read_qrels(&args.qrels).context("reading the qrels")?;
    let runs = reusesim::io::run::read_runs(&args.runs).context("reading the runs")?;
    let options = EvalOptions {
        measures,
        relevance_level: args.relevance_level,
        complete: args.complete,
        max_docs: args.max_docs,
    };
    let evaluator = Evaluator::new(&qrels, options);
    let evaluations = eval::evaluate_runs(&evaluator, &runs);
    evaluations.iter().flat_map(|e| &e.warnings).for_each(warn);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    format::write_evaluations(
        &mut out,
        args.format,
        &evaluator.options().measures,
        &evaluations,
        args.per_topic,
    )?;
    out.flush()?;
    Ok(())
}

/// `reusesim measures`.
pub fn measures() -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    writeln!(out, "trec_eval\tir_measures\tcutoff\tdescription")?;
    for info in reusesim::eval::registry::FAMILIES {
        let trec = match (info.trec_name, info.trec_cut_name) {
            ("", cut) => format!("{cut}_k"),
            (bare, "") => bare.to_string(),
            (bare, cut) if bare == cut => format!("{bare}[_k]"),
            (bare, cut) => format!("{bare}, {cut}_k"),
        };
        let cutoff = format!("{:?}", info.cutoff).to_lowercase();
        writeln!(
            out,
            "{trec}\t{}\t{cutoff}\t{}",
            info.ir_name, info.description
        )?;
    }
    Ok(())
}
