//! Errors: the package's exception and the mapping of core errors to the
//! Python exceptions that fit them. A leaf: it uses nothing of the crate.

use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::PyErr;
use softpick::ModelErrorKind;

// (named `softpick.Error`, where the package exports it: so tracebacks
// say `softpick.Error`, and pickle, which Dask and multiprocessing use to
// send a worker's exception back, finds the class; as `_softpick.Error`
// neither did)
pyo3::create_exception!(
    softpick,
    Error,
    pyo3::exceptions::PyException,
    "An error of the softpick core (its message is the core's)."
);

/// A core error as the Python exception that fits it, with the core's
/// message: a missing file is `FileNotFoundError`, a bad camera or size
/// `ValueError`, anything else `softpick.Error`.
pub(crate) fn py_err(e: softpick::Error) -> PyErr {
    let msg = e.to_string();
    let not_found = match &e {
        softpick::Error::Io { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
        softpick::Error::Model { kind, .. } => *kind == ModelErrorKind::NotFound,
        _ => false,
    };
    if not_found {
        return PyFileNotFoundError::new_err(msg);
    }
    match e {
        softpick::Error::InvalidCamera(_) | softpick::Error::InvalidSize(..) => {
            PyValueError::new_err(msg)
        }
        _ => Error::new_err(msg),
    }
}

/// A `ValueError` with `msg`.
pub(crate) fn value_err(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}
