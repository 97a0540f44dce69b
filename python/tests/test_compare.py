"""reusesim.compare: one row per pair and measure, with the t-test's and Wilcoxon's p-values
and the t-test's confidence intervals as scipy computes them on the same per-topic scores."""

import math

import pytest
from scipy.stats import ttest_rel, wilcoxon

import reusesim
from conftest import REPO

QRELS = REPO / "qrels" / "synth-passage.qrels"
RUNS = REPO / "runs" / "synth-passage" / "runs"
MEASURES = ["map", "ndcg_cut_10"]


def per_topic(measure):
    """{run: [score per topic in topic order]} over every qrels topic (trec_eval -c)."""
    scores = reusesim.evaluate(QRELS, RUNS, measures=measure, per_topic=True, complete=True)
    scores = scores[scores.query_id != "all"].sort_values(["run_id", "query_id"])
    return {run: list(group.value) for run, group in scores.groupby("run_id")}


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_compare_against_a_baseline_matches_scipy(test):
    frame = reusesim.compare(QRELS, RUNS, MEASURES, test=test, baseline="bm25base")
    assert list(frame.columns) == reusesim.COMPARE_COLUMNS
    runs = sorted(set(frame.run))
    assert len(frame) == len(MEASURES) * len(runs)
    assert set(frame.against) == {"bm25base"}
    for measure in MEASURES:
        scores = per_topic(measure)
        for row in frame[frame.measure == measure].itertuples():
            a, b = scores[row.run], scores[row.against]
            if test == "t":
                expected = ttest_rel(a, b)
                interval = expected.confidence_interval()
                assert row.ci_low == pytest.approx(interval.low, abs=1e-9)
                assert row.ci_high == pytest.approx(interval.high, abs=1e-9)
            else:
                expected = wilcoxon(a, b)
            p_value = 1.0 if math.isnan(expected.pvalue) else expected.pvalue
            assert row.p_value == pytest.approx(p_value, abs=1e-9)
            assert row.adjusted_p_value == row.p_value
            assert row.significant == (row.p_value < 0.05)
            assert row.mean_difference == pytest.approx(row.run_mean - row.against_mean, abs=1e-12)


def test_every_pair_with_holm_and_bad_options():
    frame = reusesim.compare(QRELS, RUNS, "map", correction="holm")
    runs = 27
    assert len(frame) == runs * (runs - 1) // 2
    assert (frame.adjusted_p_value >= frame.p_value).all()
    assert frame.attrs["notes"] == [] or all(isinstance(note, str) for note in frame.attrs["notes"])
    with pytest.raises(ValueError, match="not among the runs"):
        reusesim.compare(QRELS, RUNS, baseline="nobody")
    with pytest.raises(ValueError, match="alpha"):
        reusesim.compare(QRELS, RUNS, alpha=1.5)
