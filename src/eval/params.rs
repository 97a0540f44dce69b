//! trec_eval's measure parameters: the text after a measure name's dot, such as the recall
//! levels of `iprec_at_recall..25,.5`, the coefficients of `utility.2,-1,0,0`, the gains of
//! `ndcg.1=3,2=9` or the persistence of `rbp.p=0.95`, and the trec_eval version whose
//! arithmetic a measure follows.
//!
//! A parameter list is parsed once, from the command line, and kept for the life of the
//! process, so that a [`Measure`](crate::eval::Measure) stays a small `Copy` value; the
//! command line bounds how many there are.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, OnceLock};

use crate::base::choice::choice_enum;
use crate::base::Grade;

choice_enum! {
    /// The trec_eval release whose arithmetic a measure follows where the two differ: how
    /// `iprec_at_recall` and `11pt_avg` turn a recall level into a number of relevant documents.
    #[derive(Default)]
    pub enum TrecEvalVersion {
        /// 9.0.8 (pytrec_eval's): ⌊level × R + 0.9⌋.
        #[default]
        Nine = "9",
        /// 10.0: level × R rounded to the nearest whole number.
        Ten = "10",
    }
}

impl TrecEvalVersion {
    /// The number of relevant documents that recall `level` stands for, with `relevant` in all.
    pub fn relevant_at_recall(self, level: f64, relevant: usize) -> i64 {
        let exact = level * relevant as f64;
        match self {
            TrecEvalVersion::Nine => (exact + 0.9) as i64,
            TrecEvalVersion::Ten => exact.round() as i64,
        }
    }
}

/// One measure's parameter list, as written and as numbers or `name=value` pairs.
#[derive(Debug, Clone, Copy)]
pub struct TrecParams(&'static ParamData);

#[derive(Debug)]
struct ParamData {
    text: String,
    numbers: Vec<f64>,
    pairs: Vec<(String, f64)>,
}

impl TrecParams {
    /// A comma-separated list of numbers (`.25,.5,.75`, `2,-1,0,0`).
    ///
    /// # Errors
    /// The rule, for an item that is not a number.
    pub fn numbers(text: &str) -> Result<Self, String> {
        let numbers = text
            .split(',')
            .map(|item| {
                item.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|number| number.is_finite())
                    .ok_or_else(|| format!("expected a number, found {item:?}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(intern(ParamData {
            text: text.to_string(),
            numbers,
            pairs: Vec::new(),
        }))
    }

    /// A comma-separated list of `name=value` pairs (`1=3,2=9`, `p=0.95`).
    ///
    /// # Errors
    /// The rule, for an item without `=` or whose value is not a number.
    pub fn pairs(text: &str) -> Result<Self, String> {
        let pairs = text
            .split(',')
            .map(|item| {
                let (name, value) = item
                    .split_once('=')
                    .filter(|(name, _)| !name.trim().is_empty())
                    .ok_or_else(|| format!("expected name=value, found {item:?}"))?;
                let value = value
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|value| value.is_finite())
                    .ok_or_else(|| format!("expected a number after {name}=, found {value:?}"))?;
                Ok((name.trim().to_string(), value))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(intern(ParamData {
            text: text.to_string(),
            numbers: Vec::new(),
            pairs,
        }))
    }

    /// One level of a family that reports a value per level (`iprec_at_recall_0.25`), written
    /// as trec_eval names it: two decimals.
    pub fn level(level: f64) -> Self {
        intern(ParamData {
            text: format!("{level:.2}"),
            numbers: vec![level],
            pairs: Vec::new(),
        })
    }

    /// The parameters as written.
    pub fn text(self) -> &'static str {
        &self.0.text
    }

    /// The numbers of a number list or a level.
    pub fn values(self) -> &'static [f64] {
        &self.0.numbers
    }

    /// The value of the pair `name`, if given.
    pub fn pair(self, name: &str) -> Option<f64> {
        self.0
            .pairs
            .iter()
            .find(|(pair_name, _)| pair_name == name)
            .map(|&(_, value)| value)
    }

    /// Every `name=value` pair, as given.
    pub fn pairs_given(self) -> impl Iterator<Item = (&'static str, f64)> {
        self.0
            .pairs
            .iter()
            .map(|(name, value)| (name.as_str(), *value))
    }

    /// The pairs whose name is a grade: the gain given to that grade.
    pub fn gains(self) -> impl Iterator<Item = (Grade, f64)> {
        self.0
            .pairs
            .iter()
            .filter_map(|(name, value)| name.parse::<Grade>().ok().map(|grade| (grade, *value)))
    }
}

/// Keeps `data` for the life of the process, once per distinct text and kind.
fn intern(data: ParamData) -> TrecParams {
    static KEPT: OnceLock<Mutex<Vec<&'static ParamData>>> = OnceLock::new();
    let mut kept = KEPT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let same = |other: &&&'static ParamData| {
        other.text == data.text && other.pairs.is_empty() == data.pairs.is_empty()
    };
    if let Some(existing) = kept.iter().find(same) {
        return TrecParams(existing);
    }
    let leaked: &'static ParamData = Box::leak(Box::new(data));
    kept.push(leaked);
    TrecParams(leaked)
}

impl PartialEq for TrecParams {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl Eq for TrecParams {}
impl Hash for TrecParams {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.text.hash(state);
    }
}
impl PartialOrd for TrecParams {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for TrecParams {
    /// Levels in numeric order (as trec_eval sorts them), then by text.
    fn cmp(&self, other: &Self) -> Ordering {
        let numbers = self
            .values()
            .iter()
            .zip(other.values())
            .map(|(a, b)| a.total_cmp(b))
            .find(|order| order.is_ne())
            .unwrap_or_else(|| self.values().len().cmp(&other.values().len()));
        numbers.then_with(|| self.text().cmp(other.text()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_is_the_same_parameters_and_levels_sort_numerically() {
        assert_eq!(
            TrecParams::numbers("2,-1,0,0").unwrap(),
            TrecParams::numbers("2,-1,0,0").unwrap()
        );
        assert_ne!(
            TrecParams::numbers("2,-1,0,0").unwrap(),
            TrecParams::numbers("1,-1,0,0").unwrap()
        );
        let mut levels = [TrecParams::level(5.0), TrecParams::level(0.2)];
        levels.sort();
        assert_eq!(levels[0].text(), "0.20");
        assert_eq!(levels[1].text(), "5.00");
    }

    #[test]
    fn pairs_give_gains_and_named_values() {
        let params = TrecParams::pairs("1=3,2=9,4=4.5,p=0.5").unwrap();
        assert_eq!(
            params.gains().collect::<Vec<_>>(),
            vec![(1, 3.0), (2, 9.0), (4, 4.5)]
        );
        assert_eq!(params.pair("p"), Some(0.5));
        assert!(TrecParams::pairs("1=x").unwrap_err().contains("a number"));
        assert!(TrecParams::pairs("13").unwrap_err().contains("name=value"));
        assert!(TrecParams::numbers(".5,x").unwrap_err().contains("\"x\""));
    }

    #[test]
    fn the_versions_turn_a_recall_level_into_documents_as_trec_eval_does() {
        // 0.1 × 15 = 1.5: 9.0.8 adds 0.9 and truncates (2), 10.0 rounds (2); 0.1 × 12 = 1.2:
        // 2 against 1.
        assert_eq!(TrecEvalVersion::Nine.relevant_at_recall(0.1, 12), 2);
        assert_eq!(TrecEvalVersion::Ten.relevant_at_recall(0.1, 12), 1);
        assert_eq!(TrecEvalVersion::Nine.relevant_at_recall(0.0, 12), 0);
        assert_eq!(TrecEvalVersion::Ten.relevant_at_recall(1.0, 12), 12);
    }
}
