//! The triangle front end: triangles are sorted, [`LANES`] at a time and
//! side by side in lanes (after Intel's Masked Occlusion Culling), into
//! what becomes of them before any of them is set up one by one.
//!
//! Per lane: the three vertices' outcodes (invalid, outside one frustum
//! plane, in need of clipping), the snapped box's pixel centres (none: the
//! triangle covers nothing), and for a triangle under [`TINY`] subpixels
//! across, its snapped area (zero, culled by the face mode) and, when its
//! box holds at most [`FEW_SIDE`] × [`FEW_SIDE`] pixel centres, the
//! coverage of those centres with the rule's edge functions. Most
//! triangles of a mesh denser than the frame end here: they hold no
//! centre, or cover none of those their box holds; most of the others
//! cover a few pixels, and need only their depth plane
//! ([`Triage::small`]). What is left (clipping, boxes of more than four
//! centres across or down, large triangles, the inclusive rule's
//! zero-area lines) goes to the scalar setup as before
//! ([`Triage::general`]).
//!
//! Every decision is the scalar setup's, made with the same integers: the
//! box is `setup`'s pixel box, the area and edge values are exact in i32
//! below [`TINY`] (|products| < 2^28), and the edge test `e + bias > 0` at
//! a centre is the `dx·j − dy·i + c ≥ 0` of [`super::setup::TriSetup`]
//! before its division by 256 (`256·X + Y ≥ 0 ⇔ X + ⌊Y / 256⌋ ≥ 0`). The
//! counters come out the same too: each lane is counted under the first
//! reason, in setup's order, that stops it.
//!
//! [`triage`] decides one lane at a time (the portable build, for wasm32
//! and x86-64 CPUs without AVX2); `super::simd::triage` makes the same
//! decisions for eight lanes at once with AVX2 instructions, chosen at run
//! time. The tests hold both to the scalar setup.

use super::clip::{CLIP_MASK, FRUSTUM_MASK, OUT_INVALID};
use super::rules::{FillRule, SUBPIXEL_BITS};
use super::vertex::SetupVertex;
use crate::geometry::CullMode;

/// Triangles per batch.
pub(crate) const LANES: usize = 8;

/// Triangles whose snapped box is under this many subpixels on each side
/// (64 pixels) are decided in the lanes; larger ones go to the scalar
/// setup. Below it every area and edge value of the lanes is exact in i32.
pub(crate) const TINY: i32 = 1 << 14;

/// Tiny triangles whose box holds fewer than this many pixel centres
/// across and down get their coverage in the lanes (at most 4 × 4
/// centres, mask bits up to 8·3 + 3); larger boxes go to the scalar setup.
/// An edge value at such a centre is its value at the box's first centre
/// plus at most 3 steps of 256·|dx| and 256·|dy| each: below 2^28 + 6·2^22,
/// exact in i32.
pub(crate) const FEW_SIDE: i32 = 4;

/// What the front end needs of a render: the rule, the cull mode and the
/// viewport's last pixel column and row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Front {
    pub rule: FillRule,
    pub cull: CullMode,
    pub last_x: i32,
    pub last_y: i32,
}

impl Front {
    pub(crate) fn new(rule: FillRule, cull: CullMode, width: u32, height: u32) -> Self {
        Self {
            rule,
            cull,
            last_x: width as i32 - 1,
            last_y: height as i32 - 1,
        }
    }
}

/// What became of the triangles of a batch: one bit per lane in each mask
/// (lane `l`: the batch's `l`-th triangle), each used lane in exactly one
/// of the first eight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Triage {
    /// A vertex is not finite.
    pub invalid: u32,
    /// All three vertices outside one frustum plane.
    pub frustum: u32,
    /// To clip (near plane or guard band).
    pub clip: u32,
    /// No pixel centre covered (none in its box, or none of the few
    /// there passes the edge functions).
    pub empty: u32,
    /// Zero snapped area.
    pub zero: u32,
    /// Dropped by the cull mode.
    pub culled: u32,
    /// For the scalar setup.
    pub general: u32,
    /// Covers some pixel centres of a box of at most [`FEW_SIDE`] ×
    /// [`FEW_SIDE`]: a mask record ([`Triage::mask`]) once it has its
    /// depth plane.
    pub small: u32,
    /// The small lanes whose snapped area is negative (setup orders their
    /// vertices 0, 2, 1).
    pub swap: u32,
    /// The small lanes' coverage masks (bit `8·dj + di` for the centre
    /// `(x0 + di, y0 + dj)`) and box corners `x0`, `y0`; zero in the
    /// other lanes.
    pub mask: [u32; LANES],
    pub x0: [i32; LANES],
    pub y0: [i32; LANES],
}

/// The batch of the triangles `tris` (1 to [`LANES`] of them): the lanes
/// past the end repeat the last triangle, and `used` has a bit for each of
/// the others.
#[inline(always)]
pub(crate) fn padded(tris: &[[u32; 3]]) -> ([[u32; 3]; LANES], u32) {
    let last = tris.len().min(LANES) - 1;
    let mut out = [[0; 3]; LANES];
    for (l, t) in out.iter_mut().enumerate() {
        *t = tris[l.min(last)];
    }
    (out, (1 << (last + 1)) - 1)
}

/// Triages the `used` lanes of a batch, one lane at a time (the portable
/// build; [`super::simd::triage`] computes the same eight lanes at once).
/// The indices must be valid for `verts`, as a mesh's are.
#[inline(always)]
pub(crate) fn triage(
    tris: &[[u32; 3]; LANES],
    used: u32,
    verts: &[SetupVertex],
    f: &Front,
) -> Triage {
    let mut t = Triage::default();
    for (l, tri) in tris.iter().enumerate() {
        if used >> l & 1 != 0 {
            triage_lane(tri, verts, f, &mut t, l);
        }
    }
    t
}

/// Lane `l` of [`triage`]: triangle `tri`.
#[inline(always)]
fn triage_lane(tri: &[u32; 3], verts: &[SetupVertex], f: &Front, t: &mut Triage, l: usize) {
    let bit = 1 << l;
    let v = tri.map(|i| &verts[i as usize]);
    // outcodes, in the order the scalar loop tests them
    let or = v[0].code | v[1].code | v[2].code;
    let and = v[0].code & v[1].code & v[2].code;
    let why = if or & u32::from(OUT_INVALID) != 0 {
        &mut t.invalid
    } else if and & u32::from(FRUSTUM_MASK) != 0 {
        &mut t.frustum
    } else if or & u32::from(CLIP_MASK) != 0 {
        &mut t.clip
    } else if f.rule == FillRule::Inclusive {
        // (its zero-area lines reach past their boxes: setup decides)
        &mut t.general
    } else {
        triage_window(v.map(|v| (v.win.fx, v.win.fy)), f, t, l)
    };
    *why |= bit;
}

/// [`triage_lane`] of a triangle inside the guard band with snapped
/// corners `p`, under a rule other than the inclusive one: the mask its
/// lane belongs to (and, for a small triangle, its coverage, box corner
/// and order).
#[inline(always)]
fn triage_window<'t>(p: [(i32, i32); 3], f: &Front, t: &'t mut Triage, l: usize) -> &'t mut u32 {
    // the snapped box and the pixel centres it holds (setup's `pixel_box`)
    let minx = p[0].0.min(p[1].0).min(p[2].0);
    let maxx = p[0].0.max(p[1].0).max(p[2].0);
    let miny = p[0].1.min(p[1].1).min(p[2].1);
    let maxy = p[0].1.max(p[1].1).max(p[2].1);
    let x0 = (-((-minx) >> SUBPIXEL_BITS)).max(0);
    let y0 = (-((-miny) >> SUBPIXEL_BITS)).max(0);
    let x1 = (maxx >> SUBPIXEL_BITS).min(f.last_x);
    let y1 = (maxy >> SUBPIXEL_BITS).min(f.last_y);
    if x0 > x1 || y0 > y1 {
        return &mut t.empty;
    }
    if maxx - minx >= TINY || maxy - miny >= TINY {
        return &mut t.general;
    }
    // tiny: area, face, and the coverage of boxes of a few centres,
    // all exact in i32
    let area = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[1].1 - p[0].1) * (p[2].0 - p[0].0);
    if area == 0 {
        return &mut t.zero;
    }
    // front faces have a negative area
    let front = area < 0;
    if !f.cull.keeps(front) {
        return &mut t.culled;
    }
    let (wide, tall) = (x1 - x0, y1 - y0);
    if wide >= FEW_SIDE || tall >= FEW_SIDE {
        return &mut t.general;
    }
    // the corners ordered to a positive area
    let q = if front { [p[0], p[2], p[1]] } else { p };
    // per edge: its value at the box's first centre (256·x0, 256·y0), e =
    // dx·(cy − ay) − dy·(cx − ax) + bias, and its steps to the next
    // centre right (−256·dy) and down (+256·dx)
    let edge = |k: usize| {
        let (a, b) = (q[k], q[(k + 1) % 3]);
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let bias = match f.rule {
            FillRule::Strict => 0,
            FillRule::Inclusive | FillRule::AreaGuard => 1,
            FillRule::TopLeft => i32::from(dy < 0 || (dy == 0 && dx > 0)),
        };
        let e = dx * ((y0 << SUBPIXEL_BITS) - a.1) - dy * ((x0 << SUBPIXEL_BITS) - a.0) + bias;
        (e, -dy << SUBPIXEL_BITS, dx << SUBPIXEL_BITS)
    };
    let edges = [edge(0), edge(1), edge(2)];
    let mut mask = 0u32;
    for dj in 0..=tall {
        for di in 0..=wide {
            let inside = edges.iter().all(|&(e, sx, sy)| e + di * sx + dj * sy > 0);
            mask |= u32::from(inside) << (8 * dj + di);
        }
    }
    if mask == 0 {
        return &mut t.empty;
    }
    t.mask[l] = mask;
    t.x0[l] = x0;
    t.y0[l] = y0;
    t.swap |= u32::from(front) << l;
    &mut t.small
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::clip::{OUT_LEFT, OUT_NEAR};
    use crate::raster::setup::{setup, small_record, Rejected, SetupRecord, WinVertex};
    use crate::test_util::Rng;

    /// A window vertex at snapped position (`fx`, `fy`), with window
    /// coordinates that snap there.
    fn at(fx: i32, fy: i32, z: f32) -> SetupVertex {
        SetupVertex {
            win: WinVertex {
                x: fx as f32 / 256.0 + 0.5,
                y: fy as f32 / 256.0 + 0.5,
                z,
                fx,
                fy,
            },
            code: 0,
        }
    }

    /// Every lane of random batches is decided as the scalar setup decides
    /// it, and a small lane's record is setup's record: triangles of every
    /// size (most under a pixel or two, some up to hundreds of pixels and
    /// some past [`TINY`]), corners on the pixel centres' lattice, on half
    /// and quarter pixels (edges through centres: the rules' ties) or
    /// anywhere, boxes at and past the viewport's edges, some vertices
    /// invalid, outside a frustum plane or to clip; every rule and cull
    /// mode; partial batches.
    #[test]
    fn triage_decides_as_setup_does() {
        let mut rng = Rng(0x7e1a_6e00_0000_0001);
        let (w, h) = (96u32, 64u32);
        let mut seen = [0usize; 8];
        let mut avx2s = 0;
        for round in 0..12_000 {
            let n = 1 + rng.below(LANES);
            let mut verts = Vec::new();
            let mut tris = Vec::new();
            for _ in 0..n {
                let grain = [256, 128, 64, 1, 1][rng.below(5)];
                let spread = [150, 200, 300, 300, 400, 500, 700, 3000, 40_000, 6000][rng.below(10)];
                let off = |rng: &mut Rng| [0, 128, rng.below(256) as i32][rng.below(3)];
                let c = (
                    rng.range(-20.0, w as f32 + 20.0) as i32 * 256 + off(&mut rng),
                    rng.range(-20.0, h as f32 + 20.0) as i32 * 256 + off(&mut rng),
                );
                let base = verts.len() as u32;
                let outside = rng.below(30) == 0;
                for _ in 0..3 {
                    let d = |rng: &mut Rng| {
                        let v = rng.below(2 * spread + 1) as i32 - spread as i32;
                        v / grain * grain
                    };
                    let (dx, dy) = (d(&mut rng), d(&mut rng));
                    let mut v = at(c.0 + dx, c.1 + dy, rng.range(0.0, 1.0));
                    v.code = u32::from(match rng.below(60) {
                        _ if outside => OUT_LEFT,
                        0 => OUT_INVALID,
                        1 => OUT_LEFT,
                        2 => OUT_NEAR | OUT_LEFT,
                        _ => 0,
                    });
                    verts.push(v);
                }
                // some share corners, some are degenerate
                let mut t = [base, base + 1, base + 2];
                if rng.below(10) == 0 {
                    t[2] = t[rng.below(2)];
                }
                tris.push(t);
            }
            let rule = FillRule::ALL[round % 4];
            let cull = [CullMode::None, CullMode::Back, CullMode::Front][round / 4 % 3];
            let f = Front::new(rule, cull, w, h);
            let (batch, used) = padded(&tris);
            let t = triage(&batch, used, &verts, &f);
            // the AVX2 lanes, where the CPU has them, decide the same
            let avx2 = crate::cpu::Avx2::detect();
            assert_eq!(
                super::super::simd::triage(avx2, &batch, used, &verts, &f),
                t
            );
            avx2s += usize::from(avx2.is_some());
            let masks = [
                t.invalid, t.frustum, t.clip, t.empty, t.zero, t.culled, t.general, t.small,
            ];
            assert_eq!(masks.iter().fold(0, |a, m| a | m), (1 << n) - 1);
            assert_eq!(masks.iter().map(|m| m.count_ones()).sum::<u32>(), n as u32);
            for (l, tri) in tris.iter().enumerate() {
                let bit = 1 << l;
                let v = tri.map(|i| &verts[i as usize]);
                let what = format!("lane {l} of round {round}: {v:?} {rule:?} {cull:?}");
                let or = (v[0].code | v[1].code | v[2].code) as u16;
                let and = (v[0].code & v[1].code & v[2].code) as u16;
                let mask = masks.iter().position(|m| m & bit != 0).unwrap();
                seen[mask] += 1;
                let want = if or & OUT_INVALID != 0 {
                    0
                } else if and & FRUSTUM_MASK != 0 {
                    1
                } else if or & CLIP_MASK != 0 {
                    2
                } else {
                    let win = v.map(|v| &v.win);
                    let res = setup::<false>(win, rule, cull, w, h, 5, 0);
                    assert_eq!(res, setup::<true>(win, rule, cull, w, h, 5, 0));
                    match (res, mask) {
                        (_, 6) => 6,
                        (Ok(SetupRecord::Small(s)), 7) => {
                            let swap = t.swap & bit != 0;
                            let mine =
                                small_record(win, swap, (t.x0[l], t.y0[l]), t.mask[l].into(), 5);
                            assert!(t.mask[l] != 0);
                            assert_eq!(mine, s, "{what}");
                            7
                        }
                        (Err(Rejected::Empty), _) => 3,
                        (Err(Rejected::ZeroArea), _) => 4,
                        (Err(Rejected::Culled), _) => 5,
                        (r, _) => panic!("{what}: setup gives {r:?}, triage {mask}"),
                    }
                };
                assert_eq!(mask, want, "{what}");
            }
        }
        #[cfg(target_arch = "x86_64")]
        assert!(
            avx2s > 0 || !std::arch::is_x86_feature_detected!("avx2"),
            "AVX2 not tested"
        );
        // every outcome, the small ones and the triage's rejections often
        assert!(seen.iter().all(|&k| k > 100), "{seen:?}");
        assert!(seen[7] > 800 && seen[3] > 10_000, "{seen:?}");
    }
}
