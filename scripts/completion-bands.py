#!/usr/bin/env python3
"""Compares a completed world with a later, fuller judging of the same topics, by rank band
(docs/assessor.md, "How close the completion comes").

Usage: completion-bands.py [--truth] [--by-judged-share] RUNS_DIR OFFICIAL_QRELS LATER_QRELS
                           COMPLETED_QRELS...

RUNS_DIR holds the task's run files (TREC format, gzipped or not); OFFICIAL_QRELS the qrels the completion
started from; LATER_QRELS the fuller judgments (only the official qrels' topics are read);
with `--truth` (a synthetic task's truth file, which lists only part of the non-relevant
documents) a document it lacks counts as graded 0. Each COMPLETED_QRELS is one seed's `reusesim complete --seed S --out FILE`. Every document that
a run retrieved and the official qrels never judged falls in the band of its best rank in any
run (ranks as trec_eval orders a run: score descending, then docid descending). Per band it
prints the number of such documents, how many the later judging graded, their observed rate of
relevance (grade > 0), and the completed worlds' mean rate of relevance over the same
documents and over every document of the band.

With `--by-judged-share` the bands are split by the topic's judged relevant share (its
relevant documents over its judged ones in OFFICIAL_QRELS: below 0.2, 0.2 to 0.4, 0.4 to 0.6,
0.6 and above), and a last line gives, over the topics, the root mean square of
ln((drawn + 1) / (relevant + 1)), each topic's mean drawn relevant count against the later
judging's relevant count among its graded never-judged documents.
"""
import collections
import gzip
import math
import os
import sys

BANDS = [(1, 10), (11, 20), (21, 50), (51, 100), (101, 200), (201, 500), (501, 1000)]
JUDGED_SHARES = [(0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 1.01)]


def read_qrels(path, topics=None):
    grades = {}
    with open(path) as handle:
        for line in handle:
            fields = line.split()
            if len(fields) != 4 or (topics is not None and fields[0] not in topics):
                continue
            grades[(fields[0], fields[2])] = int(fields[3])
    return grades


def best_ranks(runs_dir, topics):
    best = {}
    for name in sorted(os.listdir(runs_dir)):
        by_topic = collections.defaultdict(list)
        path = os.path.join(runs_dir, name)
        with (gzip.open if name.endswith(".gz") else open)(path, "rt") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) == 6 and fields[0] in topics:
                    by_topic[fields[0]].append((float(fields[4]), fields[2]))
        for topic, docs in by_topic.items():
            docs.sort(key=lambda item: (-item[0], tuple(-ord(c) for c in item[1])))
            for rank, (_, doc) in enumerate(docs, start=1):
                key = (topic, doc)
                if rank < best.get(key, 1 << 30):
                    best[key] = rank
    return best


def band_of(rank):
    return next(((low, high) for low, high in BANDS if low <= rank <= high), None)


def judged_share_groups(official):
    """Each topic's group of JUDGED_SHARES, by its judged relevant share."""
    judged, relevant = collections.Counter(), collections.Counter()
    for (topic, _), grade in official.items():
        judged[topic] += 1
        relevant[topic] += grade > 0
    return {
        topic: next(g for g in JUDGED_SHARES if g[0] <= relevant[topic] / judged[topic] < g[1])
        for topic in judged
    }


def main(runs_dir, official_path, later_path, completed_paths, later_is_truth, by_share):
    official = read_qrels(official_path)
    topics = {topic for topic, _ in official}
    later = read_qrels(later_path, topics)
    completed = [read_qrels(path, topics) for path in completed_paths]
    groups = judged_share_groups(official) if by_share else {}
    rows = collections.defaultdict(lambda: [0, 0, 0, 0.0, 0.0])
    per_topic = collections.defaultdict(lambda: [0, 0.0])
    for key, rank in best_ranks(runs_dir, topics).items():
        band = band_of(rank)
        if key in official or band is None:
            continue
        drawn = sum(world.get(key, 0) > 0 for world in completed) / len(completed)
        row = rows[(groups.get(key[0]), band)]
        row[0] += 1
        row[4] += drawn
        if key in later or later_is_truth:
            row[1] += 1
            row[2] += later.get(key, 0) > 0
            row[3] += drawn
            per_topic[key[0]][0] += later.get(key, 0) > 0
            per_topic[key[0]][1] += drawn
    print(("judged share\t" if by_share else "") + "best rank\tnever judged\tlater graded"
          "\tobserved rate\tcompleted rate (graded)\tcompleted rate (all)")
    for group in (JUDGED_SHARES if by_share else [None]):
        for band in BANDS:
            documents, graded, relevant, drawn_graded, drawn_all = rows[(group, band)]
            if documents:
                share = max(graded, 1)
                label = f"{group[0]:.1f}-{min(group[1], 1.0):.1f}\t" if by_share else ""
                print(f"{label}{band[0]}-{band[1]}\t{documents}\t{graded}\t{relevant / share:.3f}"
                      f"\t{drawn_graded / share:.3f}\t{drawn_all / documents:.4f}")
    if by_share and per_topic:
        logs = [math.log((drawn + 1) / (relevant + 1)) for relevant, drawn in per_topic.values()]
        rms = math.sqrt(sum(x * x for x in logs) / len(logs))
        print(f"per-topic rms ln((drawn + 1) / (relevant + 1)) over {len(logs)} topics: {rms:.3f}"
              f" (drawn / relevant from {math.exp(min(logs)):.2f} to {math.exp(max(logs)):.2f})")


if __name__ == "__main__":
    flags = {"--truth", "--by-judged-share"}
    options = set(sys.argv[1:3]) & flags
    arguments = sys.argv[1 + len(options):]
    if len(arguments) < 4 or any(a in flags for a in arguments):
        sys.exit(__doc__)
    main(arguments[0], arguments[1], arguments[2], arguments[3:], "--truth" in options,
         "--by-judged-share" in options)
