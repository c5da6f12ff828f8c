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

#![allow(unsafe_code)]

use super::batch::{self, Front, Triage, LANES};
use super::vertex::SetupVertex;
use crate::cpu::Avx2;

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

/// Most vertices a mesh may have for [`triage_avx2`]: its 32-bit gather
/// offsets (six per vertex record) stay below 2^31. Larger meshes take
/// the portable triage.
#[cfg(target_arch = "x86_64")]
const AVX2_MAX_VERTS: usize = 1 << 28;

/// [`batch::triage`] of a batch, eight lanes at once with AVX2 when
/// `avx2` is given (inlined into the AVX2 build: see [`bin_chunk`]).
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
        if !verts.is_empty() && verts.len() <= AVX2_MAX_VERTS {
            // SAFETY: `avx2` proves the CPU has the features of
            // `triage_avx2`'s list (`Avx2::detect` made it).
            if let Some(t) = unsafe { triage_avx2(tris, used, verts, f, avx2) } {
                return t;
            }
        }
    }
    let _ = avx2;
    batch::triage(tris, used, verts, f)
}

/// [`batch::triage`] in AVX2 lanes, the same decisions lane by lane in
/// the same integers; `None` if an index is out of bounds for `verts`
/// (never for a mesh's triangles; then the portable triage panics as
/// indexing does). `verts` is not empty and holds at most
/// [`AVX2_MAX_VERTS`] records.
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

    // the 24 indices, corner k of lane l at 3l + k, deinterleaved from
    // three 32-byte loads
    let p = tris.as_ptr().cast::<V>();
    // SAFETY: `tris` is 24 u32, 96 bytes: three unaligned 32-byte loads.
    let (a, b, c) = unsafe {
        (
            _mm256_loadu_si256(p),
            _mm256_loadu_si256(p.add(1)),
            _mm256_loadu_si256(p.add(2)),
        )
    };
    let perm = |v: V, i: [i32; 8]| {
        _mm256_permutevar8x32_epi32(
            v,
            _mm256_setr_epi32(i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]),
        )
    };
    let i0 = _mm256_blend_epi32::<0b1100_0000>(
        _mm256_blend_epi32::<0b0011_1000>(
            perm(a, [0, 3, 6, 0, 0, 0, 0, 0]),
            perm(b, [0, 0, 0, 1, 4, 7, 0, 0]),
        ),
        perm(c, [0, 0, 0, 0, 0, 0, 2, 5]),
    );
    let i1 = _mm256_blend_epi32::<0b1110_0000>(
        _mm256_blend_epi32::<0b0001_1000>(
            perm(a, [1, 4, 7, 0, 0, 0, 0, 0]),
            perm(b, [0, 0, 0, 2, 5, 0, 0, 0]),
        ),
        perm(c, [0, 0, 0, 0, 0, 0, 3, 6]),
    );
    let i2 = _mm256_blend_epi32::<0b1110_0000>(
        _mm256_blend_epi32::<0b0001_1100>(
            perm(a, [2, 5, 0, 0, 0, 0, 0, 0]),
            perm(b, [0, 0, 0, 3, 6, 0, 0, 0]),
        ),
        perm(c, [0, 0, 0, 0, 0, 1, 4, 7]),
    );
    let idx = [i0, i1, i2];
    // every index within `verts` (as unsigned numbers), else no batch
    let top = splat((verts.len() - 1) as i32);
    let inside = idx.iter().fold(splat(-1), |m, &i| {
        _mm256_and_si256(m, _mm256_cmpeq_epi32(_mm256_max_epu32(i, top), top))
    });
    if bits(inside) != 0xff {
        return None;
    }
    // each corner's snapped position and outcode, gathered from its
    // record: 4-byte words at a record's word offset 6·index + field
    let word = |field: usize| (field / 4) as isize;
    let fx_at = word(offset_of!(SetupVertex, win) + offset_of!(WinVertex, fx));
    let fy_at = word(offset_of!(SetupVertex, win) + offset_of!(WinVertex, fy));
    let code_at = word(offset_of!(SetupVertex, code));
    let base = verts.as_ptr().cast::<i32>();
    let six = idx.map(|i| _mm256_add_epi32(_mm256_slli_epi32::<2>(i), _mm256_slli_epi32::<1>(i)));
    // SAFETY: every index is at most `verts.len() - 1` (checked above) and
    // below 2^28, so each offset 6·index + field is a 4-byte word of the
    // index's record (24 bytes, C layout without padding) within `verts`.
    let gather =
        |at: isize| unsafe { six.map(|o| _mm256_i32gather_epi32::<4>(base.offset(at), o)) };
    let [x0c, x1c, x2c] = gather(fx_at);
    let [y0c, y1c, y2c] = gather(fy_at);
    let [c0, c1, c2] = gather(code_at);

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

    // tiny: area, face, and the coverage of boxes of one or two centres
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
    let spread = add(wide, tall);
    let few = bits(_mm256_cmpgt_epi32(splat(2), spread));
    t.general |= rest & !few;
    rest &= few;
    // the corners ordered to a positive area: 1 and 2 swapped for front faces
    let pick = |a: V, b: V| _mm256_blendv_epi8(a, b, front_v);
    let qx = [x0c, pick(x1c, x2c), pick(x2c, x1c)];
    let qy = [y0c, pick(y1c, y2c), pick(y2c, y1c)];
    let step_x = _mm256_cmpeq_epi32(wide, splat(1));
    let (cx, cy) = (_mm256_slli_epi32::<S>(bx0), _mm256_slli_epi32::<S>(by0));
    let (mut in0, mut in1) = (splat(-1), splat(-1));
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
        let e = add(sub(mul(dx, sub(cy, qy[k])), mul(dy, sub(cx, qx[k]))), bias);
        let step = _mm256_blendv_epi8(dx, sub(zero, dy), step_x);
        let e1 = add(e, _mm256_slli_epi32::<S>(step));
        in0 = _mm256_and_si256(in0, _mm256_cmpgt_epi32(e, zero));
        in1 = _mm256_and_si256(in1, _mm256_cmpgt_epi32(e1, zero));
    }
    let one = splat(1);
    let two = _mm256_cmpeq_epi32(spread, one);
    let second = _mm256_blendv_epi8(splat(8), one, step_x);
    let mask = _mm256_or_si256(
        _mm256_and_si256(in0, one),
        _mm256_sllv_epi32(_mm256_and_si256(_mm256_and_si256(in1, two), one), second),
    );
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
