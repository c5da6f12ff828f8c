//! CPU helpers, with `pick::simd` the only `unsafe` code of the crate:
//! [`Avx2`], the proof that the CPU has AVX2 and the eight-lane comparisons
//! that take it; [`Lanes8`], the eight-lane arithmetic of the BVH walks in
//! one implementation per instruction set ([`Avx2`]'s 256-bit registers,
//! `Sse`'s two 128-bit halves, `Scalar`'s lane loops for other targets
//! such as `wasm32`), all computing the same values bit for bit, in
//! [`lanes`]; and here [`Isa`], which picks one at run time and runs a
//! [`Kernel`] built for it; [`prefetch`], a cache hint; and
//! [`advise_huge_pages`], the memory hint of large BVH builds (with the
//! `hugepages` feature). Each is a hint, a check or a choice of
//! instructions that changes no result.

#![allow(unsafe_code)]

/// Proof that the CPU has every feature of `ray_block_avx2`: made only by
/// [`Avx2::detect`], after checking them, so that the eight-lane helpers
/// that take one ([`Avx2::le_mask`] and the like) may use AVX instructions
/// and stay safe to call. Costs nothing to pass around.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

impl Avx2 {
    /// `Some` when the CPU has AVX2 (and the rest of `ray_block_avx2`'s list).
    /// (Elsewhere than x86-64 always `None`, and only the tests ask.)
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline]
    pub(crate) fn detect() -> Option<Avx2> {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            return Some(Avx2(()));
        }
        None
    }

    /// The lanes where `a <= b` (bit r: lane r; false with a NaN).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn le_mask(self, a: &[f32; 8], b: &[f32; 8]) -> u32 {
        // SAFETY: `self` proves the CPU has AVX; the loads read the two
        // arrays of eight `f32`.
        unsafe { le_mask_avx(a, b) }
    }

    /// [`Avx2::le_mask`], and `a` in those lanes, `+inf` in the others.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn le_select(self, a: &[f32; 8], b: &[f32; 8]) -> (u32, [f32; 8]) {
        // SAFETY: as in `le_mask`; the store writes the array of eight
        // `f32` it is given.
        unsafe { le_select_avx(a, b) }
    }

    /// The least of the eight lanes (as `Vec4::min` takes minima).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn min(self, a: &[f32; 8]) -> f32 {
        // SAFETY: as in `le_mask`.
        unsafe { min_avx(a) }
    }

    // (elsewhere an `Avx2` is never made; these only keep the callers
    // compiling)
    #[cfg(not(target_arch = "x86_64"))]
    pub(crate) fn le_mask(self, a: &[f32; 8], b: &[f32; 8]) -> u32 {
        (0..8).fold(0, |m, r| m | u32::from(a[r] <= b[r]) << r)
    }

    #[cfg(not(target_arch = "x86_64"))]
    pub(crate) fn le_select(self, a: &[f32; 8], b: &[f32; 8]) -> (u32, [f32; 8]) {
        let m = self.le_mask(a, b);
        (
            m,
            std::array::from_fn(|r| if m >> r & 1 != 0 { a[r] } else { f32::INFINITY }),
        )
    }

    #[cfg(not(target_arch = "x86_64"))]
    pub(crate) fn min(self, a: &[f32; 8]) -> f32 {
        a.iter()
            .fold(f32::INFINITY, |m, &v| if v < m { v } else { m })
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
unsafe fn le_mask_avx(a: &[f32; 8], b: &[f32; 8]) -> u32 {
    use std::arch::x86_64::{_mm256_cmp_ps, _mm256_loadu_ps, _mm256_movemask_ps, _CMP_LE_OQ};
    let (a, b) = (_mm256_loadu_ps(a.as_ptr()), _mm256_loadu_ps(b.as_ptr()));
    _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(a, b)) as u32
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
unsafe fn le_select_avx(a: &[f32; 8], b: &[f32; 8]) -> (u32, [f32; 8]) {
    use std::arch::x86_64::{
        _mm256_blendv_ps, _mm256_cmp_ps, _mm256_loadu_ps, _mm256_movemask_ps, _mm256_set1_ps,
        _mm256_storeu_ps, _CMP_LE_OQ,
    };
    let (va, vb) = (_mm256_loadu_ps(a.as_ptr()), _mm256_loadu_ps(b.as_ptr()));
    let le = _mm256_cmp_ps::<_CMP_LE_OQ>(va, vb);
    let mut out = [0f32; 8];
    _mm256_storeu_ps(
        out.as_mut_ptr(),
        _mm256_blendv_ps(_mm256_set1_ps(f32::INFINITY), va, le),
    );
    (_mm256_movemask_ps(le) as u32, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
unsafe fn min_avx(a: &[f32; 8]) -> f32 {
    use std::arch::x86_64::{
        _mm256_castps256_ps128, _mm256_extractf128_ps, _mm256_loadu_ps, _mm_cvtss_f32, _mm_min_ps,
        _mm_movehl_ps, _mm_shuffle_ps,
    };
    let v = _mm256_loadu_ps(a.as_ptr());
    let m = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
    let m = _mm_min_ps(m, _mm_movehl_ps(m, m));
    let m = _mm_min_ps(m, _mm_shuffle_ps::<0b01>(m, m));
    _mm_cvtss_f32(m)
}

mod lanes;

pub(crate) use lanes::{BaseLanes, Lanes8};
// (the tests run the walks on each instruction set's lanes by name)
#[cfg(test)]
pub(crate) use lanes::Scalar;
#[cfg(all(test, target_arch = "x86_64"))]
pub(crate) use lanes::Sse;

/// Work that runs on any [`Lanes8`], built once per instruction set by
/// [`Isa::run`].
pub(crate) trait Kernel {
    /// What it returns.
    type Out;
    /// Runs it on `lanes`. Implementations mark it `#[inline(always)]`, so
    /// that the whole of it is built into [`Isa::run`]'s AVX2 function.
    fn run<L: Lanes8>(self, lanes: L) -> Self::Out;
}

/// The instruction set the walks run on, chosen once per process: AVX2
/// where the CPU has it (x86-64 only), else [`BaseLanes`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Isa {
    /// [`Avx2`]'s lanes, in a build of the kernel for AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    /// [`BaseLanes`], in the target's baseline build.
    Base,
}

impl Isa {
    /// The best instruction set of this CPU (looked up once, then cached).
    #[inline]
    pub(crate) fn detect() -> Isa {
        use std::sync::atomic::{AtomicU8, Ordering};
        // 0: not looked up yet, 1: base, 2: AVX2 (stored only after
        // `Avx2::detect` found its features, which is what an `Avx2` token
        // stands for)
        static FOUND: AtomicU8 = AtomicU8::new(0);
        match FOUND.load(Ordering::Relaxed) {
            1 => Isa::Base,
            #[cfg(target_arch = "x86_64")]
            2 => Isa::Avx2(Avx2(())),
            _ => {
                let avx2 = Avx2::detect();
                FOUND.store(if avx2.is_some() { 2 } else { 1 }, Ordering::Relaxed);
                match avx2 {
                    #[cfg(target_arch = "x86_64")]
                    Some(t) => Isa::Avx2(t),
                    _ => Isa::Base,
                }
            }
        }
    }

    /// Runs `k` on this instruction set's lanes, in a build of it for
    /// that instruction set.
    #[inline(always)]
    pub(crate) fn run<K: Kernel>(self, k: K) -> K::Out {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `run_avx2` needs the CPU features of its
            // `target_feature` list, which the `Avx2` token proves.
            Isa::Avx2(t) => unsafe { run_avx2(k, t) },
            Isa::Base => k.run(BaseLanes::default()),
        }
    }
}

/// The AVX2 build of a [`Kernel`] (its `run` inlined here).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
fn run_avx2<K: Kernel>(k: K, t: Avx2) -> K::Out {
    k.run(t)
}

/// Does the CPU have every feature of `ray_block_avx2`?
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
}

/// Asks the kernel to back the (not yet touched) buffer of `v` with huge
/// pages (2 MB) where it can: Linux's transparent huge pages, through
/// `madvise(MADV_HUGEPAGE)` on the whole pages inside the buffer. A hint,
/// which changes no byte of memory and no result; filling a large buffer
/// then takes one page fault per 2 MB instead of one per 4 KB, which is
/// what a large BVH build's arrays spend their first touch on. Buffers under
/// a few megabytes are left alone. A no-op without the `hugepages` feature,
/// elsewhere than Linux, or where the system does not allow it.
pub(crate) fn advise_huge_pages<T>(v: &Vec<T>) {
    const PAGE: usize = 4096;
    const HUGE: usize = 2 << 20;
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes < 2 * HUGE {
        return;
    }
    let start = v.as_ptr() as usize;
    let (lo, hi) = (start.next_multiple_of(PAGE), (start + bytes) / PAGE * PAGE);
    #[cfg(all(target_os = "linux", feature = "hugepages"))]
    // SAFETY: `lo .. hi` lies within `v`'s allocation (whole pages of it),
    // and `MADV_HUGEPAGE` only marks those pages for huge-page backing: it
    // neither reads, writes, frees nor moves memory, so no reference to it
    // is affected. A failure (an older kernel, huge pages disabled) leaves
    // things as they were and is ignored.
    unsafe {
        libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
    }
    #[cfg(not(all(target_os = "linux", feature = "hugepages")))]
    let _ = (lo, hi);
}

/// [`prefetch`] of the first `lines` cache lines' worth of `items`: one
/// hint per whole number of items that fits a 64-byte line (every fifth
/// 12-byte position or triangle), `lines` hints. A hint, as [`prefetch`].
#[inline(always)]
pub(crate) fn prefetch_start<T>(items: &[T], lines: usize) {
    let step = (64 / std::mem::size_of::<T>().max(1)).max(1);
    for p in items.iter().step_by(step).take(lines) {
        prefetch(p);
    }
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
