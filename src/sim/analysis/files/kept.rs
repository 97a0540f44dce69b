//! The kept judgings of `--keep-qrels`: each trial's simulated qrels and its trace.

use serde::{Deserialize, Serialize, Serializer};

use super::table::write_records;
use crate::base::Grade;
use crate::collection::Collection;
use crate::io::qrels::Qrels;
use crate::judge::assessor::{GradeSource, Grader};
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
            topic.insert(collection.doc_name(doc), grade);
        }
    }
    qrels
}

/// A line of a trace file: one judgment, in judging order.
#[derive(Serialize, Deserialize)]
struct TraceLine {
    topic: String,
    step: u32,
    batch: u32,
    docid: String,
    /// The model's score when it picked the document, as `f32` prints (`NaN` for the pool).
    #[serde(serialize_with = "score_as_printed")]
    score: f32,
    grade: Grade,
    /// `1` when the official qrels judged the document, else `0`.
    official: u8,
    /// Where the grade came from (`official`, `file`, `drawn` or `presumed`): written only
    /// with an assessor other than the official one.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<GradeSource>,
    /// Which assessor graded the judgment (`official` for the depth pool, `file` after it):
    /// written only with a hybrid assessor.
    #[serde(skip_serializing_if = "Option::is_none")]
    assessor: Option<Grader>,
}

/// The columns a trace has beyond the judging's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TraceColumns {
    /// `source`: where each grade came from (an assessor other than the official one).
    pub sources: bool,
    /// `assessor`: which assessor graded each judgment (a hybrid assessor).
    pub graders: bool,
}

fn score_as_printed<S: Serializer>(score: &f32, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(score)
}

/// Writes the traces of CAL judgings as TSV: `topic step batch docid score grade official`
/// (score `NaN` for pool documents, official `1` or `0`), then the `columns` asked: `source`,
/// naming where each grade came from, and `assessor`, naming who graded it (the first
/// `pool_size` steps of a CAL judging are its depth pool).
///
/// # Errors
/// When writing fails.
pub fn write_traces(
    out: &mut dyn std::io::Write,
    collection: &Collection,
    judgings: &[TopicJudging],
    columns: TraceColumns,
) -> std::io::Result<()> {
    let lines: Vec<TraceLine> = judgings
        .iter()
        .flat_map(move |judging| {
            let topic = &collection.topics[judging.topic].id;
            judging.trace.iter().map(move |step| TraceLine {
                topic: topic.to_string(),
                step: step.step,
                batch: step.batch,
                docid: collection.doc_name(step.doc).to_string(),
                score: step.score,
                grade: step.grade,
                official: u8::from(step.is_official()),
                source: columns.sources.then_some(step.source),
                assessor: columns.graders.then_some(
                    if usize::try_from(step.step).is_ok_and(|step| step <= judging.pool_size) {
                        Grader::Official
                    } else {
                        Grader::File
                    },
                ),
            })
        })
        .collect();
    write_records(out, &lines, &["source", "assessor"])
}
