//! `reusesim audit`: coverage against an independent count, intervals, the recovery of removed
//! judgments, a task whose answer is known by construction, and bad input.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::util::{read_qrels_map, run, run_ok, stdout_of, write_covid_task};

type QrelsMap = BTreeMap<String, BTreeMap<String, i32>>;

/// Reads a run into topic → docids in trec_eval order (score desc, docid desc).
fn read_run_map(path: &Path) -> BTreeMap<String, Vec<String>> {
    let bytes = std::fs::read(path).unwrap();
    let text = if bytes.starts_with(&[0x1f, 0x8b]) {
        use std::io::Read;
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap();
        text
    } else {
        String::from_utf8(bytes).unwrap()
    };
    let mut scored: BTreeMap<String, Vec<(f32, String)>> = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() == 6 {
            scored
                .entry(fields[0].to_string())
                .or_default()
                .push((fields[4].parse().unwrap(), fields[2].to_string()));
        }
    }
    scored
        .into_iter()
        .map(|(topic, mut docs)| {
            docs.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
            (topic, docs.into_iter().map(|(_, doc)| doc).collect())
        })
        .collect()
}

/// The JSON report of an audit of one run: the run's own report.
fn audit_json(args: &[&str]) -> serde_json::Value {
    let mut report = team_json(args);
    assert_eq!(report["runs"].as_array().unwrap().len(), 1);
    report["runs"][0].take()
}

/// The JSON report of an audit of one or several runs.
fn team_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["audit", "--format", "json", "--study-seeds", "0"];
    all.extend_from_slice(args);
    serde_json::from_str(&stdout_of(&all)).expect("json report")
}

fn measure<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["measures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["measure"] == name)
        .unwrap_or_else(|| panic!("measure {name} in the report"))
}

fn number(value: &serde_json::Value) -> f64 {
    value.as_f64().expect("a number")
}

fn write_qrels(path: &Path, qrels: &QrelsMap) {
    let text: String = qrels
        .iter()
        .flat_map(|(topic, docs)| {
            docs.iter()
                .map(move |(doc, grade)| format!("{topic} 0 {doc} {grade}\n"))
        })
        .collect();
    std::fs::write(path, text).unwrap();
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_covid_judged_10_matches_an_independent_count_and_map_is_inside() {
    let data = crate::util::covid_round1();
    let dir = tempfile::tempdir().unwrap();
    let task = write_covid_task(dir.path(), &data.runs, &data.qrels, &data.leaderboard);
    let rows = crate::util::covid_leaderboard_rows(&data.leaderboard);
    assert!(rows
        .iter()
        .any(|(run, _, pooled)| run == "BBGhelani1" && pooled == "no"));
    let run_file = data.runs.join("BBGhelani1.gz");
    let started = std::time::Instant::now();
    let report = audit_json(&[
        "--task",
        task.to_str().unwrap(),
        "--run",
        run_file.to_str().unwrap(),
    ]);
    eprintln!(
        "audit of BBGhelani1: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // Independent judged_10: the fraction of each topic's top 10 present in the qrels.
    let qrels = read_qrels_map(&data.qrels);
    let ranking = read_run_map(&run_file);
    let per_topic: Vec<f64> = qrels
        .iter()
        .filter_map(|(topic, judged)| {
            let docs = ranking.get(topic)?;
            let top = &docs[..docs.len().min(10)];
            Some(top.iter().filter(|d| judged.contains_key(*d)).count() as f64 / top.len() as f64)
        })
        .collect();
    let expected = per_topic.iter().sum::<f64>() / per_topic.len() as f64;
    let judged_10 = number(&report["coverage"]["judged_10"]);
    assert!(
        (judged_10 - expected).abs() < 1e-9,
        "{judged_10} vs {expected}"
    );
    assert_eq!(report["topics_audited"], per_topic.len());
    let map = measure(&report, "map");
    let (lower, upper, mean) = (
        number(&map["lower"]),
        number(&map["upper"]),
        number(&map["expected"]),
    );
    eprintln!("BBGhelani1 map: lower {lower:.4} expected {mean:.4} upper {upper:.4}, judged_10 {judged_10:.4}");
    assert!((lower - 0.3008).abs() < 5e-5, "the official MAP, {lower}");
    assert!(
        lower <= mean && mean <= upper,
        "{lower} <= {mean} <= {upper}"
    );
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn recovery_of_a_pooled_teams_unique_judgments() {
    let data = crate::util::covid_round1();
    let dir = tempfile::tempdir().unwrap();
    let rows = crate::util::covid_leaderboard_rows(&data.leaderboard);
    let team = "sabir";
    let team_runs: Vec<String> = rows
        .iter()
        .filter(|(_, t, pooled)| t == team && pooled == "yes")
        .map(|(run, _, _)| run.clone())
        .collect();
    assert!(!team_runs.is_empty(), "team {team} has pooled runs");
    // The documents only this team put in the depth-7 pool.
    let official = read_qrels_map(&data.qrels);
    let mut owners: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for (run, run_team, pooled) in &rows {
        if pooled != "yes" {
            continue;
        }
        for (topic, docs) in read_run_map(&data.runs.join(format!("{run}.gz"))) {
            for doc in docs.iter().take(7) {
                owners
                    .entry((topic.clone(), doc.clone()))
                    .or_default()
                    .insert(run_team.clone());
            }
        }
    }
    let mut reduced = official.clone();
    let mut removed = 0;
    for ((topic, doc), teams) in &owners {
        if teams.len() == 1 && teams.contains(team) {
            if let Some(judged) = reduced.get_mut(topic) {
                removed += usize::from(judged.remove(doc).is_some());
            }
        }
    }
    let reduced_path = dir.path().join("reduced.qrels");
    write_qrels(&reduced_path, &reduced);
    let task = write_covid_task(dir.path(), &data.runs, &reduced_path, &data.leaderboard);
    // Its best run on the official qrels.
    let mut eval_args = vec![
        "eval".to_string(),
        "-m".into(),
        "map".into(),
        "--format".into(),
        "json".into(),
    ];
    eval_args.push(data.qrels.display().to_string());
    eval_args.extend(
        team_runs
            .iter()
            .map(|r| data.runs.join(format!("{r}.gz")).display().to_string()),
    );
    let scores: serde_json::Value = serde_json::from_str(&stdout_of(&eval_args)).unwrap();
    let best = team_runs
        .iter()
        .max_by(|a, b| {
            number(&scores[a.as_str()]["map"]["all"])
                .total_cmp(&number(&scores[b.as_str()]["map"]["all"]))
        })
        .unwrap();
    let official_map = number(&scores[best.as_str()]["map"]["all"]);
    let run_file = data.runs.join(format!("{best}.gz"));
    let pool = dir.path().join("pool.txt");
    // The official qrels presume non-relevant what the pool never reached, and so does the
    // audit asked what the collection's own judging would have said.
    let before = audit_json(&[
        "--task",
        task.to_str().unwrap(),
        "--run",
        run_file.to_str().unwrap(),
        "--beyond-pool",
        "non-relevant",
        "--emit-pool",
        pool.to_str().unwrap(),
    ]);
    let emitted: Vec<(String, String, f64)> = std::fs::read_to_string(&pool)
        .unwrap()
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            (
                fields[0].to_string(),
                fields[1].to_string(),
                fields[2].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(emitted.len(), before["to_judge"].as_array().unwrap().len());
    // "Judge" them with the official qrels (not judged there: non-relevant).
    let mut judged = reduced.clone();
    for (topic, doc, _) in &emitted {
        let grade = official
            .get(topic)
            .and_then(|t| t.get(doc))
            .copied()
            .unwrap_or(0);
        judged
            .entry(topic.clone())
            .or_default()
            .insert(doc.clone(), grade);
    }
    write_qrels(&reduced_path, &judged);
    let after = audit_json(&[
        "--task",
        task.to_str().unwrap(),
        "--run",
        run_file.to_str().unwrap(),
        "--beyond-pool",
        "non-relevant",
    ]);
    let (map_before, map_after) = (measure(&before, "map"), measure(&after, "map"));
    let width = |m: &serde_json::Value| number(&m["upper"]) - number(&m["lower"]);
    eprintln!(
        "recovery ({team}, {best}): removed {removed}, emitted {}; map official {official_map:.4}, \
         before {:.4} [{:.4}, {:.4}] expected {:.4}, after {:.4} [{:.4}, {:.4}] expected {:.4}",
        emitted.len(),
        number(&map_before["lower"]),
        number(&map_before["lower"]),
        number(&map_before["upper"]),
        number(&map_before["expected"]),
        number(&map_after["lower"]),
        number(&map_after["lower"]),
        number(&map_after["upper"]),
        number(&map_after["expected"]),
    );
    assert!(width(map_after) < width(map_before), "the interval shrinks");
    assert!(
        (number(&map_before["expected"]) - official_map).abs()
            < (number(&map_before["lower"]) - official_map).abs() / 2.0,
        "the expected score is closer to the official one than the collection's score, by half"
    );
    assert!(
        (number(&map_after["lower"]) - official_map).abs()
            < (number(&map_before["lower"]) - official_map).abs(),
        "the score moves toward the official one"
    );
    assert!(
        emitted.len() < removed,
        "{} judgments < {removed} removed",
        emitted.len()
    );
}

#[test]
fn a_run_without_common_topics_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let task = crate::util::write_tiny_text_task(dir.path());
    let stray = dir.path().join("stray.run");
    std::fs::write(&stray, "999 Q0 d0001 1 1.0 stray\n").unwrap();
    let output = run([
        "audit",
        "--task",
        task.to_str().unwrap(),
        "--run",
        stray.to_str().unwrap(),
        "--study-seeds",
        "0",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("stray.run") && stderr.contains("no topic in common"),
        "{stderr}"
    );
}

#[test]
fn warns_about_missing_topics_and_pooled_runs() {
    let dir = tempfile::tempdir().unwrap();
    let task = crate::util::write_tiny_text_task(dir.path());
    // A run of the task: a warning that it was pooled.
    let output = run_ok([
        "audit",
        "--task",
        task.to_str().unwrap(),
        "--run",
        dir.path().join("runs/t1r0").to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("run t1r0 is in the task and was pooled"),
        "{stderr}"
    );
    // The Markdown report opens with the JSON report's verdict, which agrees with its list.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report = audit_json(&[
        "--task",
        task.to_str().unwrap(),
        "--run",
        dir.path().join("runs/t1r0").to_str().unwrap(),
    ]);
    let verdict = report["verdict"].as_str().unwrap();
    assert!(
        stdout.starts_with(&format!("**Verdict: {verdict}**\n")),
        "{stdout}"
    );
    let listed = report["to_judge"].as_array().unwrap().len();
    if listed == 0 {
        // Nothing at risk, or nothing at risk that judging can settle, which the verdict says.
        assert!(
            verdict == "no extra judgments needed"
                || verdict.ends_with(")") && verdict.contains("; judging cannot settle it ("),
            "{verdict}"
        );
        assert!(!verdict.contains("judge "), "{verdict}");
    } else {
        assert!(
            verdict.starts_with(&format!("judge {listed} document")),
            "{verdict}"
        );
    }
    // A new run with only topic 1: a warning naming the missing topics.
    let partial = dir.path().join("partial.run");
    let text: String = std::fs::read_to_string(dir.path().join("runs/t2r1"))
        .unwrap()
        .lines()
        .filter(|line| line.starts_with("1 "))
        .map(|line| format!("{}\n", line.replace("t2r1", "newrun")))
        .collect();
    std::fs::write(&partial, text).unwrap();
    let pool = dir.path().join("pool.txt");
    let output = run_ok([
        "audit",
        "--task",
        task.to_str().unwrap(),
        "--run",
        partial.to_str().unwrap(),
        "--study-seeds",
        "0",
        "--budget",
        "3",
        "--emit-pool",
        pool.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no ranking for 2 topic(s) of the qrels (2, 3)"),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["runs"][0]["topics_audited"], 1);
    let emitted = std::fs::read_to_string(&pool).unwrap();
    assert!(emitted.lines().count() <= 3);
    assert_eq!(
        emitted.lines().count(),
        report["to_judge"].as_array().unwrap().len()
    );
}

#[test]
fn compares_with_a_study_read_from_results_or_run_on_the_spot() {
    let dir = tempfile::tempdir().unwrap();
    let task = crate::util::write_tiny_text_task(&dir.path().join("task"));
    let results = dir.path().join("results");
    crate::util::run_on_task(
        "simulate",
        &task,
        &results,
        &[
            "--seeds",
            "1",
            "--iterations",
            "2000",
            "--measures",
            "map,P_10",
        ],
    );
    let new_run = dir.path().join("new.run");
    let text: String = std::fs::read_to_string(dir.path().join("task/runs/t2r1"))
        .unwrap()
        .lines()
        .map(|line| format!("{}\n", line.replace("t2r1", "newrun")))
        .collect();
    std::fs::write(&new_run, text).unwrap();
    let from_results = audit_json(&[
        "--task",
        task.to_str().unwrap(),
        "--run",
        new_run.to_str().unwrap(),
        "--results",
        results.to_str().unwrap(),
        "--measures",
        "map,P_10",
    ]);
    let study = &from_results["study"];
    assert!(
        study["source"].as_str().unwrap().ends_with("runs.tsv"),
        "{study}"
    );
    let map = study["measures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["measure"] == "map")
        .expect("the study's map figures");
    // The largest drop recomputed from runs.tsv: worst LOU rank less official rank, over the
    // pooled runs.
    let table = std::fs::read_to_string(results.join("runs.tsv")).unwrap();
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let drops: Vec<f64> = lines
        .map(|line| line.split('\t').collect::<Vec<_>>())
        .filter(|fields| fields[column("measure")] == "map")
        .map(|fields| {
            let rank = |name: &str| fields[column(name)].parse::<f64>().unwrap();
            rank("lou_rank_max") - rank("official_rank")
        })
        .collect();
    let largest = drops.iter().copied().fold(0.0, f64::max);
    assert_eq!(number(&map["max_rank_drop"]), largest);
    assert_eq!(map["pooled_runs"], 8);

    let mut on_the_spot = vec![
        "audit",
        "--format",
        "json",
        "--study-seeds",
        "1",
        "--measures",
        "map",
    ];
    let (task_arg, run_arg) = (task.to_str().unwrap(), new_run.to_str().unwrap());
    on_the_spot.extend(["--task", task_arg, "--run", run_arg]);
    let team: serde_json::Value = serde_json::from_str(&stdout_of(&on_the_spot)).unwrap();
    let report = &team["runs"][0];
    let spot = &report["study"]["measures"][0];
    assert_eq!(spot["measure"], "map", "{}", report["study"]);
    assert_eq!(spot["pooled_runs"], 8, "{}", report["study"]);
    assert!(report["study"]["source"]
        .as_str()
        .unwrap()
        .starts_with("a study run on the spot: 1 seeds"));
    assert!(!report["study"]["source"]
        .as_str()
        .unwrap()
        .ends_with("runs.tsv"));
}

/// A task whose answer is known by construction, and two audited runs in the same place in
/// the ranking that differ only in the collection's evidence about them.
///
/// Twelve topics, pool depth 3. Four pooled "good" teams put 3 relevant documents of their own
/// in the pool, and retrieve 3 relevant documents of another good team below; four pooled
/// "bad" teams do the same with non-relevant documents. Every run ends in 30 unjudged
/// documents: the task's runs share theirs, from rank 4 on; each audited run has its own, from
/// rank 11 (the audit moves the task's runs with the audited run's documents, and its own are
/// not what the test is about). So leaving a team out of the pool, the collection shows: documents that a run
/// with a high judged precision alone brought are relevant, those of a run with a low one are
/// not. The good teams' P@10 are 0.6, 0.5, 0.4, 0.3 (the other team's documents at ranks 4, 9,
/// 10 or 11 and below), the bad teams' 0.
///
/// `GOOD` ranks 5 new documents first, then 4 relevant judged documents and 1 non-relevant:
/// P@10 0.4, rank 3.5 of 9; if its new documents are relevant it rises to rank 1.
/// `BAD` ranks 5 new documents first, then 1 relevant and 4 non-relevant: P@10 0.1, rank 5; if
/// its new documents are relevant it rises to rank 1 too. Built so, the new documents of the
/// good run are relevant (they come from a run that is right wherever it can be checked), and
/// those of the bad run are not.
pub(crate) fn write_known_task(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    const TOPICS: usize = 12;
    let runs_dir = dir.join("runs");
    std::fs::create_dir_all(&runs_dir).unwrap();
    let mut qrels = String::new();
    let mut teams = String::new();
    let mut runs: BTreeMap<String, String> = BTreeMap::new();
    let line = |topic: usize, doc: &str, rank: usize, tag: &str| {
        format!("{topic} Q0 {doc} {rank} {} {tag}\n", 1000 - rank)
    };
    let own =
        |kind: char, team: usize, topic: usize, k: usize| format!("t{topic}-{kind}{team}-{k}");
    for topic in 1..=TOPICS {
        for team in 1..=4 {
            for k in 1..=3 {
                qrels.push_str(&format!("{topic} 0 {} 1\n", own('a', team, topic, k)));
                qrels.push_str(&format!("{topic} 0 {} 0\n", own('b', team, topic, k)));
            }
        }
        for (kind, start) in [('a', [4, 9, 10, 11]), ('b', [4, 4, 4, 4])] {
            for team in 1..=4 {
                let tag = format!("{kind}{team}");
                let text = runs.entry(tag.clone()).or_default();
                let mut ranked: Vec<String> = (1..=3).map(|k| own(kind, team, topic, k)).collect();
                let filler = (1..=30).map(|j| format!("t{topic}-junk{j}"));
                let mut rest: Vec<String> = filler.collect();
                let other = (1..=3).map(|k| own(kind, team % 4 + 1, topic, k));
                let at = start[team - 1] - 4;
                for (offset, doc) in other.enumerate() {
                    rest.insert(at + offset, doc);
                }
                ranked.extend(rest);
                for (pos, doc) in ranked.iter().enumerate() {
                    text.push_str(&line(topic, doc, pos + 1, &tag));
                }
            }
        }
    }
    for (tag, text) in &runs {
        std::fs::write(runs_dir.join(tag), text).unwrap();
        teams.push_str(&format!("{tag}\tteam-{tag}\tyes\n"));
    }
    std::fs::write(dir.join("qrels"), qrels).unwrap();
    std::fs::write(dir.join("teams.tsv"), teams).unwrap();
    let task = dir.join("task.toml");
    std::fs::write(
        &task,
        "name = \"known\"\nruns = \"runs\"\nteams = \"teams.tsv\"\nqrels = \"qrels\"\n\
         pool_depth = 3\n",
    )
    .unwrap();
    let audited = |tag: &str, new: char, judged: &[(char, usize, usize)]| {
        let mut text = String::new();
        for topic in 1..=TOPICS {
            let mut ranked: Vec<String> = (1..=5).map(|k| format!("t{topic}-{new}{k}")).collect();
            ranked.extend(
                judged
                    .iter()
                    .map(|&(kind, team, k)| own(kind, team, topic, k)),
            );
            ranked.extend((1..=30).map(|j| format!("t{topic}-{new}junk{j}")));
            for (pos, doc) in ranked.iter().enumerate() {
                text.push_str(&line(topic, doc, pos + 1, tag));
            }
        }
        let path = dir.join(format!("{tag}.run"));
        std::fs::write(&path, text).unwrap();
        path
    };
    let good = audited(
        "GOOD",
        'g',
        &[
            ('a', 1, 1),
            ('a', 1, 2),
            ('a', 1, 3),
            ('a', 2, 1),
            ('b', 1, 1),
        ],
    );
    let bad = audited(
        "BAD",
        'h',
        &[
            ('a', 1, 1),
            ('b', 1, 1),
            ('b', 1, 2),
            ('b', 1, 3),
            ('b', 2, 1),
        ],
    );
    (task, good, bad)
}

#[test]
fn the_verdict_and_the_list_tell_a_run_with_relevant_unjudged_documents_from_one_without() {
    let dir = tempfile::tempdir().unwrap();
    let (task, good, bad) = write_known_task(dir.path());
    let audit = |run: &Path| {
        audit_json(&[
            "--task",
            task.to_str().unwrap(),
            "--run",
            run.to_str().unwrap(),
            "--measures",
            "P_10",
        ])
    };
    let (good, bad) = (audit(&good), audit(&bad));
    let (good_p10, bad_p10) = (measure(&good, "P_10"), measure(&bad, "P_10"));
    eprintln!(
        "good: {} {good_p10}\nbad: {} {bad_p10}",
        good["verdict"], bad["verdict"]
    );
    // Both sit where their 5 unjudged documents per topic could move them by 2 or more ranks.
    assert_eq!(number(&good_p10["rank"]), 3.5);
    assert_eq!(number(&bad_p10["rank"]), 5.0);
    assert!((number(&good_p10["upper"]) - 0.9).abs() < 1e-9);
    assert!((number(&bad_p10["upper"]) - 0.6).abs() < 1e-9);
    // The good run: at risk, and the list holds its unjudged documents of the top 10 only.
    let verdict = good["verdict"].as_str().unwrap();
    assert!(verdict.starts_with("judge "), "{verdict}");
    assert!(good_p10["is_at_risk"].as_bool().unwrap());
    assert!(number(&good_p10["expected"]) > number(&good_p10["lower"]) + 0.15);
    let listed = good["to_judge"].as_array().unwrap();
    assert!(!listed.is_empty());
    assert!(
        verdict.starts_with(&format!("judge {} document", listed.len())),
        "{verdict}"
    );
    for entry in listed {
        let docid = entry["docid"].as_str().unwrap();
        assert!(
            docid.contains("-g"),
            "{docid} is not one of the good run's new documents"
        );
    }
    let remaining = number(&listed.last().unwrap()["remaining_risk"]);
    assert!(
        remaining <= 0.1,
        "the list stops once the rank is settled: {remaining}"
    );
    // The bad run: no measure at risk, no list, and an expected score near the collection's:
    // what the audit extrapolates for its unjudged documents is a small fraction of what it
    // expects of the good run's.
    assert_eq!(bad["verdict"], "no extra judgments needed");
    assert!(!bad_p10["is_at_risk"].as_bool().unwrap());
    assert_eq!(bad["to_judge"].as_array().unwrap().len(), 0);
    let rise = |m: &serde_json::Value| number(&m["expected"]) - number(&m["lower"]);
    assert!(
        rise(bad_p10) < 0.15 * rise(good_p10),
        "{} against {}",
        rise(bad_p10),
        rise(good_p10)
    );
}

#[test]
fn a_calibration_on_trials_learns_from_what_each_kept_trial_left_unjudged() {
    let dir = tempfile::tempdir().unwrap();
    let (task, good, _) = write_known_task(dir.path());
    let results = dir.path().join("results");
    crate::util::run_on_task(
        "simulate",
        &task,
        &results,
        // 22 judgments per topic, where the official qrels hold 24: the other seven teams'
        // top 3 (21 documents) and one found by active learning, so that each trial leaves
        // some of its team's own relevant documents unjudged.
        &[
            "--seeds",
            "1",
            "--iterations",
            "2000",
            "--keep-qrels",
            "--budget",
            "22",
        ],
    );
    let audit = |extra: &[&str]| {
        let mut args = vec![
            "--task",
            task.to_str().unwrap(),
            "--run",
            good.to_str().unwrap(),
            "--measures",
            "P_10",
            // The sample as extrapolation draws it: labelled rows only.
            "--beyond-pool",
            "extrapolate",
        ];
        args.extend_from_slice(extra);
        audit_json(&args)
    };
    let report = audit(&[
        "--evidence",
        "trials",
        "--results",
        results.to_str().unwrap(),
    ]);
    assert_eq!(report["settings"]["evidence"], "trials");
    // The sample, counted here from the files: per pooled team, the documents of its run's
    // top that its own trial left unjudged and the official qrels judge, relevant when they
    // say so. Those the official qrels never judged have no known label and stay out of it.
    let official = read_qrels_map(&dir.path().join("qrels"));
    let (mut rows, mut relevant, mut unlabelled) = (0, 0, 0);
    for line in std::fs::read_to_string(dir.path().join("teams.tsv"))
        .unwrap()
        .lines()
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let (tag, team) = (fields[0], fields[1]);
        let trial = read_qrels_map(&results.join("qrels").join(format!("{team}-s1.qrels")));
        for (topic, docs) in read_run_map(&dir.path().join("runs").join(tag)) {
            for doc in docs.iter().take(100) {
                if trial
                    .get(&topic)
                    .is_some_and(|judged| judged.contains_key(doc))
                {
                    continue;
                }
                match official[&topic].get(doc) {
                    Some(&grade) => {
                        rows += 1;
                        relevant += usize::from(grade >= 1);
                    }
                    None => unlabelled += 1,
                }
            }
        }
    }
    let calibration = &report["settings"]["calibration"];
    assert_eq!(number(&calibration["sample_size"]) as usize, rows);
    assert_eq!(number(&calibration["sample_relevant"]) as usize, relevant);
    assert_eq!(number(&calibration["unlabelled"]) as usize, unlabelled);
    // The pool's sample is another: each team's top 3 (what it alone pooled) is unjudged
    // without it, 3 relevant documents per topic for each of the 4 good teams; the trials'
    // judge finds some of them again with its one judgment beyond the pool, not all.
    let pooled = audit(&[]);
    assert_eq!(pooled["settings"]["evidence"], "pool");
    let pooled_relevant = number(&pooled["settings"]["calibration"]["sample_relevant"]);
    assert_eq!(pooled_relevant as usize, 12 * 3 * 4);
    assert!(
        (12 * 2 * 4..12 * 3 * 4).contains(&relevant),
        "{relevant} relevant rows"
    );
    // Trials need a results folder that kept them.
    let output = run([
        "audit",
        "--task",
        task.to_str().unwrap(),
        "--run",
        good.to_str().unwrap(),
        "--study-seeds",
        "0",
        "--evidence",
        "trials",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("calibrating on trials needs the results folder of a study that kept"),
        "{stderr}"
    );
}

/// The embedded task's three runs that the walk-through in docs/audit.md audits.
fn embedded_runs() -> Vec<PathBuf> {
    let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/synth-passage/runs");
    ["team01_run1", "team01_run2", "team07_run4"]
        .iter()
        .map(|tag| runs.join(tag))
        .collect()
}

/// `--run` given once per run, the documents beyond the pool's reach extrapolated (these pooled
/// runs' documents there are what is at stake), and thresholds that list more documents than
/// the defaults: risk 0.05 and settle `settle`, above 0, which no list can always reach (a list counts each
/// document's change alone, and MAP's documents change it together), so that judging can
/// settle a measure.
fn embedded_args(runs: &[PathBuf], settle: &str) -> Vec<String> {
    let mut args: Vec<String> = [
        "--risk-threshold",
        "0.05",
        "--settle-threshold",
        settle,
        "--beyond-pool",
        "extrapolate",
    ]
    .map(String::from)
    .to_vec();
    for run in runs {
        args.extend(["--run".to_string(), run.display().to_string()]);
    }
    args
}

/// The sheet with every grade filled from `truth` (0 where it lacks the document).
fn fill_sheet(sheet: &Path, truth: &QrelsMap, filled: &Path) {
    let text = std::fs::read_to_string(sheet).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert_eq!(
        header,
        "topic\ttopic_text\tdocid\tdocument_text\truns\tprobability\tgrade"
    );
    let mut out = format!("{header}\n");
    for line in lines {
        let mut fields: Vec<&str> = line.split('\t').collect();
        let grade = truth
            .get(fields[0])
            .and_then(|docs| docs.get(fields[2]))
            .copied()
            .unwrap_or(0)
            .to_string();
        *fields.last_mut().unwrap() = &grade;
        out.push_str(&fields.join("\t"));
        out.push('\n');
    }
    std::fs::write(filled, out).unwrap();
}

#[test]
fn several_runs_share_one_list_and_their_sheet_filled_from_the_truth_brings_them_closer() {
    let dir = tempfile::tempdir().unwrap();
    let runs = embedded_runs();
    let args = embedded_args(&runs, "0.01");
    let sheet = dir.path().join("sheet.tsv");
    let pool = dir.path().join("pool.txt");
    let mut first: Vec<&str> = args.iter().map(String::as_str).collect();
    first.extend(["--sheet", sheet.to_str().unwrap()]);
    first.extend(["--emit-pool", pool.to_str().unwrap()]);
    let before = team_json(&first);
    let listed = before["to_judge"].as_array().unwrap();
    assert!(listed.len() > 10, "a list to judge: {}", before["verdict"]);
    // One list: each document once, each marked with audited runs it serves, at most 5 a topic.
    let keys: BTreeSet<(String, String)> = listed
        .iter()
        .map(|e| (e["topic"].to_string(), e["docid"].to_string()))
        .collect();
    assert_eq!(keys.len(), listed.len());
    let tags: BTreeSet<&str> = ["team01_run1", "team01_run2", "team07_run4"].into();
    let mut per_topic: BTreeMap<String, usize> = BTreeMap::new();
    for entry in listed {
        let served = entry["runs"].as_array().unwrap();
        assert!(!served.is_empty());
        assert!(served.iter().all(|r| tags.contains(r.as_str().unwrap())));
        *per_topic.entry(entry["topic"].to_string()).or_default() += 1;
    }
    assert!(per_topic.values().all(|&count| count <= 5));
    let own: usize = before["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["to_judge"].as_array().unwrap().len())
        .sum();
    assert_eq!(before["single_run_documents"], own);
    assert!(listed.len() <= own);
    // Ranks among the audited runs.
    for run in before["runs"].as_array().unwrap() {
        for m in run["measures"].as_array().unwrap() {
            assert_eq!(m["audited_runs"], 3);
            assert!((1.0..=3.0).contains(&number(&m["audited_rank"])));
        }
    }
    assert_eq!(
        std::fs::read_to_string(&pool).unwrap().lines().count(),
        listed.len()
    );
    // The sheet: a row per listed document, with the topic's and the document's text.
    let text = std::fs::read_to_string(&sheet).unwrap();
    assert_eq!(text.lines().count(), listed.len() + 1);
    let row: Vec<&str> = text.lines().nth(1).unwrap().split('\t').collect();
    assert_eq!(row.len(), 7);
    assert!(!row[1].is_empty() && !row[3].is_empty(), "{row:?}");
    assert_eq!(row[6], "", "an empty grade column");

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let truth_path = root.join("qrels/synth-passage.truth.qrels");
    let truth = read_qrels_map(&truth_path);
    let filled = dir.path().join("filled.tsv");
    fill_sheet(&sheet, &truth, &filled);
    let mut second: Vec<&str> = args.iter().map(String::as_str).collect();
    second.extend(["--judged", filled.to_str().unwrap()]);
    let after = team_json(&second);
    let judged = &after["judged"];
    assert_eq!(judged["judgments_added"], listed.len());
    assert_eq!(judged["listed_unjudged"].as_array().unwrap().len(), 0);
    assert_eq!(judged["judged_unlisted"].as_array().unwrap().len(), 0);
    // The collection's scores after are the scores on the qrels with the sheet's grades.
    let mut combined = read_qrels_map(&root.join("qrels/synth-passage.qrels"));
    for entry in listed {
        let (topic, doc) = (
            entry["topic"].as_str().unwrap(),
            entry["docid"].as_str().unwrap(),
        );
        let grade = truth.get(topic).and_then(|t| t.get(doc)).copied();
        combined
            .entry(topic.to_string())
            .or_default()
            .insert(doc.to_string(), grade.unwrap_or(0));
    }
    let combined_path = dir.path().join("combined.qrels");
    write_qrels(&combined_path, &combined);
    let eval = |qrels: &Path, runs: &[&PathBuf]| -> serde_json::Value {
        let mut eval_args = vec!["eval", "-m", "map", "-m", "P_10", "-m", "ndcg_cut_10"];
        eval_args.extend(["--format", "json", qrels.to_str().unwrap()]);
        eval_args.extend(runs.iter().map(|r| r.to_str().unwrap()));
        serde_json::from_str(&stdout_of(&eval_args)).unwrap()
    };
    let judged_scores = eval(&combined_path, &runs.iter().collect::<Vec<_>>());
    // A run's truth, as the backtest's: the official qrels with the truth's grade of every
    // document of the run's top 100 (0 where the truth lacks it).
    let official = read_qrels_map(&root.join("qrels/synth-passage.qrels"));
    let true_scores: BTreeMap<String, serde_json::Value> = runs
        .iter()
        .map(|run| {
            let mut completed = official.clone();
            for (topic, docs) in read_run_map(run) {
                let judged = completed.entry(topic.clone()).or_default();
                for doc in docs.iter().take(100) {
                    let grade = truth.get(&topic).and_then(|t| t.get(doc)).copied();
                    judged.entry(doc.clone()).or_insert(grade.unwrap_or(0));
                }
            }
            let path = dir.path().join("completed.qrels");
            write_qrels(&path, &completed);
            let tag = run.file_name().unwrap().to_str().unwrap().to_string();
            let scores = eval(&path, &[run]);
            (tag.clone(), scores[tag.as_str()].clone())
        })
        .collect();
    const STAYS: f64 = 1e-3;
    let mut moved = 0;
    let mut errors = Vec::new();
    for change in judged["runs"].as_array().unwrap() {
        let run = change["run"].as_str().unwrap();
        for m in change["measures"].as_array().unwrap() {
            let name = m["measure"].as_str().unwrap();
            let after_score = number(&m["after"]["score"]);
            let expected = number(&judged_scores[run][name]["all"]);
            assert!((after_score - expected).abs() < 1e-9, "{run} {name}");
            moved += usize::from(after_score != number(&m["before"]["score"]));
            let truth = number(&true_scores[run][name]["all"]);
            let error = |when: &str| (number(&m[when]["expected"]) - truth).abs();
            errors.push((error("before"), error("after")));
            // Shrinks, or stays within what the calibration's refit on the larger judgments
            // and the Monte-Carlo samples move it.
            assert!(
                error("after") <= error("before") + STAYS,
                "{run} {name}: expected-score error {} before, {} after",
                error("before"),
                error("after")
            );
        }
    }
    assert!(moved > 0, "the returned judgments move a score");
    let total = |pick: fn(&(f64, f64)) -> f64| errors.iter().map(pick).sum::<f64>();
    eprintln!("expected-score errors (before, after): {errors:.4?}");
    assert!(total(|e| e.1) < total(|e| e.0), "{errors:?}");
}

/// One run of every pooled team of the embedded task (its team file pools every team), audited
/// together: the calibration would have no team left to learn from, so the audit is refused
/// before any work, naming the teams and what to do.
#[test]
fn auditing_a_run_of_every_pooled_team_is_refused() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/synth-passage");
    let teams = std::fs::read_to_string(root.join("teams.tsv")).unwrap();
    let mut first_run: BTreeMap<&str, &str> = BTreeMap::new();
    for line in teams.lines().filter(|line| !line.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        first_run.entry(fields[1]).or_insert(fields[0]);
    }
    assert_eq!(first_run.len(), 9, "{first_run:?}");
    let dir = tempfile::tempdir().unwrap();
    let sheet = dir.path().join("sheet.tsv");
    let mut args: Vec<String> = ["audit", "--study-seeds", "0", "--sheet"]
        .map(String::from)
        .to_vec();
    args.push(sheet.display().to_string());
    for tag in first_run.values() {
        args.extend([
            "--run".to_string(),
            root.join("runs").join(tag).display().to_string(),
        ]);
    }
    let output = run(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("belong to every pooled team (baseline, team01, team02")
            && stderr.contains("audit the teams in turn"),
        "{stderr}"
    );
    assert!(!sheet.exists());
    // Leaving one team out of the audit leaves the calibration a team to learn from.
    let kept = args.len() - 2;
    args.truncate(kept);
    let output = run(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs `reusesim audit` on the embedded runs with `extra`, expecting a failure whose message
/// holds `expected` and no file written to `written`.
fn refused(extra: &[&str], expected: &str, written: &Path) {
    let runs = embedded_runs();
    let mut args: Vec<String> = vec!["audit".into(), "--study-seeds".into(), "0".into()];
    args.extend(embedded_args(&runs, "0.01"));
    args.extend(["--sheet".to_string(), written.display().to_string()]);
    args.extend(extra.iter().map(|a| a.to_string()));
    let output = run(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{extra:?} was accepted");
    assert!(stderr.contains(expected), "{extra:?}: {stderr}");
    assert!(!written.exists(), "{extra:?} wrote {}", written.display());
}

#[test]
fn bad_returned_judgments_and_runs_are_refused_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join("out/sheet.tsv");
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let malformed = file("malformed.qrels", "965941 0 p0004457 1\n965941 p0010019\n");
    refused(
        &["--judged", &malformed],
        &format!("{malformed}:2: expected 4 columns"),
        &written,
    );
    let outside = file(
        "outside.qrels",
        "965941 0 p0004457 1\nno-such-topic 0 d1 1\n",
    );
    refused(
        &["--judged", &outside],
        &format!("{outside}:2: topic \"no-such-topic\" is not a topic of task synth-passage"),
        &written,
    );
    let not_integer = file(
        "grade.tsv",
        "topic\tdocid\tgrade\n965941\tp0004457\t1\n965941\tp0010019\tyes\n",
    );
    refused(
        &["--judged", &not_integer],
        &format!("{not_integer}:3: expected an integer grade in column 3, found \"yes\""),
        &written,
    );
    // A document the official qrels grade, graded otherwise.
    let official =
        read_qrels_map(&Path::new(env!("CARGO_MANIFEST_DIR")).join("qrels/synth-passage.qrels"));
    let (topic, docs) = official.iter().next().unwrap();
    let (doc, grade) = docs.iter().next().unwrap();
    let conflict = file(
        "conflict.qrels",
        &format!("{topic} 0 {doc} {}\n", if *grade > 0 { 0 } else { 1 }),
    );
    refused(
        &["--judged", &conflict],
        &format!("{conflict}:1: document {doc:?} of topic {topic:?} is graded"),
        &written,
    );
    // --override-official lets it replace the official grade, with a note in the report.
    let mut args = vec!["audit".to_string(), "--format".into(), "json".into()];
    args.extend(["--study-seeds".into(), "0".into()]);
    args.extend(embedded_args(&embedded_runs(), "0.01"));
    args.extend([
        "--judged".into(),
        conflict.clone(),
        "--override-official".into(),
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout_of(&args)).unwrap();
    assert_eq!(report["judged"]["overridden"][0]["docid"], doc.as_str());
    assert_eq!(
        report["judged"]["judged_unlisted"][0]["docid"],
        doc.as_str()
    );
    // Two audited runs with one tag.
    let copy = dir.path().join("copy");
    std::fs::copy(&embedded_runs()[0], &copy).unwrap();
    refused(
        &["--run", copy.to_str().unwrap()],
        &format!(
            "{}: run tag \"team01_run1\" is already the tag of audited run",
            copy.display()
        ),
        &written,
    );
    // An empty --runs folder.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    refused(
        &["--runs", empty.to_str().unwrap()],
        &format!(
            "{}: expected run files in this folder, found none",
            empty.display()
        ),
        &written,
    );
}

#[test]
fn a_runs_folder_audits_every_run_in_it_with_the_run_files() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("new");
    std::fs::create_dir(&folder).unwrap();
    let runs = embedded_runs();
    for run in &runs[1..] {
        std::fs::copy(run, folder.join(run.file_name().unwrap())).unwrap();
    }
    let report = team_json(&[
        "--run",
        runs[0].to_str().unwrap(),
        "--runs",
        folder.to_str().unwrap(),
    ]);
    let audited: Vec<&str> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run"].as_str().unwrap())
        .collect();
    assert_eq!(audited, ["team01_run1", "team01_run2", "team07_run4"]);
}

#[test]
fn one_run_alone_gets_its_own_list_and_an_unfilled_csv_sheet_leaves_every_document_unjudged() {
    let dir = tempfile::tempdir().unwrap();
    let runs = embedded_runs();
    let args = embedded_args(&runs[..1], "0.01");
    let sheet = dir.path().join("sheet.csv");
    let mut first: Vec<&str> = args.iter().map(String::as_str).collect();
    first.extend(["--sheet", sheet.to_str().unwrap()]);
    let report = team_json(&first);
    let merged: Vec<&serde_json::Value> = report["to_judge"].as_array().unwrap().iter().collect();
    let own: Vec<&serde_json::Value> = report["runs"][0]["to_judge"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert!(!merged.is_empty());
    let keys = |list: &[&serde_json::Value]| -> Vec<(String, String)> {
        list.iter()
            .map(|e| (e["topic"].to_string(), e["docid"].to_string()))
            .collect()
    };
    assert_eq!(keys(&merged), keys(&own));
    assert_eq!(report["verdict"], report["runs"][0]["verdict"]);
    let text = std::fs::read_to_string(&sheet).unwrap();
    assert!(text.starts_with("topic,topic_text,docid,document_text,runs,probability,grade\n"));
    let mut second: Vec<&str> = args.iter().map(String::as_str).collect();
    second.extend(["--judged", sheet.to_str().unwrap()]);
    let output = run_ok(
        ["audit", "--format", "json", "--study-seeds", "0"]
            .into_iter()
            .chain(second),
    );
    let again: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(again["judged"]["judgments_added"], 0);
    assert_eq!(
        again["judged"]["listed_unjudged"].as_array().unwrap().len(),
        merged.len()
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "{} listed documents have no returned grade",
            merged.len()
        )),
        "{stderr}"
    );
}

#[test]
fn a_document_graded_twice_with_two_grades_in_the_returned_judgments_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = dir.path().join("twice.qrels");
    std::fs::write(
        &qrels,
        "965941 0 p0004457 1\n965941 0 p0010019 0\n965941 0 p0004457 0\n",
    )
    .unwrap();
    let sheet = dir.path().join("twice.csv");
    std::fs::write(
        &sheet,
        "topic,docid,grade\n965941,p0010019,1\n965941,p0004457,2\n965941,p0010019,0\n",
    )
    .unwrap();
    let cases = [
        (
            &qrels,
            "3: document \"p0004457\" of topic \"965941\" is graded 0 here and 1 on line 1; \
             expected one grade",
        ),
        (
            &sheet,
            "4: document \"p0010019\" of topic \"965941\" is graded 0 here and 1 on line 2; \
             expected one grade",
        ),
    ];
    let runs = embedded_runs();
    for (file, expected) in cases {
        let output = run([
            "audit".as_ref(),
            "--study-seeds".as_ref(),
            "0".as_ref(),
            "--run".as_ref(),
            runs[0].as_os_str(),
            "--judged".as_ref(),
            file.as_os_str(),
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        let expected = format!("{}:{expected}", file.display());
        assert!(stderr.contains(&expected), "{stderr}");
    }
}

/// P@10 of `ranking` on `qrels`, by hand: its relevant (grade >= 1) documents among its first
/// 10 over 10, averaged over the topics both have.
fn precision_at_10(ranking: &BTreeMap<String, Vec<String>>, qrels: &QrelsMap) -> f64 {
    let per_topic: Vec<f64> = ranking
        .iter()
        .filter_map(|(topic, docs)| {
            let judged = qrels.get(topic)?;
            let relevant = (docs.iter().take(10))
                .filter(|doc| judged.get(*doc).is_some_and(|&grade| grade >= 1))
                .count();
            Some(relevant as f64 / 10.0)
        })
        .collect();
    per_topic.iter().sum::<f64>() / per_topic.len() as f64
}

#[test]
fn an_overridden_official_grade_is_the_grade_the_scores_after_use() {
    let dir = tempfile::tempdir().unwrap();
    let runs = embedded_runs();
    let official =
        read_qrels_map(&Path::new(env!("CARGO_MANIFEST_DIR")).join("qrels/synth-passage.qrels"));
    let ranking = read_run_map(&runs[0]);
    // A document of the run's top 10 that the official qrels grade relevant, returned as 0.
    let (topic, doc) = ranking
        .iter()
        .find_map(|(topic, docs)| {
            let judged = official.get(topic)?;
            let relevant = (docs.iter().take(10))
                .find(|doc| judged.get(*doc).is_some_and(|&grade| grade >= 1))?;
            Some((topic.clone(), relevant.clone()))
        })
        .expect("a relevant document in the run's top 10");
    let returned = dir.path().join("returned.qrels");
    std::fs::write(&returned, format!("{topic} 0 {doc} 0\n")).unwrap();
    let report = team_json(&[
        "--measures",
        "P_10",
        "--run",
        runs[0].to_str().unwrap(),
        "--judged",
        returned.to_str().unwrap(),
        "--override-official",
    ]);
    let change = &report["judged"]["runs"][0]["measures"][0];
    assert_eq!(change["measure"], "P_10");
    let mut overridden = official.clone();
    overridden.get_mut(&topic).unwrap().insert(doc, 0);
    let (before, after) = (
        precision_at_10(&ranking, &official),
        precision_at_10(&ranking, &overridden),
    );
    assert!(after < before);
    assert!((number(&change["before"]["score"]) - before).abs() < 1e-12);
    assert!(
        (number(&change["after"]["score"]) - after).abs() < 1e-12,
        "after {}, expected {after}",
        change["after"]["score"]
    );
}

/// A document in one audited run's own list.
struct OwnPlace {
    run: String,
    priority: f64,
    rank: f64,
    probability: f64,
}

#[test]
fn the_merged_list_sums_each_documents_priorities_over_the_runs_and_puts_the_highest_first() {
    let runs = embedded_runs();
    // No cap per topic, so that each run's own list holds every document it gives a priority,
    // and a settle threshold that every run's list can reach then, so that it serves them all.
    let mut args = embedded_args(&runs, "0.02");
    args.extend(["--list-per-topic".into(), "0".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = team_json(&args);
    // (topic, document) → where each run's own list has it.
    let mut own: BTreeMap<(String, String), Vec<OwnPlace>> = BTreeMap::new();
    for audited in report["runs"].as_array().unwrap() {
        let tag = audited["run"].as_str().unwrap();
        for entry in audited["to_judge"].as_array().unwrap() {
            let key = (
                entry["topic"].as_str().unwrap().to_string(),
                entry["docid"].as_str().unwrap().to_string(),
            );
            own.entry(key).or_default().push(OwnPlace {
                run: tag.to_string(),
                priority: number(&entry["priority"]),
                rank: number(&entry["rank"]),
                probability: number(&entry["probability"]),
            });
        }
    }
    let merged = report["to_judge"].as_array().unwrap();
    // A run's own list stops once its risk is settled, so it may lack a document the merged
    // list says it serves; the documents whose every run lists them are checked whole.
    let mut shared = 0;
    for entry in merged {
        let key = (
            entry["topic"].as_str().unwrap().to_string(),
            entry["docid"].as_str().unwrap().to_string(),
        );
        let places = own.get(&key).map_or(&[][..], Vec::as_slice);
        let served: Vec<&str> = entry["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        let listed_by: Vec<&str> = places.iter().map(|p| p.run.as_str()).collect();
        assert!(
            listed_by.iter().all(|run| served.contains(run)),
            "{key:?}: serves {served:?}, listed by {listed_by:?}"
        );
        let value: f64 = places.iter().map(|p| p.priority).sum();
        if listed_by != served {
            assert!(number(&entry["value"]) > value, "{key:?}");
            continue;
        }
        shared += usize::from(places.len() > 1);
        assert!(
            (number(&entry["value"]) - value).abs() < 1e-12,
            "{key:?}: value {}, the runs' priorities sum to {value}",
            entry["value"]
        );
        let best_rank = (places.iter().map(|p| p.rank)).fold(f64::INFINITY, f64::min);
        assert_eq!(number(&entry["rank"]), best_rank, "{key:?}");
        let probability = places.iter().map(|p| p.probability).sum::<f64>() / places.len() as f64;
        assert!(
            (number(&entry["probability"]) - probability).abs() < 1e-12,
            "{key:?}"
        );
    }
    assert!(shared > 3, "documents several runs list: {shared}");
    // Highest value first.
    let values: Vec<f64> = merged.iter().map(|e| number(&e["value"])).collect();
    if let Some(at) = values.windows(2).position(|pair| pair[0] < pair[1]) {
        panic!(
            "entry {at} of {} is worth {}, less than the next, {}",
            values.len(),
            values[at],
            values[at + 1]
        );
    }
}

#[test]
fn a_task_runs_tag_given_as_a_run_file_is_refused_naming_the_file_to_give() {
    let output = run(["audit", "--study-seeds", "0", "--run", "team01_run1"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--run takes a run file"), "{stderr}");
    assert!(
        stderr.contains("runs/synth-passage/runs/team01_run1"),
        "the task's file: {stderr}"
    );
}
