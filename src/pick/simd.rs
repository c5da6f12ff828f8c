//! The AVX2 build of a block of ray picks, chosen at run time: with
//! `crate::cpu`, the only `unsafe` code of the crate.
//!
//! A block of rows of ray picks ([`Frame::ray_block`], with everything it
//! calls inlined) is compiled twice: once for the baseline x86-64 target
//! (SSE2), once with
//! `#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]`. The second
//! runs only on a CPU that reports those features ([`Avx2::detect`]).
//! Calling it is the `unsafe` operation: Rust cannot see the check.
//!
//! Both builds compute the same values bit for bit: the source is the same,
//! Rust never fuses a multiply and an add on its own (FMA is not enabled),
//! and SSE and AVX arithmetic round alike; only the encoding and the
//! register allocation differ. The tests compare both builds on random
//! scenes.

#![allow(unsafe_code)]

use super::PickId;
#[cfg(target_arch = "x86_64")]
use crate::cpu::Avx2;
use crate::frame::Frame;
use crate::scene::Scene;

/// [`Frame::ray_block`], in the AVX2 build when the CPU has it.
pub(crate) fn ray_block(
    frame: &Frame,
    scene: &Scene,
    at: (u32, u32, usize),
    out: &mut [Option<PickId>],
) {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = Avx2::detect() {
        // SAFETY: `ray_block_avx2` needs the CPU features of its
        // `target_feature` list, and `Avx2::detect` has just found them all.
        unsafe { ray_block_avx2(frame, scene, at, out, avx2) };
        return;
    }
    // the baseline build (`Frame::ray_block` itself, which the tests also
    // call as the reference for the AVX2 one)
    frame.ray_block(scene, at, out, None);
}

/// The AVX2 build of [`Frame::ray_block`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
fn ray_block_avx2(
    frame: &Frame,
    scene: &Scene,
    at: (u32, u32, usize),
    out: &mut [Option<PickId>],
    avx2: Avx2,
) {
    frame.ray_block(scene, at, out, Some(avx2));
}
