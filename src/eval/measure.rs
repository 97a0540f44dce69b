//! A measure as a value: a family, an optional cutoff and an optional relevance level. It parses
//! trec_eval spellings (`map`, `P_10`, `P.5,10`, `ndcg_cut.10,100`, `recip_rank`) and
//! ir_measures spellings (`AP`, `P@10`, `nDCG@10`, `RR@10`, `R@100`, `Judged@10`, `NCG@100`,
//! `AP(rel=2)`, `P(rel=2)@10`), and displays one canonical trec_eval-style name
//! (`ndcg_cut_10`, `map(rel=2)`), so that `parse(display(m)) == m`.

use std::fmt;

use crate::base::error::Error;
use crate::base::Grade;
use crate::eval::registry::{CutoffRule, Family, FamilyInfo, FAMILIES};

/// One measure to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Measure {
    /// The formula.
    pub family: Family,
    /// The cutoff k, if any.
    pub cutoff: Option<usize>,
    /// A relevance level that overrides the evaluation's (`AP(rel=2)`), if any.
    pub relevance_level: Option<Grade>,
}

impl Measure {
    /// A measure without relevance-level override.
    pub fn new(family: Family, cutoff: Option<usize>) -> Self {
        Self {
            family,
            cutoff,
            relevance_level: None,
        }
    }

    /// The family's registry entry.
    pub fn info(&self) -> &'static FamilyInfo {
        self.family.info()
    }

    /// Parses one measure specification, which may stand for several measures (`P.5,10`, or a
    /// bare trec_eval root such as `P` that expands to trec_eval's default cutoffs).
    ///
    /// # Errors
    /// [`Error::Measure`] for an unknown name, a missing, forbidden, zero or repeated cutoff, or a
    /// parameter other than `rel`.
    pub fn parse_list(spec: &str) -> Result<Vec<Measure>, Error> {
        let spec = spec.trim();
        let fail = |why: String| Error::Measure(format!("measure {spec:?}: {why}"));
        let (body, ir_cutoff) = match spec.rsplit_once('@') {
            Some((body, cutoff)) => (body, Some(parse_cutoff(cutoff).map_err(fail)?)),
            None => (spec, None),
        };
        let (name, relevance_level) = split_params(body).map_err(fail)?;
        let with_level = |measures: Vec<(Family, Option<usize>)>| {
            measures
                .into_iter()
                .map(|(family, cutoff)| Measure {
                    family,
                    cutoff,
                    relevance_level,
                })
                .collect::<Vec<_>>()
        };
        if let Some(cutoff) = ir_cutoff {
            let info = find(|info| info.ir_name == name)
                .ok_or_else(|| fail(format!("unknown measure name {name:?}")))?;
            if info.cutoff == CutoffRule::Forbidden {
                return Err(fail(format!("{} takes no cutoff", info.ir_name)));
            }
            return Ok(with_level(vec![(info.family, Some(cutoff))]));
        }
        if let Some((root, cutoffs)) = name.split_once('.') {
            let info = find(|info| info.trec_cut_name == root)
                .ok_or_else(|| fail(format!("unknown trec_eval measure with cutoffs {root:?}")))?;
            let cutoffs = parse_cutoff_list(cutoffs).map_err(fail)?;
            return Ok(with_level(
                cutoffs
                    .into_iter()
                    .map(|k| (info.family, Some(k)))
                    .collect(),
            ));
        }
        if let Some(info) = find(|info| info.trec_name == name || info.ir_name == name) {
            if info.cutoff != CutoffRule::Required {
                return Ok(with_level(vec![(info.family, None)]));
            }
        }
        if let Some(info) = find(|info| info.trec_cut_name == name) {
            return Ok(with_level(
                info.default_cutoffs
                    .iter()
                    .map(|&k| (info.family, Some(k)))
                    .collect(),
            ));
        }
        if let Some((root, cutoff)) = name.rsplit_once('_') {
            if let Some(info) = find(|info| info.trec_cut_name == root) {
                let cutoff = parse_cutoff(cutoff).map_err(fail)?;
                return Ok(with_level(vec![(info.family, Some(cutoff))]));
            }
        }
        if let Some(info) = find(|info| info.ir_name == name) {
            return Err(fail(format!(
                "{} needs a cutoff, e.g. {}@10",
                info.ir_name, info.ir_name
            )));
        }
        Err(fail(format!(
            "unknown measure name {name:?}; `reusesim measures` lists them"
        )))
    }
}

impl std::str::FromStr for Measure {
    type Err = Error;

    /// Parses a specification that names exactly one measure.
    fn from_str(spec: &str) -> Result<Self, Error> {
        let measures = Measure::parse_list(spec)?;
        match measures[..] {
            [measure] => Ok(measure),
            _ => Err(Error::Measure(format!(
                "measure {spec:?}: expected one measure, found {}",
                measures.len()
            ))),
        }
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.info();
        match self.cutoff {
            Some(cutoff) => write!(f, "{}_{cutoff}", info.trec_cut_name)?,
            None => f.write_str(info.trec_name)?,
        }
        if let Some(level) = self.relevance_level {
            write!(f, "(rel={level})")?;
        }
        Ok(())
    }
}

fn find(predicate: impl Fn(&FamilyInfo) -> bool) -> Option<&'static FamilyInfo> {
    FAMILIES.iter().find(|info| predicate(info))
}

fn parse_cutoff(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("a cutoff must be at least 1".into()),
        Ok(cutoff) => Ok(cutoff),
        Err(_) => Err(format!("expected a whole-number cutoff, found {text:?}")),
    }
}

fn parse_cutoff_list(text: &str) -> Result<Vec<usize>, String> {
    let mut cutoffs = text
        .split(',')
        .map(parse_cutoff)
        .collect::<Result<Vec<_>, _>>()?;
    let count = cutoffs.len();
    cutoffs.sort_unstable();
    cutoffs.dedup();
    if cutoffs.len() != count {
        return Err("a cutoff is repeated".into());
    }
    Ok(cutoffs)
}

/// Splits `Name(rel=2)` into the name and the relevance level.
fn split_params(body: &str) -> Result<(&str, Option<Grade>), String> {
    let Some(open) = body.find('(') else {
        return Ok((body, None));
    };
    let Some(params) = body[open + 1..].strip_suffix(')') else {
        return Err("expected a closing parenthesis after the parameters".into());
    };
    let mut relevance_level = None;
    for param in params.split(',').filter(|param| !param.trim().is_empty()) {
        match param.split_once('=') {
            Some((key, value)) if key.trim() == "rel" => {
                let level = value
                    .trim()
                    .parse::<Grade>()
                    .map_err(|_| format!("expected an integer rel level, found {value:?}"))?;
                relevance_level = Some(level);
            }
            _ => {
                return Err(format!(
                    "unknown parameter {param:?}; only rel=N is supported"
                ))
            }
        }
    }
    Ok((&body[..open], relevance_level))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn names(spec: &str) -> Vec<String> {
        Measure::parse_list(spec)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn both_spellings_parse_to_the_same_measures() {
        let pairs = [
            ("map", "AP"),
            ("P_10", "P@10"),
            ("P.10", "P@10"),
            ("ndcg_cut_10", "nDCG@10"),
            ("recip_rank", "RR"),
            ("recall_100", "R@100"),
            ("judged_10", "Judged@10"),
            ("ncg_cut_100", "NCG@100"),
            ("ndcg", "nDCG"),
            ("bpref", "Bpref"),
            ("num_rel_ret", "NumRelRet"),
        ];
        for (trec, ir) in pairs {
            assert_eq!(names(trec), names(ir), "{trec} vs {ir}");
        }
        assert_eq!(names("RR@10"), vec!["recip_rank_10"]);
        assert_eq!(
            names("ndcg_cut.10,100"),
            vec!["ndcg_cut_10", "ndcg_cut_100"]
        );
        assert_eq!(names("AP(rel=2)"), vec!["map(rel=2)"]);
        assert_eq!(names("P(rel=2)@10"), vec!["P_10(rel=2)"]);
        assert_eq!(names("unj").len(), 3);
        assert_eq!(names("P").len(), 9);
    }

    #[test]
    fn bad_specifications_are_explained() {
        for (spec, message) in [
            ("mapp", "unknown measure"),
            ("P@0", "at least 1"),
            ("Bpref@10", "takes no cutoff"),
            ("P.5,5", "repeated"),
            ("AP(cutoff=3)", "unknown parameter"),
            ("NCG", "needs a cutoff"),
            ("P_x", "whole-number cutoff"),
        ] {
            let error = Measure::parse_list(spec).unwrap_err().to_string();
            assert!(error.contains(message), "{spec}: {error}");
        }
    }

    fn any_measure() -> impl Strategy<Value = Measure> {
        let families: Vec<Family> = FAMILIES.iter().map(|info| info.family).collect();
        (
            proptest::sample::select(families),
            1usize..2000,
            proptest::option::of(-1i32..4),
        )
            .prop_map(|(family, cutoff, relevance_level)| Measure {
                family,
                cutoff: match family.info().cutoff {
                    CutoffRule::Forbidden => None,
                    CutoffRule::Optional if cutoff % 2 == 0 => None,
                    _ => Some(cutoff),
                },
                relevance_level,
            })
    }

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(256))]
        #[test]
        fn display_round_trips(measure in any_measure()) {
            prop_assert_eq!(measure.to_string().parse::<Measure>().unwrap(), measure);
        }
    }
}
