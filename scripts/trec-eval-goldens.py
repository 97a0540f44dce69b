#!/usr/bin/env python3
"""Writes the reference values of trec_eval 9.0.8's whole measure set (tests/golden/trec_eval/,
read by tests/cli/trec_eval.rs), computed by pytrec_eval-terrier, which embeds trec_eval's C
code, with `-m all_trec` at relevance levels 1 and 2 (`-l`); and, given a trec_eval 10.0
binary, its output on trec_eval's test fixture for the options its own quicktest leaves out
(`-J`, `-N` and the long spellings of the options), as quicktest's expected files are.

    python3 -m venv /tmp/venv-goldens
    /tmp/venv-goldens/bin/pip install pytrec_eval-terrier==0.5.11 numpy
    /tmp/venv-goldens/bin/python scripts/trec-eval-goldens.py /path/to/shared/data [TREC_EVAL]

TREC_EVAL is a trec_eval binary built from github.com/usnistgov/trec_eval at the fixture's
commit (f4253652, release 10.0: `make trec_eval` in a checkout outside this repository).

Writes one gzipped TSV per data set, rows `level run measure topic value`:
- trec_eval's test fixture (`results.test` on `qrels.test` and on the graded
  `qrels.rel_level`) and the three DL19 passage runs: every topic, and `all`;
- the 143 TREC-COVID round-1 runs: `all` only, to keep the file small;
- the measures of WITH_PARAMETERS on trec_eval's test fixture (`qrels.test`): every topic,
  and `all`.

With TREC_EVAL, writes trec_eval's output for each line of OPTION_OUTPUTS, unchanged, to a file
of that name (`out.` and what the options are).

`all` is trec_eval's summary over the topics the run has, from pytrec_eval's
`compute_aggregated_measure` (sums for the counts, geometric means for gm_map and gm_bpref,
means for the rest). runid, num_q and relstring are left out: they are not numbers of one
topic. Scores are handed over in single precision, as trec_eval 9.0.8 keeps them, so that
tied scores break ties by docid as trec_eval does.
"""

import gzip
import subprocess
import sys
from pathlib import Path

import numpy
import pytrec_eval
from pytrec_eval_ext import RelevanceEvaluator as TrecEvalEvaluator

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "trec_eval"
LEVELS = (1, 2)
NOT_PER_TOPIC = {"runid", "num_q", "relstring"}
# Measures with parameters that all_trec leaves at their defaults, each named as trec_eval
# prints it. They are handed to trec_eval's C code as written: pytrec_eval's wrapper sorts a
# measure's parameters as it does cutoffs (and refuses negative ones), which would reorder
# utility's coefficients.
WITH_PARAMETERS = {"utility.3,-1,-2,1": "utility_3,-1,-2,1"}
# trec_eval's options that its quicktest leaves out: (expected output's name, arguments), files
# relative to the fixture. -N is the size of the collection that utility's fourth coefficient
# multiplies; qrels.rel_level has negative grades, which -J drops as unjudged.
OPTION_OUTPUTS = [
    ("out.test.aqJ", ["-J", "-m", "all_trec", "-q", "qrels.test", "results.test"]),
    (
        "out.test.aqlJ",
        ["-J", "-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"],
    ),
    ("out.test.aqcMJ", ["-J", "-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    (
        "out.test.utilityN",
        ["-q", "-N", "100000", "-mutility.2,-1,-0.5,0.001", "qrels.test", "results.test"],
    ),
    (
        "out.test.long_options",
        [
            "--Judged_docs_only",
            "--Number_docs_in_coll=5000",
            "--query_eval_wanted",
            "--measure=all_trec",
            "--measure",
            "utility.1,-1,0,0.25",
            "--level_for_rel",
            "2",
            "--Max_retrieved_per_topic",
            "300",
            "qrels.rel_level",
            "results.test",
        ],
    ),
    (
        "out.test.long_options_cZ",
        [
            "--query_eval_wanted",
            "--nosummary",
            "--complete_rel_info_wanted",
            "--Zscore",
            "zscores_file",
            "--measure",
            "all_trec",
            "qrels.test",
            "results.trunc",
        ],
    ),
]


def lines(path):
    opener = gzip.open if path.read_bytes()[:2] == b"\x1f\x8b" else open
    with opener(path, "rt") as file:
        return [line.split() for line in file if line.strip()]


def read_qrels(path):
    qrels = {}
    for topic, _, doc, grade in lines(path):
        qrels.setdefault(topic, {})[doc] = int(grade)
    return qrels


def read_run(path):
    run = {}
    rows = lines(path)
    for topic, _, doc, _, score, _ in (row[:6] for row in rows):
        run.setdefault(topic, {})[doc] = float(numpy.float32(score))
    return rows[0][5], run


def aggregated(measure, per_topic):
    return pytrec_eval.compute_aggregated_measure(measure, list(per_topic.values()))


def rows_of(qrels, run_paths, with_topics):
    rows = []
    for level in LEVELS:
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}, relevance_level=level)
        for path in run_paths:
            tag, run = read_run(path)
            results = evaluator.evaluate(run)
            measures = sorted(next(iter(results.values())).keys() - NOT_PER_TOPIC)
            for measure in measures:
                per_topic = {topic: values[measure] for topic, values in results.items()}
                if with_topics:
                    for topic, value in sorted(per_topic.items()):
                        rows.append((level, tag, measure, topic, value))
                rows.append((level, tag, measure, "all", aggregated(measure, per_topic)))
    return rows


def parameterised_rows(qrels, run_paths):
    judged = {topic: docs for topic, docs in qrels.items() if docs}
    rows = []
    for level in LEVELS:
        for asked, printed in WITH_PARAMETERS.items():
            measure = asked.split(".")[0]
            evaluator = TrecEvalEvaluator(
                query_relevance=judged,
                measures={asked},
                relevance_level=level,
                judged_docs_only_flag=False,
            )
            for path in run_paths:
                tag, run = read_run(path)
                results = evaluator.evaluate(run)
                per_topic = {topic: values[measure] for topic, values in results.items()}
                for topic, value in sorted(per_topic.items()):
                    rows.append((level, tag, printed, topic, value))
                rows.append((level, tag, printed, "all", aggregated(measure, per_topic)))
    return rows


def write(name, rows):
    OUT.mkdir(parents=True, exist_ok=True)
    text = "level\trun\tmeasure\ttopic\tvalue\n" + "".join(
        f"{level}\t{run}\t{measure}\t{topic}\t{value:.10g}\n"
        for level, run, measure, topic, value in rows
    )
    with open(OUT / f"{name}.tsv.gz", "wb") as out:
        out.write(gzip.compress(text.encode(), mtime=0))


def write_option_outputs(trec_eval, fixture):
    for name, args in OPTION_OUTPUTS:
        output = subprocess.run([trec_eval, *args], cwd=fixture, check=True, capture_output=True)
        (OUT / name).write_bytes(output.stdout)


def main():
    data = Path(sys.argv[1])
    fixture = data / "trec_eval-test-fixture"
    if len(sys.argv) > 2:
        write_option_outputs(Path(sys.argv[2]).resolve(), fixture)
    run = [fixture / "results.test"]
    write("trec_eval-fixture", rows_of(read_qrels(fixture / "qrels.test"), run, True))
    write("trec_eval-fixture-graded", rows_of(read_qrels(fixture / "qrels.rel_level"), run, True))
    write("trec_eval-fixture-parameters", parameterised_rows(read_qrels(fixture / "qrels.test"), run))
    dl19 = data / "trec-dl-2019-2020"
    write(
        "dl19-passage",
        rows_of(
            read_qrels(dl19 / "qrels" / "qrels.dl19-passage.txt"),
            sorted((dl19 / "dl19-passage-runs-partial").iterdir()),
            True,
        ),
    )
    covid = data / "trec-covid"
    write(
        "trec-covid-round1",
        rows_of(
            read_qrels(covid / "qrels" / "qrels.covid-round1.txt"),
            sorted((covid / "round1" / "runs").iterdir()),
            False,
        ),
    )


if __name__ == "__main__":
    main()
