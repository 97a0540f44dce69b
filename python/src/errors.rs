//! Library errors as Python exceptions: bad input (a malformed file, an unknown measure, an
//! invalid setting, a learner that cannot train) is `ValueError`, a file that cannot be read
//! or written `OSError` (`FileNotFoundError` when missing), a figure that cannot be drawn
//! `RuntimeError`. The message is the one the command line prints:
//! the error and its causes, `file:line: expected ..., found ...` for a malformed input.

use std::error::Error as _;

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::PyErr;

/// The error and its causes joined by `: ` (as the command line prints them), leaving out a
/// cause whose text the message already holds.
pub fn message(error: &reusesim::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// The Python exception for a library error.
pub fn to_py_err(error: reusesim::Error) -> PyErr {
    let text = message(&error);
    // A job's step adds what it was doing; the error under it decides the class.
    match error.root() {
        reusesim::Error::Parse(reusesim::ParseError {
            kind: reusesim::ParseErrorKind::Io(io),
            ..
        }) if io.kind() == std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(text),
        reusesim::Error::Parse(reusesim::ParseError {
            kind: reusesim::ParseErrorKind::Io(_),
            ..
        })
        | reusesim::Error::Read { .. }
        | reusesim::Error::Write { .. } => PyOSError::new_err(text),
        reusesim::Error::Plot { .. } => PyRuntimeError::new_err(text),
        _ => PyValueError::new_err(text),
    }
}

/// The Python exception for a malformed input.
pub fn parse_err(error: reusesim::ParseError) -> PyErr {
    to_py_err(error.into())
}

#[cfg(test)]
mod tests {
    use std::io::ErrorKind;
    use std::path::PathBuf;

    use pyo3::types::PyTypeMethods;
    use pyo3::Python;
    use reusesim::{Error, ParseError, ParseErrorKind};

    use super::*;

    /// The class name and the message of the Python exception raised for `error`.
    fn raised(error: Error) -> (String, String) {
        Python::initialize();
        Python::attach(|py| {
            let exception = to_py_err(error);
            let class = exception.get_type(py).name().unwrap().to_string();
            (class, exception.value(py).to_string())
        })
    }

    fn io_error(kind: ErrorKind) -> std::io::Error {
        std::io::Error::new(kind, "the disk said no")
    }

    fn unreadable(kind: ErrorKind) -> Error {
        ParseError::new("a.qrels", 0, ParseErrorKind::Io(io_error(kind))).into()
    }

    #[test]
    fn a_figure_that_cannot_be_drawn_is_a_runtime_error_with_the_figure_named() {
        let error = Error::Plot {
            figure: "rank_shift_map".to_string(),
            message: "no glyph".to_string(),
        };
        assert_eq!(
            raised(error),
            (
                "RuntimeError".to_string(),
                "drawing rank_shift_map: no glyph".to_string()
            )
        );
    }

    #[test]
    fn files_that_cannot_be_read_or_written_are_os_errors_with_their_cause() {
        let write = Error::Write {
            path: PathBuf::from("out/runs.tsv"),
            source: io_error(ErrorKind::PermissionDenied),
        };
        let read = Error::Read {
            path: PathBuf::from("store.partial/name_ends"),
            source: io_error(ErrorKind::UnexpectedEof),
        };
        for (error, expected_class) in [
            (unreadable(ErrorKind::NotFound), "FileNotFoundError"),
            (unreadable(ErrorKind::PermissionDenied), "OSError"),
            (read, "OSError"),
            (write, "OSError"),
        ] {
            let (class, text) = raised(error);
            assert_eq!(class, expected_class, "{text}");
            assert!(text.ends_with("the disk said no"), "{text}");
        }
    }

    #[test]
    fn a_failed_step_of_a_job_keeps_the_class_of_its_cause_and_says_what_it_was_doing() {
        let error = Error::Context {
            context: "reading the returned judgments".to_string(),
            source: Box::new(unreadable(ErrorKind::NotFound)),
        };
        let (class, text) = raised(error);
        assert_eq!(class, "FileNotFoundError");
        assert!(
            text.starts_with("reading the returned judgments: a.qrels: "),
            "{text}"
        );
    }

    #[test]
    fn bad_input_is_a_value_error() {
        for error in [
            Error::Measure("map@x".to_string()),
            Error::Invalid("seeds must be positive".to_string()),
            ParseError::new("a.qrels", 3, ParseErrorKind::Empty).into(),
        ] {
            assert_eq!(raised(error).0, "ValueError");
        }
    }
}
