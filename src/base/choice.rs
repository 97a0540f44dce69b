//! Settings chosen from a fixed list of names (`--schedule bmi`, `"schedule": "bmi"` in
//! `summary.json`, `bmi` in `report.md`): one spelling per variant, shared by the command line,
//! the JSON output and the reports, without the library knowing the command line.

/// A setting with a fixed set of named variants.
pub trait Choice: Copy + Sized + 'static {
    /// Every variant, in the order help texts list them.
    const ALL: &'static [Self];

    /// The variant's name as users spell it.
    fn name(self) -> &'static str;

    /// The variant called `name`, if any.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|choice| choice.name() == name)
    }
}

/// Declares an enum whose variants have user-facing names: it implements [`Choice`],
/// `Display` (the name), and `serde::Serialize` and `serde::Deserialize` (the name as a string).
macro_rules! choice_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$variant_meta])* $variant, )+
        }

        impl $crate::base::choice::Choice for $name {
            const ALL: &'static [Self] = &[$(Self::$variant),+];

            fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::base::choice::Choice::name(*self))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($crate::base::choice::Choice::name(*self))
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                <Self as $crate::base::choice::Choice>::from_name(&name).ok_or_else(|| {
                    let names: Vec<&str> = <Self as $crate::base::choice::Choice>::ALL
                        .iter()
                        .map(|choice| $crate::base::choice::Choice::name(*choice))
                        .collect();
                    serde::de::Error::custom(format!(
                        "expected one of {}, found {name:?}",
                        names.join(", ")
                    ))
                })
            }
        }
    };
}
pub(crate) use choice_enum;

#[cfg(test)]
mod tests {
    use super::*;

    choice_enum! {
        /// A test choice.
        pub enum Colour {
            /// Red.
            Red = "red",
            /// Dark blue.
            DarkBlue = "dark-blue",
        }
    }

    #[test]
    fn names_round_trip_and_serialize() {
        for &colour in Colour::ALL {
            assert_eq!(Colour::from_name(colour.name()), Some(colour));
        }
        assert_eq!(Colour::from_name("green"), None);
        assert_eq!(Colour::DarkBlue.to_string(), "dark-blue");
        assert_eq!(serde_json::to_string(&Colour::Red).unwrap(), "\"red\"");
    }

    #[test]
    fn deserializes_names_and_names_the_choices_on_an_unknown_one() {
        let colour: Colour = serde_json::from_str("\"dark-blue\"").unwrap();
        assert_eq!(colour, Colour::DarkBlue);
        let error = serde_json::from_str::<Colour>("\"green\"").unwrap_err();
        assert!(
            error
                .to_string()
                .contains("expected one of red, dark-blue, found \"green\""),
            "{error}"
        );
    }
}
