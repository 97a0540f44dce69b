//! The kept judgings of `--keep-qrels`: each trial's simulated qrels and its trace.

use crate::collection::Collection;
use crate::io::qrels::Qrels;
use crate::judge::cal::TopicJudging;

/// The simulated qrels of a judged trial.
pub fn to_qrels(collection: &Collection, judgings: &[TopicJudging]) -> Qrels {
    let mut qrels = Qrels::default();
    for judging in judgings {
        let topic = qrels
            .topics
            .entry(collection.topics[judging.topic].id.as_str().into())
            .or_default();
        for &(doc, grade) in &judging.judgments {
            topic.insert(collection.docs.name(doc), grade);
        }
    }
    qrels
}

/// Writes traces as TSV: `topic step batch docid score grade official` (score `NaN` for pool
/// documents, official `1` or `0`).
///
/// # Errors
/// When writing fails.
pub fn write_traces(
    out: &mut dyn std::io::Write,
    collection: &Collection,
    judgings: &[TopicJudging],
) -> std::io::Result<()> {
    writeln!(out, "topic\tstep\tbatch\tdocid\tscore\tgrade\tofficial")?;
    for judging in judgings {
        let topic = &collection.topics[judging.topic].id;
        for step in &judging.trace {
            writeln!(
                out,
                "{topic}\t{}\t{}\t{}\t{}\t{}\t{}",
                step.step,
                step.batch,
                collection.docs.name(step.doc),
                step.score,
                step.grade,
                u8::from(step.is_official)
            )?;
        }
    }
    Ok(())
}
