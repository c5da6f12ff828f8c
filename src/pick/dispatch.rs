//! The one place with `unsafe` code: rows of ray picks built a second time
//! for the AVX2 instruction set, chosen at run time, and [`prefetch`], the
//! cache hint of the BVH walks.
//!
//! A row of ray picks ([`Frame::ray_row`], with everything it calls inlined)
//! is compiled twice: once for the baseline x86-64 target (SSE2), once with
//! `#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]`. The second
//! runs only on a CPU that reports those features, checked on every call
//! (`is_x86_feature_detected!` reads a cached word). Calling it is the
//! `unsafe` operation: Rust cannot see the check.
//!
//! Both builds compute the same values bit for bit: the source is the same,
//! Rust never fuses a multiply and an add on its own (FMA is not enabled),
//! and SSE and AVX arithmetic round alike; only the encoding and the
//! register allocation differ (three-operand VEX forms save register
//! copies). The gain, measured: 15–17 % fewer instructions per ray sweep,
//! 12–19 % less time on the larger models (BENCHMARKS.md, "Fourth round of
//! speed work"). The tests compare both builds on random scenes.

#![allow(unsafe_code)]

use super::PickId;
use crate::frame::Frame;
use crate::scene::Scene;

/// [`Frame::ray_row`], in the AVX2 build when the CPU has it.
pub(crate) fn ray_row(frame: &Frame, scene: &Scene, x: u32, y: u32, out: &mut [Option<PickId>]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: `ray_row_avx2` needs the CPU features of its
        // `target_feature` list, and `has_avx2` has just found them all.
        unsafe { ray_row_avx2(frame, scene, x, y, out) };
        return;
    }
    // the baseline build (`Frame::ray_row` itself, which the tests also
    // call as the reference for the AVX2 one)
    frame.ray_row(scene, x, y, out);
}

/// Does the CPU have every feature of `ray_row_avx2`?
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
}

/// The AVX2 build of [`Frame::ray_row`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
fn ray_row_avx2(frame: &Frame, scene: &Scene, x: u32, y: u32, out: &mut [Option<PickId>]) {
    frame.ray_row(scene, x, y, out);
}

/// Asks the CPU to bring the cache line holding the start of `*p` into its
/// caches: a hint, which reads nothing the program sees, never faults and
/// changes no result. A no-op off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 CPU has; the
    // address is that of a live reference, and a prefetch neither faults
    // nor writes.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(p).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
