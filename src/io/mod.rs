//! File input.

pub mod obj;
