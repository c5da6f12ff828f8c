//! Arbitrary screen-space triangles (any f32, NaN, infinities and huge
//! values included) → `render_2d` with every fill rule → the ID buffer
//! equals the direct point-in-triangle answer at every pixel, and every
//! triangle's coverage equals an independent per-pixel reference (the
//! rule definitions on snapped coordinates); triangles render_2d refuses
//! (non-finite, beyond twice the guard band) cover nothing.
//!
//! Input: byte 0 → width 1..=96, byte 1 → height 1..=80, then 24 bytes per
//! triangle (6 coordinates of 4 bytes). A coordinate whose first byte has
//! the top bit set is the raw little-endian f32 of its 4 bytes (NaN, inf,
//! 1e38, subnormals…); otherwise it is a moderate value, `i16 / 64` pixels
//! (−512..512, on a 1/64 grid so ties on pixel centres are frequent),
//! pushed to ±GUARD_BAND_PX or ±2·GUARD_BAND_PX when byte 3 says so.
#![no_main]

use libfuzzer_sys::fuzz_target;
use softpick::internals::{direct_triangle_at, render_2d, snap, GUARD_BAND_PX};
use softpick::FillRule;

fn coord(b: &[u8]) -> f32 {
    if b[0] & 0x80 != 0 {
        return f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    let v = f32::from(i16::from_le_bytes([b[1], b[2]])) / 64.0;
    match b[3] % 8 {
        0 => v + GUARD_BAND_PX,
        1 => v - GUARD_BAND_PX,
        2 => 2.0 * GUARD_BAND_PX - v.abs() / 1024.0,
        3 => -2.0 * GUARD_BAND_PX + v.abs() / 1024.0,
        _ => v,
    }
}

/// Per-pixel coverage of one triangle from the rule definitions.
fn reference(t: [[f32; 2]; 3], w: u32, h: u32, rule: FillRule) -> Vec<bool> {
    let mut v = t.map(|p| [snap(p[0]), snap(p[1])]);
    let area =
        (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[1][1] - v[0][1]) * (v[2][0] - v[0][0]);
    let mut m = vec![false; (w * h) as usize];
    if area == 0 && (rule != FillRule::Inclusive || (v[0] == v[1] && v[1] == v[2])) {
        return m;
    }
    if area < 0 {
        v.swap(1, 2);
    }
    for j in 0..i64::from(h) {
        for i in 0..i64::from(w) {
            let (px, py) = (256 * i, 256 * j);
            m[(j * i64::from(w) + i) as usize] = (0..3).all(|k| {
                let (a, b) = (v[k], v[(k + 1) % 3]);
                let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
                let e = dx * (py - a[1]) - dy * (px - a[0]);
                match rule {
                    FillRule::Strict => e > 0,
                    FillRule::Inclusive | FillRule::AreaGuard => e >= 0,
                    FillRule::TopLeft => e > 0 || (e == 0 && (dy < 0 || (dy == 0 && dx > 0))),
                }
            });
        }
    }
    m
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let (w, h) = (1 + u32::from(data[0]) % 96, 1 + u32::from(data[1]) % 80);
    let tris: Vec<[[f32; 2]; 3]> = data[2..]
        .chunks_exact(24)
        .take(24)
        .map(|c| std::array::from_fn(|v| [coord(&c[8 * v..]), coord(&c[8 * v + 4..])]))
        .collect();
    let lim = 2.0 * GUARD_BAND_PX;
    for rule in FillRule::ALL {
        let f = render_2d(w, h, &tris, rule).expect("valid size");
        for y in 0..h {
            for x in 0..w {
                let a = f
                    .triangle_at(x.into(), y.into())
                    .map(|t| (t, f.depth()[(y * w + x) as usize]));
                let b = direct_triangle_at(&f, x.into(), y.into());
                assert_eq!(a, b, "{rule:?}: buffer vs direct at ({x},{y})");
            }
        }
        let mut got = vec![vec![false; (w * h) as usize]; tris.len()];
        softpick::internals::for_each_coverage(&f, |p, t| got[t as usize][p] = true);
        for (k, t) in tris.iter().enumerate() {
            let accepted = t.iter().flatten().all(|c| c.is_finite() && c.abs() <= lim);
            let want = if accepted {
                reference(*t, w, h, rule)
            } else {
                vec![false; (w * h) as usize]
            };
            assert!(got[k] == want, "{rule:?}: coverage of triangle {k} {t:?}");
        }
    }
});
