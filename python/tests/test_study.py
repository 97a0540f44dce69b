"""`simulate`, `judge`, `audit` and `Task` against the command line, on the embedded task."""

import collections
import gzip
import json
import signal
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import reusesim
from conftest import REPO

FAST = {"iterations": 2000}


def run_cli(binary, *args):
    subprocess.run([str(binary), *map(str, args)], check=True, capture_output=True, cwd=REPO)


TABLES = ["runs.tsv", "trials.tsv", "ranks.tsv", "heldout.tsv", "lou.tsv"]


def test_simulate_equals_the_command_line(cli, default_task_path, tmp_path):
    run_cli(cli, "simulate", "--task", default_task_path, "--seeds", 2, "--iterations", 2000,
            "--out", tmp_path / "cli")
    result = reusesim.simulate(default_task_path, seeds=2, out_dir=tmp_path / "py", progress=False, **FAST)
    for table in TABLES:
        assert (tmp_path / "py" / table).read_bytes() == (tmp_path / "cli" / table).read_bytes(), table
    cli_runs = pd.read_csv(tmp_path / "cli" / "runs.tsv", sep="\t", keep_default_na=False,
                           na_values=["NA"], dtype={"run": str, "team": str})
    pd.testing.assert_frame_equal(result.runs, cli_runs, check_dtype=False)
    assert result.summary["settings"]["seeds"] == [1, 2]
    assert result.summary["settings"]["judge"]["iterations"] == 2000
    assert set(result.trials["held_out"]) >= {"control"}
    figures = result.plot(tmp_path / "figures", format="svg")
    assert figures and all(path.exists() and path.suffix == ".svg" for path in figures)
    page = result.plot(tmp_path / "page", format="html")
    assert [path.name for path in page] == ["report.html"]
    assert page[0].read_bytes() == (tmp_path / "py" / "report.html").read_bytes()


def test_simulate_passes_the_carried_and_withhold_options_as_the_command_line(
        cli, default_task_path, tmp_path):
    team = reusesim.Task.load(default_task_path).runs["team"].iloc[0]
    options = ["--carried", "ignore", "--withhold", "none"]
    run_cli(cli, "simulate", "--task", default_task_path, "--seeds", 1, "--iterations", 2000,
            "--teams", team, *options, "--out", tmp_path / "cli")
    result = reusesim.simulate(default_task_path, seeds=1, teams=[team], carried="ignore",
                               withhold="none", out_dir=tmp_path / "py", progress=False, **FAST)
    assert (tmp_path / "py" / "trials.tsv").read_bytes() == (tmp_path / "cli" / "trials.tsv").read_bytes()
    judge = result.summary["settings"]["judge"]
    assert (judge["carried"], judge["withhold"]) == ("ignore", "none")
    control = result.trials[result.trials["held_out"] == "control"].iloc[0]
    assert control["carried"] > 0
    assert 0 < control["recall_found"] <= 1
    defaults = reusesim.simulate(default_task_path, seeds=1, teams=[team], out_dir=tmp_path / "default",
                                 progress=False, **FAST)
    assert defaults.summary["settings"]["judge"]["withhold"] == "uniques"
    with pytest.raises(ValueError, match='expected carried to be one of train, ignore, found "keep"'):
        reusesim.simulate(default_task_path, seeds=1, carried="keep")


def test_judge_equals_the_command_line(cli, default_task_path, tmp_path):
    run_cli(cli, "judge", "--task", default_task_path, "--seed", 3, "--iterations", 2000,
            "--leave-out", "baseline", "--out", tmp_path)
    judging = reusesim.judge(default_task_path, seed=3, leave_out=["baseline"], progress=False, **FAST)
    expected = pd.read_csv(tmp_path / "qrels", sep=" ", header=None, dtype={0: str, 2: str},
                           names=["query_id", "iteration", "doc_id", "relevance"])
    pd.testing.assert_frame_equal(judging.qrels, expected.drop(columns="iteration"), check_dtype=False)
    trace = pd.read_csv(tmp_path / "trace.tsv", sep="\t", dtype={"topic": str, "docid": str},
                        keep_default_na=False)
    pd.testing.assert_frame_equal(judging.trace, trace)
    assert judging.retrains > 0


def test_a_task_from_parts_equals_the_loaded_task(default_task_path, tmp_path):
    folder = default_task_path.parent
    loaded = reusesim.Task.load(default_task_path)
    with gzip.open(folder / "corpus.tsv.gz", "rt", encoding="utf-8") as corpus_file:
        corpus = pd.DataFrame(
            [line.rstrip("\n").split("\t", 1) for line in corpus_file], columns=["doc_id", "text"]
        )
    built = reusesim.Task(
        qrels=loaded.qrels,
        runs=folder / "runs",
        teams=loaded.runs,
        topics=folder / "topics.tsv",
        corpus=corpus,
        name=loaded.name,
        pool_depth=loaded.pool_depth,
        truth=REPO / "qrels" / "synth-passage.truth.qrels",
    )
    assert built.runs.equals(loaded.runs)
    team = loaded.runs["team"].iloc[0]
    options = dict(seeds=1, teams=[team], progress=False, **FAST)
    from_parts = reusesim.simulate(built, out_dir=tmp_path / "parts", **options)
    reusesim.simulate(loaded, out_dir=tmp_path / "file", **options)
    for table in TABLES:
        assert (tmp_path / "parts" / table).read_bytes() == (tmp_path / "file" / table).read_bytes()
    assert from_parts.summary["settings"]["features"] == "text"


def test_a_task_with_a_feature_store_judges_as_with_its_corpus(cli, default_task_path, tmp_path):
    folder = default_task_path.parent
    store = tmp_path / "passage.store"
    run_cli(cli, "index", "--corpus", folder / "corpus.tsv.gz", "--out", store)
    loaded = reusesim.Task.load(default_task_path)
    parts = dict(qrels=loaded.qrels, runs=folder / "runs", teams=loaded.runs,
                 topics=folder / "topics.tsv", name=loaded.name, pool_depth=loaded.pool_depth)
    with_corpus = reusesim.judge(reusesim.Task(**parts, corpus=folder / "corpus.tsv.gz"),
                                 seed=3, progress=False, **FAST)
    with_store = reusesim.judge(reusesim.Task(**parts, feature_store=store),
                                seed=3, progress=False, **FAST)
    pd.testing.assert_frame_equal(with_store.qrels, with_corpus.qrels)
    pd.testing.assert_frame_equal(with_store.trace, with_corpus.trace)
    with pytest.raises(ValueError, match="does not match corpus"):
        other = tmp_path / "other.tsv"
        other.write_text("x1\tsome words\n")
        reusesim.judge(reusesim.Task(**parts, corpus=other, feature_store=store), progress=False)


def test_a_task_takes_a_jsonl_corpus_with_its_fields(default_task_path, tmp_path):
    folder = default_task_path.parent
    loaded = reusesim.Task.load(default_task_path)
    corpus = tmp_path / "corpus.jsonl.gz"
    with gzip.open(folder / "corpus.tsv.gz", "rt", encoding="utf-8") as tsv, \
            gzip.open(corpus, "wt", encoding="utf-8") as jsonl:
        for line in tsv:
            doc_id, text = line.rstrip("\n").split("\t", 1)
            jsonl.write(json.dumps({"key": doc_id, "words": text, "text": "ignored"}) + "\n")
    parts = dict(qrels=loaded.qrels, runs=folder / "runs", teams=loaded.runs,
                 topics=folder / "topics.tsv", name=loaded.name, pool_depth=loaded.pool_depth,
                 truth=REPO / "qrels" / "synth-passage.truth.qrels")
    built = reusesim.Task(**parts, corpus=corpus, corpus_format="jsonl",
                          corpus_id_fields=["key"], corpus_text_fields=["title", "words|text"])
    team = loaded.runs["team"].iloc[0]
    options = dict(seeds=1, teams=[team], progress=False, **FAST)
    reusesim.simulate(built, out_dir=tmp_path / "jsonl", **options)
    reusesim.simulate(loaded, out_dir=tmp_path / "file", **options)
    for table in TABLES:
        assert (tmp_path / "jsonl" / table).read_bytes() == (tmp_path / "file" / table).read_bytes()
    with pytest.raises(ValueError, match='expected corpus_format "tsv", "jsonl" or "auto", found "json"'):
        reusesim.Task(**parts, corpus=corpus, corpus_format="json")
    with pytest.raises(ValueError, match="with a corpus path only"):
        reusesim.Task(**parts, corpus=pd.DataFrame({"doc_id": ["a"], "text": ["b"]}),
                      corpus_format="tsv")


def test_bad_settings_raise_value_error(default_task_path, tmp_path):
    with pytest.raises(ValueError, match='expected learner to be one of pegasos, logistic, found "svm"'):
        reusesim.simulate(default_task_path, seeds=1, learner="svm")
    with pytest.raises(ValueError, match="no team \"nobody\""):
        reusesim.judge(default_task_path, leave_out=["nobody"])
    with pytest.raises(ValueError, match="at least 1 iteration"):
        reusesim.simulate(default_task_path, seeds=1, iterations=0)
    bad = tmp_path / "task.toml"
    bad.write_text('name = "t"\nruns = 3\n')
    with pytest.raises(ValueError, match=r"task\.toml:2: expected a task manifest"):
        reusesim.Task.load(bad)


def journal_units(path):
    """How many units the journal at ``path`` holds: after its first line, frames of a 4-byte
    little-endian length, a 4-byte checksum and the payload; the first frame is the header."""
    data = path.read_bytes()
    pos = data.index(b"\n") + 1
    frames = 0
    while pos + 8 <= len(data):
        pos += 8 + int.from_bytes(data[pos:pos + 4], "little")
        frames += 1
    assert pos == len(data), "a torn record"
    return frames - 1


def test_ctrl_c_stops_a_study_without_output(default_task_path, tmp_path, monkeypatch):
    # The test-only setting presses Ctrl-C (through Python's own SIGINT handling) right after
    # the second unit is journalled, and holds the work until the interrupt is seen, so that
    # neither the clock nor the machine's speed decides the outcome.
    monkeypatch.setenv("REUSESIM_TEST_STOP_AFTER_UNITS", "2")
    # A process started in the background by a non-interactive shell ignores SIGINT, and then
    # Python turns no Ctrl-C into KeyboardInterrupt: restore Python's own handler.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    out = tmp_path / "study"
    try:
        with pytest.raises(KeyboardInterrupt):
            reusesim.simulate(
                default_task_path, seeds=2, out_dir=out, progress=False, threads=1, **FAST
            )
    finally:
        signal.signal(signal.SIGINT, previous)
    # No result file is written; the finished units stay in the journal (beside its lock file).
    assert {path.name for path in out.iterdir()} == {"units.journal", "units.journal.lock"}
    assert journal_units(out / "units.journal") == 2


def test_a_task_takes_ir_datasets_iterators():
    Doc = collections.namedtuple("GenericDoc", "doc_id text")
    Query = collections.namedtuple("GenericQuery", "query_id text")
    Qrel = collections.namedtuple("TrecQrel", "query_id doc_id relevance iteration")
    task = reusesim.Task(
        qrels=iter([Qrel("1", "a", 1, "0"), Qrel("1", "b", 0, "0")]),
        runs={"r1": {"1": {"a": 2.0, "b": 1.0}}, "r2": {"1": {"b": 1.0}}},
        topics=iter([Query("1", "apple pie")]),
        corpus=iter([Doc("a", "apple pie recipe"), Doc("b", "car\trepair\nmanual")]),
        pool_depth="auto",
    )
    assert task.runs.to_dict("records") == [
        {"run_id": "r1", "team": "r1", "pooled": True},
        {"run_id": "r2", "team": "r2", "pooled": True},
    ]
    assert task.pool_depth == 2
    assert task._task.topic_texts == 1
    assert Path(task._task.corpus).read_text() == "a\tapple pie recipe\nb\tcar repair manual\n"
