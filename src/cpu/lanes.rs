//! Eight `f32` lanes, [`Lanes8`]: the arithmetic of the BVH walks in one
//! implementation per instruction set ([`Avx2`]'s 256-bit registers,
//! [`Sse`]'s two 128-bit halves, [`Scalar`]'s lane loops for other
//! targets such as `wasm32`), all computing the same values bit for bit,
//! and [`BaseLanes`], the one every CPU of the target has. Which one a walk
//! runs on is chosen at run time by [`super::Isa`].

// the AVX2 implementation calls AVX intrinsics on a CPU its `Avx2` proves
#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use super::Avx2;

/// Eight `f32` lanes and the operations the BVH walks make on them, in
/// one implementation per instruction set ([`Avx2`], [`Sse`], [`Scalar`]).
/// Every implementation computes the same values bit for bit: the four
/// IEEE operations round alike on every instruction set (and Rust never
/// fuses a multiply and an add on its own), and [`Lanes8::max`] and
/// [`Lanes8::min`] are defined as x86's `maxps` and `minps` are (NaN and
/// signed zeros included), which the scalar lanes write out.
pub(crate) trait Lanes8: Copy {
    /// Eight lanes.
    type V: Copy;
    /// `x` in every lane.
    fn splat(self, x: f32) -> Self::V;
    /// The lanes of `a`.
    fn load(self, a: &[f32; 8]) -> Self::V;
    /// `a - b` per lane.
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a * b` per lane.
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    /// `if a > b { a } else { b }` per lane (`maxps`).
    fn max(self, a: Self::V, b: Self::V) -> Self::V;
    /// `if a < b { a } else { b }` per lane (`minps`).
    fn min(self, a: Self::V, b: Self::V) -> Self::V;
    /// The lanes where `a <= b`, bit k for lane k (false with a NaN).
    fn le(self, a: Self::V, b: Self::V) -> u32;
    /// The lanes as an array.
    fn store(self, a: Self::V) -> [f32; 8];

    /// Whether the walks test a leaf's triangles eight at a time on these
    /// lanes (two packs of four in one pass; else a pack at a time).
    const WIDE: bool;
    /// Eight lane masks (all bits set or clear per lane).
    type M: Copy;
    /// Lanes 0..4 from `lo`, 4..8 from `hi`.
    fn load2(self, lo: &glam::Vec4, hi: &glam::Vec4) -> Self::V;
    /// `a + b` per lane.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a / b` per lane.
    fn div(self, a: Self::V, b: Self::V) -> Self::V;
    /// `-a` per lane (the sign bit flipped).
    fn neg(self, a: Self::V) -> Self::V;
    /// `|a|` per lane (the sign bit cleared).
    fn abs(self, a: Self::V) -> Self::V;
    /// `a < b` per lane (false with a NaN).
    fn lt(self, a: Self::V, b: Self::V) -> Self::M;
    /// `a > b` per lane (false with a NaN).
    fn gt(self, a: Self::V, b: Self::V) -> Self::M;
    /// `a >= b` per lane (false with a NaN).
    fn ge(self, a: Self::V, b: Self::V) -> Self::M;
    /// `a <= b` per lane (false with a NaN).
    fn le_m(self, a: Self::V, b: Self::V) -> Self::M;
    /// `a == b` per lane (false with a NaN).
    fn eq(self, a: Self::V, b: Self::V) -> Self::M;
    /// `a` is finite, per lane.
    fn finite(self, a: Self::V) -> Self::M;
    /// `a & b`.
    fn and(self, a: Self::M, b: Self::M) -> Self::M;
    /// `a | b`.
    fn or(self, a: Self::M, b: Self::M) -> Self::M;
    /// `m ? a : b` per lane.
    fn select(self, m: Self::M, a: Self::V, b: Self::V) -> Self::V;
    /// The lanes set in `m`, bit k for lane k.
    fn bits(self, m: Self::M) -> u32;
}

/// The lanes of targets without a SIMD build here (`wasm32` and others),
/// and the tests' reference: plain lane loops, which the compiler may
/// vectorize for the target (the same values either way).
// (on x86-64 only the tests run it)
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Scalar;

impl Lanes8 for Scalar {
    type V = [f32; 8];

    #[inline(always)]
    fn splat(self, x: f32) -> [f32; 8] {
        [x; 8]
    }

    #[inline(always)]
    fn load(self, a: &[f32; 8]) -> [f32; 8] {
        *a
    }

    #[inline(always)]
    fn sub(self, a: [f32; 8], b: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|k| a[k] - b[k])
    }

    #[inline(always)]
    fn mul(self, a: [f32; 8], b: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|k| a[k] * b[k])
    }

    #[inline(always)]
    fn max(self, a: [f32; 8], b: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|k| if a[k] > b[k] { a[k] } else { b[k] })
    }

    #[inline(always)]
    fn min(self, a: [f32; 8], b: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|k| if a[k] < b[k] { a[k] } else { b[k] })
    }

    #[inline(always)]
    fn le(self, a: [f32; 8], b: [f32; 8]) -> u32 {
        (0..8).fold(0, |m, k| m | u32::from(a[k] <= b[k]) << k)
    }

    #[inline(always)]
    fn store(self, a: [f32; 8]) -> [f32; 8] {
        a
    }

    const WIDE: bool = false;
    type M = [bool; 8];

    #[inline(always)]
    fn load2(self, lo: &glam::Vec4, hi: &glam::Vec4) -> [f32; 8] {
        let (lo, hi) = (lo.to_array(), hi.to_array());
        [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]]
    }

    #[inline(always)]
    fn add(self, a: [f32; 8], b: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|k| a[k] + b[k])
    }

    #[inline(always)]
    fn div(self, a: [f32; 8], b: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|k| a[k] / b[k])
    }

    #[inline(always)]
    fn neg(self, a: [f32; 8]) -> [f32; 8] {
        a.map(|x| -x)
    }

    #[inline(always)]
    fn abs(self, a: [f32; 8]) -> [f32; 8] {
        a.map(f32::abs)
    }

    #[inline(always)]
    fn lt(self, a: [f32; 8], b: [f32; 8]) -> [bool; 8] {
        std::array::from_fn(|k| a[k] < b[k])
    }

    #[inline(always)]
    fn gt(self, a: [f32; 8], b: [f32; 8]) -> [bool; 8] {
        std::array::from_fn(|k| a[k] > b[k])
    }

    #[inline(always)]
    fn ge(self, a: [f32; 8], b: [f32; 8]) -> [bool; 8] {
        std::array::from_fn(|k| a[k] >= b[k])
    }

    #[inline(always)]
    fn le_m(self, a: [f32; 8], b: [f32; 8]) -> [bool; 8] {
        std::array::from_fn(|k| a[k] <= b[k])
    }

    #[inline(always)]
    fn eq(self, a: [f32; 8], b: [f32; 8]) -> [bool; 8] {
        std::array::from_fn(|k| a[k] == b[k])
    }

    #[inline(always)]
    fn finite(self, a: [f32; 8]) -> [bool; 8] {
        a.map(f32::is_finite)
    }

    #[inline(always)]
    fn and(self, a: [bool; 8], b: [bool; 8]) -> [bool; 8] {
        std::array::from_fn(|k| a[k] & b[k])
    }

    #[inline(always)]
    fn or(self, a: [bool; 8], b: [bool; 8]) -> [bool; 8] {
        std::array::from_fn(|k| a[k] | b[k])
    }

    #[inline(always)]
    fn select(self, m: [bool; 8], a: [f32; 8], b: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|k| if m[k] { a[k] } else { b[k] })
    }

    #[inline(always)]
    fn bits(self, m: [bool; 8]) -> u32 {
        (0..8).fold(0, |b, k| b | u32::from(m[k]) << k)
    }
}

/// The lanes of every x86-64 CPU: two SSE registers of four (glam's
/// `Vec4`, whose `max`, `min` and `cmple` are `maxps`, `minps` and
/// `cmpleps`).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sse;

#[cfg(target_arch = "x86_64")]
impl Lanes8 for Sse {
    type V = [glam::Vec4; 2];

    #[inline(always)]
    fn splat(self, x: f32) -> Self::V {
        [glam::Vec4::splat(x); 2]
    }

    #[inline(always)]
    fn load(self, a: &[f32; 8]) -> Self::V {
        [
            glam::Vec4::from_slice(&a[..4]),
            glam::Vec4::from_slice(&a[4..]),
        ]
    }

    #[inline(always)]
    fn sub(self, a: Self::V, b: Self::V) -> Self::V {
        [a[0] - b[0], a[1] - b[1]]
    }

    #[inline(always)]
    fn mul(self, a: Self::V, b: Self::V) -> Self::V {
        [a[0] * b[0], a[1] * b[1]]
    }

    #[inline(always)]
    fn max(self, a: Self::V, b: Self::V) -> Self::V {
        [a[0].max(b[0]), a[1].max(b[1])]
    }

    #[inline(always)]
    fn min(self, a: Self::V, b: Self::V) -> Self::V {
        [a[0].min(b[0]), a[1].min(b[1])]
    }

    #[inline(always)]
    fn le(self, a: Self::V, b: Self::V) -> u32 {
        a[0].cmple(b[0]).bitmask() | a[1].cmple(b[1]).bitmask() << 4
    }

    #[inline(always)]
    fn store(self, a: Self::V) -> [f32; 8] {
        let (lo, hi) = (a[0].to_array(), a[1].to_array());
        [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]]
    }

    const WIDE: bool = false;
    type M = [glam::BVec4A; 2];

    #[inline(always)]
    fn load2(self, lo: &glam::Vec4, hi: &glam::Vec4) -> Self::V {
        [*lo, *hi]
    }

    #[inline(always)]
    fn add(self, a: Self::V, b: Self::V) -> Self::V {
        [a[0] + b[0], a[1] + b[1]]
    }

    #[inline(always)]
    fn div(self, a: Self::V, b: Self::V) -> Self::V {
        [a[0] / b[0], a[1] / b[1]]
    }

    #[inline(always)]
    fn neg(self, a: Self::V) -> Self::V {
        [-a[0], -a[1]]
    }

    #[inline(always)]
    fn abs(self, a: Self::V) -> Self::V {
        [a[0].abs(), a[1].abs()]
    }

    #[inline(always)]
    fn lt(self, a: Self::V, b: Self::V) -> Self::M {
        [a[0].cmplt(b[0]), a[1].cmplt(b[1])]
    }

    #[inline(always)]
    fn gt(self, a: Self::V, b: Self::V) -> Self::M {
        [a[0].cmpgt(b[0]), a[1].cmpgt(b[1])]
    }

    #[inline(always)]
    fn ge(self, a: Self::V, b: Self::V) -> Self::M {
        [a[0].cmpge(b[0]), a[1].cmpge(b[1])]
    }

    #[inline(always)]
    fn le_m(self, a: Self::V, b: Self::V) -> Self::M {
        [a[0].cmple(b[0]), a[1].cmple(b[1])]
    }

    #[inline(always)]
    fn eq(self, a: Self::V, b: Self::V) -> Self::M {
        [a[0].cmpeq(b[0]), a[1].cmpeq(b[1])]
    }

    #[inline(always)]
    fn finite(self, a: Self::V) -> Self::M {
        [a[0].is_finite_mask(), a[1].is_finite_mask()]
    }

    #[inline(always)]
    fn and(self, a: Self::M, b: Self::M) -> Self::M {
        [a[0] & b[0], a[1] & b[1]]
    }

    #[inline(always)]
    fn or(self, a: Self::M, b: Self::M) -> Self::M {
        [a[0] | b[0], a[1] | b[1]]
    }

    #[inline(always)]
    fn select(self, m: Self::M, a: Self::V, b: Self::V) -> Self::V {
        [
            glam::Vec4::select(m[0], a[0], b[0]),
            glam::Vec4::select(m[1], a[1], b[1]),
        ]
    }

    #[inline(always)]
    fn bits(self, m: Self::M) -> u32 {
        m[0].bitmask() | m[1].bitmask() << 4
    }
}

/// The lanes of an AVX2 CPU: one 256-bit register. A value of
/// `__m256` exists only where an [`Avx2`] made it, so every operation on
/// one runs on a CPU with AVX.
#[cfg(target_arch = "x86_64")]
impl Lanes8 for Avx2 {
    type V = std::arch::x86_64::__m256;

    #[inline(always)]
    fn splat(self, x: f32) -> Self::V {
        // SAFETY (here and below): `self` proves the CPU has AVX.
        unsafe { avx::splat(x) }
    }

    #[inline(always)]
    fn load(self, a: &[f32; 8]) -> Self::V {
        unsafe { avx::load(a) }
    }

    #[inline(always)]
    fn sub(self, a: Self::V, b: Self::V) -> Self::V {
        unsafe { avx::sub(a, b) }
    }

    #[inline(always)]
    fn mul(self, a: Self::V, b: Self::V) -> Self::V {
        unsafe { avx::mul(a, b) }
    }

    #[inline(always)]
    fn max(self, a: Self::V, b: Self::V) -> Self::V {
        unsafe { avx::max(a, b) }
    }

    #[inline(always)]
    fn min(self, a: Self::V, b: Self::V) -> Self::V {
        unsafe { avx::min(a, b) }
    }

    #[inline(always)]
    fn le(self, a: Self::V, b: Self::V) -> u32 {
        unsafe { avx::le(a, b) }
    }

    #[inline(always)]
    fn store(self, a: Self::V) -> [f32; 8] {
        unsafe { avx::store(a) }
    }

    const WIDE: bool = true;
    type M = std::arch::x86_64::__m256;

    #[inline(always)]
    fn load2(self, lo: &glam::Vec4, hi: &glam::Vec4) -> Self::V {
        unsafe { avx::load2(lo, hi) }
    }

    #[inline(always)]
    fn add(self, a: Self::V, b: Self::V) -> Self::V {
        unsafe { avx::add(a, b) }
    }

    #[inline(always)]
    fn div(self, a: Self::V, b: Self::V) -> Self::V {
        unsafe { avx::div(a, b) }
    }

    #[inline(always)]
    fn neg(self, a: Self::V) -> Self::V {
        unsafe { avx::neg(a) }
    }

    #[inline(always)]
    fn abs(self, a: Self::V) -> Self::V {
        unsafe { avx::abs(a) }
    }

    #[inline(always)]
    fn lt(self, a: Self::V, b: Self::V) -> Self::M {
        unsafe { avx::cmp::<{ std::arch::x86_64::_CMP_LT_OQ }>(a, b) }
    }

    #[inline(always)]
    fn gt(self, a: Self::V, b: Self::V) -> Self::M {
        unsafe { avx::cmp::<{ std::arch::x86_64::_CMP_GT_OQ }>(a, b) }
    }

    #[inline(always)]
    fn ge(self, a: Self::V, b: Self::V) -> Self::M {
        unsafe { avx::cmp::<{ std::arch::x86_64::_CMP_GE_OQ }>(a, b) }
    }

    #[inline(always)]
    fn le_m(self, a: Self::V, b: Self::V) -> Self::M {
        unsafe { avx::cmp::<{ std::arch::x86_64::_CMP_LE_OQ }>(a, b) }
    }

    #[inline(always)]
    fn eq(self, a: Self::V, b: Self::V) -> Self::M {
        unsafe { avx::cmp::<{ std::arch::x86_64::_CMP_EQ_OQ }>(a, b) }
    }

    #[inline(always)]
    fn finite(self, a: Self::V) -> Self::M {
        unsafe { avx::finite(a) }
    }

    #[inline(always)]
    fn and(self, a: Self::M, b: Self::M) -> Self::M {
        unsafe { avx::and(a, b) }
    }

    #[inline(always)]
    fn or(self, a: Self::M, b: Self::M) -> Self::M {
        unsafe { avx::or(a, b) }
    }

    #[inline(always)]
    fn select(self, m: Self::M, a: Self::V, b: Self::V) -> Self::V {
        unsafe { avx::select(m, a, b) }
    }

    #[inline(always)]
    fn bits(self, m: Self::M) -> u32 {
        unsafe { avx::bits(m) }
    }
}

/// The AVX instructions of [`Avx2`]'s [`Lanes8`].
#[cfg(target_arch = "x86_64")]
mod avx {
    use std::arch::x86_64::{
        __m256, _mm256_add_ps, _mm256_and_ps, _mm256_andnot_ps, _mm256_blendv_ps, _mm256_cmp_ps,
        _mm256_div_ps, _mm256_loadu2_m128, _mm256_loadu_ps, _mm256_max_ps, _mm256_min_ps,
        _mm256_movemask_ps, _mm256_mul_ps, _mm256_or_ps, _mm256_set1_ps, _mm256_storeu_ps,
        _mm256_sub_ps, _mm256_xor_ps, _CMP_LE_OQ, _CMP_LT_OQ,
    };

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn load2(lo: &glam::Vec4, hi: &glam::Vec4) -> __m256 {
        // SAFETY: reads the four `f32` of each (a `Vec4` is four `f32`).
        unsafe { _mm256_loadu2_m128(std::ptr::from_ref(hi).cast(), std::ptr::from_ref(lo).cast()) }
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn add(a: __m256, b: __m256) -> __m256 {
        _mm256_add_ps(a, b)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn div(a: __m256, b: __m256) -> __m256 {
        _mm256_div_ps(a, b)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn neg(a: __m256) -> __m256 {
        _mm256_xor_ps(a, _mm256_set1_ps(-0.0))
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn abs(a: __m256) -> __m256 {
        _mm256_andnot_ps(_mm256_set1_ps(-0.0), a)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn cmp<const P: i32>(a: __m256, b: __m256) -> __m256 {
        _mm256_cmp_ps::<P>(a, b)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn finite(a: __m256) -> __m256 {
        _mm256_cmp_ps::<_CMP_LT_OQ>(abs(a), _mm256_set1_ps(f32::INFINITY))
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn and(a: __m256, b: __m256) -> __m256 {
        _mm256_and_ps(a, b)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn or(a: __m256, b: __m256) -> __m256 {
        _mm256_or_ps(a, b)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn select(m: __m256, a: __m256, b: __m256) -> __m256 {
        _mm256_blendv_ps(b, a, m)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn bits(m: __m256) -> u32 {
        _mm256_movemask_ps(m) as u32
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn splat(x: f32) -> __m256 {
        _mm256_set1_ps(x)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn load(a: &[f32; 8]) -> __m256 {
        // SAFETY: reads the eight `f32` of `a`.
        unsafe { _mm256_loadu_ps(a.as_ptr()) }
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn sub(a: __m256, b: __m256) -> __m256 {
        _mm256_sub_ps(a, b)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn mul(a: __m256, b: __m256) -> __m256 {
        _mm256_mul_ps(a, b)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn max(a: __m256, b: __m256) -> __m256 {
        _mm256_max_ps(a, b)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn min(a: __m256, b: __m256) -> __m256 {
        _mm256_min_ps(a, b)
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn le(a: __m256, b: __m256) -> u32 {
        _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(a, b)) as u32
    }

    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn store(a: __m256) -> [f32; 8] {
        let mut out = [0f32; 8];
        // SAFETY: writes the eight `f32` of `out`.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), a) };
        out
    }
}

/// The lanes every CPU of the target has: [`Sse`] on x86-64, [`Scalar`]
/// elsewhere.
#[cfg(target_arch = "x86_64")]
pub(crate) type BaseLanes = Sse;
/// The lanes every CPU of the target has: [`Sse`] on x86-64, [`Scalar`]
/// elsewhere.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) type BaseLanes = Scalar;
