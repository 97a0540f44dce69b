//! The judged ranking: one run's ranking for one topic, with the grade of every retrieved
//! document looked up once, plus the topic's grade counts. Every measure reads only this
//! (trec_eval's `RES_RELS`), so the string-keyed evaluator and the id-keyed simulation share one
//! implementation of each measure.

use crate::base::{is_relevant, Grade};
use crate::io::qrels::TopicQrels;

/// How many judged documents a topic has at each grade, negative grades included.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GradeCounts {
    /// (grade, count), sorted by grade ascending, counts > 0.
    counts: Vec<(Grade, usize)>,
}

impl GradeCounts {
    /// Counts the given grades.
    pub fn from_grades(grades: impl IntoIterator<Item = Grade>) -> Self {
        let mut all: Vec<Grade> = grades.into_iter().collect();
        all.sort_unstable();
        let mut counts: Vec<(Grade, usize)> = Vec::new();
        for grade in all {
            match counts.last_mut() {
                Some((last, count)) if *last == grade => *count += 1,
                _ => counts.push((grade, 1)),
            }
        }
        Self { counts }
    }

    /// Counts the grades of one topic's qrels.
    pub fn of_topic(qrels: &TopicQrels) -> Self {
        Self::from_grades(qrels.grades())
    }

    /// These counts less one document per grade in `removed` (grades that were counted).
    pub fn without(&self, removed: &[Grade]) -> Self {
        let mut counts = self.counts.clone();
        for grade in removed {
            if let Some(entry) = counts.iter_mut().find(|(g, _)| g == grade) {
                entry.1 -= 1;
            }
        }
        counts.retain(|&(_, count)| count > 0);
        Self { counts }
    }

    /// The number of relevant documents: grade >= `relevance_level` (negative grades never
    /// count: trec_eval treats them as judged but unusable).
    pub fn relevant(&self, relevance_level: Grade) -> usize {
        self.counts
            .iter()
            .filter(|&&(grade, _)| is_relevant(grade, relevance_level))
            .map(|&(_, count)| count)
            .sum()
    }

    /// The number of judged non-relevant documents: 0 <= grade < `relevance_level`.
    pub fn nonrelevant(&self, relevance_level: Grade) -> usize {
        self.counts
            .iter()
            .filter(|&&(grade, _)| grade >= 0 && !is_relevant(grade, relevance_level))
            .map(|&(_, count)| count)
            .sum()
    }

    /// The highest grade >= 0 among the topic's judgments, if any.
    pub fn highest_judged_grade(&self) -> Option<Grade> {
        self.counts
            .last()
            .map(|&(grade, _)| grade)
            .filter(|&grade| grade >= 0)
    }

    /// The number of judged documents with exactly `grade`.
    pub fn with_grade(&self, grade: Grade) -> usize {
        self.counts
            .iter()
            .find(|&&(g, _)| g == grade)
            .map_or(0, |&(_, count)| count)
    }

    /// The positive grades of all judged documents, highest first: the ideal ranking's gains.
    pub fn ideal_gains(&self) -> impl Iterator<Item = f64> + '_ {
        self.counts
            .iter()
            .rev()
            .filter(|&&(grade, _)| grade > 0)
            .flat_map(|&(grade, count)| std::iter::repeat_n(f64::from(grade), count))
    }
}

/// One run's ranking for one topic, with grades looked up.
#[derive(Debug, Clone, Copy)]
pub struct JudgedRanking<'a> {
    /// The grade of each retrieved document in rank order; `None` when not judged.
    pub grades: &'a [Option<Grade>],
    /// The topic's grade counts over all its judgments.
    pub counts: &'a GradeCounts,
}

impl JudgedRanking<'_> {
    /// The number of retrieved documents.
    #[inline]
    pub fn retrieved(&self) -> usize {
        self.grades.len()
    }

    /// Whether the document at 0-based position `pos` is relevant.
    #[inline]
    pub fn is_relevant_at(&self, pos: usize, relevance_level: Grade) -> bool {
        matches!(self.grades[pos], Some(grade) if is_relevant(grade, relevance_level))
    }

    /// The grades of the top `cutoff` documents (all of them without a cutoff).
    #[inline]
    pub fn top(&self, cutoff: Option<usize>) -> &[Option<Grade>] {
        match cutoff {
            Some(depth) => &self.grades[..depth.min(self.grades.len())],
            None => self.grades,
        }
    }

    /// The grades of the judged documents (a grade >= 0) in rank order: the condensed list.
    pub fn judged_grades(&self) -> impl Iterator<Item = Option<Grade>> + '_ {
        self.grades
            .iter()
            .copied()
            .filter(|grade| matches!(grade, Some(g) if *g >= 0))
    }

    /// The number of relevant documents in the top `cutoff` (or all retrieved).
    pub fn relevant_retrieved(&self, cutoff: Option<usize>, relevance_level: Grade) -> usize {
        self.top(cutoff)
            .iter()
            .filter(|grade| matches!(grade, Some(g) if is_relevant(*g, relevance_level)))
            .count()
    }
}

/// Looks up the grades of `docids` in a topic's qrels, in order, into a reused buffer.
pub fn lookup_grades<'d>(
    docids: impl IntoIterator<Item = &'d str>,
    qrels: &TopicQrels,
    grades: &mut Vec<Option<Grade>>,
) {
    grades.clear();
    grades.extend(docids.into_iter().map(|docid| qrels.grade(docid)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grade_counts_split_relevant_nonrelevant_and_unusable() {
        let counts = GradeCounts::from_grades([2, 0, -1, 1, 2, 0]);
        assert_eq!(counts.relevant(1), 3);
        assert_eq!(counts.relevant(2), 2);
        assert_eq!(counts.nonrelevant(1), 2);
        assert_eq!(counts.nonrelevant(2), 3);
        assert_eq!(
            counts.ideal_gains().collect::<Vec<_>>(),
            vec![2.0, 2.0, 1.0]
        );
    }
}
