//! A measure as a value: a family, an optional cutoff, an optional relevance level, RBP's
//! persistence and whether unjudged documents are dropped first. It parses trec_eval spellings
//! (`map`, `P_10`, `P.5,10`, `ndcg_cut.10,100`, `recip_rank`) and ir_measures spellings (`AP`,
//! `P@10`, `nDCG@10`, `RR@10`, `R@100`, `Judged@10`, `NCG@100`, `AP(rel=2)`, `P(rel=2)@10`,
//! `RBP(rel=1,p=0.8)`, `ERR@10`, `AP(judged_only=True)`), and displays one canonical name, so
//! that `parse(display(m)) == m`: trec_eval's (`ndcg_cut_10`, `map(rel=2)`,
//! `P_10(judged_only=True)`) where trec_eval has the measure, ir_measures' otherwise
//! (`RBP(p=0.8)`, `ERR@10`).

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
    /// RBP's persistence: set exactly for the families that take `p`.
    pub persistence: Option<Persistence>,
    /// Whether unjudged documents are dropped from the ranking before scoring (the condensed
    /// list of Sakai 2007; trec_eval's `-J`, ir_measures' `judged_only=True`).
    pub judged_only: bool,
}

/// RBP's persistence p: the probability that a user reads on past a document, in (0, 1).
#[derive(Debug, Clone, Copy)]
pub struct Persistence(f64);

impl Persistence {
    /// The persistence RBP takes when none is given (ir_measures' default).
    pub const DEFAULT: Persistence = Persistence(0.8);

    /// A persistence strictly between 0 and 1.
    ///
    /// # Errors
    /// The rule, for any other value.
    pub fn new(value: f64) -> Result<Self, String> {
        if value > 0.0 && value < 1.0 {
            Ok(Self(value))
        } else {
            Err(format!(
                "expected a persistence p strictly between 0 and 1, found {value}"
            ))
        }
    }

    /// The value.
    pub fn value(self) -> f64 {
        self.0
    }
}

// Values lie in (0, 1), so comparing the bits orders them and makes equality exact.
impl PartialEq for Persistence {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}
impl Eq for Persistence {}
impl std::hash::Hash for Persistence {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}
impl PartialOrd for Persistence {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Persistence {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The parameters written in parentheses (`rel=2`, `p=0.9`, `judged_only=True`).
#[derive(Debug, Clone, Copy, Default)]
struct Params {
    relevance_level: Option<Grade>,
    persistence: Option<Persistence>,
    judged_only: bool,
}

impl Measure {
    /// A measure without parameters (RBP's families get the default persistence).
    pub fn new(family: Family, cutoff: Option<usize>) -> Self {
        Self {
            family,
            cutoff,
            relevance_level: None,
            persistence: family
                .info()
                .takes_persistence()
                .then_some(Persistence::DEFAULT),
            judged_only: false,
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
    /// [`Error::Measure`] for an unknown name (listing the known ones), a missing, forbidden,
    /// zero or repeated cutoff, or a parameter the family does not take or out of its range
    /// (listing the ones it takes).
    pub fn parse_list(spec: &str) -> Result<Vec<Measure>, Error> {
        let spec = spec.trim();
        let fail = |why: String| Error::Measure(format!("measure {spec:?}: {why}"));
        let (body, ir_cutoff) = match split_cutoff(spec) {
            Some((body, cutoff)) => (body, Some(parse_cutoff(cutoff).map_err(fail)?)),
            None => (spec, None),
        };
        let (name, params) = split_params(body).map_err(fail)?;
        let measures = resolve(name, ir_cutoff).map_err(fail)?;
        let family = measures[0].0.info();
        let params = params.map(parse_params).transpose().map_err(fail)?;
        let params = check_params(family, params.unwrap_or_default()).map_err(fail)?;
        Ok(measures
            .into_iter()
            .map(|(family, cutoff)| Measure {
                family,
                cutoff,
                relevance_level: params.relevance_level,
                persistence: params.persistence,
                judged_only: params.judged_only,
            })
            .collect())
    }
}

/// The families and cutoffs a name stands for.
fn resolve(name: &str, ir_cutoff: Option<usize>) -> Result<Vec<(Family, Option<usize>)>, String> {
    if let Some(cutoff) = ir_cutoff {
        let info = find(|info| info.ir_name == name).ok_or_else(|| unknown_name(name))?;
        if info.cutoff == CutoffRule::Forbidden {
            return Err(format!("{} takes no cutoff", info.ir_name));
        }
        return Ok(vec![(info.family, Some(cutoff))]);
    }
    if let Some((root, cutoffs)) = name.split_once('.') {
        let info = find_trec_cut(root)
            .ok_or_else(|| format!("unknown trec_eval measure with cutoffs {root:?}"))?;
        let cutoffs = parse_cutoff_list(cutoffs)?;
        return Ok(cutoffs
            .into_iter()
            .map(|k| (info.family, Some(k)))
            .collect());
    }
    let bare = find(|info| !name.is_empty() && (info.trec_name == name || info.ir_name == name));
    if let Some(info) = bare.filter(|info| info.cutoff != CutoffRule::Required) {
        return Ok(vec![(info.family, None)]);
    }
    if let Some(info) = find_trec_cut(name) {
        return Ok(info
            .default_cutoffs
            .iter()
            .map(|&k| (info.family, Some(k)))
            .collect());
    }
    if let Some((root, cutoff)) = name.rsplit_once('_') {
        if let Some(info) = find_trec_cut(root) {
            return Ok(vec![(info.family, Some(parse_cutoff(cutoff)?))]);
        }
    }
    if let Some(info) = bare {
        return Err(format!(
            "{} needs a cutoff, e.g. {}@10",
            info.ir_name, info.ir_name
        ));
    }
    Err(unknown_name(name))
}

/// The error for a name no family has, listing every known name.
fn unknown_name(name: &str) -> String {
    let known: Vec<&str> = FAMILIES
        .iter()
        .flat_map(|info| [info.ir_name, info.trec_name, info.trec_cut_name])
        .filter(|known| !known.is_empty())
        .collect();
    format!(
        "unknown measure name {name:?}; known names: {}",
        known.join(", ")
    )
}

/// Checks the parameters against what `family` takes, and gives RBP its default persistence.
fn check_params(family: &FamilyInfo, mut params: Params) -> Result<Params, String> {
    let takes = |name: &str| -> String {
        let mut known = vec!["rel=N"];
        if family.takes_persistence() {
            known.push("p=X (0 < X < 1)");
        }
        if family.family.takes_judged_only() {
            known.push("judged_only=True");
        }
        format!("{name}; {} takes {}", family.ir_name, known.join(", "))
    };
    match (family.takes_persistence(), params.persistence) {
        (true, None) => params.persistence = Some(Persistence::DEFAULT),
        (false, Some(_)) => return Err(takes("p is RBP's parameter")),
        _ => {}
    }
    if params.judged_only && !family.family.takes_judged_only() {
        return Err(takes("judged_only has no condensed variant here"));
    }
    Ok(params)
}

fn find(predicate: impl Fn(&FamilyInfo) -> bool) -> Option<&'static FamilyInfo> {
    FAMILIES.iter().find(|info| predicate(info))
}

fn find_trec_cut(root: &str) -> Option<&'static FamilyInfo> {
    find(|info| !root.is_empty() && info.trec_cut_name == root)
}

/// Splits `Name(params)@k` at an `@` outside the parentheses.
fn split_cutoff(spec: &str) -> Option<(&str, &str)> {
    let (body, cutoff) = spec.rsplit_once('@')?;
    (!cutoff.contains(')')).then_some((body, cutoff))
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

/// Splits `Name(rel=2)` into the name and the text between the parentheses.
fn split_params(body: &str) -> Result<(&str, Option<&str>), String> {
    let Some(open) = body.find('(') else {
        return Ok((body, None));
    };
    let Some(params) = body[open + 1..].strip_suffix(')') else {
        return Err("expected a closing parenthesis after the parameters".into());
    };
    Ok((&body[..open], Some(params)))
}

/// Reads `rel=N`, `p=X` and `judged_only=True|False`, separated by commas.
fn parse_params(text: &str) -> Result<Params, String> {
    let mut params = Params::default();
    for param in text.split(',').filter(|param| !param.trim().is_empty()) {
        let (key, value) = param
            .split_once('=')
            .map(|(key, value)| (key.trim(), value.trim()))
            .ok_or_else(|| format!("expected key=value, found {param:?}"))?;
        match key {
            "rel" => {
                let level = value
                    .parse::<Grade>()
                    .map_err(|_| format!("expected an integer rel level, found {value:?}"))?;
                params.relevance_level = Some(level);
            }
            "p" => {
                let p = value
                    .parse::<f64>()
                    .map_err(|_| format!("expected a number for p, found {value:?}"))?;
                params.persistence = Some(Persistence::new(p)?);
            }
            "judged_only" => {
                params.judged_only = match value {
                    "True" | "true" => true,
                    "False" | "false" => false,
                    _ => {
                        return Err(format!(
                            "expected judged_only=True or judged_only=False, found {value:?}"
                        ))
                    }
                }
            }
            _ => {
                return Err(format!(
                    "unknown parameter {key:?}; known parameters: rel=N, p=X (RBP), \
                     judged_only=True"
                ))
            }
        }
    }
    Ok(params)
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
        let mut params = Vec::new();
        if let Some(level) = self.relevance_level {
            params.push(format!("rel={level}"));
        }
        if let Some(persistence) = self.persistence {
            params.push(format!("p={}", persistence.value()));
        }
        if self.judged_only {
            params.push("judged_only=True".into());
        }
        let params = if params.is_empty() {
            String::new()
        } else {
            format!("({})", params.join(","))
        };
        match (info.has_trec_name(), self.cutoff) {
            (true, Some(cutoff)) => write!(f, "{}_{cutoff}{params}", info.trec_cut_name),
            (true, None) => write!(f, "{}{params}", info.trec_name),
            (false, Some(cutoff)) => write!(f, "{}{params}@{cutoff}", info.ir_name),
            (false, None) => write!(f, "{}{params}", info.ir_name),
        }
    }
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
    fn ir_measures_parameters_parse_to_one_canonical_name() {
        for (spec, canonical) in [
            ("RBP", "RBP(p=0.8)"),
            ("RBP(p=0.8)", "RBP(p=0.8)"),
            ("RBP(rel=1,p=0.8)", "RBP(rel=1,p=0.8)"),
            ("RBP(p=0.95, rel=2)@10", "RBP(rel=2,p=0.95)@10"),
            ("RBPResidual(p=0.5)", "RBPResidual(p=0.5)"),
            ("ERR@20", "ERR@20"),
            ("AP(judged_only=True)", "map(judged_only=True)"),
            ("AP(judged_only=False)", "map"),
            ("P(judged_only=True)@10", "P_10(judged_only=True)"),
            ("nDCG(judged_only=True)@10", "ndcg_cut_10(judged_only=True)"),
            ("P(rel=2,judged_only=True)@5", "P_5(rel=2,judged_only=True)"),
        ] {
            assert_eq!(names(spec), vec![canonical], "{spec}");
        }
        let rbp: Measure = "RBP".parse().unwrap();
        assert_eq!(rbp, Measure::new(Family::Rbp, None));
        assert_ne!(
            "RBP(p=0.9)".parse::<Measure>().unwrap(),
            "RBP(p=0.8)".parse::<Measure>().unwrap()
        );
    }

    #[test]
    fn malformed_parameters_name_what_the_family_takes() {
        for (spec, messages) in [
            ("RBP(p=1.5)", &["strictly between 0 and 1", "found 1.5"][..]),
            ("RBP(p=0)", &["strictly between 0 and 1"][..]),
            ("RBP(p=x)", &["expected a number for p"][..]),
            ("AP(p=0.5)", &["p is RBP's parameter", "AP takes rel=N"][..]),
            ("Judged(judged_only=True)@10", &["Judged takes rel=N"][..]),
            (
                "RBPResidual(judged_only=True)",
                &["RBPResidual takes rel=N, p=X"][..],
            ),
            (
                "AP(judged_only=yes)",
                &["judged_only=True or judged_only=False"][..],
            ),
            ("AP(gains=2)", &["known parameters: rel=N, p=X"][..]),
            ("RBP(rel=1", &["closing parenthesis"][..]),
            ("ERR", &["needs a cutoff, e.g. ERR@10"][..]),
            (
                "Sucess@10",
                &["unknown measure name", "known names: ", "RBP", "ndcg_cut"][..],
            ),
        ] {
            let error = Measure::parse_list(spec).unwrap_err().to_string();
            for message in messages {
                assert!(error.contains(message), "{spec}: {error}");
            }
        }
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
            1u32..1000,
            any::<bool>(),
        )
            .prop_map(
                |(family, cutoff, relevance_level, persistence, judged_only)| Measure {
                    family,
                    cutoff: match family.info().cutoff {
                        CutoffRule::Forbidden => None,
                        CutoffRule::Optional if cutoff % 2 == 0 => None,
                        _ => Some(cutoff),
                    },
                    relevance_level,
                    persistence: family
                        .info()
                        .takes_persistence()
                        .then(|| Persistence::new(f64::from(persistence) / 1000.0).unwrap()),
                    judged_only: judged_only && family.takes_judged_only(),
                },
            )
    }

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(256))]
        #[test]
        fn display_round_trips(measure in any_measure()) {
            prop_assert_eq!(measure.to_string().parse::<Measure>().unwrap(), measure);
        }
    }
}
