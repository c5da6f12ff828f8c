use super::watertight::FAR_CORNER_RATIO;
use super::*;
use crate::geometry::CullMode;
use crate::test_util::{grid, Rng};

fn hit(o: Vec3, d: Vec3, t: [Vec3; 3], cull: CullMode) -> Option<TriHit> {
    intersect(
        &RayPrecomp::new(o, d),
        t[0],
        t[1],
        t[2],
        0.0,
        f32::INFINITY,
        cull,
    )
}

/// Reference Möller–Trumbore in f64: (t, u, v) without range checks.
fn reference(o: Vec3, d: Vec3, t: [Vec3; 3]) -> Option<(f64, f64, f64)> {
    let o = o.as_dvec3();
    let d = d.as_dvec3();
    let [v0, v1, v2] = t.map(|v| v.as_dvec3());
    let e1 = v1 - v0;
    let e2 = v2 - v0;
    let pv = d.cross(e2);
    let det = e1.dot(pv);
    if det.abs() < 1e-300 {
        return None;
    }
    let inv = 1.0 / det;
    let tv = o - v0;
    let u = tv.dot(pv) * inv;
    let qv = tv.cross(e1);
    let v = d.dot(qv) * inv;
    if u < 0.0 || v < 0.0 || u + v > 1.0 {
        return None;
    }
    Some((e2.dot(qv) * inv, u, v))
}

/// Closed 16-triangle fan around `center` (slightly raised apex).
fn fan() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut pos = vec![Vec3::new(0.1, -0.05, 0.15)];
    let n = 16;
    for i in 0..n {
        let a = i as f32 / n as f32 * std::f32::consts::TAU;
        let r = 1.0 + 0.1 * ((i * 7 % 5) as f32);
        pos.push(Vec3::new(r * a.cos(), r * a.sin(), 0.05 * (i % 3) as f32));
    }
    let tris = (0..n as u32)
        .map(|i| [0, 1 + i, 1 + (i + 1) % n as u32])
        .collect();
    (pos, tris)
}

fn count_hits(pos: &[Vec3], tris: &[[u32; 3]], o: Vec3, d: Vec3) -> usize {
    let r = RayPrecomp::new(o, d);
    tris.iter()
        .filter_map(|t| {
            intersect(
                &r,
                pos[t[0] as usize],
                pos[t[1] as usize],
                pos[t[2] as usize],
                f32::NEG_INFINITY,
                f32::INFINITY,
                CullMode::None,
            )
        })
        .inspect(|h| assert!(h.t.is_finite() && h.bary.is_finite()))
        .count()
}

/// Random origin seen from above or below, at least ~20 degrees of elevation.
fn origin_around(rng: &mut Rng, center: Vec3, scale: f32) -> Vec3 {
    loop {
        let u = rng.unit();
        if u.z.abs() > 0.35 {
            return center + u * rng.range(2.0, 20.0) * scale;
        }
    }
}

#[test]
fn fan_is_watertight_at_shared_edges_and_vertex() {
    let (pos, tris) = fan();
    let mut rng = Rng(1);
    for i in 0..6000 {
        let o = origin_around(&mut rng, pos[0], 1.0);
        let target = if i % 3 == 0 {
            pos[0]
        } else {
            let k = 1 + rng.below(16);
            pos[0].lerp(pos[k], rng.range(0.0, 0.95))
        };
        let n = count_hits(&pos, &tris, o, target - o);
        assert!(n >= 1, "ray {i}: origin {o:?} target {target:?}: no hit");
    }
}

#[test]
fn grid_is_watertight_at_shared_edges_and_vertices() {
    let mut rng = Rng(2);
    let n = 12;
    let (pos, tris) = grid(n, 0.2, &mut rng);
    // Interior edges: each appears in two triangles.
    let mut edges = std::collections::HashMap::new();
    for t in &tris {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    let shared: Vec<(u32, u32)> = edges
        .into_iter()
        .filter(|&(_, c)| c == 2)
        .map(|(e, _)| e)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let interior: Vec<usize> = (0..pos.len())
        .filter(|&i| {
            let (x, y) = (i % (n + 1), i / (n + 1));
            x > 0 && y > 0 && x < n && y < n
        })
        .collect();
    let center = Vec3::new(n as f32 / 2.0, n as f32 / 2.0, 0.0);
    for i in 0..6000 {
        let o = origin_around(&mut rng, center, n as f32 / 4.0);
        let target = if i % 2 == 0 {
            pos[interior[rng.below(interior.len())]]
        } else {
            let (a, b) = shared[rng.below(shared.len())];
            pos[a as usize].lerp(pos[b as usize], rng.f32())
        };
        let hits = count_hits(&pos, &tris, o, target - o);
        assert!(hits >= 1, "ray {i}: origin {o:?} target {target:?}: no hit");
    }
}

#[test]
fn axis_aligned_edge_and_vertex_hits_use_exact_fallback() {
    // Two triangles sharing the diagonal of the unit square in z = 0.
    let q = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    let t0 = [q[0], q[1], q[2]];
    let t1 = [q[0], q[2], q[3]];
    for target in [
        Vec3::new(0.5, 0.5, 0.0),
        Vec3::new(0.25, 0.25, 0.0),
        q[0],
        q[2],
    ] {
        for o in [target + Vec3::Z, target - Vec3::new(0.0, 0.0, 3.0)] {
            let h0 = hit(o, target - o, t0, CullMode::None);
            let h1 = hit(o, target - o, t1, CullMode::None);
            assert!(h0.is_some() && h1.is_some(), "{target:?} from {o:?}");
            assert_eq!(h0.unwrap().t, 1.0);
        }
    }
    // Exact bary on the shared edge: the v2 weight is 0 for t1 on the diagonal.
    let h = hit(Vec3::new(0.5, 0.5, 1.0), -Vec3::Z, t1, CullMode::None).unwrap();
    assert_eq!(h.bary, Vec3::new(0.5, 0.5, 0.0));
    // Just outside the open edge of t0: miss.
    assert!(hit(Vec3::new(0.5, -1e-6, 1.0), -Vec3::Z, t0, CullMode::None).is_none());
}

#[test]
fn culling_modes() {
    let tri = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    // Normal (v1-v0)x(v2-v0) = +z. From above looking down: dot(dir, n) < 0 → front.
    let from_above = (Vec3::new(0.2, 0.2, 1.0), Vec3::new(0.0, 0.0, -1.0));
    let from_below = (Vec3::new(0.2, 0.2, -1.0), Vec3::new(0.0, 0.0, 1.0));
    let h = hit(from_above.0, from_above.1, tri, CullMode::None).unwrap();
    assert!(h.front);
    let h = hit(from_below.0, from_below.1, tri, CullMode::None).unwrap();
    assert!(!h.front);
    assert!(hit(from_above.0, from_above.1, tri, CullMode::Back).is_some());
    assert!(hit(from_above.0, from_above.1, tri, CullMode::Front).is_none());
    assert!(hit(from_below.0, from_below.1, tri, CullMode::Back).is_none());
    assert!(hit(from_below.0, from_below.1, tri, CullMode::Front).is_some());
}

#[test]
fn front_flag_matches_definition_for_random_rays() {
    let mut rng = Rng(3);
    let mut seen = [0usize; 2];
    for _ in 0..20000 {
        let tri = rng.tri(-1.0, 1.0);
        let o = rng.vec3(-3.0, 3.0);
        let target = tri[0] * 0.2 + tri[1] * 0.3 + tri[2] * 0.5;
        let d = (target - o) * rng.range(0.1, 10.0);
        let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
        let s = d.as_dvec3().dot(n.as_dvec3());
        if s.abs() < 1e-6 {
            continue;
        }
        let h = hit(o, d, tri, CullMode::None).expect("interior point must hit");
        assert_eq!(h.front, s < 0.0);
        seen[h.front as usize] += 1;
        let (b, f) = (
            hit(o, d, tri, CullMode::Back),
            hit(o, d, tri, CullMode::Front),
        );
        assert_eq!(b.is_some(), h.front);
        assert_eq!(f.is_some(), !h.front);
    }
    assert!(seen[0] > 1000 && seen[1] > 1000);
}

#[test]
fn agrees_with_f64_reference_and_bary_reconstructs_point() {
    let mut rng = Rng(4);
    let mut hits = 0;
    for _ in 0..50000 {
        let tri = rng.tri(-1.0, 1.0);
        let o = rng.vec3(-4.0, 4.0);
        let d = rng.vec3(-1.0, 1.0) - o;
        let got = hit(o, d, tri, CullMode::None);
        let Some((t, u, v)) = reference(o, d, tri) else {
            continue;
        };
        let margin = u.min(v).min(1.0 - u - v);
        if margin < 1e-4 {
            continue; // too close to an edge to demand agreement
        }
        if t < -1e-4 {
            assert!(got.is_none());
            continue;
        }
        if t < 1e-4 {
            continue;
        }
        let h = got.expect("reference hit missed");
        hits += 1;
        assert!(
            (h.t as f64 - t).abs() <= 1e-4 * t.max(1.0),
            "{} vs {t}",
            h.t
        );
        assert!((h.bary.y as f64 - u).abs() < 1e-4 && (h.bary.z as f64 - v).abs() < 1e-4);
        assert!((h.bary.element_sum() - 1.0).abs() < 1e-5);
        let p = tri[0] * h.bary.x + tri[1] * h.bary.y + tri[2] * h.bary.z;
        assert!((p - (o + h.t * d)).length() < 1e-4, "{p:?}");
    }
    assert!(hits > 2000, "{hits}");
}

#[test]
fn t_range_is_inclusive_and_shrinking_t_max_is_safe() {
    let mut rng = Rng(5);
    let mut n = 0;
    for _ in 0..20000 {
        let tri = rng.tri(-1.0, 1.0);
        let o = rng.vec3(-4.0, 4.0);
        let d = rng.vec3(-1.0, 1.0) - o;
        let r = RayPrecomp::new(o, d);
        let Some(h) = intersect(&r, tri[0], tri[1], tri[2], -1e30, 1e30, CullMode::None) else {
            continue;
        };
        n += 1;
        let again =
            |lo: f32, hi: f32| intersect(&r, tri[0], tri[1], tri[2], lo, hi, CullMode::None);
        assert_eq!(again(-1e30, h.t), Some(h));
        assert_eq!(again(h.t, h.t), Some(h));
        assert_eq!(again(h.t, 1e30), Some(h));
        assert_eq!(again(-1e30, h.t.next_down()), None);
        assert_eq!(again(h.t.next_up(), 1e30), None);
    }
    assert!(n > 1000);
}

#[test]
fn parallel_rays_and_degenerate_triangles_do_not_hit() {
    let tri = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    // In the plane, through the triangle.
    for d in [
        Vec3::X,
        Vec3::Y,
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(-1.0, 0.3, 0.0),
    ] {
        assert_eq!(
            hit(Vec3::new(0.2, 0.2, 0.0) - d, d, tri, CullMode::None),
            None
        );
        // Parallel, above the plane.
        assert_eq!(hit(Vec3::new(-1.0, 0.2, 0.5), d, tri, CullMode::None), None);
    }
    // Random triangles, rays within their plane.
    let mut rng = Rng(6);
    for _ in 0..2000 {
        let tri = rng.tri(-1.0, 1.0);
        let o = tri[0] * 2.0 - tri[1];
        let d = tri[1] - tri[0];
        let r = hit(o, d, tri, CullMode::None);
        assert!(r.is_none_or(|h| h.t.is_finite() && h.bary.is_finite()));
    }
    // Degenerate triangles: collinear, repeated vertex, single point.
    let o = Vec3::new(0.5, 0.0, 1.0);
    let d = -Vec3::Z;
    let line = [Vec3::ZERO, Vec3::X, Vec3::X * 2.0];
    assert_eq!(hit(o, d, line, CullMode::None), None);
    assert_eq!(
        hit(o, d, [Vec3::ZERO, Vec3::X, Vec3::X], CullMode::None),
        None
    );
    assert_eq!(hit(Vec3::Z, d, [Vec3::ZERO; 3], CullMode::None), None);
}

#[test]
fn invalid_inputs_do_not_hit() {
    let tri = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    let o = Vec3::new(0.2, 0.2, 1.0);
    assert_eq!(hit(o, Vec3::ZERO, tri, CullMode::None), None);
    assert_eq!(
        hit(o, Vec3::new(0.0, 0.0, f32::NAN), tri, CullMode::None),
        None
    );
    assert_eq!(
        hit(Vec3::splat(f32::NAN), -Vec3::Z, tri, CullMode::None),
        None
    );
    assert!(!RayPrecomp::new(o, Vec3::ZERO).is_valid());
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        for k in 0..3 {
            let mut t = tri;
            t[k].x = bad;
            let r = hit(o, -Vec3::Z, t, CullMode::None);
            assert!(r.is_none_or(|h| h.t.is_finite() && h.bary.is_finite()));
        }
    }
}

#[test]
fn ray_starting_on_the_surface() {
    let tri = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    let o = Vec3::new(0.25, 0.25, 0.0);
    for d in [Vec3::Z, -Vec3::Z, Vec3::new(0.3, -0.2, 1.0)] {
        let h = hit(o, d, tri, CullMode::None).unwrap();
        assert_eq!(h.t, 0.0);
        // An epsilon t_min skips the surface the ray starts on.
        let r = RayPrecomp::new(o, d);
        assert!(intersect(&r, tri[0], tri[1], tri[2], 1e-4, 10.0, CullMode::None).is_none());
    }
    // Generic triangles: the origin lies on the surface up to rounding.
    let mut rng = Rng(7);
    for _ in 0..2000 {
        let tri = rng.tri(-1.0, 1.0);
        let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
        let o = tri[0] * 0.3 + tri[1] * 0.3 + tri[2] * 0.4;
        let d = rng.unit();
        if d.dot(n).abs() < 0.1 * n.length() {
            continue;
        }
        let r = RayPrecomp::new(o, d);
        let h = intersect(&r, tri[0], tri[1], tri[2], -1e-3, 1e-3, CullMode::None)
            .expect("origin on the surface must hit near t = 0");
        assert!(h.t.abs() < 1e-5, "{}", h.t);
        assert!(intersect(&r, tri[0], tri[1], tri[2], 1e-3, 10.0, CullMode::None).is_none());
    }
}

#[test]
fn huge_and_tiny_scales() {
    let mut rng = Rng(8);
    for scale in [1e6f32, 1e-6, 1e18, 1e-18, 1e-21] {
        let mut n = 0;
        for _ in 0..5000 {
            let tri = rng.tri(-1.0, 1.0);
            let o = rng.vec3(-4.0, 4.0);
            let b = [
                rng.range(0.05, 1.0),
                rng.range(0.05, 1.0),
                rng.range(0.05, 1.0),
            ];
            let s = b[0] + b[1] + b[2];
            let target = (tri[0] * b[0] + tri[1] * b[1] + tri[2] * b[2]) / s;
            let d = target - o;
            let normal = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
            if d.normalize().dot(normal.normalize()).abs() < 0.2 {
                continue; // grazing: t is ill-conditioned
            }
            let unit = hit(o, d, tri, CullMode::None).expect("interior target");
            let big = [tri[0] * scale, tri[1] * scale, tri[2] * scale];
            let scaled = hit(o * scale, d * scale, big, CullMode::None).expect("scaled");
            assert!(
                (scaled.t - unit.t).abs() < 1e-4,
                "{scale}: {} vs {}",
                scaled.t,
                unit.t
            );
            assert!((scaled.bary - unit.bary).abs().max_element() < 1e-4);
            assert_eq!(scaled.front, unit.front);
            assert!((unit.t - 1.0).abs() < 1e-4);
            n += 1;
        }
        assert!(n > 2000, "{n}");
    }
    // Far from the origin: ray through a small triangle at 1e6.
    let c = Vec3::splat(1e6);
    let tri = [c, c + Vec3::X, c + Vec3::Y];
    let h = hit(
        c + Vec3::new(0.25, 0.25, 10.0),
        -Vec3::Z,
        tri,
        CullMode::None,
    )
    .unwrap();
    assert_eq!(h.t, 10.0);
}

/// A sliver from two corners a unit apart to one 10^30 units away
/// (found by the fuzzer, listed five times), hit at a few units: in
/// every rotation of its corners the hit lies on its plane
/// (x − y − z = 1 to within 10^-29) at the same `t`. With the plane
/// taken at the far corner, f64 rounded the near corners away and
/// `t` came out 0.
#[test]
fn slivers_to_a_far_corner_are_hit_on_their_plane() {
    let tri = [
        Vec3::new(1e30, 1.0, 1e30),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(2.0, 1.0, 0.0),
    ];
    let o = Vec3::new(0.006_725_961, 0.344_693_18, 3.793_276);
    let d = Vec3::new(0.361_978_1, -0.092_403_99, -0.927_595_5);
    let mut ts = Vec::new();
    for r in 0..3 {
        let t = [tri[r], tri[(r + 1) % 3], tri[(r + 2) % 3]];
        let h = hit(o, d, t, CullMode::None).expect("crosses it");
        let q = (o + d * h.t).as_dvec3();
        assert!((q.x - q.y - q.z - 1.0).abs() < 1e-5, "rotation {r}: {h:?}");
        ts.push(h.t);
    }
    assert!(ts.iter().all(|&t| (t - ts[0]).abs() < 1e-6), "{ts:?}");
}

/// A point on triangle `tri` (weights at least 0.05 each).
fn inner_point(rng: &mut Rng, tri: [Vec3; 3]) -> Vec3 {
    let b = [
        rng.range(0.05, 1.0),
        rng.range(0.05, 1.0),
        rng.range(0.05, 1.0),
    ];
    (tri[0] * b[0] + tri[1] * b[1] + tri[2] * b[2]) / (b[0] + b[1] + b[2])
}

#[test]
fn far_corners_are_refined_in_double_precision() {
    // Triangles 10^2 to 10^9 times wider than the ray's distance to
    // them, hit well inside: `t` within 2^-18 of itself (single
    // precision alone lost the origin against the far corners).
    let mut rng = Rng(0xfa7);
    let mut checked = 0;
    for scale in [1e2f32, 1e4, 1e6, 1e9] {
        for _ in 0..2000 {
            let unit = rng.tri(-1.0, 1.0);
            let n = (unit[1] - unit[0]).cross(unit[2] - unit[0]);
            if n.length() < 0.3 {
                continue; // thin: its inner points lie close to an edge
            }
            // corners far around a point near the world's origin, and
            // that point moved onto the plane of the corners as rounded
            let near = rng.vec3(-2.0, 2.0);
            let inner = inner_point(&mut rng, unit);
            let tri = unit.map(|v| near + (v - inner) * scale);
            let [a, b, c] = tri.map(Vec3::as_dvec3);
            let normal = (b - a).cross(c - a).normalize();
            let p = near.as_dvec3();
            let target = (p - normal * (p - a).dot(normal)).as_vec3();
            let o = target + rng.unit() * rng.range(0.5, 5.0);
            let d = (target - o) * rng.range(0.3, 3.0);
            if d.normalize().dot(n.normalize()).abs() < 0.2 {
                continue; // grazing: t is ill-conditioned
            }
            let ray = RayPrecomp::new(o, d);
            let h = intersect(
                &ray,
                tri[0],
                tri[1],
                tri[2],
                0.0,
                f32::INFINITY,
                CullMode::None,
            )
            .unwrap_or_else(|| panic!("{scale}: missed {tri:?} from {o} along {d}"));
            let (want, ..) = reference(o, d, tri).expect("the f64 reference hits");
            assert!(
                (f64::from(h.t) - want).abs() < want / 262_144.0,
                "{scale}: t {} against {want}",
                h.t
            );
            assert!(h.bary.min_element() >= 0.0);
            assert!((h.bary.element_sum() - 1.0).abs() < 1e-6);
            // the four-wide test gives the same
            let pk = TriPack::new(&[(7, tri)]);
            let got = Pack4Ray::new(&ray).first(&ray, &pk, 0.0, f32::INFINITY, CullMode::None);
            assert_eq!(got, Some((7, h)));
            checked += 1;
        }
    }
    assert!(checked > 4000, "{checked}");
    // A mesh seen from outside its bounds is never refined: a ray from
    // beyond a few times a unit triangle's size.
    for _ in 0..2000 {
        let tri = rng.tri(-1.0, 1.0);
        let o = rng.unit() * rng.range(4.0, 10.0);
        let d = inner_point(&mut rng, tri) - o;
        let r = RayPrecomp::new(o, d);
        let kz = r.axes()[2];
        let reach = tri
            .iter()
            .map(|v| ((*v - o)[kz] * r.shear().z).abs())
            .fold(0.0, f32::max);
        // t of the hit is 1 here, so `far_corners` asks whether the
        // corners lie 16 times farther than the hit along the ray
        assert!(reach < FAR_CORNER_RATIO * 0.5, "{reach}");
    }
}

#[test]
fn four_wide_test_equals_intersect_per_triangle() {
    // grids (rays through shared edges and vertices), soups, ranges, culling
    let mut rng = Rng(0x4a11);
    let (gp, gt) = grid(4, 0.4, &mut rng);
    let mut checked = 0;
    for round in 0..4000 {
        let n = 1 + round % 4;
        let tris: Vec<(u32, [Vec3; 3])> = (0..n)
            .map(|k| {
                let id = rng.below(1000) as u32;
                if round % 2 == 0 {
                    let t = gt[rng.below(gt.len())];
                    (id, t.map(|v| gp[v as usize]))
                } else if round % 7 == 1 {
                    // corners far beyond the hits: refined in f64
                    let c = rng.vec3(-2.0, 2.0);
                    let s = [1e3, 1e5, 1e8][round % 3];
                    let mut far = || c + rng.vec3(-s, s);
                    (id + k as u32, [far(), far(), far()])
                } else {
                    let c = rng.vec3(-2.0, 2.0);
                    (
                        id + k as u32,
                        [c, c + rng.vec3(-1.0, 1.0), c + rng.vec3(-1.0, 1.0)],
                    )
                }
            })
            .collect();
        let pk = TriPack::new(&tris);
        // aim at a vertex, an edge point or anywhere
        let (_, t0) = tris[rng.below(n)];
        let target = match round % 3 {
            0 => t0[rng.below(3)],
            1 => t0[0].lerp(t0[1], 0.5),
            _ => rng.vec3(-2.0, 4.0),
        };
        let o = target + rng.unit() * rng.range(1.0, 10.0);
        let ray = RayPrecomp::new(o, (target - o) * rng.range(0.3, 2.0));
        let (t_min, t_max) = if round % 5 == 0 {
            (rng.range(0.0, 0.8), rng.range(0.8, 2.0))
        } else {
            (0.0, f32::INFINITY)
        };
        let cull = [CullMode::None, CullMode::Back, CullMode::Front][round % 3];
        let mut expect: Option<(u32, TriHit)> = None;
        for (id, [a, b, c]) in &tris {
            if let Some(h) = intersect(&ray, *a, *b, *c, t_min, t_max, cull) {
                if expect.is_none_or(|(bid, bh)| h.t < bh.t || (h.t == bh.t && *id < bid)) {
                    expect = Some((*id, h));
                }
            }
        }
        let got = Pack4Ray::new(&ray).first(&ray, &pk, t_min, t_max, cull);
        assert_eq!(got, expect, "round {round}");
        checked += usize::from(got.is_some());
    }
    assert!(checked > 1000, "{checked}");
}

/// The branch-free precomputation equals the per-permutation one bit for
/// bit: every permutation and sign, ties between axes, zero, negative
/// zero, subnormal, huge, infinite and NaN components.
#[test]
fn precomp_without_branches_equals_the_per_permutation_one() {
    // (every NaN as one: Rust leaves the sign and payload of a NaN that
    // arithmetic makes unspecified, and an invalid ray's NaN only has to
    // be a NaN)
    let canon = |x: f32| {
        if x.is_nan() {
            f32::NAN.to_bits()
        } else {
            x.to_bits()
        }
    };
    let bits = |p: &RayPrecomp| {
        let v = |v: Vec3| v.to_array().map(canon);
        let a = |v: Vec3A| v.to_array().map(canon);
        (
            v(p.origin),
            v(p.dir),
            v(p.inv_dir),
            p.axes,
            v(p.shear),
            p.rows.map(a),
            p.valid,
        )
    };
    let special = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -2.5,
        1e-40,
        -1e-40,
        3e38,
        -3e38,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let o = Vec3::new(0.5, -1.0, 2.0);
    for &x in &special {
        for &y in &special {
            for &z in &special {
                let d = Vec3::new(x, y, z);
                let (a, b) = (RayPrecomp::new(o, d), RayPrecomp::by_permutation(o, d));
                assert_eq!(bits(&a), bits(&b), "{d:?}");
            }
        }
    }
    let mut rng = Rng::new(77);
    for _ in 0..20_000 {
        let d = rng.vec3(-2.0, 2.0);
        let o = rng.vec3(-5.0, 5.0);
        assert_eq!(
            bits(&RayPrecomp::new(o, d)),
            bits(&RayPrecomp::by_permutation(o, d))
        );
        let nan = Vec3::new(f32::NAN, 1.0, 1.0);
        assert_eq!(
            bits(&RayPrecomp::new(nan, d)),
            bits(&RayPrecomp::by_permutation(nan, d))
        );
    }
}

/// A hit with every bit of it (`TriHit`'s `==` takes `-0.0` for `0.0`).
fn hit_bits(h: Option<(u32, TriHit)>) -> Option<(u32, u32, [u32; 3], bool)> {
    h.map(|(id, h)| {
        (
            id,
            h.t.to_bits(),
            h.bary.to_array().map(f32::to_bits),
            h.front,
        )
    })
}

/// The eight-lane test of two packs equals the four-lane test of each, bit
/// for bit, on every lane implementation (the portable lanes, SSE's and,
/// on a CPU with it, AVX2's): grids (rays through shared edges and
/// vertices), soups, corners far beyond the hits, corners 10^31 and 10^38
/// away (overflow), ranges and culling, one pack or two.
#[test]
fn eight_lane_test_equals_the_four_lane_test_per_pack() {
    use crate::cpu::{Lanes8, Scalar};
    fn eight<L: Lanes8>(
        l: L,
        ray: &RayPrecomp,
        (lo, hi, used): (&TriPack, &TriPack, u32),
        (t_min, t_max, cull): (f32, f32, CullMode),
    ) -> Option<(u32, TriHit)> {
        Pack8Ray::new(l, ray).first(ray, lo, hi, used, t_min, t_max, cull)
    }
    let mut rng = Rng(0x8a11);
    let (gp, gt) = grid(4, 0.4, &mut rng);
    let mut checked = 0;
    for round in 0..6000 {
        let n = 1 + round % 8;
        let tris: Vec<(u32, [Vec3; 3])> = (0..n)
            .map(|k| {
                let id = 10 * k as u32 + rng.below(10) as u32;
                let c = rng.vec3(-2.0, 2.0);
                let corners = match round % 6 {
                    0 | 1 => gt[rng.below(gt.len())].map(|v| gp[v as usize]),
                    2 => {
                        let s = [1e3, 1e5, 1e8][round % 3];
                        let mut far = || c + rng.vec3(-s, s);
                        [far(), far(), far()]
                    }
                    3 => {
                        let s = [1e31, 3e38][round % 2];
                        [c, c + rng.vec3(-s, s), c * 1e-19]
                    }
                    _ => [c, c + rng.vec3(-1.0, 1.0), c + rng.vec3(-1.0, 1.0)],
                };
                (id, corners)
            })
            .collect();
        let lo = TriPack::new(&tris[..n.min(4)]);
        let hi = if n > 4 { TriPack::new(&tris[4..]) } else { lo };
        let used = if n > 4 {
            lo.used | hi.used << 4
        } else {
            lo.used
        };
        let (_, t0) = tris[rng.below(n)];
        let target = match round % 3 {
            0 => t0[rng.below(3)],
            1 => t0[0].lerp(t0[1], 0.5),
            _ => rng.vec3(-2.0, 4.0),
        };
        let o = target + rng.unit() * rng.range(1.0, 10.0);
        let ray = RayPrecomp::new(o, (target - o) * rng.range(0.3, 2.0));
        let (t_min, t_max) = if round % 5 == 0 {
            (rng.range(0.0, 0.8), rng.range(0.8, 2.0))
        } else {
            (0.0, f32::INFINITY)
        };
        let cull = [CullMode::None, CullMode::Back, CullMode::Front][round % 3];
        let four = Pack4Ray::new(&ray);
        let mut expect = four.first(&ray, &lo, t_min, t_max, cull);
        if n > 4 {
            if let Some((id, h)) = four.first(&ray, &hi, t_min, t_max, cull) {
                if precedes(id, h.t, expect.map(|(bid, bh)| (bid, bh.t))) {
                    expect = Some((id, h));
                }
            }
        }
        let want = hit_bits(expect);
        let (packs, range) = ((&lo, &hi, used), (t_min, t_max, cull));
        assert_eq!(hit_bits(eight(Scalar, &ray, packs, range)), want, "{round}");
        #[cfg(target_arch = "x86_64")]
        {
            let sse = crate::cpu::Sse;
            assert_eq!(hit_bits(eight(sse, &ray, packs, range)), want, "{round}");
            if let Some(avx2) = crate::cpu::Avx2::detect() {
                assert_eq!(hit_bits(eight(avx2, &ray, packs, range)), want, "{round}");
            }
        }
        checked += usize::from(want.is_some());
    }
    assert!(checked > 1000, "{checked}");
    // (straight to stderr: the harness keeps a passing test's eprintln!)
    use std::io::Write;
    let avx2 = crate::cpu::Avx2::detect().is_some();
    let _ = writeln!(
        std::io::stderr(),
        "eight_lane_test_equals_the_four_lane_test_per_pack: portable lanes ran; AVX2 lanes {}",
        if avx2 {
            "ran"
        } else {
            "not run (no AVX2 here)"
        }
    );
}
