//! The `reusesim` command: parse the command line, run the job, report errors with their
//! context and exit 2 on failure (0 on a closed output pipe).

mod cli;
mod commands;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Eval(args)) => commands::eval(args),
        Some(Command::Compare(args)) => commands::compare(args),
        Some(Command::Agree(args)) => commands::agree(args),
        Some(Command::Measures) => commands::measures(),
        Some(Command::Judge(args)) => commands::judge(args),
        Some(Command::Complete(args)) => commands::complete(args),
        Some(Command::Index(args)) => commands::index(args),
        Some(Command::Simulate(args)) => commands::simulate(args),
        Some(Command::Merge(args)) => commands::merge(args),
        Some(Command::Synth(args)) => commands::synth(args),
        Some(Command::Plot(args)) => commands::plot(args),
        Some(Command::Audit(args)) => commands::audit(args),
        Some(Command::Backtest(args)) => commands::backtest(args),
        None => commands::main_job(),
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("reusesim: {error:#}");
            ExitCode::from(2)
        }
    }
}
