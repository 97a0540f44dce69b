"""reusesim.agree: the embedded task's qrels against a copy with some grades changed. Cohen's
kappa (plain, linear, quadratic, binary) is computed here by hand from the pairs, and the record
is the command line's ``reusesim agree --format json``."""

import json
import subprocess
from collections import Counter

import pandas as pd
import pytest

import reusesim
from conftest import REPO

QRELS = REPO / "qrels" / "synth-passage.qrels"
RUNS = REPO / "runs" / "synth-passage" / "runs"


def read_qrels(path):
    """{(topic, docid): grade}, in file order."""
    grades = {}
    for line in path.read_text().splitlines():
        topic, _, docid, grade = line.split()
        grades[(topic, docid)] = int(grade)
    return grades


@pytest.fixture
def changed_qrels(tmp_path):
    """The embedded qrels with every 7th grade raised by one (capped at 3) and every 11th
    lowered to 0, and the first topic's judgments left out (a topic only A grades)."""
    grades = read_qrels(QRELS)
    first_topic = next(iter(grades))[0]
    lines = []
    for number, ((topic, docid), grade) in enumerate(grades.items()):
        if topic == first_topic:
            continue
        if number % 7 == 0:
            grade = min(grade + 1, 3)
        elif number % 11 == 0:
            grade = 0
        lines.append(f"{topic} 0 {docid} {grade}\n")
    path = tmp_path / "changed.qrels"
    path.write_text("".join(lines))
    return path


def cohen_kappa(pairs, weights=None):
    """Cohen's kappa of (a, b) pairs, as scikit-learn's cohen_kappa_score: the classes are the
    grades either side uses, ascending; weights |i - j| or (i - j)^2 of their positions."""
    classes = sorted({grade for pair in pairs for grade in pair})
    index = {grade: position for position, grade in enumerate(classes)}
    k, n = len(classes), len(pairs)
    observed = [[0.0] * k for _ in range(k)]
    for a, b in pairs:
        observed[index[a]][index[b]] += 1
    rows = [sum(row) for row in observed]
    columns = [sum(observed[i][j] for i in range(k)) for j in range(k)]

    def weight(i, j):
        if weights is None:
            return 0.0 if i == j else 1.0
        return abs(i - j) if weights == "linear" else (i - j) ** 2

    disagreement = sum(weight(i, j) * observed[i][j] for i in range(k) for j in range(k)) / n
    expected = sum(weight(i, j) * rows[i] * columns[j] for i in range(k) for j in range(k)) / n**2
    return 1 - disagreement / expected


def test_agree_gives_cohens_kappa_and_the_counts(changed_qrels):
    record = reusesim.agree(QRELS, changed_qrels)
    a, b = read_qrels(QRELS), read_qrels(changed_qrels)
    common = [key for key in a if key in b]
    pairs = [(a[key], b[key]) for key in common]
    grades = record["grades"]
    assert grades["pairs"] == len(pairs)
    assert record["only_a"] == len(a) - len(pairs)
    assert record["only_b"] == 0
    assert grades["grades"] == sorted({grade for pair in pairs for grade in pair})
    assert Counter(pairs)[(0, 0)] == grades["table"][0][0]
    assert grades["kappa"] == pytest.approx(cohen_kappa(pairs), abs=1e-12)
    assert grades["kappa_linear"] == pytest.approx(cohen_kappa(pairs, "linear"), abs=1e-12)
    assert grades["kappa_quadratic"] == pytest.approx(cohen_kappa(pairs, "quadratic"), abs=1e-12)
    binary = [(int(x >= 1), int(y >= 1)) for x, y in pairs]
    assert grades["binary_kappa"] == pytest.approx(cohen_kappa(binary), abs=1e-12)
    # A stricter relevance level moves the binary kappa only.
    strict = reusesim.agree(QRELS, changed_qrels, relevance_level=2)["grades"]
    binary = [(int(x >= 2), int(y >= 2)) for x, y in pairs]
    assert strict["binary_kappa"] == pytest.approx(cohen_kappa(binary), abs=1e-12)
    assert strict["kappa"] == grades["kappa"]
    assert record["leaderboard"] is None
    assert record["qrels_a"] == str(QRELS)


def test_agree_is_the_command_lines_record(changed_qrels, cli):
    options = ["-m", "map", "-m", "P_10", "--test", "randomization", "--permutations", "200"]
    shown = subprocess.run(
        [cli, "agree", *options, "--format", "json", str(QRELS), str(changed_qrels), str(RUNS)],
        check=True,
        capture_output=True,
        text=True,
    )
    record = reusesim.agree(
        str(QRELS),
        str(changed_qrels),
        RUNS,
        measures=["map", "P_10"],
        test="randomization",
        permutations=200,
    )
    assert record == json.loads(shown.stdout)
    leaderboard = record["leaderboard"]
    assert [measure["measure"] for measure in leaderboard["measures"]] == ["map", "P_10"]
    assert leaderboard["measures"][0]["tau_b"] > 0.5


def test_agree_on_frames_and_bad_options(changed_qrels):
    frame = pd.DataFrame(
        [(topic, docid, grade) for (topic, docid), grade in read_qrels(QRELS).items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    record = reusesim.agree(frame, changed_qrels)
    assert (record["qrels_a"], record["qrels_b"]) == ("A", str(changed_qrels))
    assert record["grades"] == reusesim.agree(QRELS, changed_qrels)["grades"]
    with pytest.raises(ValueError, match="alpha"):
        reusesim.agree(QRELS, changed_qrels, alpha=1.5)
    with pytest.raises(ValueError, match="grade no .* pair in common"):
        reusesim.agree(QRELS, {"nowhere": {"nothing": 1}})
