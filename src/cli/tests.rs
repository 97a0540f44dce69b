//! The command line's parsing: its shape, and the flags that take folders, shards and
//! trec_eval's spellings.

use super::*;
use clap::CommandFactory;

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
