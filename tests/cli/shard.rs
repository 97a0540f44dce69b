//! A study split into shards and merged, or killed and resumed, writes the same files
//! as one uninterrupted `simulate` (elapsed times aside); `merge` and `--resume` refuse pieces
//! of another study, naming what differs.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use reusesim::sim::lock::{FolderLock, WhenLocked, LOCK_FILE};

use crate::util::{reusesim, run, run_on_task, write_tiny_text_task};

/// The test-only setting that stops a study after this many units (see docs/testing.md).
pub(crate) const STOP_AFTER_UNITS: &str = "REUSESIM_TEST_STOP_AFTER_UNITS";

/// The settings of the small study the tests split.
pub(crate) const STUDY: &[&str] = &["--seeds", "2", "--iterations", "2000", "--keep-qrels"];

/// Every output file under `dir`, relative, except the judging's own records (the journal and
/// the shards, which hold units in the order they finished, and the lock file, which holds the
/// last holder's process id).
fn output_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root).unwrap().to_path_buf();
            let is_judging_record = ["shards", "units.journal", LOCK_FILE]
                .iter()
                .any(|name| relative == Path::new(name));
            if is_judging_record {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, files);
            } else {
                files.push(relative);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    files.sort();
    files
}

/// `text` with the number after each "elapsed" (within a few characters) masked.
fn mask_elapsed(text: &str) -> String {
    let mut parts = text.split("elapsed");
    let mut masked = parts.next().unwrap_or_default().to_string();
    for part in parts {
        masked.push_str("elapsed");
        let start = part
            .find(|c: char| c.is_ascii_digit())
            .filter(|&start| start < 16)
            .unwrap_or(part.len());
        let end = part[start..]
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map_or(part.len(), |length| start + length);
        masked.push_str(&part[..start]);
        masked.push('#');
        masked.push_str(&part[end..]);
    }
    masked
}

/// Asserts that two study folders hold the same files with the same bytes, the elapsed time
/// aside.
pub(crate) fn assert_same_outputs(expected: &Path, actual: &Path) {
    let files = output_files(expected);
    assert!(files.len() > 10, "{files:?}");
    assert_eq!(files, output_files(actual));
    for file in &files {
        let (a, b) = (
            std::fs::read(expected.join(file)).unwrap(),
            std::fs::read(actual.join(file)).unwrap(),
        );
        let is_timed = ["summary.json", "report.md", "report.html"]
            .iter()
            .any(|name| file == Path::new(name));
        if is_timed {
            let strip = |bytes: &[u8]| mask_elapsed(&String::from_utf8_lossy(bytes));
            assert!(strip(&a) == strip(&b), "{} differs", file.display());
        } else {
            assert!(a == b, "{} differs", file.display());
        }
    }
}

fn simulate(task: &Path, out: &Path, extra: &[&str]) {
    run_on_task("simulate", task, out, &[STUDY, extra].concat());
}

fn merge(out: &Path) -> std::process::Output {
    run(["merge".as_ref(), out.as_os_str()])
}

/// Runs a `merge` that must be refused: exit code 2, no `summary.json`; returns its stderr.
fn refused_merge(out: &Path) -> String {
    let output = merge(out);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        !out.join("summary.json").exists(),
        "a refused merge wrote summary.json"
    );
    stderr
}

#[test]
fn shards_merged_equal_one_process_for_1_3_and_7_shards() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let whole = dir.path().join("whole");
    simulate(&task, &whole, &[]);
    let summary = std::fs::read_to_string(whole.join("summary.json")).unwrap();
    assert!(summary.contains("\"fingerprint\""), "{summary}");
    for count in [1, 3, 7] {
        let out = dir.path().join(format!("split{count}"));
        for index in 0..count {
            let shard = format!("{index}/{count}");
            simulate(&task, &out, &["--shard", &shard, "--threads", "1"]);
            let folder = out.join("shards").join(format!("{index}-of-{count}"));
            assert!(folder.join("manifest.json").exists());
        }
        assert!(
            !out.join("summary.json").exists(),
            "a shard writes no statistics"
        );
        let merged = merge(&out);
        assert!(
            merged.status.success(),
            "{}",
            String::from_utf8_lossy(&merged.stderr)
        );
        assert_same_outputs(&whole, &out);
    }
}

#[test]
fn merge_refuses_missing_unfinished_and_mismatched_shards() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let out = dir.path().join("out");
    simulate(&task, &out, &["--shard", "0/2"]);
    let stderr = refused_merge(&out);
    assert!(stderr.contains("found none for 1/2"), "{stderr}");
    // Shard 1 made with other settings: named.
    let other = [&STUDY[..2], &["--iterations", "3000", "--keep-qrels"]].concat();
    run_on_task(
        "simulate",
        &task,
        &out,
        &[&other[..], &["--shard", "1/2"]].concat(),
    );
    let stderr = refused_merge(&out);
    assert!(
        stderr.contains("1-of-2/manifest.json")
            && stderr.contains("setting iterations (2000 vs 3000)"),
        "{stderr}"
    );
    // An unfinished shard: no manifest yet.
    simulate(&task, &out, &["--shard", "1/2"]);
    std::fs::remove_file(out.join("shards/1-of-2/manifest.json")).unwrap();
    let stderr = refused_merge(&out);
    assert!(stderr.contains("the shard is unfinished"), "{stderr}");
    // A journal changed after its shard finished.
    simulate(&task, &out, &["--shard", "1/2", "--resume"]);
    let journal = out.join("shards/1-of-2/units.journal");
    let mut bytes = std::fs::read(&journal).unwrap();
    let last = bytes.len() - 2;
    bytes[last] ^= 1;
    std::fs::write(&journal, bytes).unwrap();
    let stderr = refused_merge(&out);
    assert!(
        stderr.contains("units.journal: expected the journal its manifest describes"),
        "{stderr}"
    );
    // The inputs changed since: named.
    simulate(&task, &out, &["--shard", "1/2"]);
    let qrels = task.parent().unwrap().join("qrels");
    assert!(qrels.exists());
    let mut text = std::fs::read_to_string(&qrels).unwrap();
    text.push('\n');
    std::fs::write(&qrels, text).unwrap();
    let stderr = refused_merge(&out);
    assert!(stderr.contains("input qrels (other contents)"), "{stderr}");
}

/// How many records the journal at `path` holds (header included), by its framing.
pub(crate) fn journal_records(path: &Path) -> usize {
    let Ok(bytes) = std::fs::read(path) else {
        return 0;
    };
    let Some(mut pos) = bytes.iter().position(|&b| b == b'\n').map(|p| p + 1) else {
        return 0;
    };
    let mut records = 0;
    while let Some(head) = bytes.get(pos..pos + 8) {
        let length = u32::from_le_bytes(head[..4].try_into().unwrap()) as usize;
        if pos + 8 + length > bytes.len() {
            break;
        }
        pos += 8 + length;
        records += 1;
    }
    records
}

#[test]
fn a_killed_study_resumed_equals_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let whole = dir.path().join("whole");
    run_on_task("simulate", &task, &whole, STUDY);
    let killed = dir.path().join("killed");
    let args = |extra: &[&str]| simulate_args(&task, &killed, extra);
    // Stopped right after its third unit is journalled, as a kill would stop it.
    let output = reusesim()
        .args(args(&["--threads", "1"]))
        .env(STOP_AFTER_UNITS, "3")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!killed.join("summary.json").exists());
    assert_eq!(journal_records(&killed.join("units.journal")), 1 + 3);
    let output = reusesim().args(args(&["--resume"])).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("resumed 3 units from the journal"),
        "{stderr}"
    );
    assert_same_outputs(&whole, &killed);
    // Resuming with other settings is refused, naming the difference.
    let output = reusesim()
        .args(args(&["--resume", "--withhold", "none"]))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("setting withhold (\"none\" vs \"uniques\")"),
        "{stderr}"
    );
}

/// The arguments of `simulate` on `task` into `out`, with the study's settings and `extra`.
pub(crate) fn simulate_args(task: &Path, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "simulate".to_string(),
        "--task".into(),
        task.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ];
    args.extend(STUDY.iter().chain(extra).map(|arg| arg.to_string()));
    args
}

/// The message a run gets when `folder` is locked by this (the test) process.
fn in_use_message(folder: &Path) -> String {
    format!(
        "{} is in use by another reusesim process (pid {}, recorded in {}); wait for it to end, \
         or pass --wait-lock to wait for it",
        folder.display(),
        std::process::id(),
        folder.join(LOCK_FILE).display()
    )
}

#[test]
fn a_folder_in_use_is_refused_or_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let out = dir.path().join("study");
    // This process holds the folder, as a first `simulate --resume` still running would.
    let mut lock = FolderLock::open(&out).unwrap();
    let held = lock.hold(WhenLocked::Refuse, &|_| {}).unwrap();
    let output = reusesim()
        .args(simulate_args(&task, &out, &["--resume"]))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&in_use_message(&out)), "{stderr}");
    assert!(!out.join("units.journal").exists());

    // A shard's folder is locked alone: another shard of the same study is not refused.
    let shard_folder = out.join("shards").join("1-of-2");
    let mut shard_lock = FolderLock::open(&shard_folder).unwrap();
    let shard_held = shard_lock.hold(WhenLocked::Refuse, &|_| {}).unwrap();
    let output = reusesim()
        .args(simulate_args(&task, &out, &["--shard", "1/2"]))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&in_use_message(&shard_folder)), "{stderr}");
    drop(shard_held);
    simulate(&task, &out, &["--shard", "0/2"]);

    // With --wait-lock the run says whom it waits for, waits, and runs once the folder is free.
    let mut waiter = reusesim()
        .args(simulate_args(&task, &out, &["--wait-lock"]))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(waiter.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert_eq!(
        line,
        format!(
            "reusesim: waiting for process {}, which is using the output folder\n",
            std::process::id()
        )
    );
    assert!(!out.join("summary.json").exists());
    drop(held);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert!(waiter.wait().unwrap().success(), "{rest}");
    assert!(out.join("summary.json").exists());
    let recorded = std::fs::read_to_string(out.join(LOCK_FILE)).unwrap();
    assert_eq!(recorded, format!("{}\n", waiter.id()));
}
