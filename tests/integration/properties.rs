//! Coverage properties on random planar triangulations (seeded).

use softpick::FillRule;

use crate::support::{coverage_counts, reference_mask, snapped, strictly_inside, Rng};

const W: u32 = 64;
const H: u32 = 64;

/// A random convex polygon, fan-triangulated.
fn convex_fan(rng: &mut Rng, on_centers: bool) -> (Vec<[f32; 2]>, Vec<[[f32; 2]; 3]>) {
    let n = 3 + rng.below(14);
    let (cx, cy, r) = (
        rng.range(16.0, 48.0),
        rng.range(16.0, 48.0),
        rng.range(3.0, 30.0),
    );
    let mut angles: Vec<f32> = (0..n)
        .map(|_| rng.range(0.0, std::f32::consts::TAU))
        .collect();
    angles.sort_by(f32::total_cmp);
    let pts: Vec<[f32; 2]> = angles
        .iter()
        .map(|a| {
            let (x, y) = (cx + r * a.cos(), cy + r * a.sin());
            if on_centers {
                [x.floor() + 0.5, y.floor() + 0.5]
            } else {
                [x, y]
            }
        })
        .collect();
    let pts = convex_hull(pts);
    let tris = (1..pts.len().saturating_sub(1))
        .map(|k| [pts[0], pts[k], pts[k + 1]])
        .collect();
    (pts, tris)
}

/// Strictly convex hull (monotone chain), counter-clockwise in y-up terms.
fn convex_hull(mut p: Vec<[f32; 2]>) -> Vec<[f32; 2]> {
    p.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let cross = |o: [f32; 2], a: [f32; 2], b: [f32; 2]| {
        let (o, a, b) = (snapped(o), snapped(a), snapped(b));
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut h: Vec<[f32; 2]> = Vec::new();
    for pass in 0..2 {
        let start = h.len();
        let it: Vec<[f32; 2]> = if pass == 0 {
            p.clone()
        } else {
            p.iter().rev().copied().collect()
        };
        for q in it {
            while h.len() >= start + 2 && cross(h[h.len() - 2], h[h.len() - 1], q) <= 0 {
                h.pop();
            }
            h.push(q);
        }
        h.pop();
    }
    h
}

/// A jittered grid triangulating the rectangle [x0,x1]×[y0,y1]; interior
/// vertices jittered, boundary kept straight; random diagonal per cell.
fn jittered_grid(rng: &mut Rng, on_centers: bool) -> (Vec<[f32; 2]>, Vec<[[f32; 2]; 3]>) {
    let (nx, ny) = (2 + rng.below(7), 2 + rng.below(7));
    let (x0, y0, x1, y1) = (2.5f32, 3.0f32, 61.25f32, 60.5f32);
    let mut p = vec![vec![[0.0f32; 2]; nx + 1]; ny + 1];
    for (j, row) in p.iter_mut().enumerate() {
        for (i, q) in row.iter_mut().enumerate() {
            let mut x = x0 + (x1 - x0) * i as f32 / nx as f32;
            let mut y = y0 + (y1 - y0) * j as f32 / ny as f32;
            if i > 0 && i < nx && j > 0 && j < ny {
                let sx = (x1 - x0) / nx as f32 * 0.2;
                let sy = (y1 - y0) / ny as f32 * 0.2;
                x += rng.range(-sx, sx);
                y += rng.range(-sy, sy);
                if on_centers {
                    x = x.floor() + 0.5;
                    y = y.floor() + 0.5;
                }
            }
            *q = [x, y];
        }
    }
    let mut tris = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            let (a, b, c, d) = (p[j][i], p[j][i + 1], p[j + 1][i + 1], p[j + 1][i]);
            if rng.below(2) == 0 {
                tris.push([a, b, c]);
                tris.push([a, c, d]);
            } else {
                tris.push([a, b, d]);
                tris.push([b, c, d]);
            }
        }
    }
    // random winding per triangle: culling is off, so orientation must not matter
    for t in &mut tris {
        if rng.below(2) == 0 {
            t.swap(1, 2);
        }
    }
    (vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]], tris)
}

fn check_region(poly: &[[f32; 2]], tris: &[[[f32; 2]; 3]], what: &str) {
    let spoly: Vec<[i64; 2]> = poly.iter().map(|&p| snapped(p)).collect();
    let tl = coverage_counts(W, H, tris, FillRule::TopLeft);
    let strict = coverage_counts(W, H, tris, FillRule::Strict);
    let incl = coverage_counts(W, H, tris, FillRule::Inclusive);
    let guard = coverage_counts(W, H, tris, FillRule::AreaGuard);
    for j in 0..H as i64 {
        for i in 0..W as i64 {
            let p = (j * W as i64 + i) as usize;
            assert!(strict[p] <= 1, "{what}: strict covered ({i},{j}) twice");
            if strictly_inside(&spoly, 256 * i, 256 * j) {
                assert_eq!(
                    tl[p], 1,
                    "{what}: top-left covered ({i},{j}) {} times",
                    tl[p]
                );
                assert!(incl[p] >= 1, "{what}: inclusive missed ({i},{j})");
                assert!(guard[p] >= 1, "{what}: area-guard missed ({i},{j})");
            } else {
                // nothing outside the closed region (no zero-area triangles here)
                assert!(tl[p] <= 1, "{what}: top-left double outside ({i},{j})");
            }
        }
    }
}

#[test]
fn top_left_covers_convex_fans_exactly_once() {
    let mut rng = Rng::new(2);
    let mut checked = 0;
    for case in 0..300 {
        let (poly, tris) = convex_fan(&mut rng, case % 3 == 0);
        // (points snapped onto one another can leave fewer than three)
        if poly.len() < 3 {
            continue;
        }
        check_region(&poly, &tris, &format!("fan case {case}"));
        checked += 1;
    }
    assert!(checked > 250, "only {checked} of 300 fans had an area");
}

#[test]
fn top_left_covers_jittered_grids_exactly_once() {
    let mut rng = Rng::new(7);
    for case in 0..120 {
        let (poly, tris) = jittered_grid(&mut rng, case % 2 == 0);
        check_region(&poly, &tris, &format!("grid case {case}"));
    }
}

#[test]
fn tiled_renderer_equals_reference_rasterizer_on_random_soups() {
    // painter's order, no depth: the last covering triangle wins
    let mut rng = Rng::new(11);
    for case in 0..48 {
        // (the last cases tall: bands of whole tile rows, `limits::band_rows`)
        let (w, h) = if case < 40 {
            (1 + rng.below_u32(150), 1 + rng.below_u32(150))
        } else {
            (1 + rng.below_u32(80), 500 + rng.below_u32(150))
        };
        let n = 1 + rng.below(60);
        let tris: Vec<[[f32; 2]; 3]> = (0..n)
            .map(|_| {
                let (cx, cy, s) = (
                    rng.range(-20.0, w as f32 + 20.0),
                    rng.range(-20.0, h as f32 + 20.0),
                    rng.range(0.2, 90.0),
                );
                let mut q = || [cx + rng.range(-s, s), cy + rng.range(-s, s)];
                [q(), q(), q()]
            })
            .collect();
        for rule in FillRule::ALL {
            let f = softpick::internals::render_2d(w, h, &tris, rule).unwrap();
            let mut want = vec![0u32; (w * h) as usize];
            for (k, t) in tris.iter().enumerate() {
                for (p, c) in reference_mask(*t, w, h, rule).into_iter().enumerate() {
                    if c {
                        want[p] = k as u32 + 1;
                    }
                }
            }
            assert_eq!(f.ids(), &want[..], "case {case} rule {rule:?} ({w}x{h})");
        }
    }
}

#[test]
fn zero_area_and_point_triangles() {
    let line = [[2.5f32, 3.5], [10.5, 3.5], [20.5, 3.5]];
    let point = [[5.5f32, 5.5]; 3];
    for rule in [FillRule::Strict, FillRule::AreaGuard, FillRule::TopLeft] {
        let c = coverage_counts(32, 8, &[line, point], rule);
        assert!(
            c.iter().all(|&n| n == 0),
            "{rule:?} drew a zero-area triangle"
        );
    }
    // the naive inclusive rule claims the whole row 3, far beyond the segment
    let c = coverage_counts(32, 8, &[line], FillRule::Inclusive);
    assert_eq!(c.iter().filter(|&&n| n > 0).count(), 32);
    assert!((0..32).all(|i| c[3 * 32 + i] == 1));
}
