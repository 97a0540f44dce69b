//! Names that become parts of file names: a task's name (`results/{name}`) and team names
//! (`qrels/{team}-s{seed}.qrels`). One rule, checked where the names are read (the team file
//! and the task manifest), so nothing downstream can write outside its folder.

use crate::base::error::ParseErrorKind;

/// The name of the control trial's files (`qrels/control-s{seed}.qrels`) and of its rows in
/// `trials.tsv`; no team may carry it.
pub const CONTROL: &str = "control";

/// What a name must look like, for error messages.
const NAME_RULE: &str = "not empty, not made only of dots, without /, \\ or control characters";

/// Checks that `name`, a `what` (such as `team name`), can be used as part of a file name: it
/// is not empty, not `.`, `..` or any other name made only of dots, and holds no `/`, `\` or
/// control character.
///
/// # Errors
/// A [`ParseErrorKind::Invalid`] saying what was expected and what was found; the caller adds
/// file and line.
pub fn check_file_name(what: &str, name: &str) -> Result<(), ParseErrorKind> {
    let is_usable = !name.is_empty()
        && !name.chars().all(|c| c == '.')
        && !name
            .chars()
            .any(|c| c == '/' || c == '\\' || c.is_control());
    if is_usable {
        Ok(())
    } else {
        Err(ParseErrorKind::Invalid(format!(
            "expected a {what} usable in file names ({NAME_RULE}), found {:?}",
            crate::base::error::excerpt(name)
        )))
    }
}

/// Checks a team name: [`check_file_name`], and not [`CONTROL`] in any letter case (the
/// control trial's files would be overwritten, on a case-insensitive file system too).
///
/// # Errors
/// As [`check_file_name`], and for a team named `control`.
pub fn check_team_name(name: &str) -> Result<(), ParseErrorKind> {
    check_file_name("team name", name)?;
    if name.eq_ignore_ascii_case(CONTROL) {
        return Err(ParseErrorKind::Invalid(format!(
            "expected a team name other than {CONTROL:?} (the control trial's name), found {name:?}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_escape_a_folder_or_hide_characters_are_rejected() {
        for name in [
            "", ".", "..", "...", "a/b", "../x", "a\\b", "a\tb", "a\nb", "x\u{7f}",
        ] {
            let error = check_file_name("team name", name).unwrap_err().to_string();
            assert!(
                error.starts_with("expected a team name usable in file names"),
                "{error}"
            );
            assert!(error.ends_with(&format!("found {name:?}")), "{error}");
        }
        for name in ["a", "a.b", "..a", "team-1", "équipe", "a b"] {
            assert!(check_file_name("team name", name).is_ok(), "{name}");
        }
    }

    #[test]
    fn a_team_cannot_be_called_control() {
        for name in ["control", "Control", "CONTROL"] {
            let error = check_team_name(name).unwrap_err().to_string();
            assert!(error.contains("other than \"control\""), "{error}");
        }
        assert!(check_team_name("controls").is_ok());
        assert!(check_team_name("a/b").is_err());
    }
}
