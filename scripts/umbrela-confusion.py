#!/usr/bin/env python3
"""Counts UMBRELA's GPT-4 grades against NIST's on TREC DL 2019, 2020 and 2021 (passages), the
default confusion table of `reusesim synth`'s labeller (docs/synth.md, "The labeller").

Usage: umbrela-confusion.py LABELS_DIR DL19_20_QRELS_DIR DL21_QRELS

  LABELS_DIR          umbrela-gpt4.dl{19,20,21}-passage.qrels (UMBRELA's grades, qrels form)
  DL19_20_QRELS_DIR   qrels.dl19-passage.txt and qrels.dl20-passage.txt (NIST's)
  DL21_QRELS          qrels.dl21-passage.txt (NIST's)

e.g. umbrela-confusion.py /work/dl21/labels /work/shared/data/trec-dl-2019-2020/qrels \
         /work/dl21/qrels.dl21-passage.txt

For every (topic, passage) both files grade, it counts NIST's grade (row) against UMBRELA's
(column), pooled over the three years, and prints the counts per year, the pooled table's row
shares, and the pooled counts as the Rust constant of src/synth/labels.rs. A pair graded twice
in one file, or a grade outside 0..3, stops the script.
"""
import sys

GRADES = range(4)


def read_qrels(path):
    grades = {}
    with open(path) as handle:
        for line_number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 4:
                sys.exit(f"{path}:{line_number}: expected 4 columns, found {len(fields)}")
            topic, _, doc, grade = fields
            grade = int(grade)
            if grade not in GRADES:
                sys.exit(f"{path}:{line_number}: expected a grade 0..3, found {grade}")
            key = (topic, doc)
            if key in grades and grades[key] != grade:
                sys.exit(f"{path}:{line_number}: {key} graded twice")
            grades[key] = grade
    return grades


def count(nist, umbrela):
    table = [[0] * 4 for _ in GRADES]
    for key, truth in nist.items():
        if key in umbrela:
            table[truth][umbrela[key]] += 1
    return table


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    labels, dl1920, dl21 = sys.argv[1:]
    years = {
        "dl19": f"{dl1920}/qrels.dl19-passage.txt",
        "dl20": f"{dl1920}/qrels.dl20-passage.txt",
        "dl21": dl21,
    }
    pooled = [[0] * 4 for _ in GRADES]
    for year, nist_path in years.items():
        nist = read_qrels(nist_path)
        umbrela = read_qrels(f"{labels}/umbrela-gpt4.{year}-passage.qrels")
        table = count(nist, umbrela)
        both = sum(map(sum, table))
        print(f"# {year}: {both} pairs graded by both ({len(nist)} NIST, {len(umbrela)} UMBRELA)")
        for truth in GRADES:
            print(f"#   NIST {truth}: " + " ".join(f"{n:6d}" for n in table[truth]))
            for label in GRADES:
                pooled[truth][label] += table[truth][label]
    print("# pooled row shares, P(UMBRELA grade | NIST grade):")
    for truth in GRADES:
        total = sum(pooled[truth])
        print(f"#   NIST {truth} ({total:5d}): " + " ".join(f"{n / total:.4f}" for n in pooled[truth]))
    print("pub const UMBRELA_GPT4_COUNTS: [[u32; 4]; 4] = [")
    for truth in GRADES:
        print("    [" + ", ".join(str(n) for n in pooled[truth]) + "],")
    print("];")


if __name__ == "__main__":
    main()
