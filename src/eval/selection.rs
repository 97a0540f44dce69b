//! What `reusesim eval` is asked to print: measures, possibly named by trec_eval's nicknames
//! (`official`, `all_trec`, `set`), plus trec_eval's two lines that are not scores, `runid`
//! and `relstring`. As in trec_eval, parameters given to a root (`-m P.5,7`) replace that
//! root's defaults wherever a nickname names it, and measures print in trec_eval's order.

use crate::base::error::{Error, Result};
use crate::eval::measure::Measure;
use crate::eval::params::TrecEvalVersion;
use crate::eval::trec_names::{trec_rank, ADDED_IN_TEN, NICKNAMES};

/// `relstring`'s default length: the grades of the top 10 documents.
const RELSTRING_DEFAULT: usize = 10;

/// Measures and the lines that are not scores.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The measures, in the order they were named (or trec_eval's, after
    /// [`Selection::in_trec_eval_order`]).
    pub measures: Vec<Measure>,
    /// Whether to print the run's tag (`runid`).
    pub runid: bool,
    /// trec_eval's `relstring`, if asked.
    pub relstring: Option<RelString>,
}

/// trec_eval's `relstring`: the grades of each topic's top documents, printed per topic.
#[derive(Debug, Clone, PartialEq)]
pub struct RelString {
    /// How many top documents.
    pub length: usize,
    /// The printed name: `relstring`, or `relstring_N` when the length was given.
    pub name: String,
}

/// One specification, before defaults are settled.
enum Request {
    /// Concrete measures; `explicit_root` when trec_eval parameters were given to a root.
    Measures(Vec<Measure>, Option<&'static str>),
    /// A root named by a nickname, which takes its defaults unless parameters were given to it.
    Defaults(&'static str),
    RunId,
    RelString(Option<RelString>),
}

impl Selection {
    /// Parses specifications (each possibly a comma-separated list; see
    /// [`split_specifications`]).
    ///
    /// # Errors
    /// [`Error::Measure`] as [`Measure::parse_list`], for a malformed `relstring` length, and
    /// for an empty list.
    pub fn parse<S: AsRef<str>>(specs: &[S], version: TrecEvalVersion) -> Result<Self> {
        let mut requests = Vec::new();
        for spec in specs {
            for piece in split_specifications(spec.as_ref()) {
                requests.extend(parse_piece(&piece, version)?);
            }
        }
        let explicit_roots: Vec<&str> = requests
            .iter()
            .filter_map(|request| match request {
                Request::Measures(_, root) => *root,
                _ => None,
            })
            .collect();
        let explicit_relstring = requests
            .iter()
            .any(|request| matches!(request, Request::RelString(Some(_))));
        let mut selection = Selection {
            measures: Vec::new(),
            runid: false,
            relstring: None,
        };
        for request in requests {
            match request {
                Request::Measures(measures, _) => selection.add(measures),
                Request::Defaults(root) if !explicit_roots.contains(&root) => {
                    selection.add(Measure::parse_list(root)?);
                }
                Request::Defaults(_) => {}
                Request::RunId => selection.runid = true,
                Request::RelString(given) if given.is_some() || !explicit_relstring => {
                    selection.relstring = given.or(Some(RelString {
                        length: RELSTRING_DEFAULT,
                        name: "relstring".into(),
                    }));
                }
                Request::RelString(_) => {}
            }
        }
        if selection.measures.is_empty() && !selection.runid && selection.relstring.is_none() {
            return Err(Error::Measure("no measure given".into()));
        }
        for measure in &mut selection.measures {
            measure.version = version;
        }
        Ok(selection)
    }

    /// The same selection with the measures in trec_eval's output order: by root as trec_eval's
    /// table lists them, then by cutoff or level.
    pub fn in_trec_eval_order(mut self) -> Self {
        self.measures
            .sort_by_key(|measure| (trec_rank(measure.trec_root()), *measure));
        self
    }

    fn add(&mut self, measures: Vec<Measure>) {
        for measure in measures {
            if !self.measures.contains(&measure) {
                self.measures.push(measure);
            }
        }
    }
}

fn parse_piece(piece: &str, version: TrecEvalVersion) -> Result<Vec<Request>> {
    if let Some((_, roots)) = NICKNAMES.iter().find(|(name, _)| *name == piece) {
        return Ok(roots
            .iter()
            .filter(|root| version == TrecEvalVersion::Ten || !ADDED_IN_TEN.contains(root))
            .map(|&root| match root {
                "runid" => Request::RunId,
                "relstring" => Request::RelString(None),
                root => Request::Defaults(root),
            })
            .collect());
    }
    if piece == "runid" {
        return Ok(vec![Request::RunId]);
    }
    if let Some(length) = relstring_length(piece)? {
        return Ok(vec![Request::RelString(length)]);
    }
    let measures = Measure::parse_list(piece)?;
    let explicit_root = piece
        .split_once('.')
        .map(|_| measures[0].trec_root())
        .filter(|trec_root| piece.starts_with(trec_root));
    Ok(vec![Request::Measures(measures, explicit_root)])
}

/// `relstring` (`Some(None)`: the default length), `relstring.N` or `relstring_N`; `None` for
/// another name.
fn relstring_length(piece: &str) -> Result<Option<Option<RelString>>> {
    let Some(rest) = piece.strip_prefix("relstring") else {
        return Ok(None);
    };
    if rest.is_empty() {
        return Ok(Some(None));
    }
    let Some(length) = rest.strip_prefix('.').or_else(|| rest.strip_prefix('_')) else {
        return Ok(None);
    };
    length
        .parse::<f64>()
        .ok()
        .filter(|length| length.is_finite() && *length >= 0.0)
        .map(|number| {
            Some(Some(RelString {
                length: number as usize,
                name: format!("relstring_{length}"),
            }))
        })
        .ok_or_else(|| {
            Error::Measure(format!(
                "measure {piece:?}: expected relstring.N, N the number of top documents, \
                 found {length:?}"
            ))
        })
}

/// The measures that one piece of `specs` names alone, each with that piece as written
/// (`nDCG@10`, `ndcg@10`, `AP(rel=2)`), in the order named: how the user spelled them. Pieces
/// that name several measures (`P.5,10`, `official`) or none are left out.
pub fn spelled_alone<S: AsRef<str>>(specs: &[S]) -> Vec<(Measure, String)> {
    specs
        .iter()
        .flat_map(|spec| split_specifications(spec.as_ref()))
        .filter_map(|piece| match Measure::parse_list(&piece).as_deref() {
            Ok(&[measure]) => Some((measure, piece.trim().to_string())),
            _ => None,
        })
        .collect()
}

/// The measure specifications in `text`: pieces between commas and spaces outside
/// parentheses (`RBP(rel=1,p=0.8)` is one), where a piece that starts with a digit, `.`, `-`
/// or `+`, or is a bare `name=value` pair, continues the previous one's parameters (`P.5,10`,
/// `utility.2,-1,0,0`, `ndcg.1=3,2=9`, `rbp.1=1,p=0.8`).
pub fn split_specifications(text: &str) -> Vec<String> {
    let mut specs: Vec<String> = Vec::new();
    for piece in split_outside_parentheses(text) {
        let continues = piece.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c))
            || piece
                .split_once('=')
                .is_some_and(|(name, _)| !name.contains(['.', '(']));
        match specs.last_mut() {
            Some(last) if continues => {
                last.push(',');
                last.push_str(piece);
            }
            _ => specs.push(piece.to_string()),
        }
    }
    specs
}

/// The non-empty pieces of `text` between commas and spaces that stand outside parentheses.
fn split_outside_parentheses(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (index, character) in text.char_indices() {
        match character {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | ' ' if depth == 0 => {
                pieces.push(&text[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    pieces.push(&text[start..]);
    pieces.retain(|piece| !piece.is_empty());
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(specs: &[&str], version: TrecEvalVersion) -> Vec<String> {
        Selection::parse(specs, version)
            .unwrap()
            .in_trec_eval_order()
            .measures
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn specifications_split_at_commas_and_spaces_outside_parameters() {
        let cases: [(&str, &[&str]); 6] = [
            ("map,P.5,10 ndcg", &["map", "P.5,10", "ndcg"]),
            ("RBP(rel=1,p=0.8),map", &["RBP(rel=1,p=0.8)", "map"]),
            ("utility.2,-1,0,0", &["utility.2,-1,0,0"]),
            ("ndcg.1=3,2=9,P", &["ndcg.1=3,2=9", "P"]),
            ("rbp.1=1,p=0.8", &["rbp.1=1,p=0.8"]),
            ("rbp rbp.p=0.5", &["rbp", "rbp.p=0.5"]),
        ];
        for (text, expected) in cases {
            assert_eq!(split_specifications(text), expected, "{text}");
        }
    }

    #[test]
    fn pieces_naming_one_measure_keep_their_spelling() {
        let spelled: Vec<(String, String)> = spelled_alone(&[
            "nDCG@10,map_cut.100 P.5,10",
            "RBP(p=0.8, rel=2)",
            "official",
        ])
        .into_iter()
        .map(|(measure, spelling)| (measure.to_string(), spelling))
        .collect();
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            (list.iter())
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(
            spelled,
            pairs(&[
                ("ndcg_cut_10", "nDCG@10"),
                ("map_cut_100", "map_cut.100"),
                ("RBP(rel=2,p=0.8)", "RBP(p=0.8, rel=2)"),
            ])
        );
    }

    #[test]
    fn official_is_trec_eval_default_set_in_its_order() {
        let selection = Selection::parse(&["official"], TrecEvalVersion::Nine).unwrap();
        assert!(selection.runid);
        let official = names(&["official"], TrecEvalVersion::Nine);
        assert_eq!(
            official[..4],
            ["num_q", "num_ret", "num_rel", "num_rel_ret"]
        );
        assert!(official.contains(&"iprec_at_recall_0.50".to_string()));
        assert_eq!(official.last().unwrap(), "P_1000");
    }

    #[test]
    fn all_trec_follows_the_version() {
        let roots = |version| -> Vec<&'static str> {
            Selection::parse(&["all_trec"], version)
                .unwrap()
                .measures
                .iter()
                .map(Measure::trec_root)
                .collect()
        };
        let (nine, ten) = (roots(TrecEvalVersion::Nine), roots(TrecEvalVersion::Ten));
        for root in ADDED_IN_TEN {
            assert!(!nine.contains(root), "{root}");
            assert!(ten.contains(root), "{root}");
        }
        assert!(ten.len() > nine.len());
        assert!(nine.iter().all(|root| ten.contains(root)));
        let relstring = Selection::parse(&["all_trec"], TrecEvalVersion::Nine)
            .unwrap()
            .relstring
            .unwrap();
        assert_eq!(
            (relstring.length, relstring.name.as_str()),
            (10, "relstring")
        );
    }

    #[test]
    fn parameters_given_to_a_root_replace_its_defaults_wherever_named() {
        let all = names(&["all_trec", "P.5,7"], TrecEvalVersion::Nine);
        let precision: Vec<&String> = all.iter().filter(|n| n.starts_with("P_")).collect();
        assert_eq!(precision, ["P_5", "P_7"]);
        let selection =
            Selection::parse(&["all_trec", "relstring.20"], TrecEvalVersion::Nine).unwrap();
        assert_eq!(selection.relstring.unwrap().name, "relstring_20");
    }

    #[test]
    fn measures_print_in_trec_eval_order_whatever_the_order_named() {
        let ordered = names(&["ndcg_cut.5", "P.10,5", "map"], TrecEvalVersion::Nine);
        assert_eq!(ordered, ["map", "P_5", "P_10", "ndcg_cut_5"]);
    }

    #[test]
    fn a_selection_of_nothing_is_refused() {
        assert!(Selection::parse(&[" , "], TrecEvalVersion::Nine).is_err());
    }
}
