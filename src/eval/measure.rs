//! A measure as a value: a family, an optional cutoff, an optional relevance level, RBP's
//! persistence and whether unjudged documents are dropped first. It parses trec_eval spellings
//! (`map`, `P_10`, `P.5,10`, `ndcg_cut.10,100`, `recip_rank`) and ir_measures spellings (`AP`,
//! `P@10`, `nDCG@10`, `RR@10`, `R@100`, `Judged@10`, `NCG@100`, `AP(rel=2)`, `P(rel=2)@10`,
//! `RBP(rel=1,p=0.8)`, `ERR@10`, `AP(judged_only=True)`), ranx spellings (`ndcg@10`, `mrr@10`,
//! `map@100`, `precision@10`, `hit_rate@10`, `r-precision`, `hits@10`, `f1@10`,
//! `ndcg_burges@10`), trec_eval's parameters after a dot
//! (`iprec_at_recall..25,.5`, `utility.2,-1,0,0`, `ndcg.1=3,2=9`, `ndcg_cut.10,23.4`, whose
//! cutoffs are read as trec_eval's `atol` reads them), and displays one canonical name, so
//! that `parse(display(m)) == m`: trec_eval's (`ndcg_cut_10`, `map(rel=2)`,
//! `iprec_at_recall_0.25`, `utility_2,-1,0,0`, `P_10(judged_only=True)`) where trec_eval has
//! the measure, ir_measures' otherwise (`RBP(p=0.8)`, `ERR@10`).

use std::fmt;

use crate::base::error::Error;
use crate::base::Grade;
use crate::eval::family::{CutoffRule, Family, FamilyInfo, ParamRule};
use crate::eval::params::{TrecEvalVersion, TrecParams};
use crate::eval::ranx_names;
use crate::eval::registry::FAMILIES;

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
    /// trec_eval's parameters after the dot, or the level of a family with levels; `None`
    /// gives the family's defaults.
    pub params: Option<TrecParams>,
    /// The trec_eval release whose arithmetic to follow where releases differ.
    pub version: TrecEvalVersion,
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
            params: None,
            version: TrecEvalVersion::default(),
        }
    }

    /// trec_eval's name for the measure's root: what its parameters attach to and what fixes its
    /// place in trec_eval's output (`map`, `map_cut`, `iprec_at_recall`); the ir_measures name
    /// for families trec_eval lacks.
    pub fn trec_root(&self) -> &'static str {
        let info = self.info();
        match (self.cutoff, info.params) {
            (Some(_), _) | (_, ParamRule::Levels(_)) if !info.trec_cut_name.is_empty() => {
                info.trec_cut_name
            }
            _ if !info.trec_name.is_empty() => info.trec_name,
            _ => info.ir_name,
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
            Some((body, cutoff)) => (body, Some(cutoff)),
            None => (spec, None),
        };
        let (name, params) = split_params(body).map_err(fail)?;
        let measures = resolve(name, ir_cutoff).map_err(fail)?;
        let family = measures[0].family.info();
        let params = params
            .map(parse_params)
            .transpose()
            .map_err(|why| fail(format!("{why}; {}", ir_params_taken(family))))?;
        let params = check_params(family, params.unwrap_or_default()).map_err(fail)?;
        Ok(measures
            .into_iter()
            .map(|measure| Measure {
                relevance_level: params.relevance_level,
                persistence: params.persistence,
                judged_only: params.judged_only,
                ..measure
            })
            .collect())
    }
}

/// The measures a name stands for, before ir_measures' parameters in parentheses.
fn resolve(name: &str, ir_cutoff: Option<&str>) -> Result<Vec<Measure>, String> {
    if let Some(cutoff) = ir_cutoff {
        return resolve_ir_cutoff(name, cutoff);
    }
    // A dot after a trec_eval root starts its parameters; a dot inside printed parameters
    // (`Rprec_mult_0.20`) does not.
    if let Some((root, params)) = name.split_once('.') {
        if find_trec_root(root).is_some() {
            return resolve_trec_params(root, params, TrecSyntax::Dot);
        }
    }
    let bare = find(|info| {
        !name.is_empty()
            && (info.trec_name == name || info.ir_name == name)
            && info.cutoff != CutoffRule::Required
            && !matches!(info.params, ParamRule::Levels(_))
    });
    if let Some(info) = bare {
        return Ok(vec![Measure::new(info.family, None)]);
    }
    if let Some(info) = find_trec_cut(name) {
        return Ok(defaults(info));
    }
    if let Some((root, params)) = name.rsplit_once('_') {
        if find_trec_root(root).is_some() {
            return resolve_trec_params(root, params, TrecSyntax::Underscore);
        }
    }
    if let Some(family) = ranx_names::family_without_cutoff(name) {
        return Ok(vec![Measure::new(family, None)]);
    }
    let needs_cutoff = find(|info| !name.is_empty() && info.ir_name == name).is_some()
        || ranx_names::family_with_cutoff(name).is_some();
    if needs_cutoff {
        return Err(format!("{name} needs a cutoff, e.g. {name}@10"));
    }
    Err(unknown_name(name))
}

/// How trec_eval parameters were written: after a dot, as on trec_eval's command line, or after
/// an underscore, as trec_eval prints them.
#[derive(Clone, Copy, PartialEq)]
enum TrecSyntax {
    Dot,
    Underscore,
}

/// `Name@k` (in ir_measures' or ranx's spelling) or, for a family with levels, `IPrec@0.25`.
fn resolve_ir_cutoff(name: &str, cutoff: &str) -> Result<Vec<Measure>, String> {
    let info = find(|info| info.ir_name == name)
        .or_else(|| ranx_names::family_with_cutoff(name).map(Family::info))
        .ok_or_else(|| unknown_name(name))?;
    if let ParamRule::Levels(_) = info.params {
        let level = parse_level(cutoff)?;
        return Ok(vec![with_params(info, TrecParams::level(level))]);
    }
    if info.cutoff == CutoffRule::Forbidden {
        return Err(format!("{} takes no cutoff", info.ir_name));
    }
    Ok(vec![Measure::new(info.family, Some(parse_cutoff(cutoff)?))])
}

/// A trec_eval root with parameters: cutoffs, levels, numbers or pairs. An error says what the
/// root takes.
fn resolve_trec_params(
    root: &str,
    params: &str,
    syntax: TrecSyntax,
) -> Result<Vec<Measure>, String> {
    let info = find_trec_root(root)
        .ok_or_else(|| format!("unknown trec_eval measure with parameters {root:?}"))?;
    let is_cut_root = !info.trec_cut_name.is_empty() && info.trec_cut_name == root;
    parse_trec_params(info, is_cut_root, params, syntax)
        .map_err(|why| format!("{why}; {}", what_follows(info, root, is_cut_root)))
}

fn parse_trec_params(
    info: &'static FamilyInfo,
    is_cut_root: bool,
    params: &str,
    syntax: TrecSyntax,
) -> Result<Vec<Measure>, String> {
    match info.params {
        ParamRule::Levels(_) => {
            let levels = parse_list_of(params, parse_level)?;
            check_distinct(&levels, |a, b| a == b)?;
            Ok(levels
                .into_iter()
                .map(|level| with_params(info, TrecParams::level(level)))
                .collect())
        }
        _ if is_cut_root => {
            let cutoffs = match syntax {
                TrecSyntax::Dot => parse_list_of(params, parse_trec_cutoff)?,
                TrecSyntax::Underscore => vec![parse_cutoff(params)?],
            };
            check_distinct(&cutoffs, |a, b| a == b)?;
            Ok(cutoffs
                .into_iter()
                .map(|cutoff| Measure::new(info.family, Some(cutoff)))
                .collect())
        }
        ParamRule::Numbers { count } => {
            let parsed = TrecParams::numbers(params)?;
            if let Some(count) = count.filter(|&count| parsed.values().len() != count) {
                return Err(format!("expected {count} numbers, found {params:?}"));
            }
            Ok(vec![with_params(info, parsed)])
        }
        ParamRule::Pairs => {
            let parsed = TrecParams::pairs(params)?;
            check_pairs(info, parsed)?;
            Ok(vec![with_params(info, parsed)])
        }
        ParamRule::None | ParamRule::Persistence => Err(format!(
            "no parameters after {}",
            if syntax == TrecSyntax::Dot {
                "a dot"
            } else {
                "an underscore"
            }
        )),
    }
}

/// Every pair names a grade (its gain) or, for trec_eval's `rbp`, the persistence `p`.
fn check_pairs(info: &FamilyInfo, params: TrecParams) -> Result<(), String> {
    let takes_persistence = matches!(info.family, Family::GradedRbp | Family::GradedRbpResidual);
    for (name, value) in params.pairs_given() {
        let is_grade = name.parse::<Grade>().is_ok();
        let is_persistence = takes_persistence && name == "p";
        if is_persistence && !(value > 0.0 && value < 1.0) {
            return Err(format!(
                "expected a persistence p strictly between 0 and 1, found {value}"
            ));
        }
        if !is_grade && !is_persistence {
            return Err(format!(
                "expected a whole-number grade before '=', found {name:?}"
            ));
        }
    }
    Ok(())
}

/// What a trec_eval root takes after its dot, with an example.
fn what_follows(info: &FamilyInfo, root: &str, is_cut_root: bool) -> String {
    let (what, example) = match info.params {
        ParamRule::Levels(_) => ("recall levels".to_string(), ".25,.5"),
        _ if is_cut_root => ("whole-number cutoffs of at least 1".to_string(), "5,10"),
        ParamRule::Numbers { count: Some(1) } => ("a number".to_string(), "0.5"),
        ParamRule::Numbers { count: Some(count) } => (format!("{count} numbers"), "2,-1,0,0"),
        ParamRule::Numbers { count: None } => ("numbers".to_string(), ".25,.5,.75"),
        ParamRule::Pairs
            if matches!(info.family, Family::GradedRbp | Family::GradedRbpResidual) =>
        {
            (
                "grade=gain pairs and p=X (0 < X < 1)".to_string(),
                "1=1,2=2,p=0.8",
            )
        }
        ParamRule::Pairs => ("grade=gain pairs".to_string(), "1=3,2=9"),
        ParamRule::None | ParamRule::Persistence => return format!("{root} takes no parameters"),
    };
    format!("{root} takes {what} after its dot, e.g. {root}.{example}")
}

/// A family's measures for a bare trec_eval root: its default cutoffs or levels.
fn defaults(info: &'static FamilyInfo) -> Vec<Measure> {
    match info.params {
        ParamRule::Levels(levels) => levels
            .iter()
            .map(|&level| with_params(info, TrecParams::level(level)))
            .collect(),
        _ => info
            .default_cutoffs
            .iter()
            .map(|&cutoff| Measure::new(info.family, Some(cutoff)))
            .collect(),
    }
}

fn with_params(info: &FamilyInfo, params: TrecParams) -> Measure {
    Measure {
        params: Some(params),
        ..Measure::new(info.family, None)
    }
}

fn parse_list_of<T>(
    text: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    text.split(',').map(parse).collect()
}

fn check_distinct<T>(items: &[T], same: impl Fn(&T, &T) -> bool) -> Result<(), String> {
    let repeated = items
        .iter()
        .enumerate()
        .any(|(index, item)| items[..index].iter().any(|other| same(item, other)));
    if repeated {
        Err("a cutoff is repeated".into())
    } else {
        Ok(())
    }
}

/// A recall level or multiple: a finite number.
fn parse_level(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|level| level.is_finite())
        .ok_or_else(|| format!("expected a number for a level, found {text:?}"))
}

/// A cutoff in a trec_eval list, read as trec_eval's `atol` reads it: the leading whole number
/// (`23.4` is 23), which must be at least 1.
fn parse_trec_cutoff(text: &str) -> Result<usize, String> {
    let digits: &str = &text.trim()[..text
        .trim()
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.trim().len())];
    parse_cutoff(digits)
        .map_err(|_| format!("expected a whole-number cutoff of at least 1, found {text:?}"))
}

/// The error for a name no family has, listing every known name.
fn unknown_name(name: &str) -> String {
    let mut known: Vec<&str> = Vec::new();
    let registry = FAMILIES
        .iter()
        .flat_map(|info| [info.ir_name, info.trec_name, info.trec_cut_name]);
    let ranx = (ranx_names::WITH_CUTOFF.iter())
        .chain(ranx_names::WITHOUT_CUTOFF)
        .map(|&(name, _)| name);
    for name in registry.chain(ranx) {
        if !name.is_empty() && !known.contains(&name) {
            known.push(name);
        }
    }
    format!(
        "unknown measure name {name:?}; known names: {}",
        known.join(", ")
    )
}

/// The parameters in parentheses that `family` takes.
fn ir_params_taken(family: &FamilyInfo) -> String {
    let mut known = vec!["rel=N"];
    if family.takes_persistence() {
        known.push("p=X (0 < X < 1)");
    }
    if family.family.takes_judged_only() {
        known.push("judged_only=True");
    }
    format!("{} takes {}", family.ir_name, known.join(", "))
}

/// Checks the parameters against what `family` takes, and gives RBP its default persistence.
fn check_params(family: &FamilyInfo, mut params: Params) -> Result<Params, String> {
    let takes = |why: &str| format!("{why}; {}", ir_params_taken(family));
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

/// The family whose trec_eval root, with or without cutoffs, is `root`.
fn find_trec_root(root: &str) -> Option<&'static FamilyInfo> {
    find_trec_cut(root).or_else(|| find(|info| !root.is_empty() && info.trec_name == root))
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
            _ => return Err(format!("unknown parameter {key:?}")),
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
        match (info.has_trec_name(), self.cutoff, self.params) {
            (true, Some(cutoff), _) => write!(f, "{}_{cutoff}{params}", info.trec_cut_name),
            (true, None, Some(trec)) => write!(f, "{}_{}{params}", self.trec_root(), trec.text()),
            (true, None, None) => write!(f, "{}{params}", info.trec_name),
            (false, Some(cutoff), _) => write!(f, "{}{params}@{cutoff}", info.ir_name),
            (false, None, _) => write!(f, "{}{params}", info.ir_name),
        }
    }
}

#[cfg(test)]
#[path = "measure_tests.rs"]
mod tests;
