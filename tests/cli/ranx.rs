//! `reusesim eval` on measures named in ranx's spelling (`ndcg@10`, `mrr@10`, `map@100`,
//! `hits@10`, `f1@10`, `ndcg_burges@10`, `r-precision`, ...) against ranx 0.3.21's values on the
//! embedded task, every run and topic. The reference values in tests/golden/ranx/ are written by
//! scripts/ranx-goldens.py.

use std::path::Path;

use crate::ir_measures::{check, goldens_from};
use crate::util::{run, stdout_of};

#[test]
fn ranx_spellings_match_ranx_on_the_embedded_task() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let expected = goldens_from(&root.join("tests/golden/ranx/synth-passage.tsv"));
    let runs: std::collections::BTreeSet<&String> =
        expected.keys().map(|(run, _, _)| run).collect();
    assert_eq!(runs.len(), 27);
    check(
        &expected,
        &root.join("qrels/synth-passage.qrels"),
        &[root.join("runs/synth-passage/runs")],
    );
}

/// A ranx name for a measure trec_eval has prints as trec_eval names it, in its layout.
#[test]
fn ranx_names_print_as_trec_eval_names_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let qrels = root.join("qrels/synth-passage.qrels");
    let bm25 = root.join("runs/synth-passage/runs/bm25base");
    let names = |measures: &[&str]| -> Vec<String> {
        let mut args = vec!["eval".to_string()];
        for measure in measures {
            args.extend(["-m".to_string(), measure.to_string()]);
        }
        args.extend([qrels.display().to_string(), bm25.display().to_string()]);
        stdout_of(&args)
            .lines()
            .map(|line| line.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(&[
            "ndcg@10",
            "map@100",
            "mrr",
            "precision@10",
            "hit_rate@10",
            "r-precision"
        ]),
        names(&[
            "ndcg_cut.10",
            "map_cut.100",
            "recip_rank",
            "P.10",
            "success.10",
            "Rprec"
        ]),
    );
    assert_eq!(names(&["hits@10", "f1@10"]), ["hits@10", "f1@10"]);
}

#[test]
fn an_unknown_name_lists_the_ranx_names_too() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = run([
        "eval".as_ref(),
        "-m".as_ref(),
        "ndgc@10".as_ref(),
        root.join("qrels/synth-passage.qrels").as_os_str(),
        root.join("runs/synth-passage/runs/bm25base").as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    for name in [
        "\"ndgc\"",
        "ndcg_cut",
        "hit_rate",
        "r-precision",
        "ndcg_burges",
    ] {
        assert!(stderr.contains(name), "{name} missing from {stderr}");
    }
}
