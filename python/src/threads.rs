//! Worker threads: a rayon pool per thread count, made once, and running
//! work in one (a call's `threads=N`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

use crate::errors::{value_err, Error};

/// Thread pools by thread count, made once each (a render with `threads`
/// runs in one; `None` uses rayon's global pool).
pub(crate) fn pool(threads: Option<i64>) -> PyResult<Option<Arc<rayon::ThreadPool>>> {
    static POOLS: Mutex<Option<HashMap<usize, Arc<rayon::ThreadPool>>>> = Mutex::new(None);
    let Some(n) = threads else {
        return Ok(None);
    };
    // (an i64, so a negative count gets this message, not PyO3's
    // OverflowError for an unsigned argument)
    let n = match usize::try_from(n) {
        Ok(n @ 1..=1024) => n,
        _ => return Err(value_err(format!("threads must be 1..=1024 (got {n})"))),
    };
    let mut pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
    let map = pools.get_or_insert_with(HashMap::new);
    if let Some(p) = map.get(&n) {
        return Ok(Some(p.clone()));
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| Error::new_err(format!("cannot start {n} threads: {e}")))?;
    let p = Arc::new(p);
    map.insert(n, p.clone());
    Ok(Some(p))
}

/// Runs `f` in `pool` (or rayon's global pool).
pub(crate) fn in_pool<T: Send>(
    pool: &Option<Arc<rayon::ThreadPool>>,
    f: impl FnOnce() -> T + Send,
) -> T {
    match pool {
        Some(p) => p.install(f),
        None => f(),
    }
}
