//! The wide rows of the study's tables (`trials.tsv`, `budget.tsv`, `strategies.tsv`): a few
//! columns of their own, then a group of four columns per reference the row's significant pairs
//! are compared with ([`Counts`]: kept, lost, reversed, new), in a fixed order.
//!
//! [`wide_row!`] declares such a row once: its own columns as fields with their serde
//! attributes, and one line per reference naming the group's four columns. It writes the row
//! struct, whose fields are the columns and the groups, and the flat record it is written and
//! read as, with one field per column; a new reference is one line.

use crate::stats::pair_changes::PairChanges;

/// The pairs of runs significant under a row's qrels or a reference, as the four columns
/// `<reference>_kept`, `_lost`, `_reversed` and `_new` (each `NA`, `None`, where there is none
/// to take).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counts<T> {
    /// Significant under both, in the same direction.
    pub kept: Option<T>,
    /// Significant under the reference only.
    pub lost: Option<T>,
    /// Significant under both, in opposite directions.
    pub reversed: Option<T>,
    /// Significant under the row's qrels only.
    pub new: Option<T>,
}

impl<T: Copy> Counts<T> {
    /// The four counts, in column order.
    pub fn to_array(self) -> [Option<T>; 4] {
        [self.kept, self.lost, self.reversed, self.new]
    }

    /// The counts from the four columns, in column order.
    pub fn from_array([kept, lost, reversed, new]: [Option<T>; 4]) -> Self {
        Self {
            kept,
            lost,
            reversed,
            new,
        }
    }

    /// Each count made another number by `convert`.
    pub fn map<U>(self, convert: impl Fn(T) -> U) -> Counts<U> {
        Counts {
            kept: self.kept.map(&convert),
            lost: self.lost.map(&convert),
            reversed: self.reversed.map(&convert),
            new: self.new.map(&convert),
        }
    }

    /// The group of a column group written only in some studies: `None` when no column of
    /// it is there.
    pub(super) fn present(columns: [Option<Option<T>>; 4]) -> Option<Self> {
        (columns.iter().any(Option::is_some))
            .then(|| Self::from_array(columns.map(Option::flatten)))
    }
}

impl Counts<usize> {
    /// The counts of `changes`, `NA` without them.
    pub fn of(changes: Option<PairChanges>) -> Self {
        Self::from_array(match changes {
            Some(changes) => [changes.kept, changes.lost, changes.reversed, changes.new].map(Some),
            None => [None; 4],
        })
    }
}

/// Declares a wide row and the flat record it is written and read as:
///
/// ```text
/// wide_row! {
///     /// docs of the row
///     #[derive(Debug, Clone, PartialEq)]
///     pub struct Row as Record in "file.tsv" {
///         /// docs
///         #[serde(...)]
///         pub column: Type,
///         ...
///     }
///     counts of Count with "domains::optional_count" {
///         /// what the group compares with
///         pub reference: reference_kept reference_lost reference_reversed reference_new,
///         ...
///     }
///     optional {
///         /// columns written only when the study's assessor is not the official one (`None`:
///         /// the column is absent), and read as `None` from a file without them
///         #[serde(with = "domains::assessor_...")]
///         pub column: Option<Type>,
///         ...
///     }
///     optional counts with "domains::assessor_count" {
///         /// a group written only then (`None`: its columns are absent)
///         pub reference: reference_kept reference_lost reference_reversed reference_new,
///     }
/// }
/// ```
///
/// The file's columns are the fields in that order, each group's four in its line's order.
macro_rules! wide_row {
    (
        $(#[doc = $doc:expr])*
        #[derive($($derive:ident),*)]
        pub struct $row:ident as $record:ident in $file:literal {
            $(
                $(#[doc = $field_doc:expr])*
                #[serde($($field_serde:tt)*)]
                pub $field:ident: $field_type:ty,
            )*
        }
        counts of $count:ident with $count_with:literal {
            $(
                $(#[doc = $group_doc:expr])*
                pub $group:ident: $kept:ident $lost:ident $reversed:ident $new:ident,
            )*
        }
        optional {
            $(
                $(#[doc = $optional_doc:expr])*
                #[serde(with = $optional_with:literal)]
                pub $optional:ident: Option<$optional_type:ty>,
            )*
        }
        optional counts with $optional_count_with:literal {
            $(
                $(#[doc = $optional_group_doc:expr])*
                pub $optional_group:ident:
                    $optional_kept:ident $optional_lost:ident
                    $optional_reversed:ident $optional_new:ident,
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive($($derive),*)]
        pub struct $row {
            $(
                $(#[doc = $field_doc])*
                pub $field: $field_type,
            )*
            $(
                $(#[doc = $group_doc])*
                pub $group: super::wide::Counts<$count>,
            )*
            $(
                $(#[doc = $optional_doc])*
                pub $optional: Option<$optional_type>,
            )*
            $(
                $(#[doc = $optional_group_doc])*
                pub $optional_group: Option<super::wide::Counts<$count>>,
            )*
        }

        #[doc = concat!("A line of `", $file, "`: a [`", stringify!($row), "`] column by column.")]
        #[derive(serde::Serialize, serde::Deserialize)]
        struct $record {
            $(
                #[serde($($field_serde)*)]
                $field: $field_type,
            )*
            $(
                #[serde(with = $count_with)]
                $kept: Option<$count>,
                #[serde(with = $count_with)]
                $lost: Option<$count>,
                #[serde(with = $count_with)]
                $reversed: Option<$count>,
                #[serde(with = $count_with)]
                $new: Option<$count>,
            )*
            $(
                #[serde(
                    default,
                    skip_serializing_if = "Option::is_none",
                    with = $optional_with
                )]
                $optional: Option<$optional_type>,
            )*
            $(
                #[serde(
                    default,
                    skip_serializing_if = "Option::is_none",
                    with = $optional_count_with
                )]
                $optional_kept: Option<Option<$count>>,
                #[serde(
                    default,
                    skip_serializing_if = "Option::is_none",
                    with = $optional_count_with
                )]
                $optional_lost: Option<Option<$count>>,
                #[serde(
                    default,
                    skip_serializing_if = "Option::is_none",
                    with = $optional_count_with
                )]
                $optional_reversed: Option<Option<$count>>,
                #[serde(
                    default,
                    skip_serializing_if = "Option::is_none",
                    with = $optional_count_with
                )]
                $optional_new: Option<Option<$count>>,
            )*
        }

        impl super::table::TableRow for $row {
            const FILE: &'static str = $file;
            const ASSESSOR_COLUMNS: &'static [&'static str] = &[
                $(stringify!($optional),)*
                $(
                    stringify!($optional_kept),
                    stringify!($optional_lost),
                    stringify!($optional_reversed),
                    stringify!($optional_new),
                )*
            ];
        }

        impl serde::Serialize for $row {
            fn serialize<S: serde::Serializer>(
                &self,
                serializer: S,
            ) -> Result<S::Ok, S::Error> {
                serde::Serialize::serialize(&$record::from(self.clone()), serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $row {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <$record as serde::Deserialize>::deserialize(deserializer).map(Self::from)
            }
        }

        impl From<$row> for $record {
            fn from(row: $row) -> Self {
                Self {
                    $($field: row.$field,)*
                    $(
                        $kept: row.$group.kept,
                        $lost: row.$group.lost,
                        $reversed: row.$group.reversed,
                        $new: row.$group.new,
                    )*
                    $($optional: row.$optional,)*
                    $(
                        $optional_kept: row.$optional_group.map(|counts| counts.kept),
                        $optional_lost: row.$optional_group.map(|counts| counts.lost),
                        $optional_reversed: row.$optional_group.map(|counts| counts.reversed),
                        $optional_new: row.$optional_group.map(|counts| counts.new),
                    )*
                }
            }
        }

        impl From<$record> for $row {
            fn from(record: $record) -> Self {
                Self {
                    $($field: record.$field,)*
                    $(
                        $group: super::wide::Counts {
                            kept: record.$kept,
                            lost: record.$lost,
                            reversed: record.$reversed,
                            new: record.$new,
                        },
                    )*
                    $($optional: record.$optional,)*
                    $(
                        $optional_group: super::wide::Counts::present([
                            record.$optional_kept,
                            record.$optional_lost,
                            record.$optional_reversed,
                            record.$optional_new,
                        ]),
                    )*
                }
            }
        }
    };
}

pub(super) use wide_row;
