"""The Python API's error paths: each exception's type and its exact message. Nothing here
needs ir_measures or the shared data."""

import json
import re

import pandas as pd
import pytest

import reusesim


def exactly(message: str) -> str:
    """A pattern that matches `message` and nothing else."""
    return "^" + re.escape(message) + "$"


def write(path, text):
    path.write_text(text)
    return path


def test_bad_input_raises_value_error_with_file_and_line(tmp_path):
    qrels = write(tmp_path / "qrels.txt", "1 0 d1 1\n1 0 d2\n")
    run = write(tmp_path / "run.txt", "1 Q0 d1 1 1.0 tag\n")
    with pytest.raises(ValueError, match=exactly(f"{qrels}:2: expected 4 columns (qid iter docid grade), found 3 columns")):
        reusesim.evaluate(qrels, run)
    good_qrels = write(tmp_path / "good.qrels", "1 0 d1 1\n")
    bad_run = write(tmp_path / "bad.run", "1 Q0 d1 1 1.0 tag\n1 Q0 d2 2 high tag\n")
    with pytest.raises(ValueError, match=exactly(f'{bad_run}:2: expected a finite numeric score in column 5, found "high"')):
        reusesim.evaluate(good_qrels, bad_run)
    with pytest.raises(ValueError, match=exactly('measure "nDCG@ten": expected a whole-number cutoff, found "ten"')):
        reusesim.evaluate(good_qrels, run, "nDCG@ten")
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d", "d"], "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match=exactly('<DataFrame>:2: document "d" appears twice for topic "1" (first on line 1)')):
        reusesim.evaluate(good_qrels, frame)
    graded = pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "relevance": [1.5]})
    with pytest.raises(ValueError, match=exactly('<DataFrame>:1: expected an integer grade in column 4, found "1.5"')):
        reusesim.evaluate(graded, run)
    with pytest.raises(ValueError, match=exactly("the relevance level must be at least 1, found 0")):
        reusesim.evaluate(good_qrels, run, relevance_level=0)


def test_a_run_topic_missing_from_the_qrels_warns(tmp_path):
    qrels = write(tmp_path / "q", "1 0 d1 1\n")
    run = write(tmp_path / "r", "1 Q0 d1 1 1.0 tag\n2 Q0 d1 1 1.0 tag\n")
    with pytest.warns(UserWarning, match=exactly("run tag: topic 2 is not in the qrels and is ignored")):
        frame = reusesim.evaluate(qrels, run, "P_1")
    assert frame["value"].tolist() == [1.0]


def test_unsupported_inputs_raise_type_error(tmp_path):
    qrels = write(tmp_path / "q", "1 0 d1 1\n")
    run = write(tmp_path / "r", "1 Q0 d1 1 1.0 tag\n")
    with pytest.raises(TypeError, match=exactly("expected qrels (a path, DataFrame, dict or iterable), found <class 'int'>")):
        reusesim.evaluate(42, run)
    with pytest.raises(TypeError, match=exactly("expected runs (a path, DataFrame, dict or iterable), found <class 'float'>")):
        reusesim.evaluate(qrels, 1.5)
    with pytest.raises(TypeError, match=exactly("expected teams (a path, DataFrame or dict), found <class 'list'>")):
        reusesim.Task(qrels, run, teams=["tag"])
    with pytest.raises(TypeError, match=exactly("expected topics (a path, dict, DataFrame or iterable), found <class 'int'>")):
        reusesim.Task(qrels, run, topics=7)


@pytest.mark.parametrize("pool_depth", [0, -3, "deep"])
def test_a_pool_depth_other_than_a_positive_number_or_auto_is_a_value_error(tmp_path, pool_depth):
    qrels = write(tmp_path / "q", "1 0 d1 1\n")
    run = write(tmp_path / "r", "1 Q0 d1 1 1.0 tag\n")
    with pytest.raises(ValueError, match=exactly(f'expected pool_depth >= 1 or "auto", found {pool_depth!r}')):
        reusesim.Task(qrels, run, pool_depth=pool_depth)


def test_missing_and_unreadable_files_are_os_errors(tmp_path):
    run = write(tmp_path / "r", "1 Q0 d1 1 1.0 tag\n")
    missing = tmp_path / "missing.qrels"
    with pytest.raises(FileNotFoundError, match=exactly(f"{missing}: No such file or directory (os error 2)")):
        reusesim.evaluate(missing, run)
    # A folder where a file should be: an OSError, not a FileNotFoundError.
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(OSError, match=exactly(f"{folder}: Is a directory (os error 21)")) as raised:
        reusesim.evaluate(folder, run)
    assert type(raised.value) is OSError


def test_a_result_folder_that_cannot_be_written_is_an_os_error(default_task_path, tmp_path):
    # The output folder's parent is a file: the output folder cannot be created.
    blocked = write(tmp_path / "file", "")
    task = reusesim.Task.load(default_task_path)
    team = task.runs["team"].iloc[0]
    out = blocked / "out"
    with pytest.raises(OSError, match=exactly(f"writing {out}: Not a directory (os error 20)")) as raised:
        reusesim.simulate(task, seeds=1, iterations=200, teams=[team], out_dir=blocked / "out", progress=False)
    assert type(raised.value) is OSError


def test_reading_a_bad_results_folder_names_the_file(tmp_path):
    with pytest.raises(FileNotFoundError) as raised:
        reusesim.StudyResult.read(tmp_path / "none")
    assert raised.value.filename == str(tmp_path / "none" / "summary.json")
    folder = tmp_path / "partial"
    folder.mkdir()
    write(folder / "summary.json", json.dumps({"task": "t"}))
    with pytest.raises(FileNotFoundError) as raised:
        reusesim.StudyResult.read(folder)
    assert raised.value.filename == str(folder / "runs.tsv")
    write(folder / "summary.json", '{"task": ')
    with pytest.raises(json.JSONDecodeError, match=exactly("Expecting value: line 1 column 10 (char 9)")):
        reusesim.StudyResult.read(folder)
