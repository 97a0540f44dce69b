//! Graded gains, as trec_eval's `gain_init.c` sets them up for `ndcg`, `ndcg_rel`, `Rndcg`, `G`
//! and `rbp`: every judged grade of the topic gains its own value unless the measure's
//! parameters give it another (`ndcg.1=3,2=9`); unjudged documents and grades without a gain
//! gain nothing. The ideal ranking takes the highest gains first, as many of each as the topic
//! has judged documents of that grade.
//!
//! trec_eval orders the levels by the whole part of their gain difference; gains that differ
//! by less than one keep their order of appearance here, where trec_eval leaves it to `qsort`.

use crate::base::Grade;
use crate::eval::params::TrecParams;
use crate::eval::ranking::JudgedRanking;

/// One grade's gain and how many judged documents of the topic have that grade.
#[derive(Debug, Clone, Copy)]
struct Level {
    grade: Grade,
    gain: f64,
    count: usize,
}

/// The gain of each grade for one topic, levels sorted by gain ascending.
#[derive(Debug, Clone)]
pub struct Gains {
    levels: Vec<Level>,
}

impl Gains {
    /// The gains of `ranking`'s topic: the grades themselves, or those `params` give.
    pub fn new(ranking: &JudgedRanking, params: Option<TrecParams>) -> Self {
        let mut levels: Vec<Level> = params
            .into_iter()
            .flat_map(TrecParams::gains)
            .map(|(grade, gain)| Level {
                grade,
                gain,
                count: 0,
            })
            .collect();
        let highest = ranking.counts.highest_judged_grade();
        for grade in 0..=highest.unwrap_or(-1) {
            let count = ranking.counts.with_grade(grade);
            match levels.iter_mut().find(|level| level.grade == grade) {
                Some(level) => level.count = count,
                None => levels.push(Level {
                    grade,
                    gain: f64::from(grade),
                    count,
                }),
            }
        }
        levels.sort_by(|a, b| a.gain.total_cmp(&b.gain));
        Self { levels }
    }

    /// The gain of a retrieved document's grade (`None`: not judged).
    pub fn gain(&self, grade: Option<Grade>) -> f64 {
        // trec_eval's codes for a document the qrels lack (-1) and one they grade negatively (-2).
        let code = match grade {
            None => -1,
            Some(grade) if grade < 0 => -2,
            Some(grade) => grade,
        };
        self.levels
            .iter()
            .find(|level| level.grade == code)
            .map_or(0.0, |level| level.gain)
    }

    /// The ideal ranking's positive gains, highest first.
    pub fn ideal(&self) -> impl Iterator<Item = f64> + '_ {
        self.levels
            .iter()
            .rev()
            .take_while(|level| level.gain > 0.0)
            .flat_map(|level| std::iter::repeat_n(level.gain, level.count))
    }

    /// Every gain rescaled into [0, 1] when any lies outside it (trec_eval's `rbp`).
    pub fn into_unit_interval(mut self) -> Self {
        let lowest = self
            .levels
            .iter()
            .map(|l| l.gain)
            .fold(f64::INFINITY, f64::min);
        let highest = self
            .levels
            .iter()
            .map(|l| l.gain)
            .fold(f64::NEG_INFINITY, f64::max);
        if lowest < 0.0 || highest > 1.0 {
            for level in &mut self.levels {
                level.gain = (level.gain - lowest) / (highest - lowest);
            }
        }
        self
    }
}
