//! What a column of the result tables may hold, as serde helpers for the row structs
//! (`#[serde(with = "domains::score")]`): numbers written as Rust prints them (`27`, not
//! `27.0`), `NA` for an undefined value, `control` for the control trial, and on reading every
//! value checked against its domain, which the figures' axes rely on (a huge rank or a
//! negative score would overflow plotters' pixel arithmetic).
//!
//! A refused value becomes a serde error whose message is what the column must hold; the
//! table reader adds the file, line, column and the value found.

use std::ops::RangeInclusive;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serializer};

/// The name of the control trial in the tables and in kept qrels' file names.
pub const CONTROL: &str = "control";

/// The spelling of an undefined number.
const NOT_AVAILABLE: &str = "NA";

/// Writes a number as `f64`'s `Display` does: the shortest text that reads back to the same
/// value, without exponent.
fn write_number<S: Serializer>(value: f64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&value)
}

/// Reads a number within `domain`; `expected` says what the column must hold.
fn read_number<'de, D: Deserializer<'de>>(
    deserializer: D,
    domain: RangeInclusive<f64>,
    expected: &str,
) -> Result<f64, D::Error> {
    let text = String::deserialize(deserializer)?;
    match text.parse::<f64>() {
        Ok(value) if domain.contains(&value) => Ok(value),
        _ => Err(D::Error::custom(expected)),
    }
}

/// A number within a domain: the module is used as `#[serde(with = "...")]`.
macro_rules! bounded_number {
    ($(#[$doc:meta])* $name:ident, $domain:expr, $expected:literal) => {
        $(#[$doc])*
        pub(super) mod $name {
            use serde::{Deserializer, Serializer};

            pub(in super::super) fn serialize<S: Serializer>(
                value: &f64,
                serializer: S,
            ) -> Result<S::Ok, S::Error> {
                super::write_number(*value, serializer)
            }

            pub(in super::super) fn deserialize<'de, D: Deserializer<'de>>(
                deserializer: D,
            ) -> Result<f64, D::Error> {
                super::read_number(deserializer, $domain, $expected)
            }
        }
    };
}

bounded_number!(
    /// A score: finite and >= 0 (every measure's domain).
    score,
    0.0..=f64::MAX,
    "a score >= 0"
);
bounded_number!(
    /// A rank: finite and >= 1 (its upper bound, the number of runs of its measure, is checked
    /// once `runs.tsv` is read).
    rank,
    1.0..=f64::MAX,
    "a rank >= 1"
);
bounded_number!(
    /// A share or a fraction: between 0 and 1.
    fraction,
    0.0..=1.0,
    "a fraction between 0 and 1"
);
bounded_number!(
    /// A change between two scores or two ranks: any finite number.
    change,
    f64::MIN..=f64::MAX,
    "a finite number"
);
/// A number within a domain, or `NA` where it is undefined.
macro_rules! optional_number {
    ($(#[$doc:meta])* $name:ident, $domain:expr, $expected:literal) => {
        $(#[$doc])*
        pub(super) mod $name {
            use serde::{Deserialize, Deserializer, Serializer};

            pub(in super::super) fn serialize<S: Serializer>(
                value: &Option<f64>,
                serializer: S,
            ) -> Result<S::Ok, S::Error> {
                match value {
                    Some(value) => super::write_number(*value, serializer),
                    None => serializer.serialize_str(super::NOT_AVAILABLE),
                }
            }

            pub(in super::super) fn deserialize<'de, D: Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Option<f64>, D::Error> {
                let text = String::deserialize(deserializer)?;
                if text == super::NOT_AVAILABLE {
                    return Ok(None);
                }
                let number = serde::de::value::StringDeserializer::<D::Error>::new(text);
                super::read_number(number, $domain, $expected).map(Some)
            }
        }
    };
}

optional_number!(
    /// A correlation, or `NA` where it is undefined (a ranking that ties every run, or the
    /// control trial's paired correlation with itself).
    tau,
    -1.0..=1.0,
    "a correlation between -1 and 1, or NA"
);
optional_number!(
    /// A change between two ranks, or `NA` where there is none to take.
    optional_change,
    f64::MIN..=f64::MAX,
    "a finite number, or NA"
);
optional_number!(
    /// A score, or `NA` (the truth score of a task without a truth file).
    optional_score,
    0.0..=f64::MAX,
    "a score >= 0, or NA"
);

/// A count, or `NA` where there is none to take (pairs of runs a trial could not test).
pub(super) mod optional_count {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(in super::super) fn serialize<S: Serializer>(
        value: &Option<usize>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(count) => serializer.serialize_u64(*count as u64),
            None => serializer.serialize_str(super::NOT_AVAILABLE),
        }
    }

    pub(in super::super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<usize>, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text == super::NOT_AVAILABLE {
            return Ok(None);
        }
        text.parse()
            .map(Some)
            .map_err(|_| serde::de::Error::custom("a whole number, or NA"))
    }
}

optional_number!(
    /// A mean count, or `NA` where there is none to take.
    optional_mean_count,
    0.0..=f64::MAX,
    "a number >= 0, or NA"
);

/// A column written only when the study's assessor is not the official one: `None` leaves the
/// column out (`#[serde(default, skip_serializing_if = "Option::is_none", with = "...")]`), and
/// a file without it reads as `None`.
macro_rules! assessor_column {
    ($(#[$doc:meta])* $name:ident, $inner:ident, $value:ty) => {
        $(#[$doc])*
        pub(super) mod $name {
            use serde::{Deserializer, Serializer};

            pub(in super::super) fn serialize<S: Serializer>(
                value: &Option<$value>,
                serializer: S,
            ) -> Result<S::Ok, S::Error> {
                match value {
                    Some(value) => super::$inner::serialize(value, serializer),
                    None => serializer.serialize_none(),
                }
            }

            pub(in super::super) fn deserialize<'de, D: Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Option<$value>, D::Error> {
                super::$inner::deserialize(deserializer).map(Some)
            }
        }
    };
}

assessor_column!(
    /// A correlation against the assessor's ranking, or `NA` where it is undefined.
    assessor_tau,
    tau,
    Option<f64>
);
assessor_column!(
    /// A count of pairs against the assessor's qrels, or `NA`.
    assessor_count,
    optional_count,
    Option<usize>
);
assessor_column!(
    /// A mean count of pairs against the assessor's qrels, or `NA`.
    assessor_mean_count,
    optional_mean_count,
    Option<f64>
);
assessor_column!(
    /// A fraction of what the assessor graded: between 0 and 1.
    assessor_fraction,
    fraction,
    f64
);

/// The trial a row belongs to: its held-out team, or `control` (`None`) for the control trial.
pub(super) mod trial {
    use serde::{Deserializer, Serializer};

    pub(in super::super) fn serialize<S: Serializer>(
        held_out: &Option<String>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(held_out.as_deref().unwrap_or(super::CONTROL))
    }

    pub(in super::super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<String>, D::Error> {
        let name = super::non_empty(deserializer)?;
        Ok((name != super::CONTROL).then_some(name))
    }
}

/// A whole number: a seed or a count.
pub(super) fn whole<'de, D: Deserializer<'de>, T: std::str::FromStr>(
    deserializer: D,
) -> Result<T, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(|_| D::Error::custom("a whole number"))
}

/// A text column: run tags, teams and measures are never empty.
pub(super) fn non_empty<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    if text.is_empty() {
        return Err(D::Error::custom("a non-empty field"));
    }
    Ok(text)
}
