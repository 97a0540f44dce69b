"""`reusesim.evaluate` against ir_measures (pytrec_eval underneath), on every input form. The
error paths, which need neither ir_measures nor the shared data, are in test_errors.py."""

import collections

import ir_measures
import pandas as pd
import pytest

import reusesim

TOLERANCE = 1e-4

# Measures both have, as ir_measures spells them; reusesim parses the same spelling except
# where a second name is given. (qrels file, relevance level) below.
BINARY_MEASURES = [
    "AP", "AP@10", "AP@100", "P@5", "P@10", "P@100", "P@1000", "R@10", "R@100", "R@1000",
    "nDCG", "nDCG@5", "nDCG@10", "nDCG@100", "RR", "Rprec", "Bpref", "NumRet", "NumRel",
    ("NumRet(rel=1)", "num_rel_ret"),
]
# ir_measures computes these two with its own providers, which break score ties by docno
# ascending, not trec_eval's way: compared on a run without ties (see test_known_difference).
OWN_PROVIDER_MEASURES = ["RR@5", "RR@10", "Judged@5", "Judged@10", "Judged@100"]
GRADED_MEASURES = ["AP(rel=2)", "P(rel=2)@10", "R(rel=2)@100", "nDCG", "nDCG@10", "RR(rel=2)"]
# Measures trec_eval lacks (ir_measures' RBP through cwl_eval, ERR through gdeval) and the
# condensed variants; cwl_eval keeps the input's order among tied scores, so compared on a run
# without ties.
BEYOND_TREC_EVAL = [
    "RBP(rel=1,p=0.8)", "RBP(rel=1,p=0.5)", "ERR@10", "ERR@20",
    "AP(judged_only=True)", "P(judged_only=True)@10", "nDCG(judged_only=True)@10",
]


def names(entry):
    return entry if isinstance(entry, tuple) else (entry, entry)


def reference(measure, qrels_path, run):
    """ir_measures' per-topic values and mean for one measure."""
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    measure = ir_measures.parse_measure(measure)
    per_topic = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    mean = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    return per_topic, mean


def ours(measure, qrels, run, relevance_level=1):
    frame = reusesim.evaluate(qrels, run, measure, relevance_level=relevance_level, per_topic=True)
    assert frame["measure"].nunique() == 1, frame
    return dict(zip(frame["query_id"], frame["value"]))


def assert_close(ir_name, expected, got):
    per_topic, mean = expected
    assert set(per_topic) <= set(got), (ir_name, per_topic.keys(), got.keys())
    for topic, value in per_topic.items():
        assert got[topic] == pytest.approx(value, abs=TOLERANCE), (ir_name, topic)
    assert got["all"] == pytest.approx(mean, abs=TOLERANCE), ir_name


def untied(run_path):
    """The run with every score tie broken as trec_eval breaks it (docno descending), so that
    any tie rule gives the same order."""
    rows = [line.split() for line in open(run_path) if line.strip()]
    by_topic = collections.defaultdict(list)
    for qid, _, docid, _, score, _ in rows:
        by_topic[qid].append((float(score), docid))
    return {
        qid: {docid: float(len(docs) - pos) for pos, (_, docid) in enumerate(sorted(docs, reverse=True))}
        for qid, docs in by_topic.items()
    }


@pytest.mark.needs_data
@pytest.mark.parametrize("entry", BINARY_MEASURES)
def test_binary_measures_equal_ir_measures(fixture_dir, entry):
    ir_name, our_name = names(entry)
    qrels, run = fixture_dir / "qrels.test", fixture_dir / "results.test"
    expected = reference(ir_name, qrels, list(ir_measures.read_trec_run(str(run))))
    assert_close(ir_name, expected, ours(our_name, qrels, run))


@pytest.mark.needs_data
@pytest.mark.parametrize("ir_name", GRADED_MEASURES)
def test_graded_measures_equal_ir_measures(fixture_dir, ir_name):
    qrels, run = fixture_dir / "qrels.rel_level", fixture_dir / "results.test"
    expected = reference(ir_name, qrels, list(ir_measures.read_trec_run(str(run))))
    assert_close(ir_name, expected, ours(ir_name, qrels, run))


@pytest.mark.needs_data
@pytest.mark.parametrize("ir_name", OWN_PROVIDER_MEASURES + BEYOND_TREC_EVAL)
def test_measures_with_their_own_provider_equal_ir_measures_without_ties(fixture_dir, ir_name):
    qrels = fixture_dir / "qrels.test"
    run = untied(fixture_dir / "results.test")
    expected = reference(ir_name, qrels, run)
    assert_close(ir_name, expected, ours(ir_name, qrels, run))


@pytest.mark.needs_data
def test_relevance_level_applies_to_measures_without_rel(fixture_dir):
    qrels, run = fixture_dir / "qrels.rel_level", fixture_dir / "results.test"
    level_2 = ours("P@10", qrels, run, relevance_level=2)
    assert level_2 == ours("P(rel=2)@10", qrels, run)


def test_known_difference_ties_in_rr_at_k_and_judged_at_k(tmp_path):
    """Known difference: on tied scores ir_measures' own RR@k and Judged@k providers rank by
    docno ascending; trec_eval (and reusesim) rank ties by docno descending. Here `a` and `b`
    tie: trec_eval ranks b (unjudged, non-relevant) first."""
    qrels = {"q": {"a": 1, "c": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}}
    frame = reusesim.evaluate(qrels, run, ["RR@1", "Judged@1", "RR"])
    got = dict(zip(frame["measure"], frame["value"]))
    assert got == {"RR@1": 0.0, "Judged@1": 0.0, "RR": 0.5}
    qrels_records = [ir_measures.Qrel("q", "a", 1), ir_measures.Qrel("q", "c", 0)]
    run_records = [ir_measures.ScoredDoc("q", d, s) for d, s in run["q"].items()]
    theirs = ir_measures.calc_aggregate(
        [ir_measures.RR @ 1, ir_measures.Judged @ 1, ir_measures.RR], qrels_records, run_records
    )
    assert theirs[ir_measures.RR @ 1] == 1.0, "ir_measures' own provider: a before b"
    assert theirs[ir_measures.Judged @ 1] == 1.0
    assert theirs[ir_measures.RR] == 0.5, "pytrec_eval agrees with trec_eval"


def run_frame(path):
    return pd.read_csv(
        path, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "run_id"],
        dtype={"query_id": str, "doc_id": str},
    )


@pytest.mark.needs_data
def test_every_input_form_gives_the_file_values(fixture_dir):
    qrels_path, run_path = fixture_dir / "qrels.test", fixture_dir / "results.test"
    measures = ["map", "P.5,10", "ndcg_cut_10", "bpref", "recip_rank", "judged_10"]
    expected = reusesim.evaluate(qrels_path, run_path, measures, per_topic=True)
    qrels_frame = pd.read_csv(
        qrels_path, sep=r"\s+", header=None, names=["query_id", "iteration", "doc_id", "relevance"],
        dtype={"query_id": str, "doc_id": str},
    )
    frame = run_frame(run_path)
    qrels_dict = collections.defaultdict(dict)
    for row in qrels_frame.itertuples():
        qrels_dict[row.query_id][row.doc_id] = row.relevance
    run_dict = collections.defaultdict(dict)
    for row in frame.itertuples():
        run_dict[row.query_id][row.doc_id] = row.score
    forms = [
        (qrels_frame, frame),
        (qrels_frame, frame.drop(columns="run_id")),
        (dict(qrels_dict), dict(run_dict)),
        (ir_measures.read_trec_qrels(str(qrels_path)), ir_measures.read_trec_run(str(run_path))),
        (str(qrels_path), [run_path]),
    ]
    for qrels, run in forms:
        got = reusesim.evaluate(qrels, run, measures, per_topic=True)
        pd.testing.assert_frame_equal(
            got.drop(columns="run_id"), expected.drop(columns="run_id"), check_exact=True
        )


@pytest.mark.needs_data
def test_several_runs_in_one_frame(fixture_dir):
    run_path = fixture_dir / "results.test"
    frame = run_frame(run_path)
    second = frame.assign(run_id="other", score=-frame["score"])
    both = reusesim.evaluate(fixture_dir / "qrels.test", pd.concat([frame, second]), "map")
    assert list(both["run_id"]) == ["STANDARD", "other"]
    alone = reusesim.evaluate(fixture_dir / "qrels.test", second, "map")
    assert both["value"].iloc[1] == alone["value"].iloc[0]


@pytest.mark.needs_data
def test_default_measures_are_trec_evals_official_set(fixture_dir):
    """With no measures named, trec_eval's default set, each value equal to pytrec_eval's."""
    import pytrec_eval

    qrels_path, run_path = fixture_dir / "qrels.test", fixture_dir / "results.test"
    frame = reusesim.evaluate(qrels_path, run_path)
    got = dict(zip(frame["measure"], frame["value"]))
    qrels = collections.defaultdict(dict)
    for line in open(qrels_path):
        topic, _, doc, grade = line.split()
        qrels[topic][doc] = int(grade)
    run = collections.defaultdict(dict)
    for line in open(run_path):
        topic, _, doc, _, score, _ = line.split()
        run[topic][doc] = float(score)
    results = pytrec_eval.RelevanceEvaluator(dict(qrels), {"official"}).evaluate(dict(run))
    expected = {
        measure: pytrec_eval.compute_aggregated_measure(
            measure, [values[measure] for values in results.values()]
        )
        for measure in next(iter(results.values())).keys() - {"runid", "num_q"}
    }
    assert set(got) == set(expected)
    for measure, value in expected.items():
        assert got[measure] == pytest.approx(value, abs=1e-9), measure
