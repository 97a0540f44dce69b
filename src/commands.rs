//! The binary's side of each job: turn arguments into library calls, print results and
//! warnings. The library never prints.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::cli::{
    AuditArgs, AuditFormat, BacktestArgs, CompleteArgs, EvalArgs, IndexArgs, JudgeCommandArgs,
    MergeArgs, PlotArgs, SimulateArgs, SynthArgs,
};
use reusesim::collection::{CandidateSource, Collection};
use reusesim::eval::{self, format, Evaluator};
use reusesim::io::task::Task;
use reusesim::judge::cal;
use reusesim::judge::settings::JudgeSettings;
use reusesim::sim::analysis::files::{to_qrels, write_traces};
use reusesim::sim::assessor::StudyAssessor;
use reusesim::sim::lock::{FolderAccess, WhenLocked};
use reusesim::sim::settings::AssessorChoice;
use reusesim::Warning;

/// Prints a warning on stderr.
pub fn warn(warning: &Warning) {
    eprintln!("reusesim: warning: {warning}");
}

/// `reusesim eval`.
pub fn eval(args: EvalArgs) -> Result<()> {
    let selection = args.selection()?;
    let options = args.options(&selection)?;
    let qrels = reusesim::io::qrels::read_qrels(&args.qrels).context("reading the qrels")?;
    let runs = reusesim::io::run::read_runs(&args.runs).context("reading the runs")?;
    let zscores = args
        .zscores
        .as_deref()
        .map(reusesim::io::zscores::read_zscores)
        .transpose()
        .context("reading the z-score file")?;
    format::check_distinct_keys(&runs, args.per_topic)?;
    let evaluator = Evaluator::new(&qrels, options);
    let mut evaluations = eval::evaluate_runs(&evaluator, &runs);
    evaluations.iter().flat_map(|e| &e.warnings).for_each(warn);
    if let Some(zscores) = &zscores {
        for evaluation in &mut evaluations {
            *evaluation = eval::zscores::standardize(evaluation, &selection.measures, zscores);
        }
    }
    let layout = format::Layout {
        measures: &selection.measures,
        per_topic: args.per_topic,
        summary: !args.no_summary,
        // trec_eval reads one run; with several, their blocks need the run's name to be told apart.
        runid: selection.runid || runs.len() > 1,
        relstring: selection
            .relstring
            .as_ref()
            .map(|relstring| relstring.name.as_str()),
        zscored: zscores.is_some(),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    format::write_evaluations(&mut out, args.format, &layout, &evaluations)?;
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

/// The embedded default task, relative to the working folder or, failing that, to the source
/// tree the binary was built from.
pub fn default_task_path() -> PathBuf {
    let relative = Path::new("runs/synth-passage/task.toml");
    if relative.exists() {
        relative.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
    }
}

/// Opens the task named on the command line, or the embedded default one.
pub fn open_task(task: Option<&Path>, feature_store: Option<&Path>) -> Result<Task> {
    let path = task.map_or_else(default_task_path, Path::to_path_buf);
    let mut task = Task::open(&path).with_context(|| format!("loading task {}", path.display()))?;
    if let Some(store) = feature_store {
        task.manifest.feature_store = Some(store.to_path_buf());
    }
    Ok(task)
}

/// Refuses, naming the file, a task whose qrels the relevance model cannot learn from (see
/// [`reusesim::relevance_model::calibration::require_non_relevant`]), before any work.
fn require_model_qrels(task: &Task) -> Result<()> {
    let grades = (task.qrels.topics.values()).flat_map(|topic| topic.grades());
    reusesim::relevance_model::calibration::require_non_relevant(
        grades,
        task.manifest.relevance_level,
    )
    .with_context(|| format!("{}", task.manifest.qrels.display()))
}

/// Runs `work` on a thread pool of the requested size (all cores by default).
pub fn with_threads<T: Send>(threads: Option<usize>, work: impl FnOnce() -> T + Send) -> Result<T> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .context("starting worker threads")?;
    Ok(pool.install(work))
}

/// `reusesim judge`.
pub fn judge(args: JudgeCommandArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let task = open_task(args.task.as_deref(), args.feature_store.as_deref())?;
    let excluded_runs = reusesim::judge::excluded_runs(&task, &args.leave_out)?;
    let (settings, use_text) = args.judge.settings(&task, args.seed)?;
    if args.judge.assessor == AssessorChoice::Completed {
        require_model_qrels(&task)?;
    }
    let budget = args.judge.budget;
    let spinner = spinner(&format!("judging {}", task.manifest.name));
    let (collection, judgings) = with_threads(args.judge.threads, || -> Result<_> {
        let collection = Collection::prepare(&task, &task.qrels, use_text)?;
        let assessor = StudyAssessor::prepare(
            &collection,
            &args.judge.assessor,
            settings.pool_depth,
            &[args.seed],
        )
        .context("preparing the assessor")?;
        let judgings = cal::judge_trial(
            &collection,
            &excluded_runs,
            |topic| budget.unwrap_or(topic.grades.len()),
            &settings,
            &assessor.for_seed(&collection, args.seed),
        )?;
        Ok((collection, judgings))
    })??;
    spinner.finish_and_clear();
    let over_budget = judgings.iter().filter(|j| j.is_pool_over_budget).count();
    if over_budget > 0 {
        eprintln!(
            "reusesim: warning: on {over_budget} topic(s) the pool alone exceeds the budget; \
             the whole pool is kept"
        );
    }
    let qrels = to_qrels(&collection, &judgings);
    reusesim::io::atomic::write_atomically(&args.out.join("qrels"), |out| qrels.write_trec(out))?;
    let with_sources = !args.judge.assessor.is_official();
    reusesim::io::atomic::write_atomically(&args.out.join("trace.tsv"), |out| {
        write_traces(out, &collection, &judgings, with_sources)
    })?;
    let retrains: usize = judgings.iter().map(|j| j.retrains).sum();
    let withheld: usize = judgings.iter().map(|j| j.withheld).sum();
    eprintln!(
        "reusesim: judged {} topics, {} judgments ({withheld} documents withheld), {retrains} \
         retrains in {:.1} s; wrote {}",
        judgings.len(),
        qrels.len(),
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    Ok(())
}

/// `reusesim complete`.
pub fn complete(args: CompleteArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let task = open_task(args.task.as_deref(), args.feature_store.as_deref())?;
    let use_text =
        reusesim::judge::resolve_features(&task, args.features, CandidateSource::Retrieved)?;
    let pool_depth = args.pool_depth.unwrap_or(task.pool_depth);
    require_model_qrels(&task)?;
    let spinner = spinner(&format!("completing {}", task.manifest.name));
    let completed = with_threads(args.threads, || {
        let collection = Collection::prepare(&task, &task.qrels, use_text)?;
        reusesim::sim::assessor::completed_qrels(&collection, pool_depth, args.seed)
    })??;
    spinner.finish_and_clear();
    reusesim::io::atomic::write_atomically(&args.out, |out| completed.qrels.write_trec(out))?;
    eprintln!(
        "reusesim: completed {} topics: {} official judgments, {} drawn ({} relevant) in {:.1} \
         s; wrote {}",
        completed.qrels.topics.len(),
        completed.official,
        completed.drawn,
        completed.drawn_relevant,
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    Ok(())
}

/// `reusesim index`.
pub fn index(args: IndexArgs) -> Result<()> {
    use reusesim::features::store::{build_store, BuildOutcome, BuildProgress, FeatureStore};
    let started = std::time::Instant::now();
    let layout = reusesim::io::corpus::settings::CorpusSettings {
        format: args.corpus_format,
        id_fields: args.corpus_id_fields,
        text_fields: args.corpus_text_fields,
    }
    .layout(true)
    .map_err(|(setting, message)| {
        anyhow::anyhow!("--{}: {message}", setting.name().replace('_', "-"))
    })?;
    let spinner = spinner(&format!("indexing into {}", args.out.display()));
    let show = |progress: BuildProgress| {
        spinner.set_message(match progress {
            BuildProgress::Reading { documents } => format!("reading: {documents} documents"),
            BuildProgress::Weighting { documents, of } => {
                format!("weighting: {documents} of {of} documents")
            }
            BuildProgress::Indexing { regions, of } => {
                format!("indexing ids: region {regions} of {of}")
            }
        });
    };
    let outcome = with_threads(args.threads, || {
        build_store(&args.corpus, &layout, &args.out, &show)
    })?
    .with_context(|| format!("indexing into {}", args.out.display()))?;
    spinner.finish_and_clear();
    let store = FeatureStore::open(&args.out)?;
    let header = store.header();
    let corpus_bytes: u64 = header.corpus.iter().map(|file| file.bytes).sum();
    let store_bytes = std::fs::metadata(&args.out)
        .with_context(|| format!("reading {}", args.out.display()))?
        .len();
    let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
    match outcome {
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
            mib(store_bytes)
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

/// `reusesim simulate`, and `reusesim` without a subcommand.
pub fn simulate(args: SimulateArgs) -> Result<()> {
    let task = open_task(args.task.as_deref(), args.feature_store.as_deref())?;
    let (settings, use_text) = args.settings(&task)?;
    if settings.assessor == AssessorChoice::Completed {
        require_model_qrels(&task)?;
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&task.manifest.name));
    let bar = progress_bar(&format!("simulating {}", task.manifest.name));
    let stop_after = reusesim::sim::runner::stop_after_units();
    let progress = |done: usize, total: usize| {
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
        let report = with_threads(args.judge.threads, || {
            reusesim::sim::runner::judge_shard(
                &task, &settings, use_text, &out, shard, access, &progress,
            )
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
    let report = with_threads(args.judge.threads, || {
        reusesim::report::simulate(&task, &settings, use_text, &out, access, &progress)
    })??;
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
    let report = with_threads(args.threads, || {
        reusesim::report::merge(
            &args.dir,
            args.task.as_deref(),
            args.feature_store.as_deref(),
        )
    })?
    .with_context(|| format!("merging the shards of {}", args.dir.display()))?;
    print_study(&report, &args.dir);
    Ok(())
}

/// The closing lines of a study: per measure the paired statistics, which isolate the
/// leave-out effect, with the control's distance from the official ranking (the noise floor),
/// then the LOU ranking; and the work done.
fn print_study(report: &reusesim::report::StudyReport, out: &Path) {
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
    let written = match args.format.figures() {
        Some(format) => {
            let out = args
                .out
                .clone()
                .unwrap_or_else(|| args.results.join("figures"));
            reusesim::report::plots::plot_results(&args.results, &out, format)
                .map(|written| (written, out))
        }
        None => {
            let out = args.out.clone().unwrap_or_else(|| args.results.clone());
            reusesim::report::write_results_page(&args.results, &out).map(|page| (vec![page], out))
        }
    };
    let (written, out) = written.with_context(|| format!("plotting {}", args.results.display()))?;
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
    use reusesim::collection::CandidateSource;
    use reusesim::synth::write::TaskLayout;
    if args.corpus_only {
        return synth_corpus(&args);
    }
    let started = std::time::Instant::now();
    let name = args.preset.params().name.to_string();
    let (layout, task_dir) = if args.embedded {
        (
            TaskLayout::embedded(&name),
            args.out.join("runs").join(&name),
        )
    } else {
        (TaskLayout::standalone(&name), args.out.clone())
    };
    let judge = JudgeSettings {
        seed: args.seed,
        iterations: args.iterations,
        candidates: CandidateSource::Corpus,
        ..JudgeSettings::hical(args.preset.params().pool_depth)
    }
    .check()?;
    let spinner = spinner(&format!("generating and judging {name}"));
    let report = with_threads(args.threads, || {
        reusesim::synth::build_task(args.preset, args.seed, &task_dir, &layout, &judge)
    })??;
    spinner.finish_and_clear();
    let found: usize = report.relevant_found.iter().sum();
    let total: usize = report.relevant_total.iter().sum();
    eprintln!(
        "reusesim: wrote task {name} to {} in {:.1} s: {} judgments over {} topics, {found} of \
         {total} truth-relevant documents judged ({} retrains)",
        task_dir.display(),
        started.elapsed().as_secs_f64(),
        report.judgments.iter().sum::<usize>(),
        report.judgments.len(),
        report.retrains
    );
    Ok(())
}

/// `reusesim synth --corpus-only`: the preset's corpus alone, extended to `--documents`.
fn synth_corpus(args: &SynthArgs) -> Result<()> {
    use reusesim::synth::{write_corpus_file, SynthCorpus};
    let started = std::time::Instant::now();
    let params = args.preset.params();
    let documents = args.documents.unwrap_or(params.document_count);
    let corpus = SynthCorpus::generate(args.preset, args.seed, documents).context("--documents")?;
    let path = args.out.join("corpus.tsv.gz");
    let bar = progress_bar(&format!("writing the corpus of {}", params.name));
    bar.set_length(documents as u64);
    let progress = |written: usize| bar.set_position(written as u64);
    with_threads(args.threads, || {
        write_corpus_file(&path, &corpus, &progress)
    })??;
    bar.finish_and_clear();
    eprintln!(
        "reusesim: wrote {documents} documents ({} of {}, then background) to {} in {:.1} s",
        params.document_count,
        params.name,
        path.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `reusesim audit`: every input is read and checked, and the audit done, before any file is
/// written.
pub fn audit(args: AuditArgs) -> Result<()> {
    use reusesim::audit;
    let task = open_task(args.task.as_deref(), args.feature_store.as_deref())?;
    let runs = reusesim::io::run::read_runs(&args.run_files()?).context("reading the runs")?;
    let settings = args.settings()?;
    require_model_qrels(&task)?;
    let judged = args
        .judged
        .as_deref()
        .map(audit::read_judged)
        .transpose()
        .context("reading the returned judgments")?;
    let tags: Vec<&str> = runs.iter().map(|run| run.tag.as_str()).collect();
    let spinner = spinner(&format!("auditing {}", tags.join(", ")));
    let audited_task = task.clone();
    let (report, warnings) = with_threads(args.threads, || match &judged {
        Some(judged) => audit::audit_with_judgments(
            audited_task,
            runs,
            &settings,
            (judged, args.override_official),
        ),
        None => audit::audit_runs(audited_task, runs, &settings),
    })??;
    spinner.finish_and_clear();
    warnings.iter().for_each(warn);
    if let Some(judged) = &report.judged {
        note_judged(judged);
    }
    let texts = match &args.sheet {
        Some(_) => {
            let docids = report.to_judge.iter().map(|e| e.docid.as_str()).collect();
            audit::DocumentTexts::read(&task, &docids).context("reading the documents' texts")?
        }
        None => audit::DocumentTexts::default(),
    };
    if let Some(path) = &args.emit_pool {
        reusesim::io::atomic::write_atomically(path, |out| {
            audit::write_pool(out, &report.to_judge)
        })?;
    }
    if let Some(path) = &args.sheet {
        let is_csv = audit::judged::is_csv(path);
        reusesim::io::atomic::write_atomically(path, |out| {
            audit::write_sheet(out, &report, &task, &texts, is_csv)
        })?;
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
    let started = std::time::Instant::now();
    let task = open_task(args.task.as_deref(), args.feature_store.as_deref())?;
    let settings = args.settings(&task)?;
    let out = args.out.clone().unwrap_or_else(|| {
        Path::new("results")
            .join(&task.manifest.name)
            .join(format!("backtest-{}", settings.world))
    });
    let bar = progress_bar(&format!("backtesting the audit on {}", task.manifest.name));
    let progress = |what: &str, done: usize, total: usize| {
        bar.set_message(format!("backtest of {}: {what}", task.manifest.name));
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let outcome = with_threads(args.threads, || {
        reusesim::backtest::run_backtest(&task, &settings, &progress)
    })??;
    bar.finish_and_clear();
    let summary = reusesim::backtest::BacktestSummary::new(
        &outcome,
        &settings.rules,
        started.elapsed().as_secs_f64(),
    );
    let written = reusesim::backtest::files::write_outputs(&out, &outcome, &summary, args.format)?;
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
