//! The binary's side of each job: run it with the command's options on the requested threads,
//! show its progress, and print its result and warnings. The jobs themselves, their defaults
//! and their sequences of library calls, are the library's (`reusesim::jobs`).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use crate::cli::{
    AgreeArgs, AuditArgs, AuditFormat, BacktestArgs, CompareArgs, CompleteArgs, EvalArgs,
    IndexArgs, JudgeCommandArgs, MergeArgs, PlotArgs, SimulateArgs, SynthArgs, ThreadsArgs,
};
use reusesim::jobs;
use reusesim::jobs::simulate::{SimulateOptions, StudyReport};
use reusesim::sim::lock::{FolderAccess, WhenLocked};
use reusesim::Warning;

/// Prints a warning on stderr.
pub fn warn(warning: &Warning) {
    eprintln!("reusesim: warning: {warning}");
}

impl ThreadsArgs {
    /// Runs `work` on a thread pool of the requested size (all cores by default).
    pub fn run<T: Send>(self, work: impl FnOnce() -> T + Send) -> Result<T> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.unwrap_or(0))
            .build()
            .context("starting worker threads")?;
        Ok(pool.install(work))
    }

    /// Runs a job without countable steps as [`run`](Self::run) does, behind a spinner showing
    /// `message`.
    pub fn run_job<T: Send>(
        self,
        message: &str,
        job: impl FnOnce() -> reusesim::Result<T> + Send,
    ) -> Result<T> {
        let spinner = spinner(message);
        let outcome = self.run(job)??;
        spinner.finish_and_clear();
        Ok(outcome)
    }
}

/// `reusesim eval`.
pub fn eval(args: EvalArgs) -> Result<()> {
    use reusesim::eval::format;
    let options = args.options();
    let plan = options.plan(jobs::eval::Listing::TrecEval)?;
    let qrels = reusesim::io::qrels::read_qrels(&args.qrels).context("reading the qrels")?;
    let runs = reusesim::io::run::read_runs(&args.runs).context("reading the runs")?;
    let evaluated = plan.evaluate(&qrels, &runs)?;
    let selection = &evaluated.selection;
    evaluated
        .evaluations
        .iter()
        .flat_map(|e| &e.warnings)
        .for_each(warn);
    let layout = format::Layout {
        measures: &selection.measures,
        per_topic: args.per_topic,
        summary: !args.no_summary,
        // trec_eval reads one run; with several, their blocks need the run's name to be told apart.
        runid: selection.runid || runs.len() > 1,
        relstring: (selection.relstring.as_ref()).map(|relstring| relstring.name.as_str()),
        zscored: options.zscores.is_some(),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    format::write_evaluations(&mut out, args.format, &layout, &evaluated.evaluations)?;
    out.flush()?;
    Ok(())
}

/// `reusesim compare`.
pub fn compare(args: CompareArgs) -> Result<()> {
    let plan = args.options().plan()?;
    let qrels = reusesim::io::qrels::read_qrels(&args.qrels).context("reading the qrels")?;
    let runs = reusesim::io::run::read_runs(&args.runs).context("reading the runs")?;
    let compared = args.threads.run(|| plan.compare(&qrels, &runs))??;
    compared.warnings.iter().for_each(warn);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    reusesim::report::compare::write_comparison(&mut out, args.format, &compared.comparison)?;
    out.flush()?;
    Ok(())
}

/// `reusesim agree`.
pub fn agree(args: AgreeArgs) -> Result<()> {
    let plan = args.options().plan()?;
    let qrels_a = plan.read_qrels(&args.qrels_a).context("reading qrels A")?;
    let qrels_b = plan.read_qrels(&args.qrels_b).context("reading qrels B")?;
    let runs = match args.runs.is_empty() {
        true => Vec::new(),
        false => reusesim::io::run::read_runs(&args.runs).context("reading the runs")?,
    };
    let names = [
        args.qrels_a.display().to_string(),
        args.qrels_b.display().to_string(),
    ];
    let qrels = [(names[0].as_str(), &qrels_a), (names[1].as_str(), &qrels_b)];
    let agreed = args.threads.run(|| plan.agree(qrels, &runs))??;
    agreed.warnings.iter().for_each(warn);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    reusesim::report::agree::write_agreement(&mut out, args.format, &agreed.agreement)?;
    out.flush()?;
    Ok(())
}

/// `reusesim measures`.
pub fn measures() -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    writeln!(out, "trec_eval\tir_measures\tcutoff\tdescription")?;
    for info in reusesim::eval::registry::FAMILIES {
        let trec = match (info.trec_name, info.trec_cut_name) {
            ("", "") => "-".to_string(),
            ("", cut) => format!("{cut}_k"),
            (bare, "") => bare.to_string(),
            (bare, cut) if bare == cut => format!("{bare}[_k]"),
            (bare, cut) => format!("{bare}, {cut}_k"),
        };
        let cutoff = format!("{:?}", info.cutoff).to_lowercase();
        writeln!(
            out,
            "{trec}\t{}\t{cutoff}\t{}",
            info.ir_name, info.description
        )?;
    }
    Ok(())
}

/// `reusesim judge`.
pub fn judge(args: JudgeCommandArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let task = args.task.open()?;
    let judging = args
        .threads
        .run_job(&format!("judging {}", task.manifest.name), || {
            jobs::judge::judge(&task, &args.options(), &|_, _, _| {})
        })?;
    if judging.pools_over_budget > 0 {
        eprintln!(
            "reusesim: warning: on {} topic(s) the pool alone exceeds the budget; the whole \
             pool is kept",
            judging.pools_over_budget
        );
    }
    reusesim::io::atomic::write_atomically(&args.out.join("qrels"), |out| {
        judging.qrels.write_trec(out)
    })?;
    reusesim::io::atomic::write_atomically(&args.out.join("trace.tsv"), |out| {
        out.write_all(&judging.trace)
    })?;
    let judged = format!(
        "judged {} topics, {} judgments ({} documents withheld), {} retrains",
        judging.topics,
        judging.qrels.len(),
        judging.withheld,
        judging.retrains
    );
    print_wrote(&judged, started, &args.out);
    Ok(())
}

/// `reusesim complete`.
pub fn complete(args: CompleteArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let task = args.task.open()?;
    let completed = (args.threads)
        .run_job(&format!("completing {}", task.manifest.name), || {
            jobs::complete::complete(&task, &args.options())
        })?;
    reusesim::io::atomic::write_atomically(&args.out, |out| completed.qrels.write_trec(out))?;
    let done = format!(
        "completed {} topics: {} official judgments, {} drawn ({} relevant)",
        completed.qrels.topics.len(),
        completed.official,
        completed.drawn,
        completed.drawn_relevant
    );
    print_wrote(&done, started, &args.out);
    Ok(())
}

/// Tells what a command did, how long it took since `started`, and what it wrote.
fn print_wrote(done: &str, started: std::time::Instant, out: &Path) {
    eprintln!(
        "reusesim: {done} in {:.1} s; wrote {}",
        started.elapsed().as_secs_f64(),
        out.display()
    );
}

/// `reusesim index`.
pub fn index(args: IndexArgs) -> Result<()> {
    use reusesim::features::store::BuildOutcome;
    let started = std::time::Instant::now();
    let spinner = spinner(&format!("indexing into {}", args.out.display()));
    let show = |stage: &str, done: usize, total: usize| {
        spinner.set_message(match total {
            0 => format!("{stage}: {done}"),
            _ => format!("{stage}: {done} of {total}"),
        });
    };
    let indexed = args
        .threads
        .run(|| jobs::index::index(&args.corpus, &args.out, &args.options(), &show))??;
    spinner.finish_and_clear();
    let header = indexed.store.header();
    let corpus_bytes: u64 = header.corpus.iter().map(|file| file.bytes).sum();
    let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
    match indexed.outcome {
        BuildOutcome::UpToDate => eprintln!(
            "reusesim: {} is up to date: built from the same {} corpus files ({:.1} MiB), \
             read the same way",
            args.out.display(),
            header.corpus.len(),
            mib(corpus_bytes)
        ),
        BuildOutcome::Built => eprintln!(
            "reusesim: indexed {} documents ({} features, {} vector entries) from {} corpus \
             files ({:.1} MiB as stored) in {:.1} s; wrote {} ({:.1} MiB)",
            header.document_count,
            header.feature_count,
            header.entry_count,
            header.corpus.len(),
            mib(corpus_bytes),
            started.elapsed().as_secs_f64(),
            args.out.display(),
            mib(indexed.store_bytes)
        ),
    }
    Ok(())
}

/// A progress bar on stderr when it is a terminal; nothing otherwise (quiet in CI logs).
fn progress_bar(message: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} units, {eta} left")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    bar.set_message(message.to_string());
    bar
}

/// A spinner on stderr while a job without countable steps runs, when stderr is a terminal.
fn spinner(message: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let spinner = indicatif::ProgressBar::new_spinner().with_message(message.to_string());
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    spinner
}

/// The exit status of a study stopped by `REUSESIM_TEST_STOP_AFTER_UNITS`.
const STOPPED_FOR_TEST_EXIT_CODE: i32 = 3;

/// `reusesim simulate`.
pub fn simulate(args: SimulateArgs) -> Result<()> {
    let options = args.options();
    study(&args, &options)
}

/// `reusesim` without a subcommand: the main job on the embedded task.
pub fn main_job() -> Result<()> {
    study(&SimulateArgs::default(), &jobs::simulate::main_job())
}

/// A study, or one shard of it, with the folder arguments of `args` and `options`.
fn study(args: &SimulateArgs, options: &SimulateOptions) -> Result<()> {
    let task = args.task.open()?;
    let out = (args.out.out.clone()).unwrap_or_else(|| jobs::simulate::default_out(&task));
    let bar = progress_bar(&format!("simulating {}", task.manifest.name));
    let stop_after = reusesim::sim::runner::stop_after_units();
    let progress = |_: &str, done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        if stop_after == Some(done) {
            // A test's stand-in for a kill: the unit is journalled, nothing else is written.
            std::process::exit(STOPPED_FOR_TEST_EXIT_CODE);
        }
    };
    let on_wait = |holder: &str| {
        eprintln!("reusesim: waiting for process {holder}, which is using the output folder");
    };
    let access = FolderAccess {
        resume: args.resume,
        when_locked: if args.wait_lock {
            WhenLocked::Wait
        } else {
            WhenLocked::Refuse
        },
        on_wait: &on_wait,
    };
    if let Some(shard) = args.shard {
        let report = args.threads.run(|| {
            jobs::simulate::simulate_shard(&task, options, &out, shard, access, &progress)
        })??;
        bar.finish_and_clear();
        report.warnings.iter().for_each(warn);
        eprintln!(
            "reusesim: shard {}: {} units ({} from the journal), {} retrains; wrote {}; run \
             `reusesim merge {}` once all {} shards are done",
            report.shard,
            report.units,
            report.resumed,
            report.retrains,
            report.folder.display(),
            out.display(),
            report.shard.count
        );
        return Ok(());
    }
    if options.judge.assessor.choices().len() > 1 {
        let report = (args.threads).run(|| {
            jobs::simulate::simulate_assessors(&task, options, &out, access, &progress)
        })??;
        bar.finish_and_clear();
        for (dir, study) in &report.studies {
            study.warnings.iter().for_each(warn);
            eprintln!("reusesim: assessor folder {}:", dir.display());
            print_study(study, dir);
        }
        eprintln!(
            "reusesim: {} assessors side by side in {} ({} figure files)",
            report.studies.len(),
            out.display(),
            report.figures.len()
        );
        return Ok(());
    }
    let report = args
        .threads
        .run(|| jobs::simulate::simulate(&task, options, &out, access, &progress))??;
    bar.finish_and_clear();
    report.warnings.iter().for_each(warn);
    if args.resume {
        eprintln!(
            "reusesim: resumed {} units from the journal",
            report.resumed
        );
    }
    print_study(&report, &out);
    Ok(())
}

/// `reusesim merge`.
pub fn merge(args: MergeArgs) -> Result<()> {
    let report = args.threads.run(|| {
        jobs::simulate::merge(
            &args.dir,
            args.task.as_deref(),
            args.feature_store.as_deref(),
        )
    })??;
    print_study(&report, &args.dir);
    Ok(())
}

/// The closing lines of a study: per measure the paired statistics, which isolate the
/// leave-out effect, with the control's distance from the official ranking (the noise floor),
/// then the LOU ranking; and the work done.
fn print_study(report: &StudyReport, out: &Path) {
    let summary = &report.summary;
    let mean = |spread: &Option<reusesim::stats::Spread>| spread.as_ref().map(|s| s.mean);
    let max = |spread: &Option<reusesim::stats::Spread>| spread.as_ref().map(|s| s.max);
    let shown = |value: Option<f64>, decimals: usize| {
        value.map_or_else(|| "n/a".to_string(), |v| format!("{v:.decimals$}"))
    };
    for (name, figures) in &summary.measures {
        let paired = &figures.paired;
        eprintln!(
            "reusesim: {name}: paired tau_b {}; held-out runs' paired rank change mean {}, max \
             {}; control tau_b vs official {} (noise floor)",
            shown(mean(&paired.tau_b), 3),
            shown(mean(&paired.rank_change), 2),
            shown(max(&paired.rank_change), 1),
            shown(mean(&figures.control.tau_b), 3),
        );
    }
    for (name, figures) in &summary.measures {
        eprintln!(
            "reusesim: {name}: LOU ranking vs official tau_b {}, max drop {}",
            shown(mean(&figures.lou.tau_b), 3),
            shown(max(&figures.lou.max_drop), 1),
        );
    }
    eprintln!(
        "reusesim: {} trials, {} distinct units, {} retrains in {:.1} s; wrote {} and {} figure \
         files",
        summary.simulations.trials,
        summary.simulations.distinct_units,
        summary.simulations.retrains,
        summary.elapsed_seconds,
        out.display(),
        report.figures.len()
    );
}

/// `reusesim plot`.
pub fn plot(args: PlotArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let (written, out) = jobs::plot::plot(&args.results, &args.options())?;
    eprintln!(
        "reusesim: wrote {} files in {:.2} s into {}",
        written.len(),
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

/// `reusesim synth`.
pub fn synth(args: SynthArgs) -> Result<()> {
    if args.corpus_only {
        return synth_corpus(&args);
    }
    let started = std::time::Instant::now();
    let options = args.options();
    let message = format!("generating and judging {}", options.preset.params().name);
    let written = (args.threads).run_job(&message, || jobs::synth::synth(&options, &args.out))?;
    let report = &written.report;
    let found: usize = report.relevant_found.iter().sum();
    let total: usize = report.relevant_total.iter().sum();
    eprintln!(
        "reusesim: wrote task {} to {} in {:.1} s: {} judgments over {} topics, {found} of \
         {total} truth-relevant documents judged ({} retrains); {} documents labelled in {}",
        written.name,
        written.folder.display(),
        started.elapsed().as_secs_f64(),
        report.judgments.iter().sum::<usize>(),
        report.judgments.len(),
        report.retrains,
        report.labelled,
        jobs::synth::LABELS_FILE
    );
    Ok(())
}

/// `reusesim synth --corpus-only`: the preset's corpus alone, extended to `--documents`.
fn synth_corpus(args: &SynthArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let params = args.preset.params();
    let bar = progress_bar(&format!("writing the corpus of {}", params.name));
    bar.set_length(args.documents.unwrap_or(params.document_count) as u64);
    let progress = |_: &str, written: usize, _| bar.set_position(written as u64);
    let documents = args.threads.run(|| {
        jobs::synth::synth_corpus(args.preset, args.seed, args.documents, &args.out, &progress)
    })??;
    bar.finish_and_clear();
    eprintln!(
        "reusesim: wrote {documents} documents ({} of {}, then background) to {} in {:.1} s",
        params.document_count,
        params.name,
        args.out.join("corpus.tsv.gz").display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `reusesim audit`: every input is read and checked, and the audit done, before any file is
/// written.
pub fn audit(args: AuditArgs) -> Result<()> {
    use reusesim::audit;
    let task = args.task.open()?;
    refuse_run_tags(&args.run, &task)?;
    let runs = reusesim::io::run::read_runs(&args.run_files()?).context("reading the runs")?;
    let tags: Vec<&str> = runs.iter().map(|run| run.tag.as_str()).collect();
    let (report, warnings) = (args.threads)
        .run_job(&format!("auditing {}", tags.join(", ")), || {
            jobs::audit::audit(task, runs, &args.options())
        })?;
    warnings.iter().for_each(warn);
    if let Some(judged) = &report.judged {
        note_judged(judged);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match args.format {
        AuditFormat::Md => audit::write_markdown(&mut out, &report)?,
        AuditFormat::Html => audit::write_html(&mut out, &report)?,
        AuditFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(())
}

/// A `--run` that names no file but a task run's tag is refused with that run's file: `--run`
/// takes run files, and a bare "no such file" would not say why.
fn refuse_run_tags(paths: &[std::path::PathBuf], task: &reusesim::io::task::Task) -> Result<()> {
    for path in paths.iter().filter(|path| !path.exists()) {
        let named = path.to_string_lossy();
        if let Some(run) = task.runs.iter().find(|run| run.tag == named) {
            anyhow::bail!(
                "--run {named}: no such file; --run takes a run file, and {named} is the tag of \
                 the task's run read from {}",
                run.path.display()
            );
        }
    }
    Ok(())
}

/// Notes on stderr what the returned judgments left out and what they held beyond the list.
fn note_judged(judged: &reusesim::audit::JudgedComparison) {
    let named = |docs: &[reusesim::audit::changes::DocRef]| {
        docs.iter()
            .map(|d| format!("{}/{}", d.topic, d.docid))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if !judged.listed_unjudged.is_empty() {
        eprintln!(
            "reusesim: note: {} listed documents have no returned grade: {}",
            judged.listed_unjudged.len(),
            named(&judged.listed_unjudged)
        );
    }
    if !judged.judged_unlisted.is_empty() {
        eprintln!(
            "reusesim: note: {} returned grades are of documents not on the list; they are used: {}",
            judged.judged_unlisted.len(),
            named(&judged.judged_unlisted)
        );
    }
}

/// `reusesim backtest`.
pub fn backtest(args: BacktestArgs) -> Result<()> {
    let task = args.task.open()?;
    let options = args.options();
    let out =
        (args.out.out.clone()).unwrap_or_else(|| jobs::backtest::default_out(&task, &options));
    let bar = progress_bar(&format!("backtesting the audit on {}", task.manifest.name));
    let progress = |what: &str, done: usize, total: usize| {
        bar.set_message(format!("backtest of {}: {what}", task.manifest.name));
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let (summary, written) = args
        .threads
        .run(|| jobs::backtest::backtest(&task, &options, &out, &progress))??;
    bar.finish_and_clear();
    print!("{}", reusesim::backtest::files::summary_table(&summary));
    eprintln!(
        "reusesim: backtest of {} runs from {} teams in {:.1} s; wrote {} files to {}",
        summary.runs,
        summary.teams,
        summary.elapsed_seconds,
        written.len(),
        out.display()
    );
    Ok(())
}
