//! The command line's parsing: its shape, the flags that take folders, shards and trec_eval's
//! spellings, and every command's defaults, which must be its job's.

use std::collections::BTreeSet;

use super::*;
use clap::CommandFactory;
use reusesim::jobs;
use reusesim::report::PlotFormat;
use reusesim::sim::shard::ShardSpec;

#[test]
fn cli_is_well_formed() {
    Cli::command().debug_assert();
}

#[test]
fn plot_takes_a_folder_an_output_and_a_format() {
    let cli = Cli::try_parse_from(["reusesim", "plot", "res", "--format", "svg"]).unwrap();
    let Some(Command::Plot(args)) = cli.command else {
        panic!("expected plot");
    };
    assert_eq!(args.results, PathBuf::from("res"));
    assert_eq!(args.out, None);
    assert_eq!(args.format, PlotFormat::Svg);
    assert!(Cli::try_parse_from(["reusesim", "plot", "res", "--format", "gif"]).is_err());
    let cli = Cli::try_parse_from(["reusesim", "plot", "res", "--format", "html"]).unwrap();
    let Some(Command::Plot(args)) = cli.command else {
        panic!("expected plot");
    };
    assert_eq!(args.format, PlotFormat::Html);
}

#[test]
fn simulate_takes_a_shard_and_resume() {
    let cli = Cli::try_parse_from(["reusesim", "simulate", "--shard", "3/8", "--resume"]).unwrap();
    let Some(Command::Simulate(args)) = cli.command else {
        panic!("expected simulate");
    };
    assert_eq!(args.shard, Some(ShardSpec { index: 3, count: 8 }));
    assert!(args.resume);
    let error = Cli::try_parse_from(["reusesim", "simulate", "--shard", "8/8"]).unwrap_err();
    assert!(
        error.to_string().contains("expected a shard I/N"),
        "{error}"
    );
}

#[test]
fn trec_eval_style_flags_parse() {
    let cli = Cli::try_parse_from([
        "reusesim", "eval", "-mP.5,10", "-m", "map", "-l2", "-q", "-c", "q", "r1", "r2",
    ])
    .unwrap();
    let Some(Command::Eval(args)) = cli.command else {
        panic!("expected eval");
    };
    assert_eq!(args.measures, vec!["P.5,10", "map"]);
    assert_eq!(args.relevance_level, 2);
    assert!(args.per_topic && args.complete);
    assert_eq!(args.runs.len(), 2);
}

/// The command `arguments` names, parsed.
fn parsed(arguments: &[&str]) -> Command {
    let mut line = vec!["reusesim"];
    line.extend(arguments);
    Cli::try_parse_from(line)
        .unwrap_or_else(|error| panic!("{arguments:?}: {error}"))
        .command
        .expect("a command")
}

#[test]
fn every_command_without_options_runs_its_job_with_the_jobs_defaults() {
    let Command::Simulate(args) = parsed(&["simulate"]) else {
        panic!("expected simulate")
    };
    assert_eq!(args.options(), jobs::simulate::SimulateOptions::default());
    let Command::Judge(args) = parsed(&["judge", "--out", "o"]) else {
        panic!("expected judge")
    };
    assert_eq!(args.options(), jobs::judge::JudgeJobOptions::default());
    let Command::Complete(args) = parsed(&["complete", "--out", "o"]) else {
        panic!("expected complete")
    };
    assert_eq!(args.options(), jobs::complete::CompleteOptions::default());
    let Command::Audit(args) = parsed(&["audit", "--run", "r"]) else {
        panic!("expected audit")
    };
    assert_eq!(args.options(), jobs::audit::AuditOptions::default());
    let Command::Backtest(args) = parsed(&["backtest"]) else {
        panic!("expected backtest")
    };
    assert_eq!(args.options(), jobs::backtest::BacktestOptions::default());
    let Command::Eval(args) = parsed(&["eval", "q", "r"]) else {
        panic!("expected eval")
    };
    assert_eq!(args.options(), jobs::eval::EvaluateOptions::default());
    let Command::Compare(args) = parsed(&["compare", "q", "r"]) else {
        panic!("expected compare")
    };
    assert_eq!(args.options(), jobs::compare::CompareOptions::default());
    let Command::Agree(args) = parsed(&["agree", "a", "b"]) else {
        panic!("expected agree")
    };
    assert_eq!(args.options(), jobs::agree::AgreeOptions::default());
    let Command::Plot(args) = parsed(&["plot", "res"]) else {
        panic!("expected plot")
    };
    assert_eq!(args.options(), jobs::plot::PlotOptions::default());
    let Command::Index(args) = parsed(&["index", "--corpus", "c", "--out", "s"]) else {
        panic!("expected index")
    };
    assert_eq!(args.options(), jobs::index::IndexOptions::default());
    let Command::Synth(args) = parsed(&["synth", "--out", "o"]) else {
        panic!("expected synth")
    };
    assert_eq!(args.options(), jobs::synth::SynthOptions::default());
}

/// The option names of a job's default options, nested groups (the judge's) flattened.
fn option_names(defaults: &impl serde::Serialize) -> BTreeSet<String> {
    fn walk(value: &serde_json::Value, names: &mut BTreeSet<String>) {
        let serde_json::Value::Object(options) = value else {
            return;
        };
        for (name, value) in options {
            if value.is_object() {
                walk(value, names);
            } else {
                names.insert(name.clone());
            }
        }
    }
    let mut names = BTreeSet::new();
    walk(&serde_json::to_value(defaults).unwrap(), &mut names);
    names
}

/// The long flags of `command`, spelled as option names (`--pool-depth` as `pool_depth`).
fn flags(command: &str) -> BTreeSet<String> {
    let cli = Cli::command();
    let subcommand = cli.find_subcommand(command).expect("the command exists");
    (subcommand.get_arguments())
        .filter_map(|argument| {
            argument
                .get_long()
                .or_else(|| Some(argument.get_id().as_str()))
        })
        .map(|flag| flag.replace('-', "_"))
        .collect()
}

#[test]
fn every_option_of_a_job_is_a_flag_of_its_command() {
    let jobs: [(&str, BTreeSet<String>); 11] = [
        (
            "simulate",
            option_names(&jobs::simulate::SimulateOptions::default()),
        ),
        (
            "judge",
            option_names(&jobs::judge::JudgeJobOptions::default()),
        ),
        (
            "complete",
            option_names(&jobs::complete::CompleteOptions::default()),
        ),
        ("audit", option_names(&jobs::audit::AuditOptions::default())),
        (
            "backtest",
            option_names(&jobs::backtest::BacktestOptions::default()),
        ),
        ("plot", option_names(&jobs::plot::PlotOptions::default())),
        ("index", option_names(&jobs::index::IndexOptions::default())),
        ("synth", option_names(&jobs::synth::SynthOptions::default())),
        (
            "eval",
            option_names(&jobs::eval::EvaluateOptions::default()),
        ),
        (
            "compare",
            option_names(&jobs::compare::CompareOptions::default()),
        ),
        ("agree", option_names(&jobs::agree::AgreeOptions::default())),
    ];
    // trec_eval's own spellings of two of eval's (and compare's) options.
    let trec_eval_spellings = [("measures", "measure"), ("relevance_level", "level")];
    for (command, options) in jobs {
        let flags = flags(command);
        for option in options {
            let flag = (trec_eval_spellings.iter())
                .find(|(name, _)| {
                    ["eval", "compare", "agree"].contains(&command) && *name == option
                })
                .map_or(option.as_str(), |(_, flag)| flag);
            assert!(
                flags.contains(flag),
                "{command}: the job's option {option} has no flag (flags: {flags:?})"
            );
        }
    }
}
