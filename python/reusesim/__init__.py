"""reusesim from Python: trec_eval-exact evaluation, leave-team-out judging studies and run
audits for IR test collections, on the same Rust engine as the ``reusesim`` command.

Qrels and runs can be file paths, pandas DataFrames with ir_measures' column names, pytrec_eval
dicts or ir_datasets iterators (see :mod:`reusesim._inputs`). Results are pandas DataFrames.
Long jobs release the GIL, show a tqdm progress bar when tqdm is installed, and stop on Ctrl-C
with ``KeyboardInterrupt`` (files are only ever written whole). Bad input raises ``ValueError``
with the command line's message (``file:line: expected ..., found ...``).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

import pandas as pd

from . import _inputs, _native

__all__ = [
    "AuditResult",
    "BacktestResult",
    "Judging",
    "StudyResult",
    "Task",
    "agree",
    "audit",
    "backtest",
    "compare",
    "complete",
    "evaluate",
    "judge",
    "simulate",
]

#: Every job's default options, keyed by the job's name: the command line's defaults, which
#: the keywords below take (a keyword left as ``None`` takes the job's default too).
JOB_DEFAULTS = json.loads(_native.job_defaults())
#: The measures :func:`evaluate` reports when none is named (as ``reusesim eval``).
DEFAULT_MEASURES = _native.DEFAULT_MEASURES
#: The measures a study compares rankings on by default (as ``reusesim simulate``).
DEFAULT_STUDY_MEASURES = _native.DEFAULT_STUDY_MEASURES

#: One measure or several: strings in any spelling ``reusesim eval -m`` takes, or ir_measures'
#: ``Measure`` objects (``ir_measures.nDCG@10``), read by their ``str``.
Measures = Union[str, object, Sequence[Union[str, object]]]


def _measure_list(measures: Measures) -> list[str]:
    """The measures as strings: a string as given, any other object (an ir_measures ``Measure``)
    by its ``str``, which ir_measures makes the measure's canonical name."""
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    return [measure if isinstance(measure, str) else str(measure) for measure in measures]


def _as_spelled(names: Sequence[str], measures: list[str]) -> list[str]:
    """Each of trec_eval's ``names`` as ``measures`` spell it where one of them names that
    measure alone (the first such), trec_eval's name otherwise (``P.5,10``, ``official``)."""
    spellings: dict[str, str] = {}
    for name, spelling in _native.measure_spellings(measures):
        spellings.setdefault(name, spelling)
    return [spellings.get(name, name) for name in names]


def _options(**given) -> str:
    """A job's options as the library reads them: JSON, the options given by name, paths as
    strings; ``None`` leaves an option to the job's default."""

    def plain(value):
        if isinstance(value, os.PathLike):
            return os.fspath(value)
        if isinstance(value, dict):
            return {name: plain(item) for name, item in value.items() if item is not None}
        if isinstance(value, (list, tuple)):
            return [plain(item) for item in value]
        return value

    return json.dumps(plain({name: value for name, value in given.items() if value is not None}))


def _warn(messages: list[str]) -> None:
    for message in messages:
        warnings.warn(message, stacklevel=3)


def evaluate(
    qrels,
    runs,
    measures: Measures = DEFAULT_MEASURES,
    relevance_level: int = JOB_DEFAULTS["evaluate"]["relevance_level"],
    per_topic: bool = JOB_DEFAULTS["evaluate"]["per_topic"],
    complete: bool = JOB_DEFAULTS["evaluate"]["complete"],
    max_docs: Optional[int] = None,
    judged_docs_only: bool = JOB_DEFAULTS["evaluate"]["judged_docs_only"],
    documents_in_collection: int = JOB_DEFAULTS["evaluate"]["documents_in_collection"],
    zscores: Union[str, os.PathLike, None] = None,
    trec_eval: Optional[str] = None,
) -> pd.DataFrame:
    """Scores runs exactly as trec_eval does.

    ``measures`` are parsed as ``reusesim eval -m`` parses them: trec_eval spellings (``map``,
    ``P_10``, ``P.5,10``, ``ndcg_cut_10``, the nicknames ``official`` and ``all_trec``),
    ir_measures spellings (``AP``, ``nDCG@10``, ``P(rel=2)@10``, ``Judged@10``) and ranx
    spellings (``ndcg@10``, ``mrr@10``, ``hits@10``), one string, one ir_measures ``Measure``
    object (``ir_measures.nDCG@10``, read by its ``str``) or a list of them; by default
    trec_eval's default set, ``official``, without ``runid`` and ``num_q``. ``relevance_level``, ``complete``,
    ``max_docs``, ``judged_docs_only`` and ``documents_in_collection`` are trec_eval's ``-l``,
    ``-c``, ``-M``, ``-J`` and ``-N``; ``zscores`` (a file of ``qid measure
    mean stddev`` lines) gives z-scores as trec_eval's ``-Z``; ``trec_eval`` (``"9"``, the
    default, or ``"10"``) is the release whose arithmetic to follow where releases differ.

    Returns a DataFrame with columns ``run_id measure query_id value trec_eval_measure``: one
    row per run and measure with ``query_id == "all"`` (the mean over topics; a sum for
    counts), preceded by the per-topic rows when ``per_topic``. ``measure`` is spelled as it was
    asked for (``str(measure)`` for a ``Measure`` object) where one name asked for that measure
    alone, and in trec_eval's spelling where a name stands for several (``P.5,10``,
    ``official``); ``trec_eval_measure`` is trec_eval's spelling (``nDCG@10`` is
    ``ndcg_cut_10``). Warnings (a run topic missing from the qrels) are issued with
    :mod:`warnings`.
    """
    measures = _measure_list(measures)
    (run_ids, names, topics, values), messages = _native.evaluate(
        _inputs.qrels(qrels),
        _inputs.runs(runs),
        _options(
            measures=measures,
            relevance_level=relevance_level,
            per_topic=per_topic,
            complete=complete,
            max_docs=max_docs,
            judged_docs_only=judged_docs_only,
            documents_in_collection=documents_in_collection,
            zscores=zscores,
            trec_eval=trec_eval,
        ),
    )
    _warn(messages)
    return pd.DataFrame(
        {
            "run_id": run_ids,
            "measure": _as_spelled(names, measures),
            "query_id": topics,
            "value": values,
            "trec_eval_measure": names,
        }
    )


def compare(
    qrels,
    runs,
    measures: Measures = tuple(JOB_DEFAULTS["compare"]["measures"]),
    test: str = JOB_DEFAULTS["compare"]["test"],
    correction: str = JOB_DEFAULTS["compare"]["correction"],
    alpha: float = JOB_DEFAULTS["compare"]["alpha"],
    baseline: Optional[str] = None,
    permutations: int = JOB_DEFAULTS["compare"]["permutations"],
    seed: int = JOB_DEFAULTS["compare"]["seed"],
    relevance_level: int = JOB_DEFAULTS["compare"]["relevance_level"],
    topics: str = JOB_DEFAULTS["compare"]["topics"],
) -> pd.DataFrame:
    """Tests whether runs scored on one qrels differ significantly, as ``reusesim compare``
    does (see docs/compare.md).

    ``qrels`` and ``runs`` take any input :func:`evaluate` takes; ``measures`` are parsed as
    there. ``test`` is ``"t"``, ``"wilcoxon"``, ``"randomization"``, ``"bootstrap"`` or
    ``"tukey"`` (two-sided); ``correction`` is ``"none"``, ``"bonferroni"``, ``"holm"`` or
    ``"bh"``, over each measure's pairs (``"none"`` with Tukey's test, its own correction).
    With ``baseline`` (a run id) every run is compared with it, otherwise every pair.
    ``permutations`` and ``seed`` drive the resampling tests. ``topics="qrels"`` compares on
    every qrels topic, one a run lacks scoring 0 (trec_eval's ``-c``); ``"common"`` on those
    every run has.

    Returns a DataFrame with a row per pair and measure, columns ``measure run against
    run_mean against_mean mean_difference ci_low ci_high effect_size p_value adjusted_p_value
    significant trec_eval_measure`` (``mean_difference`` is run − against, ``ci_*`` its 95%
    interval, ``effect_size`` NaN where the differences do not vary); ``measure`` is spelled as
    asked for and ``trec_eval_measure`` in trec_eval's spelling, as in :func:`evaluate`. The
    notes (identical runs, exact tests) are in ``frame.attrs["notes"]``.
    """
    measures = _measure_list(measures)
    text, messages = _native.compare(
        _inputs.qrels(qrels),
        _inputs.runs(runs),
        _options(
            measures=measures,
            test=test,
            correction=correction,
            alpha=alpha,
            baseline=baseline,
            permutations=permutations,
            seed=seed,
            relevance_level=relevance_level,
            topics=topics,
        ),
    )
    _warn(messages)
    comparison = json.loads(text)
    rows = []
    trec_eval_names = [measure["measure"] for measure in comparison["measures"]]
    spelled = _as_spelled(trec_eval_names, measures)
    for measure, name in zip(comparison["measures"], spelled):
        means = {entry["run"]: entry["mean"] for entry in measure["means"]}
        for pair in measure["pairs"]:
            low, high = pair["confidence_interval"]
            effect = pair["effect_size"]
            rows.append(
                {
                    "measure": name,
                    "run": pair["run"],
                    "against": pair["against"],
                    "run_mean": means[pair["run"]],
                    "against_mean": means[pair["against"]],
                    "mean_difference": pair["mean_difference"],
                    "ci_low": low,
                    "ci_high": high,
                    "effect_size": float("nan") if effect is None else effect,
                    "p_value": pair["p_value"],
                    "adjusted_p_value": pair["adjusted_p_value"],
                    "significant": pair["significant"],
                    "trec_eval_measure": measure["measure"],
                }
            )
    frame = pd.DataFrame(rows, columns=COMPARE_COLUMNS)
    frame.attrs["notes"] = comparison["notes"]
    return frame


#: The columns of :func:`compare`'s DataFrame: those of ``reusesim compare --format tsv``, then
#: ``trec_eval_measure``.
COMPARE_COLUMNS = [
    "measure",
    "run",
    "against",
    "run_mean",
    "against_mean",
    "mean_difference",
    "ci_low",
    "ci_high",
    "effect_size",
    "p_value",
    "adjusted_p_value",
    "significant",
    "trec_eval_measure",
]


def agree(
    qrels_a,
    qrels_b,
    runs=None,
    *,
    measures: Measures = tuple(JOB_DEFAULTS["agree"]["measures"]),
    relevance_level: Optional[int] = None,
    task: Union[str, os.PathLike, None] = None,
    test: str = JOB_DEFAULTS["agree"]["test"],
    correction: str = JOB_DEFAULTS["agree"]["correction"],
    alpha: float = JOB_DEFAULTS["agree"]["alpha"],
    permutations: int = JOB_DEFAULTS["agree"]["permutations"],
    seed: int = JOB_DEFAULTS["agree"]["seed"],
    threads: Optional[int] = None,
) -> dict:
    """How far two qrels agree, as ``reusesim agree`` measures it (see docs/agree.md): on the
    grades of the pairs both grade, topic by topic, and, given ``runs`` (two or more), on the
    leaderboards they give.

    ``qrels_a`` (the reference) and ``qrels_b`` take any input :func:`evaluate` takes, ``runs``
    any runs input; ``measures`` are parsed as there. ``relevance_level``: a grade at or above
    it counts as relevant (default: the task's with ``task``, else 1). ``task`` is a
    ``task.toml``: both qrels must grade its topics only. ``test``, ``correction``, ``alpha``,
    ``permutations`` and ``seed`` are :func:`compare`'s, for the pairs of runs under each
    qrels; ``threads`` runs the resampling tests.

    Returns the record ``reusesim agree --format json`` prints, as a dict: ``qrels_a`` and
    ``qrels_b`` (a path as given, ``"A"`` and ``"B"`` for other inputs), ``grades`` (Cohen's
    kappa plain, linear and quadratic, the binary kappa, Krippendorff's alphas, the
    confusion table...), ``topic_kappa``, ``topics``, ``only_a``, ``only_b``, ``leaderboard``
    (``None`` without runs) and ``notes``. Warnings (a run left out) are issued with
    :mod:`warnings`.
    """
    names = tuple(
        os.fspath(qrels) if _inputs.is_path(qrels) else name
        for qrels, name in ((qrels_a, "A"), (qrels_b, "B"))
    )
    text, messages = _native.agree(
        _inputs.qrels(qrels_a),
        _inputs.qrels(qrels_b),
        names,
        None if runs is None else _inputs.runs(runs),
        _options(
            measures=_measure_list(measures),
            relevance_level=relevance_level,
            task=task,
            test=test,
            correction=correction,
            alpha=None if alpha is None else float(alpha),
            permutations=permutations,
            seed=seed,
        ),
        threads,
    )
    _warn(messages)
    return json.loads(text)


def _qrels_frame(columns) -> pd.DataFrame:
    query_ids, doc_ids, grades = columns
    return pd.DataFrame({"query_id": query_ids, "doc_id": doc_ids, "relevance": grades})


class Task:
    """A collection to study: runs, their teams, the official qrels, and optionally topic texts
    and a corpus (the parts of ``task.toml``, see docs/formats.md#task-manifest).

    ``qrels`` and ``runs`` take any input :func:`evaluate` takes. ``teams`` is a team file, a
    dict ``{run_id: team}`` or ``{run_id: (team, pooled)}``, or a DataFrame (run_id, team,
    pooled); without it every run is its own team and pooled. ``topics`` is a topic file, a
    dict, a DataFrame (query_id, text) or ``dataset.queries_iter()``. ``corpus`` is a
    TSV or JSONL file or a folder of them (plain or gzip; see docs/formats.md#corpus), or a
    DataFrame (doc_id, text) or ``dataset.docs_iter()`` (written once to a temporary file that
    the judge streams). ``corpus_format`` (``"tsv"``, ``"jsonl"``, ``"auto"``),
    ``corpus_id_fields`` and ``corpus_text_fields`` are ``task.toml``'s settings of the same
    names, for a corpus path. ``feature_store`` is the corpus's feature store, written once by
    ``reusesim index`` (see docs/store.md): text features are read from it in place of the
    corpus, which may then be left out. ``pool_depth`` is a number or ``"auto"``. Use
    :meth:`Task.load` for a ``task.toml``.
    """

    def __init__(
        self,
        qrels,
        runs=None,
        teams=None,
        topics=None,
        corpus=None,
        *,
        name: str = "task",
        relevance_level: int = 1,
        pool_depth: Union[int, str] = 10,
        truth=None,
        corpus_format: Optional[str] = None,
        corpus_id_fields: Optional[Sequence[str]] = None,
        corpus_text_fields: Optional[Sequence[str]] = None,
        feature_store: Union[str, os.PathLike, None] = None,
    ):
        native_runs = None if runs is None else _inputs.runs(runs)
        if teams is not None:
            team_entries = _inputs.teams(teams)
        elif native_runs is not None:
            team_entries = [(tag, tag, True) for tag in native_runs.tags]
        else:
            team_entries = None
        self._folder = None
        corpus_settings = (corpus_format, corpus_id_fields, corpus_text_fields)
        if corpus is not None and not _inputs.is_path(corpus):
            if any(setting is not None for setting in corpus_settings):
                raise ValueError(
                    "expected corpus_format, corpus_id_fields and corpus_text_fields with a "
                    "corpus path only, found an in-memory corpus"
                )
            self._folder = tempfile.TemporaryDirectory(prefix="reusesim-corpus-")
            corpus = _inputs.write_corpus(corpus, Path(self._folder.name))
        if pool_depth == "auto":
            pool_depth = None
        elif isinstance(pool_depth, str) or pool_depth < 1:
            raise ValueError(f'expected pool_depth >= 1 or "auto", found {pool_depth!r}')
        self._task = _native.Task.from_parts(
            name,
            _inputs.qrels(qrels),
            native_runs,
            team_entries,
            None if topics is None else _inputs.topics(topics),
            None if corpus is None else os.fspath(corpus),
            relevance_level,
            pool_depth,
            None if truth is None else _inputs.qrels(truth),
            corpus_format,
            None if corpus_id_fields is None else list(corpus_id_fields),
            None if corpus_text_fields is None else list(corpus_text_fields),
            None if feature_store is None else os.fspath(feature_store),
        )

    @classmethod
    def load(cls, path: Union[str, os.PathLike]) -> "Task":
        """Loads the task a ``task.toml`` describes (paths relative to it)."""
        task = cls.__new__(cls)
        task._folder = None
        task._task = _native.Task.load(os.fspath(path))
        return task

    @property
    def name(self) -> str:
        """The task's name."""
        return self._task.name

    @property
    def runs(self) -> pd.DataFrame:
        """The runs: ``run_id team pooled``, in run order."""
        return pd.DataFrame(self._task.runs, columns=["run_id", "team", "pooled"])

    @property
    def qrels(self) -> pd.DataFrame:
        """The official qrels: ``query_id doc_id relevance``."""
        return _qrels_frame(self._task.qrels.columns())

    @property
    def pool_depth(self) -> int:
        """The official pool depth (``auto`` resolved)."""
        return self._task.pool_depth

    @property
    def relevance_level(self) -> int:
        """A grade >= this counts as relevant."""
        return self._task.relevance_level

    def __repr__(self) -> str:
        return (
            f"Task({self.name!r}: {len(self._task.runs)} runs, {len(self._task.qrels)} "
            f"judgments, pool depth {self.pool_depth}, corpus {self._task.corpus})"
        )


def _task(task) -> Task:
    return task if isinstance(task, Task) else Task.load(task)


class _ProgressBar:
    """A tqdm bar fed by the library's progress reports (none without tqdm or when off)."""

    def __init__(self, description: str, unit: str, enabled: Optional[bool]):
        self.bar = None
        if enabled is False:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return
        self.bar = tqdm(desc=description, unit=unit, total=0)

    def callback(self):
        return None if self.bar is None else self.update

    def update(self, done: int, total: int) -> None:
        self.bar.total = total
        self.bar.n = done
        self.bar.refresh()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        if self.bar is not None:
            self.bar.close()


#: The judge's keyword options of :func:`simulate` and :func:`judge`, passed on by name.
_JUDGE_OPTIONS = (
    "features",
    "learner",
    "iterations",
    "precision",
    "schedule",
    "candidates",
    "pool_depth",
    "budget",
    "withhold",
    "unique_depth",
    "train_level",
    "carried",
    "assessor",
)


def _judge_options(arguments: dict) -> dict:
    """The judge's options from a call's arguments (``None``: the job's default)."""
    return {name: arguments[name] for name in _JUDGE_OPTIONS}


#: Columns of the result tables that hold names, kept as strings even when they look numeric.
_NAME_COLUMNS = {"run", "team", "measure", "held_out", "trial", "strategy"}


def _read_table(path: Path) -> pd.DataFrame:
    """A result table written by the library: names as strings, ``NA`` as missing, every
    other column numeric when all its values are numbers."""
    table = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    for column in table.columns:
        if column in _NAME_COLUMNS:
            continue
        try:
            table[column] = pd.to_numeric(table[column].replace("NA", float("nan")))
        except ValueError:
            pass  # a column of names the list above does not know yet: kept as strings
    return table


@dataclass
class StudyResult:
    """A finished leave-team-out study, as written to ``out_dir`` (files and columns in docs/formats.md#result-files)."""

    #: The folder holding every output (temporary unless ``out_dir`` was given).
    out_dir: Path
    #: ``summary.json`` as a dict.
    summary: dict
    #: ``runs.tsv``: per run and measure, official and LOU scores and ranks.
    runs: pd.DataFrame
    #: ``trials.tsv``: per trial and measure, tau_b, tau_ap (against the official and the
    #: control ranking), overlap and recall, carried, overlap_found and recall_found, withheld.
    trials: pd.DataFrame
    #: ``ranks.tsv``: every run's score and rank in every trial.
    ranks: pd.DataFrame
    #: ``heldout.tsv``: per held-out trial, the held-out runs' scores and ranks.
    heldout: pd.DataFrame
    #: ``lou.tsv``: each seed's LOU score and rank of every run.
    lou: pd.DataFrame
    #: ``budget.tsv`` (studies with ``budget_fractions``): every trial's tau_b, tau_ap, paired
    #: tau_b, recall and overlap at every budget fraction; ``None`` without a budget curve.
    budget: Optional[pd.DataFrame] = None
    #: ``strategies.tsv`` (studies with ``strategies``): per strategy, budget fraction and
    #: measure, the control and paired tau_b, the held-out runs' rank change, recall, the
    #: unofficial share and judgments per topic; ``None`` without a comparison.
    strategies: Optional[pd.DataFrame] = None
    _folder: Optional[tempfile.TemporaryDirectory] = field(default=None, repr=False)

    @classmethod
    def read(cls, out_dir: Union[str, os.PathLike], folder=None) -> "StudyResult":
        """Reads a results folder written by ``reusesim simulate --out`` or :func:`simulate`."""
        out_dir = Path(out_dir)
        budget = out_dir / "budget.tsv"
        strategies = out_dir / "strategies.tsv"
        with open(out_dir / "summary.json", encoding="utf-8") as summary:
            return cls(
                out_dir=out_dir,
                summary=json.load(summary),
                runs=_read_table(out_dir / "runs.tsv"),
                trials=_read_table(out_dir / "trials.tsv"),
                ranks=_read_table(out_dir / "ranks.tsv"),
                heldout=_read_table(out_dir / "heldout.tsv"),
                lou=_read_table(out_dir / "lou.tsv"),
                budget=_read_table(budget) if budget.exists() else None,
                strategies=_read_table(strategies) if strategies.exists() else None,
                _folder=folder,
            )

    def plot(
        self,
        out_dir: Union[str, os.PathLike, None] = None,
        format: str = JOB_DEFAULTS["plot"]["format"],
    ) -> list[Path]:
        """Draws the study's figures (as ``reusesim plot``) into ``out_dir`` (default: the
        results' ``figures/``) as ``png``, ``svg`` or ``both``, or with ``html`` writes the
        study's page ``report.html`` (default: into the results folder); returns the files
        written."""
        options = _options(out=out_dir, format=format)
        return [Path(p) for p in _native.plot(os.fspath(self.out_dir), options)]


def simulate(
    task,
    seeds: int = JOB_DEFAULTS["simulate"]["seeds"],
    *,
    measures: Measures = DEFAULT_STUDY_MEASURES,
    teams: Optional[Sequence[str]] = None,
    keep_qrels: bool = JOB_DEFAULTS["simulate"]["keep_qrels"],
    out_dir: Union[str, os.PathLike, None] = None,
    features: Optional[str] = None,
    learner: Optional[str] = None,
    iterations: Optional[int] = None,
    precision: Optional[str] = None,
    schedule: Optional[str] = None,
    candidates: Optional[str] = None,
    pool_depth: Optional[int] = None,
    budget: Optional[int] = None,
    withhold: Optional[str] = None,
    unique_depth: Optional[int] = None,
    train_level: Optional[int] = None,
    carried: Optional[str] = None,
    assessor: Optional[str] = None,
    threads: Optional[int] = None,
    progress: Optional[bool] = None,
    budget_fractions: Optional[Sequence[float]] = None,
    strategies: Optional[Sequence[str]] = None,
    significance: Optional[str] = None,
    alpha: Optional[float] = None,
) -> StudyResult:
    """Runs the leave-team-out study of ``task`` (a :class:`Task` or a ``task.toml`` path), as
    ``reusesim simulate`` does, and writes its outputs into ``out_dir`` (a temporary folder
    kept as long as the result when not given).

    The keywords are the command line's options: ``seeds`` (trials use seeds 1..N),
    ``measures``, ``teams`` (hold out only these), ``keep_qrels``; the judge's ``features``
    (``auto``, ``text``, ``runs``), ``learner`` (``pegasos``, ``logistic``), ``iterations``,
    ``precision`` (``f32``, ``f64``), ``schedule`` (``bmi``, ``one``), ``candidates`` (``retrieved``, ``corpus``),
    ``pool_depth``, ``budget``, ``withhold`` (``uniques``, ``none``), ``unique_depth``,
    ``train_level``, ``carried`` (``train``, ``ignore``); ``assessor`` (who grades what is judged:
    ``official``, the default, ``completed``, the path of a fuller qrels file, or
    ``hybrid:FILE``, the official grades for the depth pool and the file's for the rest; see
    docs/assessor.md); ``threads`` (default all cores; results
    do not depend on it); ``budget_fractions`` (each in (0, 1]: the study is also evaluated with
    each topic's judgments cut to these fractions of its budget, in ``.budget``; default: the
    whole budget alone); ``strategies`` (judging strategies compared on the same trials:
    ``hical``, ``depth``, ``mtf``, ``bandit``, in ``.strategies``; default: none, the study
    judges with ``hical`` alone); ``significance`` (``"TEST[,CORRECTION]"``, default ``"t,holm"``:
    the test and correction that judge which pairs of runs differ significantly, for the
    comparisons by significance in ``.trials``, ``.budget``, ``.strategies`` and the summary) and
    ``alpha`` (default 0.05). An option
    left as ``None`` takes the command line's default (HiCAL's settings, the task's pool depth).
    ``progress`` shows a tqdm bar (default: when tqdm is installed).
    """
    options = _options(
        seeds=seeds,
        measures=_measure_list(measures),
        teams=None if teams is None else list(teams),
        keep_qrels=keep_qrels,
        budget_fractions=None if budget_fractions is None else [float(f) for f in budget_fractions],
        strategies=None if strategies is None else [str(s) for s in strategies],
        judge=_judge_options(locals()),
        significance=significance,
        alpha=None if alpha is None else float(alpha),
    )
    native_task = _task(task)._task
    folder = None
    if out_dir is None:
        folder = tempfile.TemporaryDirectory(prefix="reusesim-study-")
        out_dir = folder.name
    with _ProgressBar(f"simulating {native_task.name}", "unit", progress) as bar:
        _native.simulate(native_task, os.fspath(out_dir), options, threads, bar.callback())
    return StudyResult.read(out_dir, folder)


@dataclass
class Judging:
    """One replay of the judging (as ``reusesim judge``)."""

    #: The simulated qrels: ``query_id doc_id relevance``.
    qrels: pd.DataFrame
    #: ``topic step batch docid score grade official`` (batch 0 is the pool, score NaN), and
    #: with an assessor other than the official one ``source`` (``official``, ``file``,
    #: ``drawn`` or ``presumed``), and with ``hybrid:FILE`` ``assessor`` (``official`` for the
    #: pool, ``file`` after it).
    trace: pd.DataFrame
    #: Topics whose pool alone exceeded the budget (the whole pool was kept).
    pools_over_budget: int
    #: Retrains over all topics.
    retrains: int


def judge(
    task,
    seed: int = JOB_DEFAULTS["judge"]["seed"],
    leave_out: Sequence[str] = (),
    *,
    features: Optional[str] = None,
    learner: Optional[str] = None,
    iterations: Optional[int] = None,
    precision: Optional[str] = None,
    schedule: Optional[str] = None,
    candidates: Optional[str] = None,
    pool_depth: Optional[int] = None,
    budget: Optional[int] = None,
    withhold: Optional[str] = None,
    unique_depth: Optional[int] = None,
    train_level: Optional[int] = None,
    carried: Optional[str] = None,
    assessor: Optional[str] = None,
    threads: Optional[int] = None,
    progress: Optional[bool] = None,
) -> Judging:
    """Replays the judging of ``task`` once: the pool (without the teams of ``leave_out``),
    then HiCAL-like continuous active learning up to each topic's official number of
    judgments (or ``budget``). The keywords are :func:`simulate`'s judge options."""
    options = _options(seed=seed, leave_out=list(leave_out), judge=_judge_options(locals()))
    native_task = _task(task)._task
    with _ProgressBar(f"judging {native_task.name}", "topic", progress) as bar:
        qrels, trace, over_budget, retrains = _native.judge(
            native_task, options, threads, bar.callback()
        )
    trace_frame = pd.read_csv(
        io.StringIO(trace), sep="\t", dtype={"topic": str, "docid": str}, keep_default_na=False
    )
    return Judging(_qrels_frame(qrels), trace_frame, over_budget, retrains)


def complete(
    task,
    seed: int = JOB_DEFAULTS["complete"]["seed"],
    *,
    features: Optional[str] = None,
    pool_depth: Optional[int] = None,
    threads: Optional[int] = None,
) -> pd.DataFrame:
    """Seed ``seed``'s completed qrels of ``task`` (as ``reusesim complete``): the official
    qrels, then for every document a run retrieved that they never judged a grade drawn from
    the calibrated relevance model, as a study's ``assessor="completed"`` grades with on that
    seed. ``features`` (``auto``, ``text``, ``runs``) are the relevance model's, ``pool_depth``
    its calibration's (default: the task's). Returns ``query_id doc_id relevance source``
    (``official`` or ``drawn``)."""
    native_task = _task(task)._task
    options = _options(seed=seed, features=features, pool_depth=pool_depth)
    qrels, sources = _native.complete(native_task, options, threads)
    frame = _qrels_frame(qrels)
    frame["source"] = sources
    return frame


@dataclass
class AuditResult:
    """The audit of one or several runs (as ``reusesim audit --format json``; fields in
    docs/audit.md)."""

    #: ``no extra judgments needed`` or ``judge N documents ...``; with ``against``, the
    #: claims' verdict first (``claims: ...; ranks: ...``).
    verdict: str
    #: The first run's judged_10, judged_20, judged_100, unj_10 and unjudged counts.
    coverage: dict
    #: Per run and measure: the score interval, expected score, ranks among the task's runs
    #: and among the audited runs, and whether at risk.
    measures: pd.DataFrame
    #: The merged list to judge, in order of combined value: ``topic docid rank probability
    #: value runs remaining_risk is_beyond_pool`` (``runs``: the audited runs it serves), and
    #: with ``labels`` each document's ``label`` (missing where the labels do not grade it).
    to_judge: pd.DataFrame
    #: Per run, baseline and measure (with ``against``): the collection's difference and
    #: p-value, the expected difference and its 90% range, P(significant as claimed),
    #: P(reversed), P(not significant) and the verdict (``safe``, ``at risk``, ``no claim``,
    #: ``judging could make it significant``).
    claims: pd.DataFrame
    #: Each audited run's own report.
    runs: list
    #: With ``judged``: each run before and after the returned judgments, the listed documents
    #: left unjudged and the judged ones that were not listed.
    judged: Optional[dict]
    #: With ``labels``: the labels' file, their agreement with the collection on the pairs
    #: both grade, the audited runs' unjudged documents and how many the labels grade, and what
    #: the label sheet asks for (docs/labels.md); ``None`` without labels.
    labels: Optional[dict]
    #: The whole report.
    report: dict


def audit(
    task,
    run=None,
    *,
    runs=None,
    judged: Union[str, os.PathLike, None] = None,
    override_official: bool = JOB_DEFAULTS["audit"]["override_official"],
    measures: Measures = _native.DEFAULT_AUDIT_MEASURES,
    features: Optional[str] = None,
    budget: Optional[int] = None,
    study_seeds: Optional[int] = None,
    results: Union[str, os.PathLike, None] = None,
    evidence: Optional[str] = None,
    beyond_pool: Optional[str] = None,
    list_per_topic: Optional[int] = None,
    risk_threshold: Optional[float] = None,
    settle_threshold: Optional[float] = None,
    rank_margin: Optional[float] = None,
    emit_pool: Union[str, os.PathLike, None] = None,
    sheet: Union[str, os.PathLike, None] = None,
    labels: Union[str, os.PathLike, None] = None,
    label_sheet: Union[str, os.PathLike, None] = None,
    against: Union[str, os.PathLike, Iterable, None] = None,
    significance: Optional[str] = None,
    alpha: Optional[float] = None,
    threads: Optional[int] = None,
) -> AuditResult:
    """Audits new runs against ``task`` as ``reusesim audit`` does: ``run`` (any input
    :func:`evaluate` takes) or ``runs`` (a list of them), audited together with one
    calibration and one merged list to judge. Per run: its judged fraction, score and rank
    intervals, its ranks among the task's runs and among the audited runs. ``judged`` (a qrels
    file or the filled assessment sheet) adds returned judgments to the task's qrels for this
    audit only and reports every run before and after them; a grade that contradicts an
    official one is an error unless ``override_official``. ``results`` is a study's results
    folder for the leave-team-out comparison; without it a short study runs on the spot
    (``study_seeds``, 0 for none). ``evidence`` is what the calibration learns a team's absence
    loses from: ``"pool"`` (the default) or ``"trials"``, the leave-out trials kept in
    ``results`` (``simulate(..., keep_qrels=True)``). ``beyond_pool`` (``"non-relevant"``,
    the default: as if the run had been pooled, or ``"extrapolate"``: what a complete judging
    would find), ``list_per_topic`` (0: no cap), ``risk_threshold``,
    ``settle_threshold`` and ``rank_margin`` are the verdict's rules; ``emit_pool`` and ``sheet``
    write the documents to judge as pool lines and as the assessment sheet. ``against`` (one
    or a list) names the baselines of the runs' claims: a task run's tag, a run file, ``"best"``
    (the task's best run by each measure) or ``"best:MEASURE"``; each claim is tested with
    ``significance`` (``"TEST[,CORRECTION]"``, default ``"t,holm"``, the correction over a run's
    claims of one measure) at ``alpha`` (default 0.05), and the list to judge serves the claims
    too. ``labels`` is a secondary assessor's grades in qrels form (an LLM's, say): the
    calibration learns on the collection's own documents what each label is worth, and a
    labelled document's probability weighs its label; ``label_sheet`` writes the documents such
    an assessor should label, as JSON lines of umbrela's requests. Every option left as
    ``None`` takes ``reusesim audit``'s default (``JOB_DEFAULTS["audit"]``)."""
    if (run is None) == (runs is None):
        raise ValueError("expected either run or runs, found " + ("both" if run is not None else "neither"))
    inputs = _inputs.runs(run if run is not None else list(runs))
    options = _options(
        measures=_measure_list(measures),
        features=features,
        budget=budget,
        study_seeds=study_seeds,
        results=results,
        evidence=evidence,
        judged=judged,
        override_official=override_official,
        beyond_pool=beyond_pool,
        list_per_topic=list_per_topic,
        risk_threshold=risk_threshold,
        settle_threshold=settle_threshold,
        rank_margin=rank_margin,
        emit_pool=emit_pool,
        sheet=sheet,
        labels=labels,
        label_sheet=label_sheet,
        against=_baselines(against),
        significance=significance,
        alpha=None if alpha is None else float(alpha),
    )
    report_json, messages = _native.audit(_task(task)._task, inputs, options, threads)
    _warn(messages)
    report = json.loads(report_json)
    measures_rows = [
        {"run": run_report["run"], **measure}
        for run_report in report["runs"]
        for measure in run_report["measures"]
    ]
    return AuditResult(
        verdict=report["verdict"],
        coverage=report["runs"][0]["coverage"],
        measures=pd.DataFrame(measures_rows),
        to_judge=_to_judge_frame(report),
        claims=pd.DataFrame(
            [claim for run_report in report["runs"] for claim in run_report["claims"]],
            columns=[
                "run",
                "baseline",
                "chosen_as",
                "measure",
                "topics",
                "difference",
                "p_value",
                "is_significant",
                "expected_difference",
                "difference_low",
                "difference_high",
                "probability_significant_as_claimed",
                "probability_reversed",
                "probability_not_significant",
                "probability_outcome_changes",
                "remaining_after_list",
                "listed_documents",
                "verdict",
                "cannot_settle",
            ],
        ),
        runs=report["runs"],
        judged=report["judged"],
        labels=report.get("labels"),
        report=report,
    )


def _to_judge_frame(report: dict) -> pd.DataFrame:
    """The audit's merged list to judge, with the labels' column where labels were given."""
    columns = [
        "topic",
        "docid",
        "rank",
        "probability",
        "value",
        "runs",
        "remaining_risk",
        "is_beyond_pool",
    ]
    if report.get("labels") is None:
        return pd.DataFrame(report["to_judge"], columns=columns)
    frame = pd.DataFrame(report["to_judge"], columns=columns + ["label"])
    frame["label"] = frame["label"].astype("Int64")
    return frame


def _baselines(against) -> Optional[list[str]]:
    """``against`` as the job's list of baselines: one name or path, or a list of them."""
    if against is None:
        return None
    if isinstance(against, (str, os.PathLike)):
        against = [against]
    return [os.fspath(baseline) for baseline in against]


@dataclass
class BacktestResult:
    """How far the audit can be trusted on a task (``reusesim backtest``; fields in
    docs/backtest.md)."""

    #: One row per audited run and measure (``backtest.tsv``).
    rows: pd.DataFrame
    #: Per measure: each estimator's error, the verdict's confusion, the list (``backtest.json``).
    summary: dict


def backtest(
    task,
    out_dir: Union[str, os.PathLike],
    *,
    world: str = JOB_DEFAULTS["backtest"]["world"],
    results: Union[str, os.PathLike, None] = None,
    seed: int = JOB_DEFAULTS["backtest"]["seed"],
    iterations: int = JOB_DEFAULTS["backtest"]["iterations"],
    measures: Measures = _native.DEFAULT_AUDIT_MEASURES,
    teams: Optional[Iterable[str]] = None,
    features: Optional[str] = None,
    evidence: Optional[str] = None,
    truth_qrels: Union[str, os.PathLike, None] = None,
    runs: Optional[Iterable[str]] = None,
    beyond_pool: Optional[str] = None,
    list_per_topic: Optional[int] = None,
    risk_threshold: Optional[float] = None,
    settle_threshold: Optional[float] = None,
    rank_margin: Optional[float] = None,
    labels: Union[str, os.PathLike, None] = None,
    significance: Optional[str] = None,
    alpha: Optional[float] = None,
    format: Optional[str] = None,
    threads: Optional[int] = None,
    progress: bool = True,
) -> BacktestResult:
    """Backtests the audit on ``task`` as ``reusesim backtest`` does: each team with a pooled
    run is left out (``world="classic"``: the official qrels less its unique documents;
    ``"simulated"``: its leave-out trial's qrels, from ``results`` or judged here), its runs are
    audited and compared with the truth. ``evidence`` is what the audit's calibration learns
    from, ``"pool"`` or ``"trials"`` (default: pool in the classic world, trials in the
    simulated one). ``world="deeper"`` audits the task's unpooled runs (or ``runs``) against
    the official qrels and completes each run's truth from ``truth_qrels`` (for example later
    rounds' judgments of the same topics). ``beyond_pool``, ``list_per_topic`` and the
    thresholds are :func:`audit`'s (``beyond_pool`` defaults to the world's own rule). Each
    audited run's claims against its baselines (the best pooled run and the pooled runs
    directly above and below it) are tested with ``significance`` (``"TEST[,CORRECTION]"``,
    default ``"t,holm"``) at ``alpha`` (default 0.05). ``labels`` is :func:`audit`'s, weighed
    by every audit of the backtest. ``format`` (``png``, ``svg``,
    ``both``) chooses the figure files. Writes ``backtest.tsv``, ``backtest.json`` and the
    figures into ``out_dir``."""
    native_task = _task(task)._task
    with _ProgressBar(f"backtesting {native_task.name}", "step", progress) as bar:
        options = _options(
            world=world,
            results=results,
            seed=seed,
            iterations=iterations,
            measures=_measure_list(measures),
            teams=None if teams is None else list(teams),
            features=features,
            evidence=evidence,
            truth_qrels=truth_qrels,
            runs=None if runs is None else list(runs),
            beyond_pool=beyond_pool,
            list_per_topic=list_per_topic,
            risk_threshold=risk_threshold,
            settle_threshold=settle_threshold,
            rank_margin=rank_margin,
            labels=labels,
            significance=significance,
            alpha=None if alpha is None else float(alpha),
            format=format,
        )
        summary_json = _native.backtest(native_task, os.fspath(out_dir), options, threads, bar.callback())
    rows = pd.read_csv(
        Path(out_dir) / "backtest.tsv",
        sep="\t",
        dtype={"team": str, "run": str, "measure": str},
    )
    return BacktestResult(rows=rows, summary=json.loads(summary_json))
