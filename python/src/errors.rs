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
    match error {
        reusesim::Error::Parse(reusesim::ParseError {
            kind: reusesim::ParseErrorKind::Io(io),
            ..
        }) if io.kind() == std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(text),
        reusesim::Error::Parse(reusesim::ParseError {
            kind: reusesim::ParseErrorKind::Io(_),
            ..
        })
        | reusesim::Error::Write { .. } => PyOSError::new_err(text),
        reusesim::Error::Plot { .. } => PyRuntimeError::new_err(text),
        _ => PyValueError::new_err(text),
    }
}

/// The Python exception for a malformed input.
pub fn parse_err(error: reusesim::ParseError) -> PyErr {
    to_py_err(error.into())
}
