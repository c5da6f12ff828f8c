//! Data parallelism: rayon natively, and on `wasm32` a sequential stand-in
//! with the same names (`par/seq.rs`).
//!
//! Every parallel loop of the crate goes through this module
//! (`use crate::par::prelude::*`, `par::join`, `par::ThreadPool`, …). On a
//! native target these are rayon's own items, re-exported. On `wasm32`
//! (the browser package's build, without the `atomics` feature: one thread)
//! rayon's pool is the calling thread, and all that its thread pool, work
//! stealing and iterator plumbing add to the module is size (35 KB of the
//! gzipped module); there the same names run each loop in order on the
//! calling thread, over std iterators. (A threaded wasm32 build, with
//! `atomics` and a worker pool, would want rayon back here.)
//!
//! Why this changes no answer: every parallel loop of the crate gives the
//! same result on any number of threads, bit for bit (docs/conventions.md,
//! "Threads"): each item is written by one closure call that depends on that
//! item alone, and every `fold`/`reduce` combines with an exact, associative
//! operation (unions of boxes, bit-set ORs, integer sums). A run on one
//! thread in order is one of the runs rayon may make, so the stand-in gives
//! what rayon gives. Its own tests (`seq`'s, run on the host) compare each
//! of the crate's chains with rayon's results on the same input.

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use rayon::{current_thread_index, join, prelude, ThreadPool, ThreadPoolBuilder};

#[cfg(any(target_arch = "wasm32", test))]
mod seq;
#[cfg(target_arch = "wasm32")]
pub(crate) use seq::{current_thread_index, join, prelude, ThreadPool, ThreadPoolBuilder};
