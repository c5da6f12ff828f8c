//! File input.

pub mod obj;
pub(crate) mod text;
