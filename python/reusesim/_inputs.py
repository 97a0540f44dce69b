"""Inputs the Python IR ecosystem produces, turned into the library's qrels, runs and task parts.

Qrels and runs can be a file path, a pandas DataFrame with ir_measures' column names, the
dict-of-dicts pytrec_eval takes, or any iterable of ir_datasets namedtuples. Only the shape is
converted here; the rules (score precision, trec_eval's tie order, duplicate documents,
integer grades, empty inputs) are the library's, applied by ``_native``'s record constructors
exactly as to files. Errors name the input (``<DataFrame>``, ``<dict>``, ``<iterable>``) and
the record, numbered from 1 like lines of a file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from . import _native

#: The run tag given to a run that carries none (a frame without ``run_id``, a pytrec_eval dict).
DEFAULT_RUN_ID = "run"


def is_path(value) -> bool:
    """Whether ``value`` names a file."""
    return isinstance(value, (str, os.PathLike))


def _require_columns(frame: pd.DataFrame, columns: list[str], what: str) -> None:
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise ValueError(
            f"<DataFrame>: expected {what} columns {', '.join(columns)}, "
            f"missing {', '.join(missing)} (found {', '.join(map(str, frame.columns))})"
        )


def _strings(values) -> list[str]:
    return [str(value) for value in values]


def _fields(record, names: tuple[str, ...], what: str, number: int) -> tuple:
    try:
        return tuple(getattr(record, name) for name in names)
    except AttributeError:
        raise ValueError(
            f"<iterable>:{number}: expected {what} records with fields "
            f"{', '.join(names)} (ir_datasets namedtuples), found {record!r}"
        ) from None


def qrels(value) -> _native.Qrels:
    """Qrels from a path, a DataFrame (query_id, doc_id, relevance), a pytrec_eval dict
    ``{query_id: {doc_id: relevance}}`` or an iterable of ir_datasets ``TrecQrel``s."""
    if isinstance(value, _native.Qrels):
        return value
    if is_path(value):
        return _native.Qrels.read(os.fspath(value))
    if isinstance(value, pd.DataFrame):
        _require_columns(value, ["query_id", "doc_id", "relevance"], "qrels")
        return _native.Qrels.from_records(
            "<DataFrame>",
            _strings(value["query_id"]),
            _strings(value["doc_id"]),
            value["relevance"].tolist(),
        )
    if isinstance(value, Mapping):
        records = [
            (str(qid), str(docid), grade)
            for qid, judgments in value.items()
            for docid, grade in judgments.items()
        ]
        return _qrels_records("<dict>", records)
    if isinstance(value, Iterable):
        records = [
            _fields(record, ("query_id", "doc_id", "relevance"), "qrels", number)
            for number, record in enumerate(value, start=1)
        ]
        return _qrels_records("<iterable>", [(str(q), str(d), g) for q, d, g in records])
    raise TypeError(f"expected qrels (a path, DataFrame, dict or iterable), found {type(value)}")


def _qrels_records(source: str, records: list[tuple]) -> _native.Qrels:
    columns = list(zip(*records)) or [[], [], []]
    return _native.Qrels.from_records(source, list(columns[0]), list(columns[1]), list(columns[2]))


def _is_pytrec_run(value: Mapping) -> bool:
    """A pytrec_eval run ``{qid: {docid: score}}``, as opposed to ``{run_id: such a run}``."""
    for judgments in value.values():
        for score in judgments.values():
            return not isinstance(score, Mapping)
    return True


def runs(value) -> _native.Runs:
    """Runs from a path (a run file or a folder of them), a DataFrame (query_id, doc_id, score,
    and run_id for several runs), a pytrec_eval dict ``{query_id: {doc_id: score}}`` (or a dict
    of them by run id), an iterable of ir_datasets ``ScoredDoc``s, or a list of any of these."""
    if isinstance(value, _native.Runs):
        return value
    if is_path(value):
        return _native.Runs.read([os.fspath(value)])
    if isinstance(value, pd.DataFrame):
        _require_columns(value, ["query_id", "doc_id", "score"], "run")
        run_ids = (
            _strings(value["run_id"]) if "run_id" in value.columns else [DEFAULT_RUN_ID] * len(value)
        )
        return _native.Runs.from_records(
            "<DataFrame>",
            run_ids,
            _strings(value["query_id"]),
            _strings(value["doc_id"]),
            value["score"].tolist(),
        )
    if isinstance(value, Mapping):
        by_run = {DEFAULT_RUN_ID: value} if _is_pytrec_run(value) else value
        records = [
            (str(run_id), str(qid), str(docid), score)
            for run_id, run in by_run.items()
            for qid, scores in run.items()
            for docid, score in scores.items()
        ]
        return _run_records("<dict>", records)
    if isinstance(value, (list, tuple)) and value and all(map(is_path, value)):
        return _native.Runs.read([os.fspath(path) for path in value])  # read in parallel
    if isinstance(value, (list, tuple)) and value and all(map(_is_run_container, value)):
        return _native.Runs.concat([runs(part) for part in value])
    if isinstance(value, Iterable):
        records = []
        for number, record in enumerate(value, start=1):
            run_id = getattr(record, "run_id", DEFAULT_RUN_ID)
            qid, docid, score = _fields(record, ("query_id", "doc_id", "score"), "run", number)
            records.append((str(run_id), str(qid), str(docid), score))
        return _run_records("<iterable>", records)
    raise TypeError(f"expected runs (a path, DataFrame, dict or iterable), found {type(value)}")


def _is_run_container(value) -> bool:
    return is_path(value) or isinstance(value, (pd.DataFrame, Mapping, _native.Runs))


def _run_records(source: str, records: list[tuple]) -> _native.Runs:
    columns = list(zip(*records)) or [[], [], [], []]
    return _native.Runs.from_records(source, *(list(column) for column in columns))


def teams(value) -> list[tuple[str, str, bool]]:
    """(run tag, team, pooled) from a team file, a DataFrame (run_id, team, optional pooled), a
    dict ``{run_id: team}`` or ``{run_id: (team, pooled)}``."""
    if is_path(value):
        return _native.read_teams(os.fspath(value))
    if isinstance(value, pd.DataFrame):
        _require_columns(value, ["run_id", "team"], "team")
        pooled = value["pooled"].tolist() if "pooled" in value.columns else [True] * len(value)
        return [
            (str(run), str(team), bool(is_pooled))
            for run, team, is_pooled in zip(value["run_id"], value["team"], pooled)
        ]
    if isinstance(value, Mapping):
        entries = []
        for run, entry in value.items():
            team, is_pooled = (entry, True) if isinstance(entry, str) else entry
            entries.append((str(run), str(team), bool(is_pooled)))
        return entries
    raise TypeError(f"expected teams (a path, DataFrame or dict), found {type(value)}")


def _text(record, names: tuple[str, ...]) -> str:
    for name in names:
        text = getattr(record, name, None)
        if isinstance(text, str):
            return text
    raise ValueError(f"expected a record with one of the fields {', '.join(names)}, found {record!r}")


def topics(value) -> dict[str, str]:
    """Topic id -> text from a topic file (TSV or TREC XML), a dict, a DataFrame (query_id,
    text) or an iterable of ir_datasets queries (``text``, else ``title`` or ``query``)."""
    if is_path(value):
        return _native.read_topics(os.fspath(value))
    if isinstance(value, pd.DataFrame):
        _require_columns(value, ["query_id", "text"], "topic")
        return dict(zip(_strings(value["query_id"]), _strings(value["text"])))
    if isinstance(value, Mapping):
        return {str(qid): str(text) for qid, text in value.items()}
    if isinstance(value, Iterable):
        return {str(q.query_id): _text(q, ("text", "title", "query")) for q in value}
    raise TypeError(f"expected topics (a path, dict, DataFrame or iterable), found {type(value)}")


def write_corpus(value, folder: Path) -> Path:
    """Writes an in-memory corpus (a DataFrame with doc_id and text, or an iterable of
    ir_datasets documents: ``doc_id`` and ``text``, else ``body``) as the ``doc_id <TAB>
    text`` file the library streams; tabs and line breaks in texts become spaces."""
    if isinstance(value, pd.DataFrame):
        _require_columns(value, ["doc_id", "text"], "corpus")
        documents = zip(_strings(value["doc_id"]), _strings(value["text"]))
    else:
        documents = ((str(doc.doc_id), _text(doc, ("text", "body"))) for doc in value)
    path = folder / "corpus.tsv"
    blank = str.maketrans("\t\r\n", "   ")
    with open(path, "w", encoding="utf-8") as out:
        for doc_id, text in documents:
            out.write(f"{doc_id}\t{text.translate(blank)}\n")
    return path
