//! Parses and evaluates all 143 TREC-COVID round-1 runs (3.5M lines, gzip) against the round-1
//! qrels: for map, P_10, ndcg_cut_10, recip_rank and bpref, the whole of `reusesim eval` but
//! printing (target: under 1 s wall on 2 cores; trec_eval: 2.9 s uncompressed); for trec_eval's
//! whole set (`-m all_trec`), the same, and the scoring alone of runs already read, to set
//! beside pytrec_eval's scoring (python/benches/all_trec_timing.py). Needs `REUSESIM_DATA` (the
//! shared TREC data); without it the bench says so and measures nothing.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};

use reusesim::eval::{self, EvalOptions, Evaluator, TrecEvalVersion};
use reusesim::io::qrels::Qrels;
use reusesim::io::run::Run;

fn options(measures: &[eval::Measure]) -> EvalOptions {
    EvalOptions {
        measures: measures.to_vec(),
        relevance_level: 1,
        complete: false,
        max_docs: None,
        relstring: None,
    }
}

fn read(qrels_path: &Path, runs_dir: &Path) -> (Qrels, Vec<Run>) {
    let qrels = reusesim::io::qrels::read_qrels(qrels_path).unwrap();
    let runs = reusesim::io::run::read_runs(std::slice::from_ref(&runs_dir.to_path_buf())).unwrap();
    (qrels, runs)
}

fn parse_and_evaluate(criterion: &mut Criterion) {
    let Some(root) = std::env::var_os("REUSESIM_DATA") else {
        eprintln!("bench eval skipped: REUSESIM_DATA is unset");
        return;
    };
    let covid = PathBuf::from(root).join("trec-covid");
    let runs_dir = covid.join("round1/runs");
    let qrels_path = covid.join("qrels/qrels.covid-round1.txt");
    let five = eval::parse_measures(&["map,P_10,ndcg_cut_10,recip_rank,bpref"]).unwrap();
    let all_trec = eval::selection::Selection::parse(&["all_trec"], TrecEvalVersion::Nine)
        .unwrap()
        .measures;
    let mut group = criterion.benchmark_group("eval");
    group.sample_size(10);
    for (name, measures) in [
        ("trec_covid_round1_143_runs", &five),
        ("trec_covid_round1_143_runs_all_trec", &all_trec),
    ] {
        group.bench_function(name, |bencher| {
            bencher.iter(|| {
                let (qrels, runs) = read(&qrels_path, &runs_dir);
                let evaluator = Evaluator::new(&qrels, options(measures));
                eval::evaluate_runs(&evaluator, &runs)
            })
        });
    }
    let (qrels, runs) = read(&qrels_path, &runs_dir);
    group.bench_function(
        "trec_covid_round1_143_runs_all_trec_scoring_alone",
        |bencher| {
            bencher.iter(|| {
                let evaluator = Evaluator::new(&qrels, options(&all_trec));
                eval::evaluate_runs(&evaluator, &runs)
            })
        },
    );
    group.finish();
}

criterion_group!(benches, parse_and_evaluate);
criterion_main!(benches);
