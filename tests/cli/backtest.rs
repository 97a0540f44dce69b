//! `reusesim backtest`: the truth, the collection's score and the summary recomputed here from
//! the task's files with an independent reading of the rules, and bad input.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::util::{read_qrels_map, run, run_ok, stdout_of};

type QrelsMap = BTreeMap<String, BTreeMap<String, i32>>;

pub(crate) fn embedded(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// The rows of a TSV file as column → value maps.
pub(crate) fn read_tsv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .map(|line| {
            header
                .iter()
                .zip(line.split('\t'))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// run tag → topic → docids, every run of the embedded task, in file order of the ranks.
fn read_runs(dir: &Path) -> BTreeMap<String, BTreeMap<String, Vec<String>>> {
    let mut runs = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let mut scored: BTreeMap<String, Vec<(f32, String)>> = BTreeMap::new();
        let mut tag = String::new();
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            tag = fields[5].to_string();
            scored
                .entry(fields[0].to_string())
                .or_default()
                .push((fields[4].parse().unwrap(), fields[2].to_string()));
        }
        let ranked = scored
            .into_iter()
            .map(|(topic, mut docs)| {
                // trec_eval's order: score descending, docid descending.
                docs.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
                (topic, docs.into_iter().map(|(_, d)| d).collect())
            })
            .collect();
        runs.insert(tag, ranked);
    }
    runs
}

fn write_qrels(path: &Path, qrels: &QrelsMap) {
    let text: String = qrels
        .iter()
        .flat_map(|(t, docs)| docs.iter().map(move |(d, g)| format!("{t} 0 {d} {g}\n")))
        .collect();
    std::fs::write(path, text).unwrap();
}

/// MAP of every run on `qrels`, by `reusesim eval` (itself checked against trec_eval).
fn maps(qrels: &Path, runs_dir: &Path) -> BTreeMap<String, f64> {
    let out = stdout_of([
        "eval",
        "-m",
        "map",
        "--format",
        "json",
        qrels.to_str().unwrap(),
        runs_dir.to_str().unwrap(),
    ]);
    let scores: serde_json::Value = serde_json::from_str(&out).unwrap();
    scores
        .as_object()
        .unwrap()
        .iter()
        .map(|(run, values)| (run.clone(), values["map"]["all"].as_f64().unwrap()))
        .collect()
}

/// The rank of `run` among all runs of `scores` (1 = best; ties share the average rank).
fn rank_of(scores: &BTreeMap<String, f64>, run: &str) -> f64 {
    let own = scores[run];
    let others = scores
        .iter()
        .filter(|(r, _)| r.as_str() != run)
        .map(|(_, &s)| s);
    let (better, tied) = others.fold((0, 0), |(b, t), s| {
        (b + usize::from(s > own), t + usize::from(s == own))
    });
    1.0 + better as f64 + tied as f64 / 2.0
}

/// The embedded task's run → team.
fn embedded_teams() -> BTreeMap<String, String> {
    std::fs::read_to_string(embedded("runs/synth-passage/teams.tsv"))
        .unwrap()
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            (fields[0].to_string(), fields[1].to_string())
        })
        .collect()
}

/// The classic world without `team`: the official qrels less the judged documents that a run
/// of the team retrieved, at any depth, and no run of another team retrieved.
fn classic_world(
    official: &QrelsMap,
    runs: &BTreeMap<String, BTreeMap<String, Vec<String>>>,
    teams: &BTreeMap<String, String>,
    team: &str,
) -> QrelsMap {
    let mut world = official.clone();
    for (topic, judged) in world.iter_mut() {
        let retrieved_by = |own: bool| -> BTreeSet<&String> {
            runs.iter()
                .filter(|(run, _)| (teams[*run] == team) == own)
                .filter_map(|(_, topics)| topics.get(topic))
                .flatten()
                .collect()
        };
        let (ours, theirs) = (retrieved_by(true), retrieved_by(false));
        judged.retain(|doc, _| !ours.contains(doc) || theirs.contains(doc));
    }
    world
}

/// The embedded task's backtest in the classic world without `team`, on `measure`, written to
/// `out`.
fn classic_backtest(team: &str, measure: &str, out: &Path) {
    let task = embedded("runs/synth-passage/task.toml");
    run_ok([
        "backtest",
        "--task",
        task.to_str().unwrap(),
        "--teams",
        team,
        "--measures",
        measure,
        "--format",
        "svg",
        "--out",
        out.to_str().unwrap(),
    ]);
}

#[test]
fn the_classic_world_truth_and_collection_scores_match_an_independent_reading() {
    let runs_dir = embedded("runs/synth-passage/runs");
    let official = read_qrels_map(&embedded("qrels/synth-passage.qrels"));
    let teams = embedded_teams();
    let team = "team03";
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("backtest");
    classic_backtest(team, "map", &out);
    let rows = read_tsv(&out.join("backtest.tsv"));
    let runs = read_runs(&runs_dir);
    let team_runs: BTreeSet<&String> = teams
        .iter()
        .filter(|(_, t)| *t == team)
        .map(|(r, _)| r)
        .collect();
    assert_eq!(
        rows.len(),
        team_runs.len(),
        "one row per run of the team and measure"
    );
    let world = classic_world(&official, &runs, &teams, team);
    let world_path = dir.path().join("world.qrels");
    write_qrels(&world_path, &world);
    let collection = maps(&world_path, &runs_dir);
    for row in &rows {
        let run = &row["run"];
        assert!(team_runs.contains(run), "{run} is a run of {team}");
        // The truth: the world completed with the official grade of every document of the
        // run's top 100 (0 for one the official qrels lack), every run scored on it.
        let mut completed = world.clone();
        for (topic, docs) in &runs[run] {
            for doc in docs.iter().take(100) {
                let grade = official
                    .get(topic)
                    .and_then(|t| t.get(doc))
                    .copied()
                    .unwrap_or(0);
                completed
                    .entry(topic.clone())
                    .or_default()
                    .entry(doc.clone())
                    .or_insert(grade);
            }
        }
        let completed_path = dir.path().join(format!("{run}.qrels"));
        write_qrels(&completed_path, &completed);
        let truth = maps(&completed_path, &runs_dir);
        let value = |column: &str| row[column].parse::<f64>().unwrap();
        assert!(
            (value("true_score") - truth[run.as_str()]).abs() < 1e-6,
            "{row:?}"
        );
        assert_eq!(value("true_rank"), rank_of(&truth, run), "{row:?}");
        assert!(
            (value("collection_score") - collection[run.as_str()]).abs() < 1e-6,
            "{row:?}"
        );
        assert_eq!(
            value("collection_rank"),
            rank_of(&collection, run),
            "{row:?}"
        );
        // The expected score lies in the audit's interval; the list is empty exactly when the
        // verdict asks for nothing.
        let (low, high) = (value("collection_score"), value("upper"));
        let expected = value("expected_score");
        assert!(
            expected >= low.min(high) - 1e-9 && expected <= low.max(high) + 1e-9,
            "{row:?}"
        );
        assert_eq!(
            row["needs_judging"] == "true",
            value("list_size") > 0.0,
            "{row:?}"
        );
    }
    // The summary agrees with the rows.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("backtest.json")).unwrap()).unwrap();
    assert_eq!(
        summary["evidence"], "pool",
        "the classic world calibrates on the pool"
    );
    let map = &summary["measures"][0];
    assert_eq!(map["measure"], "map");
    let mae = |column: &str| {
        rows.iter()
            .map(|r| {
                (r[column].parse::<f64>().unwrap() - r["true_score"].parse::<f64>().unwrap()).abs()
            })
            .sum::<f64>()
            / rows.len() as f64
    };
    for (estimator, column) in [
        ("collection", "collection_score"),
        ("expected", "expected_score"),
        ("webber_park", "webber_park_score"),
    ] {
        let reported = map["errors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["estimator"] == estimator)
            .unwrap()["mae"]
            .as_f64()
            .unwrap();
        assert!(
            (reported - mae(column)).abs() < 1e-6,
            "{estimator}: {reported} vs {}",
            mae(column)
        );
    }
    assert!(out.join("backtest_map.svg").is_file());
    assert!(out.join("backtest_verdict_map.svg").is_file());
    let claims = baseline_count(&collection, &teams, &team_runs, team);
    check_claims_block(&summary["claims"], claims);
}

/// How many baselines the runs `team_runs` of `team` have, by the documented rule read from
/// the scores `collection`: the best pooled run of another team, and those directly above and
/// below the run, each once.
fn baseline_count(
    collection: &BTreeMap<String, f64>,
    teams: &BTreeMap<String, String>,
    team_runs: &BTreeSet<&String>,
    team: &str,
) -> usize {
    let pooled: BTreeSet<String> =
        std::fs::read_to_string(embedded("runs/synth-passage/teams.tsv"))
            .unwrap()
            .lines()
            .filter(|line| line.ends_with("\tyes"))
            .map(|line| line.split('\t').next().unwrap().to_string())
            .collect();
    let candidates: Vec<f64> = (collection.iter())
        .filter(|(run, _)| pooled.contains(*run) && teams[*run] != team)
        .map(|(_, &score)| score)
        .collect();
    let mut count = 0;
    for run in team_runs {
        let own = collection[run.as_str()];
        let best = candidates.iter().copied().fold(f64::MIN, f64::max);
        let above = (candidates.iter().copied())
            .filter(|&s| s >= own)
            .fold(None, |low: Option<f64>, s| {
                Some(low.map_or(s, |l| l.min(s)))
            });
        let below = candidates
            .iter()
            .copied()
            .filter(|&s| s < own)
            .fold(None, |high: Option<f64>, s| {
                Some(high.map_or(s, |h| h.max(s)))
            });
        // The run above is the best when no other candidate lies between.
        count += 1 + usize::from(above.is_some_and(|a| a < best)) + usize::from(below.is_some());
    }
    count
}

/// The cases a verdict's confusion counts: its four cells summed.
fn confusion_total(verdict: &serde_json::Value) -> u64 {
    [
        "true_positives",
        "false_positives",
        "false_negatives",
        "true_negatives",
    ]
    .iter()
    .map(|field| verdict[field].as_u64().unwrap())
    .sum()
}

/// The backtest's claims block of one measure's backtest with `claims` claims: the measure's
/// entry and `all` agree, each predictor's probabilities give a Brier score in [0, 1] and its
/// counts sum to the claims, and the verdict's confusion covers every claim.
fn check_claims_block(block: &serde_json::Value, claims: usize) {
    let block = block.as_array().unwrap();
    assert_eq!(
        block
            .iter()
            .map(|m| m["measure"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["map", "all"]
    );
    assert_eq!(
        block[0]["claims"], claims,
        "every run against each of its baselines"
    );
    for (field, value) in block[0].as_object().unwrap() {
        if field != "measure" && field != "predictors" {
            assert_eq!(&block[1][field], value, "map's {field} is all's");
        }
    }
    let map = &block[0];
    let count = |value: &serde_json::Value| value.as_u64().unwrap() as usize;
    assert!(count(&map["truth_differs"]) <= claims && count(&map["significant"]) <= claims);
    let predictors = map["predictors"].as_array().unwrap();
    assert_eq!(
        predictors
            .iter()
            .map(|p| p["predictor"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["collection", "condensed", "audit"]
    );
    for predictor in predictors {
        assert_eq!(count(&predictor["claims"]), claims, "{predictor}");
        let brier = predictor["brier"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&brier), "{predictor}");
        let outcomes: usize = ["confirmed", "lost", "reversed", "gained", "neither"]
            .iter()
            .map(|field| count(&predictor[field]))
            .sum();
        assert_eq!(outcomes, claims, "{predictor}");
    }
    let collection = &predictors[0];
    assert_eq!(
        count(&collection["confirmed"])
            + count(&collection["lost"])
            + count(&collection["reversed"]),
        count(&map["significant"]),
        "the collection calls significant what its test finds significant"
    );
    let audit = &map["audit"];
    let verdict = &audit["verdict"];
    assert_eq!(confusion_total(verdict), claims as u64);
    assert_eq!(
        count(&verdict["true_positives"]) + count(&verdict["false_negatives"]),
        count(&map["truth_differs"])
    );
    let agree = audit["agree_after_list"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&agree), "{map}");
    assert!(count(&audit["cannot_settle"]) <= claims, "{map}");
    assert!(
        map.get("restricted").is_none(),
        "only the deeper world restricts: {map}"
    );
}

#[test]
fn the_upper_end_of_rbps_residual_interval_is_rbp_with_every_unjudged_rank_relevant() {
    let runs = read_runs(&embedded("runs/synth-passage/runs"));
    let teams = embedded_teams();
    let team = "team03";
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("backtest");
    classic_backtest(team, "RBP(p=0.95)@100", &out);
    let world = classic_world(
        &read_qrels_map(&embedded("qrels/synth-passage.qrels")),
        &runs,
        &teams,
        team,
    );
    // Per topic of the run, each of its first 100 ranks weighs 0.05 × 0.95^(rank - 1), counted
    // unless the world judges its document non-relevant (grade 0 at relevance level 1); ranks
    // the run leaves empty before 100 count as well (0.95^length - 0.95^100). The mean over
    // the run's topics.
    let upper = |run: &str| -> f64 {
        let per_topic: Vec<f64> = runs[run]
            .iter()
            .map(|(topic, docs)| {
                let judged = world.get(topic);
                let top = &docs[..docs.len().min(100)];
                let counted: f64 = (top.iter().enumerate())
                    .filter(|(_, doc)| judged.and_then(|j| j.get(*doc)) != Some(&0))
                    .map(|(index, _)| 0.05 * 0.95_f64.powi(index as i32))
                    .sum();
                counted + 0.95_f64.powi(top.len() as i32) - 0.95_f64.powi(100)
            })
            .collect();
        per_topic.iter().sum::<f64>() / per_topic.len() as f64
    };
    let rows = read_tsv(&out.join("backtest.tsv"));
    assert!(!rows.is_empty());
    let mut widths = Vec::new();
    for row in &rows {
        let reported: f64 = row["rbp_residual_upper"].parse().unwrap();
        let expected = upper(&row["run"]);
        assert!(
            (reported - expected).abs() < 1e-9,
            "{}: {reported}, by hand {expected}",
            row["run"]
        );
        widths.push(reported - row["collection_score"].parse::<f64>().unwrap());
    }
    assert!(widths.iter().any(|&width| width > 0.01), "{widths:?}");
}

#[test]
fn a_simulated_world_without_its_trial_qrels_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let task = embedded("runs/synth-passage/task.toml");
    let output = run([
        "backtest",
        "--task",
        task.to_str().unwrap(),
        "--world",
        "simulated",
        "--results",
        dir.path().to_str().unwrap(),
        "--teams",
        "team03",
        "--out",
        dir.path().join("out").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("team03-s1.qrels"), "{stderr}");
    assert!(!dir.path().join("out").join("backtest.json").exists());
}

#[test]
fn a_calibration_on_trials_in_the_classic_world_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let task = embedded("runs/synth-passage/task.toml");
    let output = run([
        "backtest",
        "--task",
        task.to_str().unwrap(),
        "--evidence",
        "trials",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("expected the simulated world for a calibration on trials"),
        "{stderr}"
    );
    assert!(!dir.path().join("backtest.json").exists());
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_covid_classic_truths_equal_nists_precision_at_5() {
    let data = crate::util::covid_round1();
    let dir = tempfile::tempdir().unwrap();
    let task =
        crate::util::write_covid_task(dir.path(), &data.runs, &data.qrels, &data.leaderboard);
    let out = dir.path().join("backtest");
    let teams = ["GUIR_S2", "sabir", "BBGhelani", "xj4wang"];
    run_ok([
        "backtest",
        "--task",
        task.to_str().unwrap(),
        "--teams",
        &teams.join(","),
        "--measures",
        "P_5",
        "--format",
        "png",
        "--out",
        out.to_str().unwrap(),
    ]);
    // NIST's own P@5 of every run (the leaderboard, 4 decimals): completing the classic world
    // with the official grades of a run's top 100 restores exactly its official top 5.
    let text = std::fs::read_to_string(&data.leaderboard).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (run_column, team_column, p5_column) = (column("run"), column("team"), column("p@5"));
    let nist: BTreeMap<String, (String, f64)> = lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            (
                fields[run_column].to_string(),
                (
                    fields[team_column].to_string(),
                    fields[p5_column].parse().unwrap(),
                ),
            )
        })
        .collect();
    let rows = read_tsv(&out.join("backtest.tsv"));
    let expected_runs = nist
        .values()
        .filter(|(team, _)| teams.contains(&team.as_str()))
        .count();
    assert_eq!(
        rows.len(),
        expected_runs,
        "one row per run of the teams left out"
    );
    let value = |row: &BTreeMap<String, String>, column: &str| row[column].parse::<f64>().unwrap();
    for row in &rows {
        let (team, p5) = &nist[&row["run"]];
        assert_eq!(team, &row["team"]);
        assert!(
            (value(row, "true_score") - p5).abs() < 6e-5,
            "{row:?} vs NIST {p5}"
        );
        assert!(
            value(row, "collection_score") <= value(row, "true_score") + 1e-9,
            "{row:?}"
        );
        assert_eq!(
            row["needs_judging"] == "true",
            value(row, "list_size") > 0.0,
            "{row:?}"
        );
    }
    // On a collection this deeply judged, the audit adds almost nothing to the collection's
    // own score: its error stays within a thousandth of the collection's.
    let mae = |column: &str| {
        rows.iter()
            .map(|r| (value(r, column) - value(r, "true_score")).abs())
            .sum::<f64>()
            / rows.len() as f64
    };
    assert!(mae("expected_score") <= mae("collection_score") + 1e-3);
    assert!(out.join("backtest_P_5.png").is_file());
}

/// A task built so that its deeper truth is known: pooled runs a1, b1 and c1 (pool depth 2),
/// and two runs that were not pooled, a2 (team A) and b2 (team B). Each of a2 and b2 starts
/// with two pooled documents and continues with eight documents no pooled run retrieved; the
/// deeper qrels judge a2's eight relevant and b2's eight non-relevant. Returns the task, the
/// deeper qrels and the runs folder.
fn write_deeper_task(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let runs_dir = dir.join("runs");
    std::fs::create_dir_all(&runs_dir).unwrap();
    let topics = ["1", "2", "3"];
    let mut runs: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    runs.insert(
        "a1",
        ["r1", "r2", "n1", "r3", "n2"].map(String::from).to_vec(),
    );
    runs.insert(
        "b1",
        ["r2", "r3", "r1", "n3", "n1"].map(String::from).to_vec(),
    );
    runs.insert(
        "c1",
        ["r3", "n1", "r2", "n2", "n3"].map(String::from).to_vec(),
    );
    fn tail(prefix: &'static str) -> impl Iterator<Item = String> {
        (1..=8).map(move |i| format!("{prefix}{i}"))
    }
    runs.insert(
        "a2",
        ["r1", "n1"]
            .map(String::from)
            .into_iter()
            .chain(tail("ax"))
            .collect(),
    );
    runs.insert(
        "b2",
        ["r2", "n2"]
            .map(String::from)
            .into_iter()
            .chain(tail("bx"))
            .collect(),
    );
    for (tag, docs) in &runs {
        let text: String = topics
            .iter()
            .flat_map(|topic| {
                docs.iter().enumerate().map(move |(pos, doc)| {
                    format!("{topic} Q0 {doc} {} {} {tag}\n", pos + 1, 100 - pos)
                })
            })
            .collect();
        std::fs::write(runs_dir.join(tag), text).unwrap();
    }
    // The official pool: the top 2 of a1, b1 and c1, plus deeper judgments of their tops
    // so that the judged documents are not all relevant.
    let official: String = topics
        .iter()
        .flat_map(|topic| {
            [
                ("r1", 1),
                ("r2", 2),
                ("r3", 1),
                ("n1", 0),
                ("n2", 0),
                ("n3", 0),
            ]
            .map(|(doc, grade)| format!("{topic} 0 {doc} {grade}\n"))
        })
        .collect();
    std::fs::write(dir.join("qrels"), official).unwrap();
    let deeper: String = topics
        .iter()
        .flat_map(|topic| {
            tail("ax")
                .map(move |doc| format!("{topic} 0 {doc} 1\n"))
                .chain(tail("bx").map(move |doc| format!("{topic} 0 {doc} 0\n")))
        })
        .collect();
    let deeper_path = dir.join("deeper.qrels");
    std::fs::write(&deeper_path, deeper).unwrap();
    std::fs::write(
        dir.join("teams.tsv"),
        "a1\tA\na2\tA\tno\nb1\tB\nb2\tB\tno\nc1\tC\n",
    )
    .unwrap();
    let task = dir.join("task.toml");
    std::fs::write(
        &task,
        "name = \"deeper\"\nruns = \"runs\"\nteams = \"teams.tsv\"\nqrels = \"qrels\"\n\
         pool_depth = 2\n",
    )
    .unwrap();
    (task, deeper_path, runs_dir)
}

#[test]
fn the_deeper_world_tells_apart_what_the_classic_world_cannot() {
    let dir = tempfile::tempdir().unwrap();
    let (task, deeper, _) = write_deeper_task(dir.path());
    let backtest = |world: &str, extra: &[&str]| {
        let out = dir.path().join(world);
        let mut args = vec![
            "backtest",
            "--task",
            task.to_str().unwrap(),
            "--world",
            world,
            "--measures",
            "map,P_10",
            "--format",
            "png",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        run_ok(args);
        let rows = read_tsv(&out.join("backtest.tsv"));
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("backtest.json")).unwrap())
                .unwrap();
        (rows, summary)
    };
    let value = |row: &BTreeMap<String, String>, column: &str| row[column].parse::<f64>().unwrap();
    let gain = |rows: &[BTreeMap<String, String>], run: &str, measure: &str| {
        let row = rows
            .iter()
            .find(|r| r["run"] == run && r["measure"] == measure)
            .unwrap_or_else(|| panic!("no row of {run} {measure}"));
        value(row, "true_score") - value(row, "collection_score")
    };
    // Deeper: the unpooled runs are audited by default; a2's documents below the pool are
    // relevant and b2's are not, so only a2's truth rises (P@10 by 8 of 10 documents).
    // A low risk threshold, so that a2 (P(rank moves) about 0.2) is given a list, and room
    // in it for a topic's 8 documents below the pool in its top 10, without which judging
    // cannot settle its P@10.
    let (rows, summary) = backtest(
        "deeper",
        &[
            "--truth-qrels",
            deeper.to_str().unwrap(),
            "--risk-threshold",
            "0.1",
            "--settle-threshold",
            "0.05",
            "--list-per-topic",
            "8",
        ],
    );
    let audited: BTreeSet<&str> = rows.iter().map(|r| r["run"].as_str()).collect();
    assert_eq!(audited, BTreeSet::from(["a2", "b2"]));
    assert!((gain(&rows, "a2", "P_10") - 0.8).abs() < 1e-9);
    assert!(gain(&rows, "a2", "map") > 0.1);
    for measure in ["map", "P_10"] {
        assert_eq!(gain(&rows, "b2", measure), 0.0);
    }
    // The oracle's list, as long per topic as the audit's, takes a2's relevant documents
    // below the pool (ranks 3 to 10), each adding a tenth to its topic's P@10, and finds
    // nothing relevant for b2; the rows count the relevant documents listed and unjudged.
    for row in rows.iter().filter(|r| r["measure"] == "P_10") {
        let rise = value(row, "oracle_judged_score") - value(row, "collection_score");
        let expected = if row["run"] == "a2" {
            assert!(value(row, "list_size") > 0.0, "a2 is given a list: {row:?}");
            value(row, "list_size") / (10.0 * 3.0)
        } else {
            0.0
        };
        assert!((rise - expected).abs() < 1e-9, "{row:?}");
        assert!(value(row, "oracle_judged_score") >= value(row, "judged_score") - 1e-12);
        let relevant = if row["run"] == "a2" { 24.0 } else { 0.0 };
        assert_eq!(value(row, "unjudged_relevant"), relevant, "{row:?}");
        assert!(value(row, "list_relevant") <= value(row, "list_size").min(relevant));
    }
    for row in &rows {
        assert_eq!(value(row, "truth_coverage"), 1.0, "{row:?}");
        // The audit extrapolates beyond the pool: its documents below depth 2 are there.
        assert!(value(row, "expected_extrapolated") >= 0.0, "{row:?}");
    }
    assert_eq!(summary["world"], "deeper");
    assert_eq!(summary["truth_coverage"], 1.0);
    let longest = rows
        .iter()
        .map(|r| value(r, "list_size"))
        .fold(0.0, f64::max);
    check_list_curves(&summary, longest);
    // The restricted audit's verdict is scored against every audited run, on each measure.
    for measure in summary["measures"].as_array().unwrap() {
        let verdict = &measure["truth_judged_verdict_moves_2"];
        assert_eq!(confusion_total(verdict), 2, "{measure}");
    }
    // The restricted audit predicts every claim the audit does, with a verdict on each.
    for measure in summary["claims"].as_array().unwrap() {
        let predictor = |name: &str| {
            (measure["predictors"].as_array().unwrap().iter())
                .find(|p| p["predictor"] == name)
                .unwrap_or_else(|| panic!("no {name} predictor: {measure}"))
                .clone()
        };
        let (audit, restricted) = (predictor("audit"), predictor("restricted audit"));
        assert_eq!(restricted["claims"], audit["claims"], "{measure}");
        assert!((0.0..=1.0).contains(&restricted["brier"].as_f64().unwrap()));
        let verdict = &measure["restricted"]["verdict"];
        assert_eq!(
            Some(confusion_total(verdict)),
            audit["claims"].as_u64(),
            "{measure}"
        );
    }
    // The page: one self-contained file with the summary's table.
    let page = std::fs::read_to_string(dir.path().join("deeper").join("backtest.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..40]);
    assert!(page.contains("Backtest of the audit on deeper (deeper world)"));
    assert!(
        page.contains("<td>P_10</td>") || page.contains(">P_10<"),
        "no P_10 row"
    );
    assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
    // Classic: every run of teams A and B, whose truth is the official grades; a2's and b2's
    // documents below the pool were never judged, so neither truth moves.
    let (rows, summary) = backtest("classic", &["--teams", "A,B"]);
    assert!(summary["measures"][0]["truth_judged_verdict_moves_2"].is_null());
    let audited: BTreeSet<&str> = rows.iter().map(|r| r["run"].as_str()).collect();
    assert_eq!(audited, BTreeSet::from(["a1", "a2", "b1", "b2"]));
    for run in ["a2", "b2"] {
        for measure in ["map", "P_10"] {
            assert_eq!(gain(&rows, run, measure), 0.0, "{run} {measure}");
        }
    }
}

/// Each measure's list curve starts at the share of runs within one rank before the list,
/// ends at the share after it, with every list judged whole, at the budget of the `longest`.
fn check_list_curves(summary: &serde_json::Value, longest: f64) {
    for measure in summary["measures"].as_array().unwrap() {
        let curve = measure["list_curve"].as_array().unwrap();
        let (first, last) = (&curve[0], curve.last().unwrap());
        assert_eq!(first["budget"], 0, "{measure}");
        assert_eq!(first["documents_per_run"], 0.0, "{measure}");
        assert_eq!(first["within_one_rank"], measure["within_one_rank_before"]);
        assert_eq!(last["budget"].as_f64(), Some(longest), "{measure}");
        assert_eq!(last["documents_per_run"], summary["list"]["mean_per_run"]);
        assert_eq!(last["within_one_rank"], measure["within_one_rank_after"]);
        for pair in curve.windows(2) {
            let documents = |point: &serde_json::Value| point["documents_per_run"].as_f64();
            assert!(documents(&pair[0]) < documents(&pair[1]), "{pair:?}");
        }
    }
}

#[test]
fn the_deeper_world_refuses_what_it_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    let (task, deeper, _) = write_deeper_task(dir.path());
    let task = task.to_str().unwrap();
    let err = |args: &[&str]| {
        let out = run(args.iter().copied());
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let text = err(&["backtest", "--task", task, "--world", "deeper"]);
    assert!(text.contains("expected --truth-qrels FILE"), "{text}");
    let deeper = deeper.to_str().unwrap();
    let text = err(&["backtest", "--task", task, "--truth-qrels", deeper]);
    assert!(
        text.contains("expected the deeper world for a truth qrels file"),
        "{text}"
    );
    let text = err(&[
        "backtest",
        "--task",
        task,
        "--world",
        "deeper",
        "--truth-qrels",
        deeper,
        "--runs",
        "zz",
    ]);
    assert!(
        text.contains("expected a run of task deeper, found \"zz\""),
        "{text}"
    );
    let foreign = dir.path().join("foreign.qrels");
    std::fs::write(&foreign, "99 0 d1 1\n").unwrap();
    let text = err(&[
        "backtest",
        "--task",
        task,
        "--world",
        "deeper",
        "--truth-qrels",
        foreign.to_str().unwrap(),
    ]);
    assert!(
        text.contains("foreign.qrels") && text.contains("none of them"),
        "{text}"
    );
}

#[test]
fn claims_that_no_list_of_the_cap_can_settle_are_named_and_leave_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let (task, deeper, _) = write_deeper_task(dir.path());
    let claims_with_cap = |cap: &str| {
        let out = dir.path().join(format!("cap-{cap}"));
        run_ok([
            "backtest",
            "--task",
            task.to_str().unwrap(),
            "--world",
            "deeper",
            "--truth-qrels",
            deeper.to_str().unwrap(),
            "--measures",
            "map,P_10",
            "--risk-threshold",
            "0.05",
            "--settle-threshold",
            "0.05",
            "--list-per-topic",
            cap,
            "--format",
            "png",
            "--out",
            out.to_str().unwrap(),
        ]);
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("backtest.json")).unwrap())
                .unwrap();
        summary["claims"].as_array().unwrap().clone()
    };
    // a2's claims rest on the 8 documents a topic below the pool in its top 10, which the
    // truth grades relevant: one document a topic cannot settle them, so both audits name
    // them, list nothing for them, and only the claims they can settle agree after the list.
    for measure in claims_with_cap("1")
        .iter()
        .filter(|m| m["measure"] != "all")
    {
        let differs = measure["truth_differs"].as_u64().unwrap();
        assert!(differs > 0, "{measure}");
        for audit in [&measure["audit"], &measure["restricted"]] {
            assert_eq!(audit["cannot_settle"].as_u64(), Some(differs), "{measure}");
            assert_eq!(audit["list_per_run"], 0.0, "{measure}");
            assert_eq!(audit["agree_after_list_where_settleable"], 1.0, "{measure}");
            let claims = measure["claims"].as_f64().unwrap();
            let agree = audit["agree_after_list"].as_f64().unwrap();
            assert!(
                (agree - (1.0 - differs as f64 / claims)).abs() < 1e-12,
                "{measure}"
            );
        }
    }
    // With room for a topic's 8 documents, every claim is settled and agrees.
    for measure in &claims_with_cap("8") {
        for audit in [&measure["audit"], &measure["restricted"]] {
            assert_eq!(audit["cannot_settle"], 0, "{measure}");
            assert!(audit["list_per_run"].as_f64().unwrap() > 0.0, "{measure}");
            assert_eq!(audit["agree_after_list"], 1.0, "{measure}");
        }
    }
}
