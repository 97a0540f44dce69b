//! Parsing, display and ordering of measure specifications.

use super::*;
use proptest::prelude::*;

fn names(spec: &str) -> Vec<String> {
    Measure::parse_list(spec)
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn both_spellings_parse_to_the_same_measures() {
    let pairs = [
        ("map", "AP"),
        ("P_10", "P@10"),
        ("P.10", "P@10"),
        ("ndcg_cut_10", "nDCG@10"),
        ("recip_rank", "RR"),
        ("recall_100", "R@100"),
        ("judged_10", "Judged@10"),
        ("ncg_cut_100", "NCG@100"),
        ("ndcg", "nDCG"),
        ("bpref", "Bpref"),
        ("num_rel_ret", "NumRelRet"),
    ];
    for (trec, ir) in pairs {
        assert_eq!(names(trec), names(ir), "{trec} vs {ir}");
    }
    assert_eq!(names("RR@10"), vec!["recip_rank_10"]);
    assert_eq!(
        names("ndcg_cut.10,100"),
        vec!["ndcg_cut_10", "ndcg_cut_100"]
    );
    assert_eq!(names("AP(rel=2)"), vec!["map(rel=2)"]);
    assert_eq!(names("P(rel=2)@10"), vec!["P_10(rel=2)"]);
    assert_eq!(names("unj").len(), 3);
    assert_eq!(names("P").len(), 9);
}

#[test]
fn ranx_spellings_parse_to_the_measures_they_equal() {
    for (ranx, canonical) in [
        ("ndcg@10", "ndcg_cut_10"),
        ("ndcg", "ndcg"),
        ("map@100", "map_cut_100"),
        ("map", "map"),
        ("mrr", "recip_rank"),
        ("mrr@10", "recip_rank_10"),
        ("precision@10", "P_10"),
        ("precision", "set_P"),
        ("recall@100", "recall_100"),
        ("hit_rate@10", "success_10"),
        ("r-precision", "Rprec"),
        ("bpref", "bpref"),
        ("hits", "hits"),
        ("hits@10", "hits@10"),
        ("f1", "f1"),
        ("f1@10", "f1@10"),
        ("dcg_burges@10", "dcg_burges@10"),
        ("ndcg_burges@10", "ndcg_burges@10"),
    ] {
        assert_eq!(names(ranx), vec![canonical], "{ranx}");
    }
    let error = Measure::parse_list("hit_rate").unwrap_err().to_string();
    assert!(error.contains("hit_rate@10"), "{error}");
}

#[test]
fn ir_measures_parameters_parse_to_one_canonical_name() {
    for (spec, canonical) in [
        ("RBP", "RBP(p=0.8)"),
        ("RBP(p=0.8)", "RBP(p=0.8)"),
        ("RBP(rel=1,p=0.8)", "RBP(rel=1,p=0.8)"),
        ("RBP(p=0.95, rel=2)@10", "RBP(rel=2,p=0.95)@10"),
        ("RBPResidual(p=0.5)", "RBPResidual(p=0.5)"),
        ("ERR@20", "ERR@20"),
        ("AP(judged_only=True)", "map(judged_only=True)"),
        ("AP(judged_only=False)", "map"),
        ("P(judged_only=True)@10", "P_10(judged_only=True)"),
        ("nDCG(judged_only=True)@10", "ndcg_cut_10(judged_only=True)"),
        ("P(rel=2,judged_only=True)@5", "P_5(rel=2,judged_only=True)"),
    ] {
        assert_eq!(names(spec), vec![canonical], "{spec}");
    }
    let rbp: Measure = "RBP".parse().unwrap();
    assert_eq!(rbp, Measure::new(Family::Rbp, None));
    assert_ne!(
        "RBP(p=0.9)".parse::<Measure>().unwrap(),
        "RBP(p=0.8)".parse::<Measure>().unwrap()
    );
}

#[test]
fn malformed_parameters_name_what_the_family_takes() {
    for (spec, messages) in [
        ("RBP(p=1.5)", &["strictly between 0 and 1", "found 1.5"][..]),
        ("RBP(p=0)", &["strictly between 0 and 1"][..]),
        ("RBP(p=x)", &["expected a number for p"][..]),
        ("AP(p=0.5)", &["p is RBP's parameter", "AP takes rel=N"][..]),
        ("Judged(judged_only=True)@10", &["Judged takes rel=N"][..]),
        (
            "RBPResidual(judged_only=True)",
            &["RBPResidual takes rel=N, p=X"][..],
        ),
        (
            "AP(judged_only=yes)",
            &["judged_only=True or judged_only=False"][..],
        ),
        (
            "AP(gains=2)",
            &["unknown parameter \"gains\"", "AP takes rel=N"][..],
        ),
        ("RBP(q=1)", &["RBP takes rel=N, p=X (0 < X < 1)"][..]),
        (
            "P.x",
            &["found \"x\"", "P takes whole-number cutoffs", "P.5,10"][..],
        ),
        (
            "iprec_at_recall.x",
            &["iprec_at_recall takes recall levels"][..],
        ),
        (
            "utility.1,2",
            &["expected 4 numbers", "utility.2,-1,0,0"][..],
        ),
        ("set_F.a", &["set_F takes a number"][..]),
        (
            "ndcg.x=1",
            &["whole-number grade", "ndcg takes grade=gain pairs"][..],
        ),
        ("ndcg.p=0.5", &["whole-number grade"][..]),
        (
            "rbp.p=2",
            &[
                "strictly between 0 and 1",
                "rbp takes grade=gain pairs and p=X",
            ][..],
        ),
        ("map.5", &["map takes no parameters"][..]),
        ("RBP(rel=1", &["closing parenthesis"][..]),
        ("ERR", &["needs a cutoff, e.g. ERR@10"][..]),
        (
            "Sucess@10",
            &["unknown measure name", "known names: ", "RBP", "ndcg_cut"][..],
        ),
    ] {
        let error = Measure::parse_list(spec).unwrap_err().to_string();
        for message in messages {
            assert!(error.contains(message), "{spec}: {error}");
        }
    }
}

#[test]
fn bad_specifications_are_explained() {
    for (spec, message) in [
        ("mapp", "unknown measure"),
        ("P@0", "at least 1"),
        ("Bpref@10", "takes no cutoff"),
        ("P.5,5", "repeated"),
        ("AP(cutoff=3)", "unknown parameter"),
        ("NCG", "needs a cutoff"),
        ("P_x", "whole-number cutoff"),
    ] {
        let error = Measure::parse_list(spec).unwrap_err().to_string();
        assert!(error.contains(message), "{spec}: {error}");
    }
}

fn any_measure() -> impl Strategy<Value = Measure> {
    let families: Vec<Family> = FAMILIES.iter().map(|info| info.family).collect();
    (
        proptest::sample::select(families),
        1usize..2000,
        proptest::option::of(-1i32..4),
        1u32..1000,
        any::<bool>(),
    )
        .prop_map(|(family, cutoff, relevance_level, persistence, flag)| {
            let info = family.info();
            let params = match info.params {
                ParamRule::Levels(_) => Some(TrecParams::level(f64::from(persistence) / 100.0)),
                ParamRule::Numbers { count: Some(4) } if flag => {
                    Some(TrecParams::numbers(&format!("{cutoff},-1,0,0")).unwrap())
                }
                ParamRule::Numbers { .. } if flag => {
                    Some(TrecParams::numbers(&format!(".{persistence}")).unwrap())
                }
                ParamRule::Pairs if flag => {
                    Some(TrecParams::pairs(&format!("1={cutoff},2=0.5")).unwrap())
                }
                _ => None,
            };
            let cutoff = match info.cutoff {
                CutoffRule::Forbidden => None,
                CutoffRule::Optional if cutoff % 2 == 0 || params.is_some() => None,
                _ => Some(cutoff),
            };
            Measure {
                family,
                cutoff,
                relevance_level,
                persistence: info
                    .takes_persistence()
                    .then(|| Persistence::new(f64::from(persistence) / 1000.0).unwrap()),
                judged_only: flag && family.takes_judged_only(),
                params,
                version: TrecEvalVersion::default(),
            }
        })
}

proptest! {
    #![proptest_config(crate::base::fuzz::property_config(256))]
    #[test]
    fn display_round_trips(measure in any_measure()) {
        prop_assert_eq!(measure.to_string().parse::<Measure>().unwrap(), measure);
    }
}
