"""reusesim.audit and reusesim.backtest against the command line's rules, recomputed here."""

import json
import re

import pytest

import reusesim


def test_audit_verdict_states_its_list_and_its_expected_scores(default_task_path):
    task = reusesim.Task.load(default_task_path)
    run_file = sorted((default_task_path.parent / "runs").iterdir())[0]
    with pytest.warns(UserWarning, match="pooled"):
        result = reusesim.audit(task, run_file, study_seeds=0)
    assert list(result.measures["measure"]) == ["map", "P_10", "ndcg_cut_10"]
    low = result.measures[["lower", "upper"]].min(axis=1)
    high = result.measures[["lower", "upper"]].max(axis=1)
    expected = result.measures["expected"]
    assert (expected <= high + 1e-9).all()
    # nDCG@k alone may fall below the collection's score: a relevant document below its cutoff
    # still raises the ideal ranking (docs/audit.md).
    ungraded = result.measures["measure"] != "ndcg_cut_10"
    assert (low[ungraded] - 1e-9 <= expected[ungraded]).all()
    at_risk = result.measures[result.measures["is_at_risk"]]
    if at_risk.empty:
        assert result.verdict == "no extra judgments needed"
        assert result.to_judge.empty
    else:
        count = len(result.to_judge)
        noun = "document" if count == 1 else "documents"
        assert result.verdict.startswith(f"judge {count} {noun} (P(rank moves) ")
        for row in at_risk.itertuples():
            assert f"{row.measure} {row.lower:.3f} expected {row.expected:.3f}" in result.verdict
        # The list stops once the rank is settled, or once a topic has given its share (no
        # budget was given).
        settle = result.report["settings"]["settle_threshold"]
        per_topic = result.to_judge.groupby("topic").size()
        assert per_topic.max() <= 5
        assert result.to_judge["remaining_risk"].iloc[-1] <= settle or per_topic.max() == 5
        assert (result.to_judge["remaining_risk"].iloc[:-1] > settle).all()
    assert list(result.to_judge.columns) == [
        "topic", "docid", "rank", "probability", "value", "runs", "remaining_risk", "is_beyond_pool"
    ]
    assert {"judged_10", "unj_10"} <= set(result.coverage)


def test_audit_with_labels_reports_them_and_writes_the_label_sheet(default_task_path, tmp_path):
    task = reusesim.Task.load(default_task_path)
    run_file = sorted((default_task_path.parent / "runs").iterdir())[0]
    labels = default_task_path.parent / "labels.qrels"
    with pytest.warns(UserWarning, match="pooled"):
        result = reusesim.audit(task, run_file, study_seeds=0, labels=labels)
    assert result.labels is result.report["labels"]
    assert result.labels["file"].endswith("labels.qrels")
    agreement = result.labels["agreement"]
    assert agreement["pairs"] > 0
    assert sum(map(sum, agreement["table"])) == agreement["pairs"]
    assert -1 <= agreement["kappa"] <= 1
    assert 0 <= result.labels["unjudged_labelled"] <= result.labels["unjudged"]
    assert "label" in result.to_judge.columns
    # Without labels: no labels block, and the label sheet asks for the run's unjudged
    # documents and calibration documents, one JSON line of umbrela's request per topic.
    sheet = tmp_path / "label-sheet.jsonl"
    with pytest.warns(UserWarning, match="pooled"):
        plain = reusesim.audit(task, run_file, study_seeds=0, label_sheet=sheet)
    assert plain.labels is None
    assert "label" not in plain.to_judge.columns
    requests = [json.loads(line) for line in sheet.read_text().splitlines()]
    assert requests, "the label sheet lists documents to label"
    assert len({request["query"]["qid"] for request in requests}) == len(requests)
    reasons = {candidate["reason"] for request in requests for candidate in request["candidates"]}
    assert reasons == {"unjudged", "calibration"}


def test_backtest_summary_agrees_with_its_rows(default_task_path, tmp_path):
    result = reusesim.backtest(
        default_task_path, tmp_path / "backtest", teams=["team03"], measures="map", progress=False
    )
    rows = result.rows
    assert set(rows["team"]) == {"team03"}
    assert list(rows["measure"].unique()) == ["map"]
    summary = result.summary
    assert summary["world"] == "classic"
    assert summary["evidence"] == "pool"
    assert summary["runs"] == len(rows)
    errors = {e["estimator"]: e for e in summary["measures"][0]["errors"]}
    for estimator, column in [
        ("collection", "collection_score"),
        ("expected", "expected_score"),
        ("median", "median_score"),
        ("webber_park", "webber_park_score"),
    ]:
        mae = (rows[column] - rows["true_score"]).abs().mean()
        assert errors[estimator]["mae"] == pytest.approx(mae, abs=1e-6)
    assert rows["anti_precision_score"].isna().all(), "anti-precision corrects P@k only"
    assert (tmp_path / "backtest" / "backtest.json").is_file()


def test_backtest_rejects_an_unknown_world(default_task_path, tmp_path):
    with pytest.raises(ValueError, match=re.escape('expected world to be one of classic, simulated, deeper, found "both"')):
        reusesim.backtest(default_task_path, tmp_path / "out", world="both", progress=False)


def test_the_deeper_world_completes_the_truth_from_its_file(default_task_path, tmp_path):
    truth = default_task_path.parent.parent.parent / "qrels" / "synth-passage.truth.qrels"
    result = reusesim.backtest(
        default_task_path,
        tmp_path / "deeper",
        world="deeper",
        truth_qrels=truth,
        runs=["bm25base"],
        measures="P_10",
        progress=False,
    )
    assert result.summary["world"] == "deeper"
    assert list(result.rows["run"]) == ["bm25base"]
    # The share of the run's unjudged top 100 that the truth file grades, counted here.
    runs_dir = default_task_path.parent / "runs"
    official_qrels = default_task_path.parent.parent.parent / "qrels" / "synth-passage.qrels"

    def judged(path):
        return {tuple(line.split()[0:3:2]) for line in path.read_text().splitlines() if line.strip()}

    official, graded = judged(official_qrels), judged(truth)
    ranked = {}
    for line in (runs_dir / "bm25base").read_text().splitlines():
        topic, _, doc, _, score, _ = line.split()
        ranked.setdefault(topic, []).append((float(score), doc))

    def trec_eval_order(docs):
        # Score descending, then docid descending: two stable sorts.
        by_docid = sorted(docs, key=lambda d: d[1], reverse=True)
        return [doc for _, doc in sorted(by_docid, key=lambda d: d[0], reverse=True)]

    unjudged = [
        (topic, doc)
        for topic, docs in ranked.items()
        for doc in trec_eval_order(docs)[:100]
        if (topic, doc) not in official
    ]
    covered = sum((topic, doc) in graded for topic, doc in unjudged) / len(unjudged)
    assert result.rows["truth_coverage"].iloc[0] == pytest.approx(covered)
    assert 0.0 < covered <= 1.0
    with pytest.raises(ValueError, match=re.escape("expected --truth-qrels FILE with the deeper world")):
        reusesim.backtest(default_task_path, tmp_path / "out", world="deeper", progress=False)


def test_calibrating_on_trials_needs_kept_trials(default_task_path, tmp_path):
    run_file = sorted((default_task_path.parent / "runs").iterdir())[0]
    with pytest.raises(ValueError, match=re.escape("calibrating on trials needs the results folder")):
        reusesim.audit(default_task_path, run_file, study_seeds=0, evidence="trials")
    with pytest.raises(ValueError, match=re.escape("expected the simulated world for a calibration on trials")):
        reusesim.backtest(default_task_path, tmp_path / "out", evidence="trials", progress=False)
    with pytest.raises(ValueError, match=re.escape('expected evidence to be one of pool, trials, found "both"')):
        reusesim.audit(default_task_path, run_file, study_seeds=0, evidence="both")


def test_audit_errors_name_the_run_and_what_was_expected(default_task_path, tmp_path):
    stray = tmp_path / "stray.run"
    stray.write_text("999 Q0 d1 1 1.0 stray\n")
    message = f'{stray}: run "stray" has no topic in common with the qrels of task synth-passage'
    with pytest.raises(ValueError, match=re.escape(message)):
        reusesim.audit(default_task_path, stray, study_seeds=0)
    run_file = sorted((default_task_path.parent / "runs").iterdir())[0]
    with pytest.raises(ValueError, match=re.escape("expected either run or runs, found both")):
        reusesim.audit(default_task_path, run_file, runs=[run_file])


def test_several_runs_share_one_merged_list_and_returned_judgments_change_the_verdict(default_task_path, tmp_path):
    runs_dir = default_task_path.parent / "runs"
    runs = [runs_dir / tag for tag in ("team01_run1", "team01_run2", "team07_run4")]
    with pytest.warns(UserWarning, match="pooled"):
        # Beyond the pool's reach the runs' documents may be relevant: there is a list to judge
        # (as if pooled, the default, these pooled runs leave nothing to judge).
        result = reusesim.audit(default_task_path, runs=runs, study_seeds=0, beyond_pool="extrapolate")
    assert [r["run"] for r in result.runs] == ["team01_run1", "team01_run2", "team07_run4"]
    assert set(result.measures["run"]) == {"team01_run1", "team01_run2", "team07_run4"}
    assert (result.measures["audited_runs"] == 3).all()
    merged = result.to_judge
    assert not merged.empty
    assert not merged.duplicated(["topic", "docid"]).any()
    assert len(merged) <= result.report["single_run_documents"]
    assert all(set(served) <= {"team01_run1", "team01_run2", "team07_run4"} for served in merged["runs"])
    # Every listed document judged relevant: the scores of the runs it serves can only rise.
    judged = tmp_path / "judged.qrels"
    judged.write_text("".join(f"{row.topic} 0 {row.docid} 1\n" for row in merged.itertuples()))
    with pytest.warns(UserWarning, match="pooled"):
        again = reusesim.audit(
            default_task_path, runs=runs, study_seeds=0, judged=judged, beyond_pool="extrapolate"
        )
    assert again.judged["judgments_added"] == len(merged)
    assert again.judged["listed_unjudged"] == []
    changes = {(run["run"], m["measure"]): m for run in again.judged["runs"] for m in run["measures"]}
    served = {run for row in merged.itertuples() for run in row.runs}
    for run in served:
        assert changes[(run, "P_10")]["after"]["score"] >= changes[(run, "P_10")]["before"]["score"]
    assert any(m["after"]["score"] != m["before"]["score"] for m in changes.values())


def test_claims_against_named_and_best_baselines_agree_with_compare(default_task_path):
    task = reusesim.Task.load(default_task_path)
    runs_dir = default_task_path.parent / "runs"
    run_file = runs_dir / "team01_run1"
    with pytest.warns(UserWarning, match="pooled"):
        result = reusesim.audit(task, run_file, study_seeds=0, against=["bm25base", "best"], measures="P_10")
    assert list(result.claims["baseline"].iloc[:1]) == ["bm25base"]
    assert set(result.claims["chosen_as"]) <= {"run", "best"}
    assert result.verdict.startswith("claims: ")
    # The collection's difference and p-value are compare's: the paired t-test, Holm's
    # correction over the run's claims of the measure (compare's pairs with one baseline).
    baselines = list(result.claims["baseline"])
    compared = reusesim.compare(
        default_task_path.parent.parent.parent / "qrels" / "synth-passage.qrels",
        [run_file] + [runs_dir / name for name in baselines],
        measures="P_10",
        correction="holm",
        baseline="team01_run1",
    )
    for claim in result.claims.itertuples():
        row = compared[compared["run"] == claim.baseline].iloc[0]
        assert claim.difference == pytest.approx(-row["mean_difference"], abs=1e-12)
        assert claim.p_value == pytest.approx(row["adjusted_p_value"], rel=1e-9, abs=1e-15)
        assert claim.is_significant == row["significant"]
        shares = claim.probability_significant_as_claimed + claim.probability_reversed + claim.probability_not_significant
        assert shares == pytest.approx(1.0)
        assert claim.verdict in {"safe", "at risk", "no claim", "judging could make it significant"}


def test_an_unknown_baseline_is_refused(default_task_path):
    task = reusesim.Task.load(default_task_path)
    run_file = sorted((default_task_path.parent / "runs").iterdir())[0]
    with pytest.raises(ValueError, match="no run of the task and no file"):
        reusesim.audit(task, run_file, study_seeds=0, against="no-such-run")
