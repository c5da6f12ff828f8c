//! Extreme geometry (public API only): vertices far outside the screen,
//! behind the camera, across the near plane at grazing angles, w ≈ 0, huge
//! world coordinates; huge, tiny and sliver triangles; a million sub-pixel
//! triangles (whole models: `far_and_thin_models.rs`). Nothing panics,
//! coverage matches the exact (f64) geometry within the documented
//! precision, and the pick methods agree.

use glam::{DVec3, Vec3};
use softpick::internals::render_2d;
use softpick::internals::GUARD_BAND_PX;
use softpick::{
    render, Camera, FillRule, Frame, Mesh, Projection, RenderOptions, Scene, Transform,
};

use crate::support::{cam, reference_mask, Rng};

pub fn one_mesh(tris: &[[Vec3; 3]]) -> Scene {
    let mut s = Scene::new();
    let pos: Vec<Vec3> = tris.iter().flatten().copied().collect();
    let idx = (0..tris.len() as u32)
        .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
        .collect();
    let m = Mesh::new("tris", pos, idx, [200, 200, 200]).unwrap();
    s.add_mesh(m, Transform::IDENTITY, None);
    s
}

/// Exact pinhole model of a perspective camera in f64.
struct Pinhole {
    eye: DVec3,
    f: DVec3,
    s: DVec3,
    u: DVec3,
    tan_y: f64,
    aspect: f64,
    near: f64,
    far: f64,
    w: f64,
    h: f64,
}

impl Pinhole {
    fn new(c: &Camera) -> Self {
        let Projection::Perspective { fov_y_deg } = c.projection else {
            panic!("perspective only")
        };
        let eye = c.eye.as_dvec3();
        let f = (c.target.as_dvec3() - eye).normalize();
        let s = f.cross(c.up.as_dvec3()).normalize();
        let u = s.cross(f);
        Self {
            eye,
            f,
            s,
            u,
            tan_y: (f64::from(fov_y_deg).to_radians() * 0.5).tan(),
            aspect: f64::from(c.width) / f64::from(c.height),
            near: f64::from(c.near),
            far: f64::from(c.far),
            w: f64::from(c.width),
            h: f64::from(c.height),
        }
    }

    /// World point at window position (sx, sy) (pixels, y down) and view depth d.
    fn world(&self, sx: f64, sy: f64, d: f64) -> DVec3 {
        let nx = sx / self.w * 2.0 - 1.0;
        let ny = 1.0 - sy / self.h * 2.0;
        self.eye
            + self.f * d
            + self.s * (nx * self.tan_y * self.aspect * d)
            + self.u * (ny * self.tan_y * d)
    }

    /// View depth of the point of triangle `t` seen through window position
    /// (sx, sy), if it lies in [near, far). Robust for huge coordinates:
    /// the line through the eye is tested against the planes through the
    /// eye and each edge (signs only), and the depth comes from the
    /// triangle's plane through its vertex nearest to the eye.
    fn hit(&self, t: &[DVec3; 3], sx: f64, sy: f64) -> Option<f64> {
        let nx = sx / self.w * 2.0 - 1.0;
        let ny = 1.0 - sy / self.h * 2.0;
        // unit forward component: the ray parameter is the view depth
        let dir = self.f + self.s * (nx * self.tan_y * self.aspect) + self.u * (ny * self.tan_y);
        let r = t.map(|v| v - self.eye);
        let side = |a: DVec3, b: DVec3| {
            // normalize before the triple product: no overflow for 1e38
            let c = (a / a.length().max(1e-300)).cross(b / b.length().max(1e-300));
            dir.dot(c)
        };
        let e = [side(r[0], r[1]), side(r[1], r[2]), side(r[2], r[0])];
        let inside = e.iter().all(|&x| x >= 0.0) || e.iter().all(|&x| x <= 0.0);
        if !inside {
            return None;
        }
        // the plane from the edges at the vertex nearest the eye (a huge
        // vertex would swamp the small ones in any other difference)
        let k = (0..3)
            .min_by(|&a, &b| r[a].length().total_cmp(&r[b].length()))
            .unwrap();
        let near_v = r[k];
        let n = {
            let (a, b) = (t[(k + 1) % 3] - t[k], t[(k + 2) % 3] - t[k]);
            let (a, b) = (a / a.length().max(1e-300), b / b.length().max(1e-300));
            a.cross(b)
        };
        let den = n.dot(dir);
        if den == 0.0 {
            return None;
        }
        let d = n.dot(near_v) / den;
        (d >= self.near && d < self.far).then_some(d)
    }
}

impl Pinhole {
    /// Angular distance of the ray through (sx, sy) to the nearest plane
    /// through the eye and an edge of `t`, in pixels (at the image centre's
    /// scale, an overestimate of the true pixel distance elsewhere).
    fn edge_px(&self, t: &[DVec3; 3], sx: f64, sy: f64) -> f64 {
        let nx = sx / self.w * 2.0 - 1.0;
        let ny = 1.0 - sy / self.h * 2.0;
        let dir = (self.f + self.s * (nx * self.tan_y * self.aspect) + self.u * (ny * self.tan_y))
            .normalize();
        let r = t.map(|v| v - self.eye);
        let px = 2.0 * self.tan_y / self.h;
        (0..3)
            .map(|k| {
                let (a, b) = (r[k], r[(k + 1) % 3]);
                let c = (a / a.length().max(1e-300)).cross(b / b.length().max(1e-300));
                let c = c / c.length().max(1e-300);
                dir.dot(c).abs() / px
            })
            .fold(f64::INFINITY, f64::min)
    }
}

/// Compares the ID buffer of a one-triangle-mesh scene with the exact
/// coverage. A pixel counts only when the exact answer is the same at its
/// centre and at 8 points `slack` pixels around it; returns the number of
/// such pixels that differ, and prints a few.
fn mismatches(scene: &Scene, f: &Frame, c: &Camera, slack: f64, what: &str) -> usize {
    let ph = Pinhole::new(c);
    let m = &scene.meshes()[0];
    let tris: Vec<[DVec3; 3]> = (0..m.triangles().len() as u32)
        .map(|t| m.triangle(t).map(|p| p.as_dvec3()))
        .collect();
    let covered = |sx: f64, sy: f64| tris.iter().any(|t| ph.hit(t, sx, sy).is_some());
    let mut bad = 0;
    for y in 0..c.height {
        for x in 0..c.width {
            let (sx, sy) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
            let want = covered(sx, sy);
            let clear = tris.iter().all(|t| ph.edge_px(t, sx, sy) >= slack)
                && [-slack, 0.0, slack].iter().all(|dx| {
                    [-slack, 0.0, slack]
                        .iter()
                        .all(|dy| covered(sx + dx, sy + dy) == want)
                });
            let got = f.triangle_at(i64::from(x), i64::from(y)).is_some();
            if clear && got != want {
                if bad < 5 {
                    println!("{what}: pixel ({x},{y}) drawn {got}, exact {want}");
                }
                bad += 1;
            }
        }
    }
    bad
}

/// Where a random vertex is put: its view depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Depth {
    /// In the view volume, 0.5..50.
    Front,
    /// Behind the eye, −50..−0.01.
    Behind,
    /// Beyond the far plane, 100..1e4.
    BeyondFar,
    /// Within 1e-6 (relative) of the near plane.
    AtNear,
    /// Within 1e-6 of the eye plane (w ≈ 0).
    EyePlane,
    /// 1e20..1e37 away.
    Huge,
}

/// One random triangle of [`random_trials`] whose coverage differs from
/// the exact one: its vertices, how each was placed (depth kind and
/// window-distance scale) and the number of clear pixels that differ.
#[derive(Debug)]
pub struct Mismatch {
    pub tri: [Vec3; 3],
    pub placed: [(Depth, f64); 3],
    pub pixels: usize,
}

/// Renders `n` random one-triangle scenes (64×48) whose vertices lie at
/// the given depths and at window positions up to `scales` pixels from the
/// centre, and returns the triangles whose coverage differs from the exact
/// one at some clear pixel, and how many triangles were drawn. At every
/// pixel of every frame the direct pick equals the buffer; a triangle whose
/// clip coordinates overflow f32 is counted invalid and draws nothing.
pub fn random_trials(
    seed: u64,
    n: usize,
    depths: &[Depth],
    scales: &[f64],
    one_far: bool,
) -> (Vec<Mismatch>, usize) {
    let c = cam(64, 48);
    let ph = Pinhole::new(&c);
    let mut rng = Rng::new(seed);
    let mut failures = Vec::new();
    let mut drawn = 0;
    for trial in 0..n {
        let mut placed = [(Depth::Front, 0.0); 3];
        let tri: [Vec3; 3] = std::array::from_fn(|k| {
            let scale = if one_far {
                // vertex 0 at the largest scale, the others at the smallest two
                if k == 0 {
                    scales[scales.len() - 1]
                } else {
                    scales[rng.below(2.min(scales.len()))]
                }
            } else {
                scales[rng.below(scales.len())]
            };
            let sx = f64::from(rng.range(-1.0, 1.0)) * scale + 32.0;
            let sy = f64::from(rng.range(-1.0, 1.0)) * scale + 24.0;
            let depth = depths[rng.below(depths.len())];
            placed[k] = (depth, scale);
            let d = match depth {
                Depth::Front => f64::from(rng.range(0.5, 50.0)),
                Depth::Behind => f64::from(rng.range(-50.0, -0.01)),
                Depth::AtNear => 0.1 * (1.0 + f64::from(rng.range(-1e-6, 1e-6))),
                Depth::BeyondFar => f64::from(rng.range(100.0, 1e4)),
                Depth::Huge => 10f64.powf(f64::from(rng.range(20.0, 37.0))),
                Depth::EyePlane => f64::from(rng.range(-1e-6, 1e-6)),
            };
            let p = ph.world(sx, sy, d).as_vec3();
            if p.is_finite() {
                p
            } else {
                Vec3::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0), 0.0)
            }
        });
        let scene = one_mesh(&[tri]);
        let f = render(&scene, &c, RenderOptions::default()).unwrap();
        for y in 0..c.height {
            for x in 0..c.width {
                let a = f
                    .triangle_at(x.into(), y.into())
                    .map(|t| (t, f.depth()[(y * c.width + x) as usize].to_bits()));
                let b = softpick::internals::direct_triangle_at(&f, x.into(), y.into())
                    .map(|(t, z)| (t, z.to_bits()));
                assert_eq!(a, b, "trial {trial} {tri:?}: pixel ({x},{y})");
            }
        }
        if f.stats().invalid > 0 {
            // clip coordinates overflow f32: the triangle is dropped whole
            assert!(f.ids().iter().all(|&i| i == 0), "trial {trial} {tri:?}");
            continue;
        }
        drawn += usize::from(f.ids().iter().any(|&i| i != 0));
        let bad = mismatches(&scene, &f, &c, 0.25, &format!("trial {trial}"));
        if bad > 0 {
            failures.push(Mismatch {
                tri,
                placed,
                pixels: bad,
            });
        }
    }
    (failures, drawn)
}

#[test]
fn vertices_far_outside_the_screen_draw_exactly_their_visible_part() {
    use Depth::*;
    // in front of the camera or beyond the far plane, up to 1e6 px away
    let (fails, drawn) = random_trials(2, 1500, &[Front, BeyondFar], &[1.0, 1e3, 1e6], false);
    assert!(fails.is_empty(), "{fails:?}");
    assert!(drawn > 300, "{drawn} of 1500 drew something");
    // one vertex up to 1e30 px away after projection, the others near the screen
    let (fails, drawn) = random_trials(3, 1500, &[Front, BeyondFar], &[1.0, 1e3, 1e30], true);
    assert!(fails.is_empty(), "{fails:?}");
    assert!(drawn > 300, "{drawn} of 1500 drew something");
}

#[test]
fn triangles_behind_and_across_the_camera_plane_draw_exactly_their_visible_part() {
    use Depth::*;
    let (fails, drawn) = random_trials(4, 1500, &[Front, Behind], &[1.0, 30.0, 1e3], false);
    assert!(fails.is_empty(), "{fails:?}");
    assert!(drawn > 300, "{drawn} of 1500 drew something");
}

#[test]
fn off_screen_triangles_cover_nothing() {
    let c = cam(64, 48);
    let ph = Pinhole::new(&c);
    let v = |sx: f64, sy: f64, d: f64| ph.world(sx, sy, d).as_vec3();
    let cases: Vec<(&str, [Vec3; 3])> = vec![
        // around the top-left corner: no shared outcode, clipped to nothing
        (
            "corner",
            [v(-1e6, 30.0, 5.0), v(40.0, -1e6, 5.0), v(-1e6, -1e6, 5.0)],
        ),
        // a long sliver passing above the screen
        (
            "sliver above",
            [v(-1e6, -3.0, 5.0), v(1e6, -3.0, 5.0), v(1e6, -2.0, 5.0)],
        ),
        // wholly behind the eye, huge
        (
            "behind",
            [v(-1e6, -1e6, -5.0), v(1e6, -1e6, -5.0), v(0.0, 1e6, -5.0)],
        ),
        // wholly beyond the far plane
        (
            "beyond far",
            [v(-1e3, -1e3, 1e3), v(1e3, -1e3, 1e3), v(0.0, 1e3, 1e30)],
        ),
        // in the eye plane: seen edge-on
        (
            "eye plane",
            [
                Vec3::new(-3.0, -3.0, 5.0),
                Vec3::new(3.0, -3.0, 5.0),
                Vec3::new(0.0, 3.0, 5.0),
            ],
        ),
        // a vertex at the eye, the others behind it
        (
            "at the eye",
            [
                Vec3::new(0.0, 0.0, 5.0),
                Vec3::new(1.0, 0.0, 6.0),
                Vec3::new(0.0, 1.0, 6.0),
            ],
        ),
    ];
    for (what, tri) in cases {
        let scene = one_mesh(&[tri]);
        let f = render(&scene, &c, RenderOptions::default()).unwrap();
        assert!(f.ids().iter().all(|&i| i == 0), "{what}: {:?}", f.stats());
        let mut n = 0;
        softpick::internals::for_each_coverage(&f, |_, _| n += 1);
        let exact = mismatches(&scene, &f, &c, 0.25, what);
        assert_eq!(exact, 0, "{what}");
        assert!(n == 0 || what == "beyond far", "{what}: {n} fragments");
    }
}

#[test]
fn w_near_zero_and_grazing_near_plane_crossings() {
    let c = cam(64, 48);
    // a vertex exactly at the eye, in the eye plane, next to the eye
    let tris = [
        [
            Vec3::new(0.0, 0.0, 5.0),
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
        ],
        [
            Vec3::new(2.0, 1.0, 5.0),
            Vec3::new(-1.0, 0.5, 0.0),
            Vec3::new(1.0, 0.2, -1.0),
        ],
        [
            Vec3::new(0.0, 0.0, 5.0 - 1e-6),
            Vec3::new(-1.0, 1.0, 1.0),
            Vec3::new(-0.5, 1.5, -2.0),
        ],
    ];
    for (k, t) in tris.iter().enumerate() {
        let scene = one_mesh(&[*t]);
        let f = render(&scene, &c, RenderOptions::default()).unwrap();
        // a triangle through the eye is seen edge-on and draws nothing
        if k == 1 {
            assert!(
                f.ids().iter().any(|&i| i != 0),
                "triangle {k} draws something"
            );
        }
        assert_eq!(mismatches(&scene, &f, &c, 0.25, &format!("w≈0 {k}")), 0);
    }
    // a large ground seen from just above it: every triangle crosses the
    // near plane at a grazing angle
    let mut c = cam(160, 120);
    c.eye = Vec3::new(0.0, 0.01, 0.0);
    c.target = Vec3::new(0.0, 0.0, -10.0);
    let g = 40.0;
    let ground = [
        [
            Vec3::new(-g, 0.0, -g),
            Vec3::new(g, 0.0, g),
            Vec3::new(g, 0.0, -g),
        ],
        [
            Vec3::new(-g, 0.0, -g),
            Vec3::new(-g, 0.0, g),
            Vec3::new(g, 0.0, g),
        ],
    ];
    let scene = one_mesh(&ground);
    let f = render(&scene, &c, RenderOptions::default()).unwrap();
    assert!(f.stats().clipped >= 2);
    assert_eq!(mismatches(&scene, &f, &c, 0.25, "grazing ground"), 0);
    // nothing wraps into the sky
    assert!((0..160).all(|x| f.triangle_at(x, 0).is_none()));
}

/// Per-triangle coverage of a `render_2d` frame equals the reference.
fn assert_2d_matches_reference(w: u32, h: u32, tris: &[[[f32; 2]; 3]], what: &str) {
    for rule in FillRule::ALL {
        let f = render_2d(w, h, tris, rule).unwrap();
        let mut got = vec![vec![false; (w * h) as usize]; tris.len()];
        softpick::internals::for_each_coverage(&f, |p, t| got[t as usize][p] = true);
        for (k, t) in tris.iter().enumerate() {
            assert!(
                got[k] == reference_mask(*t, w, h, rule),
                "{what}: {rule:?}, triangle {k} {t:?}"
            );
        }
        for y in 0..h {
            for x in 0..w {
                let a = f
                    .triangle_at(x.into(), y.into())
                    .map(|t| (t, f.depth()[(y * w + x) as usize]));
                assert_eq!(
                    a,
                    softpick::internals::direct_triangle_at(&f, x.into(), y.into()),
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn huge_tiny_and_sliver_triangles_match_the_reference() {
    let (w, h) = (80, 60);
    let mut rng = Rng::new(11);
    let g = GUARD_BAND_PX;
    // huge: vertices anywhere within twice the guard band (render_2d's limit)
    let huge: Vec<[[f32; 2]; 3]> = (0..40)
        .map(|_| {
            std::array::from_fn(|_| [rng.range(-2.0 * g, 2.0 * g), rng.range(-2.0 * g, 2.0 * g)])
        })
        .collect();
    assert_2d_matches_reference(w, h, &huge, "huge");
    // tiny: 1e-3 .. 1 px, some on pixel centres
    let tiny: Vec<[[f32; 2]; 3]> = (0..200)
        .map(|i| {
            let (cx, cy) = (rng.range(0.0, w as f32), rng.range(0.0, h as f32));
            let (cx, cy) = if i % 3 == 0 {
                (cx.floor() + 0.5, cy.floor() + 0.5)
            } else {
                (cx, cy)
            };
            let s = 10f32.powf(rng.range(-3.0, 0.0));
            std::array::from_fn(|_| [cx + rng.range(-s, s), cy + rng.range(-s, s)])
        })
        .collect();
    assert_2d_matches_reference(w, h, &tiny, "tiny");
    // slivers: long, under a pixel wide, at every angle
    let slivers: Vec<[[f32; 2]; 3]> = (0..60)
        .map(|_| {
            let a = rng.range(0.0, std::f32::consts::TAU);
            let (dx, dy) = (a.cos(), a.sin());
            let (cx, cy) = (rng.range(10.0, 70.0), rng.range(10.0, 50.0));
            let len = rng.range(20.0, 200.0);
            let wid = 10f32.powf(rng.range(-3.0, 0.0));
            [
                [cx - dx * len, cy - dy * len],
                [cx + dx * len, cy + dy * len],
                [cx + dx * len - dy * wid, cy + dy * len + dx * wid],
            ]
        })
        .collect();
    assert_2d_matches_reference(w, h, &slivers, "slivers");
}

#[test]
fn one_pixel_wide_strips_cover_one_pixel_per_row() {
    // parallelograms exactly 1 px wide (in x), slanted, split in two
    // triangles: under the top-left rule each row has exactly one pixel
    let (w, h) = (200u32, 150u32);
    let mut rng = Rng::new(5);
    for _ in 0..50 {
        let x0 = rng.range(20.0, 180.0);
        let slope = rng.range(-1.0, 1.0);
        let (ya, yb) = (-0.5f32, h as f32 + 0.5);
        let (xa, xb) = (x0 + slope * (ya - 75.0), x0 + slope * (yb - 75.0));
        let quad = [[xa, ya], [xa + 1.0, ya], [xb + 1.0, yb], [xb, yb]];
        let tris = [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]];
        let f = render_2d(w, h, &tris, FillRule::TopLeft).unwrap();
        let mut per_row = vec![0u32; h as usize];
        let mut per_pixel = vec![0u32; (w * h) as usize];
        softpick::internals::for_each_coverage(&f, |p, _| {
            per_row[p / w as usize] += 1;
            per_pixel[p] += 1;
        });
        let inside: Vec<u32> = per_row
            .iter()
            .enumerate()
            .filter(|(j, _)| {
                let xl = xa + (xb - xa) * ((*j as f32 + 0.5 - ya) / (yb - ya));
                xl > 0.0 && xl + 1.0 < w as f32
            })
            .map(|(_, &n)| n)
            .collect();
        assert!(inside.len() > 100);
        assert!(
            inside.iter().all(|&n| n == 1),
            "x0 {x0} slope {slope}: {per_row:?}"
        );
        assert!(per_pixel.iter().all(|&n| n <= 1));
    }
}

/// A fan of triangles around `c` whose outer vertices are `ring`, in order.
fn fan(c: [f32; 2], ring: &[[f32; 2]]) -> Vec<[[f32; 2]; 3]> {
    (0..ring.len())
        .map(|k| [c, ring[k], ring[(k + 1) % ring.len()]])
        .collect()
}

#[test]
fn top_left_covers_exactly_once_with_vertices_at_the_guard_band() {
    let (w, h) = (257u32, 193u32);
    let mut rng = Rng::new(17);
    for trial in 0..40 {
        // outer vertices on the square |x|, |y| = GUARD (or just inside
        // render_2d's 2·GUARD limit), around a centre inside the frame
        let g = if trial % 4 == 3 {
            2.0 * GUARD_BAND_PX - 0.5
        } else {
            GUARD_BAND_PX
        };
        let c = if trial % 2 == 0 {
            [
                rng.range(1.0, w as f32 - 1.0),
                rng.range(1.0, h as f32 - 1.0),
            ]
        } else {
            // on a pixel centre: many edges pass exactly through centres
            [rng.below_u32(w) as f32 + 0.5, rng.below_u32(h) as f32 + 0.5]
        };
        let n = 4 + rng.below(12);
        let mut pts: Vec<(f32, [f32; 2])> = (0..n)
            .map(|_| {
                let t = rng.range(-g, g);
                let p = match rng.below(4) {
                    0 => [t, -g],
                    1 => [g, t],
                    2 => [-t, g],
                    _ => [-g, -t],
                };
                ((p[1] - c[1]).atan2(p[0] - c[0]), p)
            })
            .collect();
        for corner in [[-g, -g], [g, -g], [g, g], [-g, g]] {
            pts.push(((corner[1] - c[1]).atan2(corner[0] - c[0]), corner));
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let ring: Vec<[f32; 2]> = pts.into_iter().map(|(_, p)| p).collect();
        let tris = fan(c, &ring);
        let f = render_2d(w, h, &tris, FillRule::TopLeft).unwrap();
        assert_eq!(f.stats().invalid, 0);
        let mut count = vec![0u32; (w * h) as usize];
        softpick::internals::for_each_coverage(&f, |p, _| count[p] += 1);
        // the fan covers the whole square, hence every pixel centre
        let bad: Vec<usize> = (0..count.len()).filter(|&p| count[p] != 1).collect();
        assert!(
            bad.is_empty(),
            "trial {trial}: {} pixels not covered once, e.g. {:?} ({} times); centre {c:?}",
            bad.len(),
            bad.first().map(|&p| (p % w as usize, p / w as usize)),
            bad.first().map_or(0, |&p| count[p])
        );
        // and the ID buffer agrees with the direct test everywhere
        for y in (0..h).step_by(7) {
            for x in (0..w).step_by(5) {
                let a = f
                    .triangle_at(x.into(), y.into())
                    .map(|t| (t, f.depth()[(y * w + x) as usize]));
                assert_eq!(
                    a,
                    softpick::internals::direct_triangle_at(&f, x.into(), y.into())
                );
            }
        }
    }
}

#[test]
fn a_million_sub_pixel_triangles() {
    // a 709×709-vertex sheet (1,002,528 triangles) filling a 256×256 frame:
    // each triangle is about 0.07 px²
    let n = 709u32;
    let mut pos = Vec::with_capacity((n * n) as usize);
    let mut rng = Rng::new(3);
    for j in 0..n {
        for i in 0..n {
            let jitter = |r: &mut Rng, k: u32| {
                if k == 0 || k == n - 1 {
                    0.0
                } else {
                    r.range(-0.3, 0.3)
                }
            };
            let (x, y) = (
                i as f32 + jitter(&mut rng, i),
                j as f32 + jitter(&mut rng, j),
            );
            pos.push(Vec3::new(
                x / (n - 1) as f32 * 2.2 - 1.1,
                y / (n - 1) as f32 * 2.2 - 1.1,
                0.0,
            ));
        }
    }
    let mut tris = Vec::with_capacity((2 * (n - 1) * (n - 1)) as usize);
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = j * n + i;
            tris.push([a, a + 1, a + n + 1]);
            tris.push([a, a + n + 1, a + n]);
        }
    }
    assert!(tris.len() >= 1_000_000);
    let mut scene = Scene::new();
    scene.add_mesh(
        Mesh::new("sheet", pos, tris, [90, 160, 90]).unwrap(),
        Transform::IDENTITY,
        None,
    );
    let mut c = cam(256, 256);
    c.projection = Projection::Orthographic { height: 2.0 };
    let f = render(&scene, &c, RenderOptions::default()).unwrap();
    // a planar triangulation covering the frame: every pixel exactly once
    let mut count = vec![0u8; 256 * 256];
    softpick::internals::for_each_coverage(&f, |p, _| count[p] = count[p].saturating_add(1));
    assert!(count.iter().all(|&k| k == 1), "not covered exactly once");
    assert!(
        f.stats().zero_area + f.stats().empty > 100_000,
        "{:?}",
        f.stats()
    );
    // buffer and direct picks agree (sampled pixels)
    let mut rng = Rng::new(9);
    for _ in 0..1500 {
        let (x, y) = (rng.below_u32(256), rng.below_u32(256));
        let a = f
            .triangle_at(x.into(), y.into())
            .map(|t| (t, f.depth()[(y * 256 + x) as usize]));
        assert_eq!(
            a,
            softpick::internals::direct_triangle_at(&f, x.into(), y.into()),
            "({x},{y})"
        );
        let (x, y) = (i64::from(x), i64::from(y));
        assert_eq!(
            f.picks(&scene).unwrap().at(x, y),
            f.picks(&scene)
                .unwrap()
                .with(softpick::PickMethod::Direct)
                .at(x, y)
        );
    }
}

/// Every kind of vertex together, up to 1e30 px and 1e37 units away.
/// Nothing panics, invalid triangles draw nothing and the direct pick
/// equals the buffer at every pixel ([`random_trials`]). Coverage may
/// differ from the exact one only past the documented precision limits
/// (docs/conventions.md, "Precision"): every such triangle has a vertex
/// within 1e-6 of the near or the eye plane, 1e20 or more units away, or
/// 1e12 or more pixels off screen, and they are a few of the 600.
#[test]
fn extreme_random_triangles_differ_from_exact_only_at_extreme_vertices() {
    use Depth::*;
    let all = [Front, Behind, BeyondFar, AtNear, EyePlane, Huge];
    let (fails, drawn) = random_trials(6, 600, &all, &[1.0, 1e3, 1e6, 1e12, 1e30], false);
    println!(
        "{} of 600 extreme triangles differ from the exact coverage",
        fails.len()
    );
    assert!(drawn > 100, "{drawn} of 600 drew something");
    for m in &fails {
        let extreme = m
            .placed
            .iter()
            .any(|&(d, scale)| matches!(d, AtNear | EyePlane | Huge) || scale >= 1e12);
        assert!(
            extreme,
            "differs on {} pixels within the precision limits: {:?} placed {:?}",
            m.pixels, m.tri, m.placed
        );
    }
    assert!(fails.len() <= 12, "{} of 600 differ", fails.len());
}
