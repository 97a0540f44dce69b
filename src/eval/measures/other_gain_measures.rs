//! trec_eval's other gain-based measures (see [`Gains`] for the gains):
//! - `binG`: the mean over relevant documents of 1 / log2(2 + the non-relevant documents above
//!   it), 0 when none is retrieved;
//! - `G`: the gain of each retrieved document discounted by log2(2 + the cost of reading so far
//!   less the gain so far), the cost of a rank being the ideal gain there (at least 1), over
//!   the ideal ranking's total gain;
//! - `ndcg_rel`: nDCG taken at the rank of each relevant retrieved document, and at the end of
//!   the ranking for each relevant document it misses, averaged over the ideal ranking's
//!   relevant documents;
//! - `Rndcg`: nDCG taken at each rank where the ideal gain changes (the R of each grade), and at
//!   the end of the ranking, averaged.

use crate::eval::measures::contract::MeasureArgs;
use crate::eval::measures::gain_lookup::Gains;
use crate::eval::measures::ndcg::discount;
use crate::eval::ranking::JudgedRanking;

/// binG over the whole ranking.
pub fn binary_g(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let mut relevant_so_far = 0usize;
    let mut sum = 0.0;
    for pos in 0..ranking.retrieved() {
        if ranking.is_relevant_at(pos, args.relevance_level) {
            relevant_so_far += 1;
            sum += 1.0 / ((3 + pos - relevant_so_far) as f64).log2();
        }
    }
    if relevant_so_far == 0 {
        return 0.0;
    }
    sum / ranking.counts.relevant(args.relevance_level) as f64
}

/// G over the whole ranking.
pub fn normalized_gain(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let gains = Gains::new(ranking, args.params);
    let ideal: Vec<f64> = gains.ideal().collect();
    let (mut gain_so_far, mut cost_so_far, mut score) = (0.0, 0.0, 0.0);
    for (pos, &grade) in ranking.grades.iter().enumerate() {
        let gain = gains.gain(grade);
        gain_so_far += gain;
        cost_so_far += ideal.get(pos).copied().filter(|&g| g >= 1.0).unwrap_or(1.0);
        if gain != 0.0 {
            score += gain / (2.0 + cost_so_far - gain_so_far).log2();
        }
    }
    let ideal_total: f64 = ideal.iter().fold(0.0, |total, value| total + value);
    if ideal_total > 0.0 {
        score / ideal_total
    } else {
        0.0
    }
}

/// ndcg_rel over the whole ranking.
pub fn ndcg_over_relevant(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let gains = Gains::new(ranking, args.params);
    let ideal: Vec<f64> = gains.ideal().collect();
    let (mut dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
    let mut relevant_retrieved = 0usize;
    for (pos, &grade) in ranking.grades.iter().enumerate() {
        let gain = gains.gain(grade);
        if gain != 0.0 {
            dcg += gain / discount(pos);
        }
        if let Some(ideal_gain) = ideal.get(pos) {
            ideal_dcg += ideal_gain / discount(pos);
        }
        if gain > 0.0 {
            sum += dcg / ideal_dcg;
            relevant_retrieved += 1;
        }
    }
    for (pos, ideal_gain) in ideal.iter().enumerate().skip(ranking.retrieved()) {
        ideal_dcg += ideal_gain / discount(pos);
    }
    let relevant = ideal.len();
    sum += (relevant as f64 - relevant_retrieved as f64) * dcg / ideal_dcg;
    if sum > 0.0 {
        sum / relevant as f64
    } else {
        0.0
    }
}

/// Rndcg over the whole ranking; 0 when the topic has no relevant document.
pub fn ndcg_at_grade_r(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    if ranking.counts.relevant(args.relevance_level) == 0 {
        return 0.0;
    }
    let gains = Gains::new(ranking, args.params);
    let ideal: Vec<f64> = gains.ideal().collect();
    let ideal_at = |pos: usize| ideal.get(pos).copied().unwrap_or(0.0);
    let (mut dcg, mut ideal_dcg, mut sum, mut points) = (0.0, 0.0, 0.0, 0usize);
    let mut take_point = |dcg: f64, ideal_dcg: f64| {
        if ideal_dcg > 0.0 {
            sum += dcg / ideal_dcg;
            points += 1;
        }
    };
    let retrieved = ranking.retrieved();
    let mut pos = 0;
    // Ranks where both the run and the ideal ranking still gain.
    while pos < retrieved && (pos == 0 || ideal_at(pos - 1) > 0.0) {
        if pos > 0 && ideal_at(pos) != ideal_at(pos - 1) {
            take_point(dcg, ideal_dcg);
        }
        let gain = gains.gain(ranking.grades[pos]);
        if gain != 0.0 {
            dcg += gain / discount(pos);
        }
        if ideal_at(pos) > 0.0 {
            ideal_dcg += ideal_at(pos) / discount(pos);
        }
        pos += 1;
    }
    // The run goes on past the ideal ranking's relevant documents.
    if pos < retrieved {
        for (rest, &grade) in ranking.grades.iter().enumerate().skip(pos) {
            let gain = gains.gain(grade);
            if gain != 0.0 {
                dcg += gain / discount(rest);
            }
        }
        take_point(dcg, ideal_dcg);
    }
    // The ideal ranking goes on past the run.
    while ideal_at(pos.saturating_sub(1)) > 0.0 {
        if pos > 0 && ideal_at(pos) != ideal_at(pos - 1) {
            take_point(dcg, ideal_dcg);
        }
        if ideal_at(pos) > 0.0 {
            ideal_dcg += ideal_at(pos) / discount(pos);
        }
        pos += 1;
    }
    sum / points as f64
}
