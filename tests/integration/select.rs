//! Selection: pick radius, box and lasso (visible and x-ray), click-cycling.

use std::collections::BTreeSet;

use glam::Vec3;
use softpick::internals::snap;
use softpick::{
    render, Camera, Frame, Mesh, PickCycle, Projection, RenderOptions, Scene, SelectMode,
    Selection, Transform,
};

use crate::picks::{random_scene, soup_camera};
use crate::support::Rng;

const W: u32 = 200;
const H: u32 = 120;

const FRONT: u32 = 0;
const HIDDEN: u32 = 1;
const UNDER: u32 = 2;
const SIDE: u32 = 3;
const SLIVER: u32 = 4;
const SPECK: u32 = 5;

/// Orthographic camera with one world unit per pixel: window (sx, sy) is
/// world (sx - 100, 60 - sy); larger z is nearer.
fn camera() -> Camera {
    Camera {
        eye: Vec3::new(0.0, 0.0, 10.0),
        target: Vec3::ZERO,
        up: Vec3::Y,
        projection: Projection::Orthographic { height: H as f32 },
        near: 0.1,
        far: 100.0,
        width: W,
        height: H,
    }
}

fn world(p: [f32; 2], z: f32) -> Vec3 {
    Vec3::new(p[0] - W as f32 / 2.0, H as f32 / 2.0 - p[1], z)
}

/// A quad over the window rectangle [x0, x1] × [y0, y1] at depth z.
fn quad(name: &str, r: [f32; 4], z: f32) -> Mesh {
    let pos = [[r[0], r[1]], [r[2], r[1]], [r[2], r[3]], [r[0], r[3]]]
        .map(|p| world(p, z))
        .to_vec();
    Mesh::new(name, pos, vec![[0, 1, 2], [0, 2, 3]], [200, 100, 50]).unwrap()
}

fn tri(name: &str, t: [[f32; 2]; 3], z: f32) -> Mesh {
    let pos = t.map(|p| world(p, z)).to_vec();
    Mesh::new(name, pos, vec![[0, 1, 2]], [50, 100, 200]).unwrap()
}

/// The known layout:
/// - FRONT quad [20, 80]² at z = 2, HIDDEN [30, 70]² at z = 0 and UNDER
///   [40, 60]² at z = -1, both entirely behind FRONT;
/// - SIDE quad [121, 161] × [20, 60], off to the side;
/// - SLIVER, a triangle 0.7 px thick covering pixels 134..=179 of row 100;
/// - SPECK, a 0.3 px triangle covering no pixel centre.
fn layout() -> Scene {
    let mut s = Scene::new();
    for m in [
        quad("front", [20.0, 20.0, 80.0, 80.0], 2.0),
        quad("hidden", [30.0, 30.0, 70.0, 70.0], 0.0),
        quad("under", [40.0, 40.0, 60.0, 60.0], -1.0),
        quad("side", [121.0, 20.0, 161.0, 60.0], 1.0),
        tri(
            "sliver",
            [[100.0, 100.2], [180.0, 100.2], [180.0, 100.9]],
            0.0,
        ),
        tri("speck", [[60.6, 100.6], [60.9, 100.6], [60.6, 100.9]], 0.0),
    ] {
        s.add_mesh(m, Transform::IDENTITY, None);
    }
    s
}

fn frame(scene: &Scene) -> Frame {
    render(scene, &camera(), RenderOptions::default()).unwrap()
}

fn mesh_at(f: &Frame, scene: &Scene, x: u32, y: u32) -> Option<u32> {
    f.triangle_at(x.into(), y.into())
        .and_then(|t| scene.locate(t))
        .map(|(m, _)| m)
}

#[test]
fn layout_renders_as_designed() {
    let scene = layout();
    let f = frame(&scene);
    assert_eq!(mesh_at(&f, &scene, 50, 50), Some(FRONT));
    assert_eq!(mesh_at(&f, &scene, 79, 40), Some(FRONT));
    assert_eq!(mesh_at(&f, &scene, 80, 40), None);
    assert_eq!(mesh_at(&f, &scene, 121, 40), Some(SIDE));
    assert_eq!(mesh_at(&f, &scene, 120, 40), None);
    for x in 0..W {
        let want = (134..=179).contains(&x).then_some(SLIVER);
        assert_eq!(mesh_at(&f, &scene, x, 100), want, "row 100, x {x}");
        assert_eq!(mesh_at(&f, &scene, x, 99), None);
        assert_eq!(mesh_at(&f, &scene, x, 101), None);
    }
    assert!(
        f.ids().iter().all(|&id| id == 0 || id <= 9),
        "speck drew nothing"
    );
}

#[test]
fn radius_pick_next_to_a_sliver() {
    let scene = layout();
    let f = frame(&scene);
    let picks = f.picks(&scene).unwrap();
    // 5 px above the sliver: nothing under the cursor
    assert!(picks.at(150, 95).is_none());
    let near = f.nearest_covered(150, 95, 5.0).expect("sliver within 5 px");
    assert_eq!((near.x, near.y, near.distance), (150, 100, 5.0));
    let hit = picks.near(150, 95, 5.0).expect("sliver");
    assert_eq!(hit.mesh, SLIVER);
    assert_eq!(Some(hit), picks.at(150, 100));
    assert!(picks.near(150, 95, 4.99).is_none());
    // diagonally off the sliver's thin end: the nearest pixel is its first one
    let near = f.nearest_covered(130, 97, 10.0).unwrap();
    assert_eq!((near.x, near.y), (134, 100));
    assert!((near.distance - 5.0).abs() < 1e-6);
    // under the cursor: that hit, distance 0
    assert_eq!(picks.near(140, 100, 3.0), picks.at(140, 100));
    assert_eq!(f.nearest_covered(140, 100, 0.0).unwrap().distance, 0.0);
}

#[test]
fn radius_pick_on_empty_background() {
    let scene = layout();
    let f = frame(&scene);
    assert!(f.picks(&scene).unwrap().near(10, 110, 8.0).is_none());
    assert!(f.picks(&scene).unwrap().near(195, 5, 15.0).is_none());
    // the speck covers no pixel centre, so radius picks (ID buffer) do not see it
    assert!(f.picks(&scene).unwrap().near(60, 100, 5.0).is_none());
    // bad radii
    for r in [-1.0, f32::NAN, f32::NEG_INFINITY] {
        assert!(f.nearest_covered(50, 50, r).is_none(), "{r}");
        assert!(f.picks(&scene).unwrap().near(150, 95, r).is_none());
    }
    // infinite radius finds something from anywhere, even far outside
    assert!(f.nearest_covered(-1_000_000, 5, f32::INFINITY).is_some());
    assert!(f
        .nearest_covered(i64::MIN, i64::MAX, f32::INFINITY)
        .is_some());
    assert!(f.nearest_covered(i64::MIN, i64::MAX, 1e6).is_none());
}

#[test]
fn radius_ties_go_to_smaller_y_then_smaller_x() {
    let scene = layout();
    let f = frame(&scene);
    // (79, 40) and (121, 40) are both 21 px from (100, 40)
    let near = f.nearest_covered(100, 40, 30.0).unwrap();
    assert_eq!((near.x, near.y, near.distance), (79, 40, 21.0));
    assert_eq!(
        f.picks(&scene).unwrap().near(100, 40, 30.0).unwrap().mesh,
        FRONT
    );
}

/// Brute force of the documented rule: smallest (d², y, x) over covered pixels.
fn brute_nearest(f: &Frame, x: i64, y: i64, r: f32) -> Option<(u32, u32, u32)> {
    let mut best: Option<(i64, u32, u32, u32)> = None;
    for py in 0..f.height() {
        for px in 0..f.width() {
            let Some(t) = f.triangle_at(px.into(), py.into()) else {
                continue;
            };
            let (dx, dy) = (i64::from(px) - x, i64::from(py) - y);
            let d2 = dx * dx + dy * dy;
            if d2 as f64 > f64::from(r) * f64::from(r) {
                continue;
            }
            if best.is_none_or(|b| (d2, py, px) < (b.0, b.1, b.2)) {
                best = Some((d2, py, px, t));
            }
        }
    }
    best.map(|b| (b.2, b.1, b.3))
}

#[test]
fn radius_pick_equals_brute_force_seeded() {
    let scene = random_scene(11, 120);
    let f = render(&scene, &soup_camera(), RenderOptions::default()).unwrap();
    let mut rng = Rng::new(5);
    for _ in 0..400 {
        let x = rng.range(-40.0, f.width() as f32 + 40.0) as i64;
        let y = rng.range(-40.0, f.height() as f32 + 40.0) as i64;
        let r = rng.range(0.0, 60.0);
        let got = f.nearest_covered(x, y, r).map(|n| (n.x, n.y, n.triangle));
        assert_eq!(got, brute_nearest(&f, x, y, r), "cursor ({x},{y}) r {r}");
    }
}

fn meshes(s: &Selection) -> Vec<u32> {
    s.meshes.clone()
}

#[test]
fn rect_visible_and_through_differ_exactly_on_occluded_meshes() {
    let scene = layout();
    let f = frame(&scene);
    let picks = f.picks(&scene).unwrap();
    let vis = picks.rect(25, 25, 75, 75, SelectMode::Visible);
    let thr = picks.rect(25, 25, 75, 75, SelectMode::Through);
    assert_eq!(meshes(&vis), vec![FRONT]);
    assert_eq!(vis.triangles, vec![0, 1]);
    assert_eq!(meshes(&thr), vec![FRONT, HIDDEN, UNDER]);
    assert_eq!(thr.triangles, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!((vis.pixels, thr.pixels), (51 * 51, 51 * 51));
    // corners in any order
    for (a, b, c, d) in [(75, 75, 25, 25), (25, 75, 75, 25), (75, 25, 25, 75)] {
        assert_eq!(picks.rect(a, b, c, d, SelectMode::Through), thr);
    }
    // the whole frame
    let vis = picks.rect(0, 0, 10_000, 10_000, SelectMode::Visible);
    let thr = picks.rect(-5, -5, i64::MAX, i64::MAX, SelectMode::Through);
    assert_eq!(meshes(&vis), vec![FRONT, SIDE, SLIVER]);
    assert_eq!(
        meshes(&thr),
        vec![FRONT, HIDDEN, UNDER, SIDE, SLIVER, SPECK]
    );
    assert_eq!(vis.pixels, 60 * 60 + 40 * 40 + 46);
    // outside the frame, or a rectangle of background
    assert_eq!(
        picks.rect(-50, -50, -1, -1, SelectMode::Through),
        Selection::default()
    );
    assert!(picks.rect(0, 0, 15, 110, SelectMode::Through).is_empty());
    // a one-pixel rectangle over the hidden quads
    let one = picks.rect(50, 50, 50, 50, SelectMode::Through);
    assert_eq!(meshes(&one), vec![FRONT, HIDDEN, UNDER]);
    assert_eq!(one.pixels, 1);
}

#[test]
fn subpixel_triangle_is_selected_only_through() {
    let scene = layout();
    let f = frame(&scene);
    let picks = f.picks(&scene).unwrap();
    let speck = scene.global_triangle(SPECK, 0);
    let vis = picks.rect(55, 95, 65, 105, SelectMode::Visible);
    assert!(vis.is_empty());
    assert_eq!(vis.pixels, 0);
    let thr = picks.rect(55, 95, 65, 105, SelectMode::Through);
    assert_eq!(meshes(&thr), vec![SPECK]);
    assert_eq!(thr.triangles, vec![speck]);
    // the speck spans x 60.6..60.9, y 100.6..100.9: pixel (60, 100) only
    let at = |x0, y0, x1, y1| {
        picks
            .rect(x0, y0, x1, y1, SelectMode::Through)
            .contains_triangle(speck)
    };
    assert!(at(60, 100, 60, 100));
    assert!(at(0, 0, 60, 100));
    assert!(!at(61, 95, 65, 105));
    assert!(!at(55, 101, 65, 105));
    assert!(!at(55, 95, 59, 105));
    assert!(!at(55, 95, 65, 99));
}

#[test]
fn lasso_visible_and_through() {
    let scene = layout();
    let f = frame(&scene);
    let picks = f.picks(&scene).unwrap();
    let lasso = [[25.0, 25.0], [75.0, 25.0], [50.0, 75.0]];
    let vis = picks.lasso(&lasso, SelectMode::Visible);
    let thr = picks.lasso(&lasso, SelectMode::Through);
    assert_eq!(meshes(&vis), vec![FRONT]);
    assert_eq!(meshes(&thr), vec![FRONT, HIDDEN, UNDER]);
    assert_eq!(vis.pixels, thr.pixels);
    assert!(vis.pixels > 1000);

    // a square through pixel centres: left and top edges in, right and bottom out
    let sq = [[30.5, 30.5], [40.5, 30.5], [40.5, 40.5], [30.5, 40.5]];
    assert_eq!(picks.lasso(&sq, SelectMode::Visible).pixels, 100);
    let rev: Vec<[f32; 2]> = sq.iter().rev().copied().collect();
    assert_eq!(picks.lasso(&rev, SelectMode::Visible).pixels, 100);

    // a lasso around the speck: its pixel is background, the speck is inside
    let speck = [[60.0, 100.0], [61.4, 100.0], [60.0, 101.4]];
    let vis = picks.lasso(&speck, SelectMode::Visible);
    assert!(vis.is_empty());
    assert_eq!(
        meshes(&picks.lasso(&speck, SelectMode::Through)),
        vec![SPECK]
    );
    // a lasso next to it, not overlapping
    let beside = [[61.0, 99.0], [63.0, 99.0], [61.0, 103.0]];
    assert!(picks.lasso(&beside, SelectMode::Through).is_empty());
    // a lasso whose edge crosses the speck, no lasso vertex inside it
    let across = [[55.0, 100.75], [70.0, 100.75], [70.0, 110.0]];
    assert_eq!(
        meshes(&picks.lasso(&across, SelectMode::Through)),
        vec![SPECK]
    );

    // a self-intersecting bow tie: even-odd, both lobes
    let bow = [[22.0, 22.0], [78.0, 78.0], [78.0, 22.0], [22.0, 78.0]];
    let s = picks.lasso(&bow, SelectMode::Through);
    assert_eq!(meshes(&s), vec![FRONT, HIDDEN, UNDER]);

    // degenerate input selects nothing, never panics
    for bad in [
        vec![],
        vec![[1.0, 1.0], [50.0, 50.0]],
        vec![[f32::NAN, 1.0], [50.0, 50.0], [1.0, 50.0]],
        vec![[0.0, f32::INFINITY], [50.0, 50.0], [1.0, 50.0]],
    ] {
        assert_eq!(picks.lasso(&bad, SelectMode::Through), Selection::default());
    }
    // huge coordinates are clamped, not a panic
    let huge = [[-1e30, -1e30], [1e30, -1e30], [1e30, 1e30], [-1e30, 1e30]];
    let all = picks.lasso(&huge, SelectMode::Through);
    assert_eq!(
        meshes(&all),
        vec![FRONT, HIDDEN, UNDER, SIDE, SLIVER, SPECK]
    );
}

/// The mesh of `c`'s next click at pixel (`x`, `y`) of frame `f`.
fn click(c: &mut PickCycle, f: &Frame, scene: &Scene, x: i64, y: i64) -> Option<u32> {
    c.click(f.picks(scene).unwrap(), x, y).map(|h| h.mesh)
}

#[test]
fn cycling_follows_pick_all_order_and_wraps() {
    let mut scene = layout();
    let f = frame(&scene);
    let order: Vec<u32> = {
        let mut seen = Vec::new();
        for h in f.picks(&scene).unwrap().all(50, 50) {
            if !seen.contains(&h.mesh) {
                seen.push(h.mesh);
            }
        }
        seen
    };
    assert_eq!(order, vec![FRONT, HIDDEN, UNDER]);
    let stack: Vec<u32> = f
        .picks(&scene)
        .unwrap()
        .stack(50, 50)
        .iter()
        .map(|h| h.mesh)
        .collect();
    assert_eq!(stack, order);

    let mut c = PickCycle::new();
    let mut clicks = Vec::new();
    for _ in 0..7 {
        clicks.push(click(&mut c, &f, &scene, 50, 50).unwrap());
    }
    assert_eq!(clicks, [FRONT, HIDDEN, UNDER, FRONT, HIDDEN, UNDER, FRONT]);
    assert_eq!(c.position(), Some((0, 3)));
    // the first click's hit is the plain pick's
    let mut fresh = PickCycle::new();
    assert_eq!(
        fresh.click(f.picks(&scene).unwrap(), 50, 50),
        f.picks(&scene).unwrap().at(50, 50)
    );

    // moving the cursor restarts from the nearest
    assert_eq!(click(&mut c, &f, &scene, 50, 50), Some(HIDDEN));
    assert_eq!(click(&mut c, &f, &scene, 51, 50), Some(FRONT));
    assert_eq!(click(&mut c, &f, &scene, 50, 50), Some(FRONT));
    assert_eq!(click(&mut c, &f, &scene, 50, 50), Some(HIDDEN));
    // background resets
    assert_eq!(click(&mut c, &f, &scene, 5, 5), None);
    assert_eq!(c.position(), None);
    assert_eq!(click(&mut c, &f, &scene, 50, 50), Some(FRONT));
    // reset()
    click(&mut c, &f, &scene, 50, 50);
    c.reset();
    assert_eq!(click(&mut c, &f, &scene, 50, 50), Some(FRONT));
    // a single mesh wraps onto itself
    for _ in 0..3 {
        assert_eq!(click(&mut c, &f, &scene, 130, 30), Some(SIDE));
    }

    // a new frame with a different stack at the same pixel restarts
    assert_eq!(click(&mut c, &f, &scene, 50, 50), Some(FRONT));
    assert_eq!(click(&mut c, &f, &scene, 50, 50), Some(HIDDEN));
    let node = scene.mesh_node(HIDDEN).unwrap();
    scene.translate(node, Vec3::new(0.0, 100.0, 0.0));
    let g = frame(&scene);
    assert_eq!(click(&mut c, &g, &scene, 50, 50), Some(FRONT));
    assert_eq!(click(&mut c, &g, &scene, 50, 50), Some(UNDER));
    assert_eq!(click(&mut c, &g, &scene, 50, 50), Some(FRONT));
}

/// Independent f64 even-odd test (PNPOLY) against the snapped lasso.
fn pnpoly(poly: &[[f64; 2]], x: f64, y: f64) -> bool {
    let mut c = false;
    let n = poly.len();
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        if (a[1] > y) != (b[1] > y) && x < (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]) + a[0] {
            c = !c;
        }
    }
    c
}

fn brute_visible(f: &Frame, scene: &Scene, inside: impl Fn(u32, u32) -> bool) -> Selection {
    let mut tris = BTreeSet::new();
    let mut pixels = 0;
    for y in 0..f.height() {
        for x in 0..f.width() {
            if !inside(x, y) {
                continue;
            }
            if let Some(t) = f.triangle_at(x.into(), y.into()) {
                pixels += 1;
                tris.insert(t);
            }
        }
    }
    let meshes: BTreeSet<u32> = tris
        .iter()
        .filter_map(|&t| scene.locate(t))
        .map(|m| m.0)
        .collect();
    Selection {
        meshes: meshes.into_iter().collect(),
        triangles: tris.into_iter().collect(),
        pixels,
    }
}

#[test]
fn visible_rect_and_lasso_equal_brute_force_seeded() {
    let scene = random_scene(3, 200);
    let f = render(&scene, &soup_camera(), RenderOptions::default()).unwrap();
    let picks = f.picks(&scene).unwrap();
    let (w, h) = (f.width() as i64, f.height() as i64);
    let mut rng = Rng::new(17);
    for case in 0..150 {
        let mut c = || {
            (
                rng.range(-30.0, w as f32 + 30.0) as i64,
                rng.range(-30.0, h as f32 + 30.0) as i64,
            )
        };
        let ((x0, y0), (x1, y1)) = (c(), c());
        let got = picks.rect(x0, y0, x1, y1, SelectMode::Visible);
        let want = brute_visible(&f, &scene, |x, y| {
            let (x, y) = (i64::from(x), i64::from(y));
            x0.min(x1) <= x && x <= x0.max(x1) && y0.min(y1) <= y && y <= y0.max(y1)
        });
        assert_eq!(got, want, "case {case}: rect ({x0},{y0})-({x1},{y1})");
    }
    for case in 0..60 {
        let n = 3 + rng.below(8);
        let poly: Vec<[f32; 2]> = (0..n)
            .map(|_| {
                [
                    rng.range(-20.0, w as f32 + 20.0),
                    rng.range(-20.0, h as f32 + 20.0),
                ]
            })
            .collect();
        // the lasso as the library sees it: snapped to 1/256 px, centres at integers
        let snapped: Vec<[f64; 2]> = poly
            .iter()
            .map(|p| p.map(|c| snap(c) as f64 / 256.0))
            .collect();
        let got = picks.lasso(&poly, SelectMode::Visible);
        let want = brute_visible(&f, &scene, |x, y| {
            pnpoly(&snapped, f64::from(x), f64::from(y))
        });
        assert_eq!(got, want, "case {case}: lasso {poly:?}");
    }
}

#[test]
fn through_rect_equals_coverage_plus_overlap_seeded() {
    let scene = random_scene(23, 300);
    let f = render(&scene, &soup_camera(), RenderOptions::default()).unwrap();
    let picks = f.picks(&scene).unwrap();
    let (w, h) = (f.width() as i64, f.height() as i64);
    // per triangle, the pixels its set-up pieces cover (depth ignored)
    let mut cover: Vec<Vec<usize>> = vec![Vec::new(); scene.triangle_count() as usize];
    softpick::internals::for_each_coverage(&f, |p, t| cover[t as usize].push(p));
    let mut rng = Rng::new(29);
    for case in 0..80 {
        let mut c = || {
            (
                rng.range(-10.0, w as f32 + 10.0) as i64,
                rng.range(-10.0, h as f32 + 10.0) as i64,
            )
        };
        let ((x0, y0), (x1, y1)) = (c(), c());
        let (ax, bx) = (x0.min(x1).max(0), x0.max(x1).min(w - 1));
        let (ay, by) = (y0.min(y1).max(0), y0.max(y1).min(h - 1));
        let thr = picks.rect(x0, y0, x1, y1, SelectMode::Through);
        let vis = picks.rect(x0, y0, x1, y1, SelectMode::Visible);
        assert!(vis.triangles.iter().all(|t| thr.contains_triangle(*t)));
        assert_eq!(vis.pixels, thr.pixels);
        for (mi, m) in scene.meshes().iter().enumerate() {
            for t in 0..m.triangles().len() as u32 {
                let g = scene.global_triangle(mi as u32, t);
                let covers = cover[g as usize].iter().any(|&p| {
                    let (x, y) = ((p as i64) % w, (p as i64) / w);
                    ax <= x && x <= bx && ay <= y && y <= by
                });
                let v = m.triangles()[t as usize]
                    .map(|i| softpick::internals::screen_vertex(&f, mi as u32, i).unwrap());
                // all in front, inside the depth range and the guard band (a clipped
                // vertex's window position reads (0, 0, 0))
                let plain = v.iter().all(|s| {
                    s.w > 0.0 && s.z > 0.0 && s.z <= 1.0 && s.x.abs() < 1e4 && s.y.abs() < 1e4
                });
                let margin = sat_margin(
                    v.map(|s| [f64::from(s.x), f64::from(s.y)]),
                    [ax as f64, ay as f64, (bx + 1) as f64, (by + 1) as f64],
                );
                let got = thr.contains_triangle(g);
                if covers {
                    assert!(got, "case {case}: triangle {g} covers a pixel of the rect");
                }
                if plain && margin > 0.01 {
                    assert!(
                        got,
                        "case {case}: triangle {g} overlaps the rect by {margin}"
                    );
                }
                if got && !covers {
                    assert!(
                        plain && margin > -0.01,
                        "case {case}: triangle {g} selected, margin {margin}"
                    );
                }
            }
        }
    }
}

/// Separating-axis overlap depth of a triangle and a box in f64: positive
/// when they overlap (by at least that much along every axis), negative
/// when a gap of that size separates them.
fn sat_margin(t: [[f64; 2]; 3], b: [f64; 4]) -> f64 {
    let corners = [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]];
    let mut axes = vec![[1.0, 0.0], [0.0, 1.0]];
    for k in 0..3 {
        let (p, q) = (t[k], t[(k + 1) % 3]);
        let n = [q[1] - p[1], p[0] - q[0]];
        let len = (n[0] * n[0] + n[1] * n[1]).sqrt();
        if len > 0.0 {
            axes.push([n[0] / len, n[1] / len]);
        }
    }
    let proj = |pts: &[[f64; 2]], n: [f64; 2]| {
        pts.iter()
            .map(|p| p[0] * n[0] + p[1] * n[1])
            .fold((f64::MAX, f64::MIN), |(lo, hi), d| (lo.min(d), hi.max(d)))
    };
    axes.iter()
        .map(|&n| {
            let (t0, t1) = proj(&t, n);
            let (b0, b1) = proj(&corners, n);
            t1.min(b1) - t0.max(b0)
        })
        .fold(f64::MAX, f64::min)
}

#[test]
fn rect_shaped_lasso_equals_rect_seeded() {
    // a lasso along pixel borders takes exactly the rectangle's pixels and
    // area, so both modes must agree with select_rect (cross-checks the lasso
    // edge/centroid overlap test against the rectangle's separating axes)
    let scene = random_scene(41, 300);
    let f = render(&scene, &soup_camera(), RenderOptions::default()).unwrap();
    let picks = f.picks(&scene).unwrap();
    let (w, h) = (f.width() as i64, f.height() as i64);
    let mut rng = Rng::new(43);
    let mut extra = 0;
    for case in 0..80 {
        let x0 = i64::from(rng.below_u32(w as u32));
        let x1 = i64::from(rng.below_u32(w as u32));
        let y0 = i64::from(rng.below_u32(h as u32));
        let y1 = i64::from(rng.below_u32(h as u32));
        let (ax, bx, ay, by) = (x0.min(x1), x0.max(x1), y0.min(y1), y0.max(y1));
        let mut poly = vec![
            [ax as f32, ay as f32],
            [(bx + 1) as f32, ay as f32],
            [(bx + 1) as f32, (by + 1) as f32],
            [ax as f32, (by + 1) as f32],
        ];
        poly.rotate_left(case % 4);
        if case % 2 == 1 {
            poly.reverse();
        }
        for mode in [SelectMode::Visible, SelectMode::Through] {
            let r = picks.rect(x0, y0, x1, y1, mode);
            let l = picks.lasso(&poly, mode);
            assert_eq!(l, r, "case {case} {mode:?}: {poly:?}");
        }
        let v = picks.rect(x0, y0, x1, y1, SelectMode::Visible);
        let t = picks.rect(x0, y0, x1, y1, SelectMode::Through);
        extra += t.triangles.len() - v.triangles.len();
    }
    assert!(extra > 50, "x-ray found occluded triangles ({extra})");
}
