"""Measures named as ir_measures' ``Measure`` objects and in any spelling: ``evaluate`` and
``compare`` read an object by its ``str`` and give each measure back as it was asked for, with
trec_eval's name beside it. Values are checked against ir_measures on the embedded task."""

import ir_measures
import pytest
from ir_measures import AP, RBP, P, R, nDCG

import reusesim
from conftest import REPO

QRELS = REPO / "qrels" / "synth-passage.qrels"
RUNS = REPO / "runs" / "synth-passage" / "runs"
BM25 = RUNS / "bm25base"


def summary(frame):
    """{measure as spelled: (trec_eval's name, value)} of the `all` rows of one run."""
    rows = frame[frame.query_id == "all"]
    assert rows.run_id.nunique() == 1
    return {row.measure: (row.trec_eval_measure, row.value) for row in rows.itertuples()}


def test_measure_objects_are_keys_of_their_own_results():
    measures = [nDCG @ 10, AP, P @ 10, R @ 100, AP(rel=2)]
    got = summary(reusesim.evaluate(QRELS, BM25, measures))
    assert set(got) == {str(measure) for measure in measures}
    qrels = list(ir_measures.read_trec_qrels(str(QRELS)))
    run = list(ir_measures.read_trec_run(str(BM25)))
    expected = ir_measures.calc_aggregate(measures, qrels, run)
    for measure in measures:
        assert got[str(measure)][1] == pytest.approx(expected[measure], abs=1e-9), measure
    assert {name: trec for name, (trec, _) in got.items()} == {
        "nDCG@10": "ndcg_cut_10",
        "AP": "map",
        "P@10": "P_10",
        "R@100": "recall_100",
        "AP(rel=2)": "map(rel=2)",
    }


def test_one_measure_object_alone_is_read_by_its_str():
    # ir_measures leaves RBP's default persistence out of its name.
    got = summary(reusesim.evaluate(QRELS, BM25, RBP(p=0.8)))
    assert list(got) == ["RBP"]
    assert got["RBP"][0] == "RBP(p=0.8)"


def test_strings_keep_their_spelling_and_lists_keep_trec_eval_names():
    got = summary(reusesim.evaluate(QRELS, BM25, ["ndcg@10", "map", "P.5,20", "mrr@10"]))
    assert {name: trec for name, (trec, _) in got.items()} == {
        "ndcg@10": "ndcg_cut_10",
        "map": "map",
        "P_5": "P_5",
        "P_20": "P_20",
        "mrr@10": "recip_rank_10",
    }
    again = summary(reusesim.evaluate(QRELS, BM25, ["ndcg_cut_10", "recip_rank_10"]))
    assert got["ndcg@10"][1] == again["ndcg_cut_10"][1]
    assert got["mrr@10"][1] == again["recip_rank_10"][1]


def test_compare_names_measures_as_asked_for():
    frame = reusesim.compare(QRELS, RUNS, [AP, nDCG @ 10, "mrr@10"], baseline="bm25base")
    assert list(frame.columns) == reusesim.COMPARE_COLUMNS
    assert dict(zip(frame.measure, frame.trec_eval_measure)) == {
        "AP": "map",
        "nDCG@10": "ndcg_cut_10",
        "mrr@10": "recip_rank_10",
    }
    by_trec_eval_name = reusesim.compare(QRELS, RUNS, ["map"], baseline="bm25base")
    assert list(frame[frame.measure == str(AP)].p_value) == list(by_trec_eval_name.p_value)
