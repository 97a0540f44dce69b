//! Parses and evaluates all 143 TREC-COVID round-1 runs (3.5M lines, gzip) against the round-1
//! qrels for map, P_10, ndcg_cut_10, recip_rank and bpref: the whole of `reusesim eval` but
//! printing. Needs `REUSESIM_DATA` (the shared TREC data); without it the bench says so and
//! measures nothing. Target: under 1 s wall on 2 cores (trec_eval: 2.9 s uncompressed).

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};

use reusesim::eval::{self, EvalOptions, Evaluator};

fn parse_and_evaluate(criterion: &mut Criterion) {
    let Some(root) = std::env::var_os("REUSESIM_DATA") else {
        eprintln!("bench eval skipped: REUSESIM_DATA is unset");
        return;
    };
    let covid = PathBuf::from(root).join("trec-covid");
    let runs_dir = covid.join("round1/runs");
    let qrels_path = covid.join("qrels/qrels.covid-round1.txt");
    let measures = eval::parse_measures(&["map,P_10,ndcg_cut_10,recip_rank,bpref"]).unwrap();
    let mut group = criterion.benchmark_group("eval");
    group.sample_size(10);
    group.bench_function("trec_covid_round1_143_runs", |bencher| {
        bencher.iter(|| {
            let qrels = reusesim::io::qrels::read_qrels(&qrels_path).unwrap();
            let runs = reusesim::io::run::read_runs(std::slice::from_ref(&runs_dir)).unwrap();
            let options = EvalOptions {
                measures: measures.clone(),
                relevance_level: 1,
                complete: false,
                max_docs: None,
                relstring: None,
            };
            let evaluator = Evaluator::new(&qrels, options);
            eval::evaluate_runs(&evaluator, &runs)
        })
    });
    group.finish();
}

criterion_group!(benches, parse_and_evaluate);
criterion_main!(benches);
