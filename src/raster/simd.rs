//! The AVX2 build of a chunk's clip, setup and bin stages, chosen at run
//! time: with `crate::cpu` and `pick::simd`, the only `unsafe` code of the
//! crate.
//!
//! A chunk (`BinStage::bin_chunk` of `super::bin`, with the triangle
//! batches of [`super::batch`] inlined into it, handed to [`dispatch`] as
//! a closure, so that this file does not import the bin stage) is
//! compiled twice: once for the
//! baseline x86-64 target (SSE2: four i32 lanes), once with
//! `#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]` (eight), the
//! second run only on a CPU that reports those features
//! ([`Avx2::detect`]). Calling it is the `unsafe` operation: Rust cannot
//! see the check.
//!
//! Both builds compute the same values bit for bit: the source is the
//! same, the batches' lanes are integer arithmetic, Rust never fuses a
//! multiply and an add on its own (FMA is not enabled), and SSE and AVX
//! arithmetic round alike. The tests render with both builds and compare.
//!
//! The vertex stage's AVX2 form ([`vertices`]) is written out in AVX
//! lanes, one vertex per lane, each lane making the portable code's float
//! operations in its order; a test compares the records bit for bit.

#![allow(unsafe_code)]

use super::batch::{self, Front, Triage, LANES};
use super::clip::Guard;
use super::vertex::{self, ScreenVertex, SetupVertex};
use crate::cpu::Avx2;
use glam::{Mat4, Vec3};

/// `work`, in the AVX2 build when the CPU has it (and `baseline` is
/// false: the tests' way to the other build). `work` is given the proof
/// of AVX2 in that build, `None` in the other; it must be
/// `#[inline(always)]` all the way down to what should be compiled twice
/// (the bin stage's chunk loop, `BinStage::bin_chunk`), so that it is
/// inlined into [`run_avx2`] and built with its features.
#[inline(always)]
pub(crate) fn dispatch<R>(baseline: bool, work: impl FnOnce(Option<Avx2>) -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if let (false, Some(avx2)) = (baseline, Avx2::detect()) {
        // SAFETY: `run_avx2` needs the CPU features of its
        // `target_feature` list, and `Avx2::detect` has just found them all.
        return unsafe { run_avx2(work, avx2) };
    }
    let _ = baseline;
    work(None)
}

/// `work` built with AVX2 (see [`dispatch`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn run_avx2<R>(work: impl FnOnce(Option<Avx2>) -> R, avx2: Avx2) -> R {
    work(Some(avx2))
}

/// [`batch::triage`] of a batch, eight lanes at once with AVX2 when
/// `avx2` is given (inlined into the AVX2 build: see `BinStage::bin_chunk`).
#[inline(always)]
pub(crate) fn triage(
    avx2: Option<Avx2>,
    tris: &[[u32; 3]; LANES],
    used: u32,
    verts: &[SetupVertex],
    f: &Front,
) -> Triage {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = avx2 {
        // SAFETY: `avx2` proves the CPU has the features of
        // `triage_avx2`'s list (`Avx2::detect` made it).
        if let Some(t) = unsafe { triage_avx2(tris, used, verts, f, avx2) } {
            return t;
        }
    }
    let _ = avx2;
    batch::triage(tris, used, verts, f)
}

/// [`batch::triage`] in AVX2 lanes, the same decisions lane by lane in
/// the same integers; `None` if an index is out of bounds for `verts`
/// (never for a mesh's triangles; then the portable triage panics as
/// indexing does).
///
/// `#[inline]` is a hint for the AVX2 chunk loop (same features): LLVM
/// keeps the function out of line all the same, and the measured frame
/// time did not change.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
#[inline]
fn triage_avx2(
    tris: &[[u32; 3]; LANES],
    used: u32,
    verts: &[SetupVertex],
    f: &Front,
    _avx2: Avx2,
) -> Option<Triage> {
    use super::clip::{CLIP_MASK, FRUSTUM_MASK, OUT_INVALID};
    use super::rules::{FillRule, SUBPIXEL_BITS};
    use super::setup::WinVertex;
    use crate::geometry::CullMode;
    use std::arch::x86_64::*;
    use std::mem::offset_of;

    type V = __m256i;
    let splat = _mm256_set1_epi32;
    let zero = _mm256_setzero_si256();
    // the lanes set in a comparison's result, as bits
    let bits = |m: V| _mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32;
    let lane_bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    // all-ones in the lanes of the bit mask `m`
    let lanes_of =
        |m: u32| _mm256_cmpeq_epi32(_mm256_and_si256(splat(m as i32), lane_bits), lane_bits);

    // every index within `verts`, else no batch (the greatest of the 24)
    let top = tris.as_flattened().iter().copied().max().unwrap_or(0);
    if top as usize >= verts.len() {
        return None;
    }
    // each corner's snapped position and outcode: the last 16 bytes of
    // its record (z, fx, fy, code), lanes l and l + 4 loaded into one
    // register's halves, then four such registers transposed 4 × 4 per
    // half, which leaves fx, fy and code in lane order (AVX2 gathers of
    // the same words were the triage's slowest instructions on AMD)
    const TAIL: usize = offset_of!(SetupVertex, win) + offset_of!(WinVertex, z);
    const _: () = assert!(
        offset_of!(SetupVertex, win) + offset_of!(WinVertex, fx) == TAIL + 4
            && offset_of!(SetupVertex, win) + offset_of!(WinVertex, fy) == TAIL + 8
            && offset_of!(SetupVertex, code) == TAIL + 12
            && std::mem::size_of::<SetupVertex>() == TAIL + 16
    );
    let base = verts.as_ptr().cast::<u8>();
    let corner = |k: usize| {
        // SAFETY: every index is at most `verts.len() - 1` (checked
        // above), so bytes TAIL..TAIL + 16 of its record lie in `verts`.
        let tail = |l: usize| unsafe {
            let p = |l: usize| {
                base.add(tris[l][k] as usize * std::mem::size_of::<SetupVertex>() + TAIL)
                    .cast::<__m128i>()
            };
            _mm256_loadu2_m128i(p(l + 4), p(l))
        };
        let (a0, a1, a2, a3) = (tail(0), tail(1), tail(2), tail(3));
        let (t0, t1) = (_mm256_unpacklo_epi32(a0, a1), _mm256_unpacklo_epi32(a2, a3));
        let (t2, t3) = (_mm256_unpackhi_epi32(a0, a1), _mm256_unpackhi_epi32(a2, a3));
        (
            _mm256_unpackhi_epi64(t0, t1),
            _mm256_unpacklo_epi64(t2, t3),
            _mm256_unpackhi_epi64(t2, t3),
        )
    };
    let ((x0c, y0c, c0), (x1c, y1c, c1), (x2c, y2c, c2)) = (corner(0), corner(1), corner(2));

    // outcodes, in the order the scalar loop tests them
    let or = _mm256_or_si256(_mm256_or_si256(c0, c1), c2);
    let and = _mm256_and_si256(_mm256_and_si256(c0, c1), c2);
    let any = |v: V, m: u16| {
        !bits(_mm256_cmpeq_epi32(
            _mm256_and_si256(v, splat(i32::from(m))),
            zero,
        )) & 0xff
    };
    let invalid = any(or, OUT_INVALID) & used;
    let frustum = any(and, FRUSTUM_MASK) & used & !invalid;
    let clip = any(or, CLIP_MASK) & used & !invalid & !frustum;
    let mut rest = used & !(invalid | frustum | clip);
    let mut t = Triage {
        invalid,
        frustum,
        clip,
        ..Triage::default()
    };
    if f.rule == FillRule::Inclusive {
        t.general = rest;
        return Some(t);
    }

    // the snapped box and the pixel centres it holds (setup's `pixel_box`)
    let min3 = |a, b, c| _mm256_min_epi32(_mm256_min_epi32(a, b), c);
    let max3 = |a, b, c| _mm256_max_epi32(_mm256_max_epi32(a, b), c);
    let (minx, maxx) = (min3(x0c, x1c, x2c), max3(x0c, x1c, x2c));
    let (miny, maxy) = (min3(y0c, y1c, y2c), max3(y0c, y1c, y2c));
    const S: i32 = SUBPIXEL_BITS as i32;
    let ceil = |v: V| {
        _mm256_max_epi32(
            _mm256_sub_epi32(zero, _mm256_srai_epi32::<S>(_mm256_sub_epi32(zero, v))),
            zero,
        )
    };
    let (bx0, by0) = (ceil(minx), ceil(miny));
    let bx1 = _mm256_min_epi32(_mm256_srai_epi32::<S>(maxx), splat(f.last_x));
    let by1 = _mm256_min_epi32(_mm256_srai_epi32::<S>(maxy), splat(f.last_y));
    let no_centre = bits(_mm256_or_si256(
        _mm256_cmpgt_epi32(bx0, bx1),
        _mm256_cmpgt_epi32(by0, by1),
    ));
    t.empty = rest & no_centre;
    rest &= !no_centre;
    let tiny_v = splat(batch::TINY);
    let tiny = bits(_mm256_and_si256(
        _mm256_cmpgt_epi32(tiny_v, _mm256_sub_epi32(maxx, minx)),
        _mm256_cmpgt_epi32(tiny_v, _mm256_sub_epi32(maxy, miny)),
    ));
    t.general = rest & !tiny;
    rest &= tiny;

    // tiny: area, face, and the coverage of boxes of a few centres
    let mul = _mm256_mullo_epi32;
    let (sub, add) = (_mm256_sub_epi32, _mm256_add_epi32);
    let area = sub(
        mul(sub(x1c, x0c), sub(y2c, y0c)),
        mul(sub(y1c, y0c), sub(x2c, x0c)),
    );
    t.zero = rest & bits(_mm256_cmpeq_epi32(area, zero));
    rest &= !t.zero;
    let front_v = _mm256_cmpgt_epi32(zero, area);
    let front = bits(front_v);
    let kept = match f.cull {
        CullMode::None => rest,
        CullMode::Back => front,
        CullMode::Front => !front,
    };
    t.culled = rest & !kept;
    rest &= kept;
    let (wide, tall) = (sub(bx1, bx0), sub(by1, by0));
    let side = splat(batch::FEW_SIDE);
    let few = bits(_mm256_and_si256(
        _mm256_cmpgt_epi32(side, wide),
        _mm256_cmpgt_epi32(side, tall),
    ));
    t.general |= rest & !few;
    rest &= few;
    // the corners ordered to a positive area: 1 and 2 swapped for front faces
    let pick = |a: V, b: V| _mm256_blendv_epi8(a, b, front_v);
    let qx = [x0c, pick(x1c, x2c), pick(x2c, x1c)];
    let qy = [y0c, pick(y1c, y2c), pick(y2c, y1c)];
    let (cx, cy) = (_mm256_slli_epi32::<S>(bx0), _mm256_slli_epi32::<S>(by0));
    // per edge: its value at the box's first centre and its steps to the
    // next centre right (−256·dy) and down (+256·dx)
    let mut e = [zero; 3];
    let mut step_x = [zero; 3];
    let mut step_y = [zero; 3];
    for k in 0..3 {
        let n = (k + 1) % 3;
        let (dx, dy) = (sub(qx[n], qx[k]), sub(qy[n], qy[k]));
        let bias = match f.rule {
            FillRule::Strict => zero,
            FillRule::Inclusive | FillRule::AreaGuard => splat(1),
            FillRule::TopLeft => {
                let left = _mm256_cmpgt_epi32(zero, dy);
                let top =
                    _mm256_and_si256(_mm256_cmpeq_epi32(dy, zero), _mm256_cmpgt_epi32(dx, zero));
                _mm256_srli_epi32::<31>(_mm256_or_si256(left, top))
            }
        };
        e[k] = add(sub(mul(dx, sub(cy, qy[k])), mul(dy, sub(cx, qx[k]))), bias);
        step_x[k] = _mm256_slli_epi32::<S>(sub(zero, dy));
        step_y[k] = _mm256_slli_epi32::<S>(dx);
    }
    // the coverage of the box's centres, row by row (bit 8·dj + di; the
    // rows and columns past a lane's box masked off)
    let mut mask = zero;
    let one = splat(1);
    if rest != 0 && bits(_mm256_cmpgt_epi32(add(wide, tall), one)) & rest == 0 {
        // (every box left holds one or two centres, as most of a dense
        // mesh's do: the first centre and the one right or below it)
        let right = _mm256_cmpeq_epi32(wide, one);
        let (mut in0, mut in1) = (splat(-1), splat(-1));
        for k in 0..3 {
            let step = _mm256_blendv_epi8(step_y[k], step_x[k], right);
            in0 = _mm256_and_si256(in0, _mm256_cmpgt_epi32(e[k], zero));
            in1 = _mm256_and_si256(in1, _mm256_cmpgt_epi32(add(e[k], step), zero));
        }
        let two = _mm256_cmpeq_epi32(add(wide, tall), one);
        let second = _mm256_blendv_epi8(splat(8), one, right);
        mask = _mm256_or_si256(
            _mm256_and_si256(in0, one),
            _mm256_sllv_epi32(_mm256_and_si256(_mm256_and_si256(in1, two), one), second),
        );
    } else if rest != 0 {
        for dj in 0..batch::FEW_SIDE {
            let row = _mm256_cmpgt_epi32(tall, splat(dj - 1));
            let mut v = e;
            for di in 0..batch::FEW_SIDE {
                let ok = _mm256_and_si256(row, _mm256_cmpgt_epi32(wide, splat(di - 1)));
                let inside = _mm256_and_si256(
                    _mm256_and_si256(
                        _mm256_cmpgt_epi32(v[0], zero),
                        _mm256_cmpgt_epi32(v[1], zero),
                    ),
                    _mm256_cmpgt_epi32(v[2], zero),
                );
                let bit = splat(1 << (8 * dj + di));
                mask = _mm256_or_si256(mask, _mm256_and_si256(_mm256_and_si256(inside, ok), bit));
                v = [0, 1, 2].map(|k| add(v[k], step_x[k]));
            }
            e = [0, 1, 2].map(|k| add(e[k], step_y[k]));
        }
    }
    let covered = !bits(_mm256_cmpeq_epi32(mask, zero)) & 0xff;
    t.empty |= rest & !covered;
    t.small = rest & covered;
    t.swap = t.small & front;
    let keep = lanes_of(t.small);
    let store = |v: V, out: &mut [i32; LANES]| {
        // SAFETY: `out` is eight i32, 32 bytes.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), _mm256_and_si256(v, keep)) }
    };
    store(bx0, &mut t.x0);
    store(by0, &mut t.y0);
    let mut m = [0i32; LANES];
    store(mask, &mut m);
    t.mask = m.map(|v| v as u32);
    Some(t)
}

/// Eight (x, y, z) records of 32-bit words, read as three 32-byte
/// vectors `a`, `b`, `c` (record l's word k at 3l + k), split into their
/// x, y and z words, lane l holding record l's.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn deinterleave3(
    a: std::arch::x86_64::__m256i,
    b: std::arch::x86_64::__m256i,
    c: std::arch::x86_64::__m256i,
) -> (
    std::arch::x86_64::__m256i,
    std::arch::x86_64::__m256i,
    std::arch::x86_64::__m256i,
) {
    use std::arch::x86_64::*;
    let perm = |v: __m256i, i: [i32; 8]| {
        _mm256_permutevar8x32_epi32(
            v,
            _mm256_setr_epi32(i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]),
        )
    };
    let x = _mm256_blend_epi32::<0b1100_0000>(
        _mm256_blend_epi32::<0b0011_1000>(
            perm(a, [0, 3, 6, 0, 0, 0, 0, 0]),
            perm(b, [0, 0, 0, 1, 4, 7, 0, 0]),
        ),
        perm(c, [0, 0, 0, 0, 0, 0, 2, 5]),
    );
    let y = _mm256_blend_epi32::<0b1110_0000>(
        _mm256_blend_epi32::<0b0001_1000>(
            perm(a, [1, 4, 7, 0, 0, 0, 0, 0]),
            perm(b, [0, 0, 0, 2, 5, 0, 0, 0]),
        ),
        perm(c, [0, 0, 0, 0, 0, 0, 3, 6]),
    );
    let z = _mm256_blend_epi32::<0b1110_0000>(
        _mm256_blend_epi32::<0b0001_1100>(
            perm(a, [2, 5, 0, 0, 0, 0, 0, 0]),
            perm(b, [0, 0, 0, 3, 6, 0, 0, 0]),
        ),
        perm(c, [0, 0, 0, 0, 0, 1, 4, 7]),
    );
    (x, y, z)
}

// The layouts `vertices_avx2` stores: (x, y, z, fx, fy, code) and
// (x, y, z, w), 32-bit words without padding.
const _: () = {
    use super::setup::WinVertex;
    use std::mem::{offset_of, size_of};
    assert!(size_of::<SetupVertex>() == 24 && size_of::<ScreenVertex>() == 16);
    assert!(offset_of!(SetupVertex, win) == 0 && offset_of!(SetupVertex, code) == 20);
    assert!(offset_of!(WinVertex, x) == 0 && offset_of!(WinVertex, y) == 4);
    assert!(offset_of!(WinVertex, z) == 8 && offset_of!(WinVertex, fx) == 12);
    assert!(offset_of!(WinVertex, fy) == 16);
    assert!(offset_of!(ScreenVertex, x) == 0 && offset_of!(ScreenVertex, y) == 4);
    assert!(offset_of!(ScreenVertex, z) == 8 && offset_of!(ScreenVertex, w) == 12);
};

/// The vertex stage's records of the model-space points `pos` under
/// `mvp` ([`vertex::vertices_portable`]), eight points at a time with
/// AVX2 when `avx2` is given: the same values bit for bit.
#[inline]
pub(crate) fn vertices(
    avx2: Option<Avx2>,
    mvp: &Mat4,
    pos: &[Vec3],
    guard: &Guard,
    size: (f32, f32),
    out: &mut [SetupVertex],
    screen: &mut [ScreenVertex],
) {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = avx2 {
        // SAFETY: `avx2` proves the CPU has the features of
        // `vertices_avx2`'s list (`Avx2::detect` made it).
        unsafe { vertices_avx2(mvp, pos, guard, size, out, screen, avx2) };
        return;
    }
    let _ = avx2;
    vertex::vertices_portable(mvp, pos, guard, size, out, screen);
}

/// [`vertex::vertices_portable`] in eight AVX lanes, one point per lane:
/// each lane makes the same IEEE operations on the same operands in the
/// same order as the portable code makes for its point (glam's
/// `Mat4 * Vec4` column by column, [`Guard::outcode`]'s plane tests,
/// `clip_to_window`'s division and scaling, the clamp, and
/// `rules::snap_in_band`'s rounding to nearest, ties to even, which
/// `cvtps2dq` makes in the default rounding mode), so the records are the
/// same bit for bit. A group of eight whose window position is NaN in
/// some lane (clip coordinates (0, 0, 0, 0) and the like: `snap_in_band`
/// keeps NaN's low payload bits, `cvtps2dq` does not) and the last
/// points, fewer than eight, go through the portable code.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn vertices_avx2(
    mvp: &Mat4,
    pos: &[Vec3],
    guard: &Guard,
    (w, h): (f32, f32),
    out: &mut [SetupVertex],
    screen: &mut [ScreenVertex],
    _avx2: Avx2,
) {
    use super::clip::{
        CLIP_MASK, OUT_BOTTOM, OUT_FAR, OUT_INVALID, OUT_LEFT, OUT_NEAR, OUT_RIGHT, OUT_TOP,
    };
    use super::rules::{GUARD_BAND_PX, SUBPIXEL_ONE};
    use std::arch::x86_64::*;

    type F = __m256;
    let splat = |v: f32| _mm256_set1_ps(v);
    let mul = |a: F, b: F| _mm256_mul_ps(a, b);
    let add = |a: F, b: F| _mm256_add_ps(a, b);
    let sub = |a: F, b: F| _mm256_sub_ps(a, b);
    let cols = mvp.to_cols_array_2d();
    let col = |c: usize| cols[c].map(splat);
    let (c0, c1, c2, c3) = (col(0), col(1), col(2), col(3));
    let one = splat(1.0);
    let zero = _mm256_setzero_ps();
    let bit =
        |m: F, b: u16| _mm256_and_si256(_mm256_castps_si256(m), _mm256_set1_epi32(i32::from(b)));
    let or = |a: __m256i, b: __m256i| _mm256_or_si256(a, b);
    let lt = |a: F, b: F| _mm256_cmp_ps::<_CMP_LT_OQ>(a, b);
    let gt = |a: F, b: F| _mm256_cmp_ps::<_CMP_GT_OQ>(a, b);
    let neg = |a: F| _mm256_xor_ps(a, splat(-0.0));
    let (gx, gy) = (splat(guard.gx), splat(guard.gy));
    let lim = 3.0 * GUARD_BAND_PX;
    let sub_one = splat(SUBPIXEL_ONE as f32);

    let n = pos.len().min(out.len()).min(screen.len());
    let full = n / 8 * 8;
    let mut k = 0;
    while k < full {
        // SAFETY: points k..k + 8 are within `pos` (k + 8 <= n): 24 f32,
        // three unaligned 32-byte loads (`Vec3` is three f32, no padding).
        let (a, b, c) = unsafe {
            let p = pos.as_ptr().add(k).cast::<__m256i>();
            (
                _mm256_loadu_si256(p),
                _mm256_loadu_si256(p.cast::<u8>().add(32).cast()),
                _mm256_loadu_si256(p.cast::<u8>().add(64).cast()),
            )
        };
        let (px, py, pz) = deinterleave3(a, b, c);
        let (px, py, pz) = (
            _mm256_castsi256_ps(px),
            _mm256_castsi256_ps(py),
            _mm256_castsi256_ps(pz),
        );
        // glam's Mat4 * Vec4: ((x_axis·x + y_axis·y) + z_axis·z) + w_axis·1
        let clip = |r: usize| {
            add(
                add(add(mul(c0[r], px), mul(c1[r], py)), mul(c2[r], pz)),
                mul(c3[r], one),
            )
        };
        let (x, y, z, cw) = (clip(0), clip(1), clip(2), clip(3));
        // Guard::outcode: OUT_INVALID alone for a non-finite point
        let finite = |v: F| {
            lt(
                _mm256_and_ps(v, splat(f32::from_bits(0x7fff_ffff))),
                splat(f32::INFINITY),
            )
        };
        let valid = _mm256_and_ps(
            _mm256_and_ps(finite(x), finite(y)),
            _mm256_and_ps(finite(z), finite(cw)),
        );
        let gxw = mul(gx, cw);
        let gyw = mul(gy, cw);
        let nw = neg(cw);
        let planes = or(
            or(
                or(
                    bit(lt(add(gxw, x), zero), 1 << 1),
                    bit(lt(add(gxw, neg(x)), zero), 1 << 2),
                ),
                or(
                    bit(lt(add(gyw, y), zero), 1 << 3),
                    bit(lt(add(gyw, neg(y)), zero), 1 << 4),
                ),
            ),
            or(
                or(
                    or(bit(lt(x, nw), OUT_LEFT), bit(lt(y, nw), OUT_BOTTOM)),
                    or(bit(lt(z, nw), OUT_NEAR), bit(gt(x, cw), OUT_RIGHT)),
                ),
                or(bit(gt(y, cw), OUT_TOP), bit(gt(z, cw), OUT_FAR)),
            ),
        );
        let code = _mm256_blendv_epi8(
            _mm256_set1_epi32(i32::from(OUT_INVALID)),
            planes,
            _mm256_castps_si256(valid),
        );
        // the window position where no clipping is needed, else zeros
        let drawn = _mm256_castsi256_ps(_mm256_cmpeq_epi32(
            _mm256_and_si256(code, _mm256_set1_epi32(i32::from(CLIP_MASK | OUT_INVALID))),
            _mm256_setzero_si256(),
        ));
        let half = splat(0.5);
        let tx = add(mul(_mm256_div_ps(x, cw), half), half);
        let ty = add(mul(_mm256_div_ps(y, cw), half), half);
        let tz = add(mul(_mm256_div_ps(z, cw), half), half);
        // f32::clamp: below −lim to −lim, then above lim to lim (NaN stays)
        let clamp = |v: F| {
            let v = _mm256_blendv_ps(v, splat(-lim), lt(v, splat(-lim)));
            _mm256_blendv_ps(v, splat(lim), gt(v, splat(lim)))
        };
        let wx = _mm256_and_ps(clamp(mul(tx, splat(w))), drawn);
        let wy = _mm256_and_ps(clamp(mul(sub(one, ty), splat(h))), drawn);
        let wz = _mm256_and_ps(tz, drawn);
        let nan = _mm256_or_ps(
            _mm256_cmp_ps::<_CMP_UNORD_Q>(wx, wx),
            _mm256_cmp_ps::<_CMP_UNORD_Q>(wy, wy),
        );
        if _mm256_movemask_ps(nan) != 0 {
            vertex::vertices_portable(
                mvp,
                &pos[k..k + 8],
                guard,
                (w, h),
                &mut out[k..k + 8],
                &mut screen[k..k + 8],
            );
            k += 8;
            continue;
        }
        let snap = |v: F| _mm256_cvtps_epi32(mul(sub(v, half), sub_one));
        // (zeros where no clipping is needed, as the portable default)
        let kept = _mm256_castps_si256(drawn);
        let (fx, fy) = (
            _mm256_and_si256(snap(wx), kept),
            _mm256_and_si256(snap(wy), kept),
        );
        // the records, transposed four words at a time: (x, y, z, fx)
        // and (fy, code) of each setup record, (x, y, z, w) of each
        // screen vertex
        let quads = |a: F, b: F, c: F, d: F| {
            let (t0, t1) = (_mm256_unpacklo_ps(a, b), _mm256_unpackhi_ps(a, b));
            let (t2, t3) = (_mm256_unpacklo_ps(c, d), _mm256_unpackhi_ps(c, d));
            // lane l of the result k holds point k (low) and point k + 4
            [
                _mm256_shuffle_ps::<0x44>(t0, t2),
                _mm256_shuffle_ps::<0xee>(t0, t2),
                _mm256_shuffle_ps::<0x44>(t1, t3),
                _mm256_shuffle_ps::<0xee>(t1, t3),
            ]
        };
        let head = quads(wx, wy, wz, _mm256_castsi256_ps(fx));
        let scr = quads(wx, wy, wz, cw);
        let (fy, code) = (_mm256_castsi256_ps(fy), _mm256_castsi256_ps(code));
        let tail = [_mm256_unpacklo_ps(fy, code), _mm256_unpackhi_ps(fy, code)];
        let (o, sp) = (out[k..k + 8].as_mut_ptr(), screen[k..k + 8].as_mut_ptr());
        for l in 0..4 {
            for (half, p) in [(0, l), (1, l + 4)] {
                let pick = |v: F| {
                    if half == 0 {
                        _mm256_castps256_ps128(v)
                    } else {
                        _mm256_extractf128_ps::<1>(v)
                    }
                };
                // (fy, code) of points 0, 1 in `tail[0]`'s low half, 2, 3
                // in `tail[1]`'s, 4, 5 and 6, 7 in their high halves
                let pair = pick(tail[l / 2]);
                let fy_code = if l % 2 == 0 {
                    pair
                } else {
                    _mm_movehl_ps(pair, pair)
                };
                // SAFETY: p < 8: record k + p of `out` (24 bytes: x, y,
                // z, fx, fy, code at 0, 4, ..., 20, C layout, checked
                // below) and of `screen` (16 bytes: x, y, z, w); stores of
                // 16 and 8 bytes within them, unaligned.
                unsafe {
                    let r = o.add(p).cast::<f32>();
                    _mm_storeu_ps(r, pick(head[l]));
                    _mm_storel_epi64(r.add(4).cast(), _mm_castps_si128(fy_code));
                    _mm_storeu_ps(sp.add(p).cast::<f32>(), pick(scr[l]));
                }
            }
        }
        k += 8;
    }
    vertex::vertices_portable(
        mvp,
        &pos[full..n],
        guard,
        (w, h),
        &mut out[full..n],
        &mut screen[full..n],
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::Rng;
    use glam::Vec4;

    /// A record's words, signed zeros included; every NaN as one word
    /// (Rust leaves the payload of an operation's NaN unspecified: LLVM
    /// may swap the operands of an addition, and the payload is the first
    /// operand's).
    fn words(v: &SetupVertex, s: &ScreenVertex) -> [u32; 10] {
        let b = |f: f32| if f.is_nan() { u32::MAX } else { f.to_bits() };
        let w = &v.win;
        [
            b(w.x),
            b(w.y),
            b(w.z),
            w.fx as u32,
            w.fy as u32,
            v.code,
            b(s.x),
            b(s.y),
            b(s.z),
            b(s.w),
        ]
    }

    /// The AVX2 vertex stage gives the portable stage's records bit for
    /// bit: random cameras (perspective-like and degenerate matrices),
    /// points inside, beyond and behind the view, on the guard band and
    /// the near plane, huge, tiny, zero, infinite and NaN, at every count
    /// of points from 0 to 40 (the groups of eight and the rest).
    #[test]
    fn avx2_vertices_equal_the_portable_ones() {
        // (on a CPU without AVX2 both sides are the portable stage, as in
        // the renderer's tests of the two builds)
        let avx2 = Avx2::detect();
        let mut rng = Rng::new(0x7e47_0000_0000_0001);
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1e-30,
            1e30,
            -1e30,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        let mut seen_codes = 0u32;
        let mut groups = 0;
        for round in 0..4000 {
            let (w, h) = (1 + rng.below(2000) as u32, 1 + rng.below(1200) as u32);
            let guard = Guard::new(w, h);
            let cam = crate::Camera {
                eye: rng.vec3(-5.0, 5.0) + Vec3::new(0.0, 0.0, 6.0),
                target: rng.vec3(-1.0, 1.0),
                up: Vec3::Y,
                projection: crate::Projection::Perspective {
                    fov_y_deg: 10.0 + rng.range(0.0, 100.0),
                },
                near: 0.01 + rng.range(0.0, 1.0),
                far: 100.0,
                width: w,
                height: h,
            };
            let mvp = match round % 5 {
                0 => Mat4::ZERO,
                1 => Mat4::from_cols_array(&std::array::from_fn(|_| rng.range(-2.0, 2.0))),
                _ => cam.view_proj(),
            };
            let n = rng.below(41);
            let pos: Vec<Vec3> = (0..n)
                .map(|_| match rng.below(8) {
                    0 => Vec3::new(
                        special[rng.below(special.len())],
                        special[rng.below(special.len())],
                        special[rng.below(special.len())],
                    ),
                    1 => Vec3::ZERO,
                    2 => rng.vec3(-1e4, 1e4),
                    // near the camera plane and the guard band
                    3 => cam.eye + rng.vec3(-1e-3, 1e-3),
                    _ => rng.vec3(-3.0, 3.0),
                })
                .collect();
            let size = (w as f32, h as f32);
            let mut want = (
                vec![SetupVertex::default(); n],
                vec![ScreenVertex::default(); n],
            );
            vertex::vertices_portable(&mvp, &pos, &guard, size, &mut want.0, &mut want.1);
            let mut got = (
                vec![SetupVertex::default(); n],
                vec![ScreenVertex::default(); n],
            );
            vertices(avx2, &mvp, &pos, &guard, size, &mut got.0, &mut got.1);
            for (i, p) in pos.iter().enumerate() {
                assert_eq!(
                    words(&got.0[i], &got.1[i]),
                    words(&want.0[i], &want.1[i]),
                    "round {round}, point {i} of {n}: {p:?} → {:?}",
                    mvp * Vec4::from((*p, 1.0))
                );
                seen_codes |= want.0[i].code;
            }
            groups += n / 8;
        }
        // every outcode bit came up, and thousands of groups of eight
        assert_eq!(seen_codes, 0b1000_0011_1111_1111, "{seen_codes:#b}");
        assert!(groups > 8000, "{groups}");
    }
}
