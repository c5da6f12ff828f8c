//! The ray queries' unit tests: the top-level walk, the flat walk and the
//! four- and eight-ray walks against the one-ray and brute-force answers.

use glam::{Quat, Vec3};

use super::*;
use crate::camera::Camera;
use crate::geometry::{ClipPlanes, CullMode};
use crate::scene::Transform;
use crate::test_util::Rng;

/// A random multi-mesh scene: triangle soups and jittered grids with
/// random rotations, translations and (some mirrored) scales, plus an
/// exact duplicate of one mesh (equal-distance ties between meshes).
fn scene(rng: &mut Rng, meshes: usize) -> Scene {
    scene_placed(rng, meshes, false)
}

/// A batch hit `g` of [`RayCaster::first_hits`] is the full query's hit
/// `w` of the same ray (whose direction is `len` long): the same triangle,
/// barycentrics, facing and distance, and the same normal bit for bit
/// (the flat walk takes it from the leaf's corners, not the mesh's
/// arrays).
fn assert_batch_hit_is_full(caster: &RayCaster<'_>, g: &RayHit, w: &Hit, len: f32, at: &str) {
    assert_eq!((g.mesh, g.triangle), (w.mesh, w.triangle), "{at}");
    assert_eq!(g.global_triangle, w.global_triangle, "{at}");
    assert_eq!(g.barycentric, w.barycentric, "{at}");
    assert_eq!(g.front_face, w.front_face, "{at}");
    assert_eq!(g.t * len, w.distance, "{at}");
    let bits = |v: Vec3| v.to_array().map(f32::to_bits);
    assert_eq!(bits(caster.hit_normal(g)), bits(w.normal), "{at}");
}

/// [`scene`], with every mesh placed by the identity when `identity`
/// (the scenes whose picks walk the flat BVH).
fn scene_placed(rng: &mut Rng, meshes: usize, identity: bool) -> Scene {
    let mut s = Scene::new();
    for i in 0..meshes {
        let mut p = Vec::new();
        let mut t = Vec::new();
        if rng.below(2) == 0 {
            for k in 0..rng.below(40) + 1 {
                for _ in 0..3 {
                    p.push(rng.vec3(-1.0, 1.0));
                }
                let b = 3 * k as u32;
                t.push([b, b + 1, b + 2]);
            }
        } else {
            let (gp, gt) = crate::test_util::grid(6, 0.3, rng);
            p = gp
                .iter()
                .map(|v| *v / 6.0 - Vec3::new(0.5, 0.5, 0.0))
                .collect();
            t = gt;
        }
        let mut scale = rng.vec3(0.3, 2.5);
        if rng.below(4) == 0 {
            scale.x = -scale.x;
        }
        let tr = if identity || rng.below(3) == 0 {
            // placed with the identity: these share one local ray
            let off = rng.vec3(-8.0, 8.0);
            p.iter_mut().for_each(|v| *v += off);
            Transform::IDENTITY
        } else {
            Transform {
                translation: rng.vec3(-8.0, 8.0),
                rotation: Quat::from_axis_angle(rng.unit(), rng.range(0.0, 6.3)),
                scale,
            }
        };
        let dup = i > 0 && rng.below(6) == 0;
        let mesh = Mesh::new(format!("m{i}"), p, t, [1, 2, 3]).unwrap();
        if dup {
            let prev = s.meshes().len() as MeshId - 1;
            let m = s.meshes()[prev as usize].clone();
            let node = s.mesh_node(prev).unwrap();
            let tr = s.local(node).unwrap();
            s.add_mesh(m, tr, None);
        } else {
            s.add_mesh(mesh, tr, None);
        }
    }
    s
}

/// A world point near a random vertex of a random mesh of `s` (the vertex
/// scaled by 0.9 in its mesh's space): rays aimed there mostly hit.
fn near_a_vertex(rng: &mut Rng, s: &Scene) -> Vec3 {
    let m = rng.below(s.meshes().len());
    let p = s.meshes()[m].positions();
    s.mesh_world(m as MeshId)
        .transform_point3(p[rng.below(p.len())] * 0.9)
}

fn key(h: &Hit) -> (MeshId, u32, u32, u32) {
    (
        h.mesh,
        h.triangle,
        h.distance.to_bits(),
        h.position.x.to_bits(),
    )
}

#[test]
fn top_level_first_and_all_equal_a_loop_over_every_mesh() {
    let mut rng = Rng(0x5eed_f70b);
    let mut hits = 0;
    for round in 0..12 {
        let s = scene(&mut rng, [1, 2, 5, 30, 120][round % 5]);
        let caster = RayCaster::new(&s);
        for k in 0..400 {
            let origin = rng.vec3(-14.0, 14.0);
            // half the rays aim at a random vertex of a random mesh
            let target = if k % 2 == 0 {
                let m = rng.below(s.meshes().len());
                let p = s.meshes()[m].positions();
                s.mesh_world(m as MeshId)
                    .transform_point3(p[rng.below(p.len())] * 0.9)
            } else {
                rng.vec3(-9.0, 9.0)
            };
            let mut dir = target - origin;
            if k % 7 == 0 {
                dir.y = 0.0; // a zero direction component
            }
            let ray = Ray::new(origin, dir * rng.range(0.2, 3.0));
            let opts = RayOptions {
                near: if k % 3 == 0 {
                    rng.range(0.0, 10.0)
                } else {
                    0.0
                },
                far: if k % 4 == 0 {
                    rng.range(5.0, 30.0)
                } else {
                    f32::INFINITY
                },
                cull: [CullMode::None, CullMode::Back, CullMode::Front][k % 3],
                filter: None,
                clip: None,
            };
            let a = caster.first(&ray, &opts);
            let b = caster.first_brute(&ray, &opts);
            assert_eq!(
                a.as_ref().map(key),
                b.as_ref().map(key),
                "round {round} ray {k}"
            );
            hits += usize::from(a.is_some());
            let all: Vec<_> = caster.all(&ray, &opts).iter().map(key).collect();
            let brute: Vec<_> = caster.all_in(&ray, &opts, true).iter().map(key).collect();
            assert_eq!(all, brute, "round {round} ray {k}");
        }
    }
    assert!(hits > 1000, "{hits} hits: the rays must mostly hit");
}

/// Rows and blocks of rows of ray picks (four or eight neighbouring
/// pixels per walk of the BVHs, in a row or 4×2) give exactly the
/// single picks, on random multi-mesh scenes (rotated, mirrored,
/// duplicated meshes) from random eyes, every cull mode, rows starting
/// anywhere and of any length; and the ones run (the AVX2 build of
/// `simd` where the CPU has it) equal the baseline build's.
#[test]
fn ray_rows_and_blocks_equal_single_ray_picks() {
    let mut rng = Rng(0x4a11_0000_0000_0044);
    let mut hits = 0;
    for round in 0..16 {
        // (rounds 10 and on: every mesh at the identity, so the rows
        // walk the flat BVH, eight rays at a time in the AVX2 build)
        let s = scene_placed(&mut rng, [1, 2, 5, 30, 120][round % 5], round >= 10);
        let mut cam = Camera::auto_frame(&s.framing_bounds(), 80, 56);
        cam.eye = cam.target + rng.unit() * rng.range(8.0, 30.0);
        if round % 4 == 3 {
            cam.projection = crate::camera::Projection::Orthographic { height: 20.0 };
        }
        let cull = [CullMode::None, CullMode::Back, CullMode::Front][round % 3];
        let mut r = crate::frame::render::Renderer::new(crate::frame::render::RenderOptions {
            cull,
            ..Default::default()
        })
        .unwrap();
        let f = r.render(&s, &cam).unwrap();
        let picks = f.picks(&s).unwrap();
        // blocks of rows (4×2-pixel walks in the AVX2 build): the whole
        // frame, odd row counts, widths not a multiple of four, and
        // blocks running over the frame's right and bottom edges
        for (x0, y0, width, rows) in [
            (0u32, 0u32, 80usize, 56usize),
            (1, 3, 79, 5),
            (37, 10, 6, 3),
            (74, 50, 9, 7),
            (78, 20, 3, 2),
            (2, 55, 11, 2),
        ] {
            let mut block = vec![None; width * rows];
            picks.with(crate::pick::PickMethod::Ray).block(
                i64::from(x0),
                i64::from(y0),
                width,
                &mut block,
            );
            let mut base = vec![None; width * rows];
            f.ray_block(&s, (x0, y0, width), &mut base, None);
            assert_eq!(block, base, "round {round} block at ({x0},{y0})");
            for (k, got) in block.iter().enumerate() {
                let x = i64::from(x0) + (k % width) as i64;
                let y = i64::from(y0) + (k / width) as i64;
                let want = picks.with(crate::pick::PickMethod::Ray).id_at(x, y);
                assert_eq!(*got, want, "round {round} block ({x},{y})");
                hits += usize::from(want.is_some());
            }
        }
        for y in (0..56).step_by(3) {
            for (x0, len) in [(0u32, 80usize), (1, 79), (37, 6), (74, 9), (78, 3)] {
                let mut row = vec![None; len];
                picks.with(crate::pick::PickMethod::Ray).span(
                    i64::from(x0),
                    i64::from(y),
                    &mut row,
                );
                // the baseline build of the row equals the one run
                // (the AVX2 build where the CPU has it)
                let mut base = vec![None; len];
                f.ray_block(&s, (x0, y, len), &mut base, None);
                assert_eq!(row, base, "round {round} row {y} from {x0}");
                for (k, got) in row.iter().enumerate() {
                    let x = i64::from(x0) + k as i64;
                    let want = picks
                        .with(crate::pick::PickMethod::Ray)
                        .id_at(x, i64::from(y));
                    assert_eq!(*got, want, "round {round} ({x},{y})");
                    hits += usize::from(want.is_some());
                }
            }
        }
    }
    assert!(hits > 8000, "{hits} hits: the rays must mostly hit");
}

#[test]
fn flat_walk_equals_the_two_levels() {
    // Every mesh at the identity: a query walks the scene's one BVH; with
    // a filter that passes every mesh, the two levels (top level, then
    // each mesh's BVH). Both, and the brute-force loop, agree on every
    // ray, duplicated meshes (equal-distance ties) included.
    let mut rng = Rng(0xf1a7_0000_0000_0008);
    let all = |_: MeshId| true;
    let mut hits = 0;
    for round in 0..8 {
        let s = scene_placed(&mut rng, [2, 7, 40, 150][round % 4], true);
        let caster = RayCaster::new(&s);
        for i in 0..400 {
            let cull = [CullMode::None, CullMode::Back, CullMode::Front][i % 3];
            // (aimed at the meshes' region, so that most rays hit)
            let o = rng.vec3(-14.0, 14.0);
            let ray = Ray::new(o, (rng.vec3(-8.0, 8.0) - o).normalize());
            let near = rng.range(0.0, 3.0);
            let flat = RayOptions {
                cull,
                near,
                ..RayOptions::default()
            };
            let two = RayOptions {
                filter: Some(&all),
                ..flat
            };
            // (`key`: the hits' `depth` is NaN, which `==` rejects)
            let got = caster.first(&ray, &flat);
            let got = got.as_ref().map(key);
            let two = caster.first(&ray, &two);
            assert_eq!(got, two.as_ref().map(key), "round {round} ray {i}");
            let brute = caster.first_brute(&ray, &flat);
            assert_eq!(got, brute.as_ref().map(key), "round {round} ray {i}");
            hits += usize::from(got.is_some());
        }
    }
    assert!(hits > 300, "{hits} hits");
}

/// Every hit, three ways, equal bit for bit: [`RayCaster::all`] (on
/// scenes placed by the identity it walks the flat BVH), the same with a
/// filter that passes every mesh (the two levels), the brute-force loop
/// over every mesh, and the compact [`RayCaster::all_hits_into`] (each
/// record the full hit's, its normal from [`RayCaster::hit_normal`]); on
/// placed scenes too, with every cull mode, distance ranges, clip planes
/// of every mesh and directions scaled from 2^-100 to past where their
/// length overflows (no hits then).
#[test]
fn every_hit_flat_two_level_brute_and_compact_agree() {
    let mut rng = Rng(0xa11_0000_0000_0046);
    let pass = |_: MeshId| true;
    let clip = ClipPlanes::new(&[[0.3, -1.0, 0.2, 1.5]]).unwrap();
    let full = |h: &Hit| {
        let b = h.barycentric.to_array().map(f32::to_bits);
        let n = h.normal.to_array().map(f32::to_bits);
        (h.mesh, h.triangle, h.distance.to_bits(), b, n, h.front_face)
    };
    let keys = |v: &[Hit]| v.iter().map(full).collect::<Vec<_>>();
    let (mut hits, mut multi, mut flat_scenes) = (0, 0, 0);
    let mut compact = Vec::new();
    for round in 0..10 {
        let identity = round % 5 != 4;
        let s = scene_placed(&mut rng, [1, 3, 12, 60, 8][round % 5], identity);
        let caster = RayCaster::new(&s);
        flat_scenes +=
            usize::from(flat_bvh_for(&s, caster.transforms, &RayOptions::default()).is_some());
        for k in 0..300 {
            let origin = rng.vec3(-14.0, 14.0);
            let target = near_a_vertex(&mut rng, &s);
            let scale = [1.0, 2f32.powi(-100), 2f32.powi(70), f32::MAX * 0.5][k % 4];
            let ray = Ray::new(origin, (target - origin) * scale);
            let len = ray.direction_length();
            let opts = RayOptions {
                near: if k % 5 == 1 { rng.range(0.0, 8.0) } else { 0.0 },
                far: if k % 7 == 2 {
                    rng.range(4.0, 30.0)
                } else {
                    f32::INFINITY
                },
                cull: [CullMode::None, CullMode::Back, CullMode::Front][k % 3],
                filter: None,
                clip: (k % 6 == 5).then_some(&clip),
            };
            let at = format!("round {round} ray {k}");
            let all = caster.all(&ray, &opts);
            let two = caster.all(
                &ray,
                &RayOptions {
                    filter: Some(&pass),
                    ..opts
                },
            );
            let brute = caster.all_in(&ray, &opts, true);
            assert_eq!(keys(&all), keys(&two), "{at}: flat and two levels");
            assert_eq!(keys(&all), keys(&brute), "{at}: brute force");
            caster.all_hits_into(&ray, &opts, &mut compact);
            assert_eq!(compact.len(), all.len(), "{at}: compact");
            for (g, w) in compact.iter().zip(&all) {
                assert_batch_hit_is_full(&caster, g, w, len, &at);
            }
            hits += all.len();
            multi += usize::from(all.len() > 1);
        }
    }
    assert!(flat_scenes >= 8, "{flat_scenes} scenes walk the flat BVH");
    assert!(
        hits > 1000 && multi > 200,
        "{hits} hits, {multi} rays with several"
    );
}

#[test]
fn filter_applies_through_the_top_level() {
    let mut rng = Rng(99);
    let s = scene(&mut rng, 40);
    let caster = RayCaster::new(&s);
    let odd = |m: MeshId| m % 2 == 1;
    for _ in 0..300 {
        let ray = Ray::new(rng.vec3(-14.0, 14.0), rng.unit());
        let opts = RayOptions {
            filter: Some(&odd),
            ..RayOptions::default()
        };
        let a = caster.first(&ray, &opts);
        assert_eq!(
            a.as_ref().map(key),
            caster.first_brute(&ray, &opts).as_ref().map(key)
        );
        assert!(a.is_none_or(|h| h.mesh % 2 == 1));
    }
}

/// The compact batch answers what full first hits answer, ray for ray:
/// the same triangle, ray parameter, barycentrics, facing and normal (bit
/// for bit), and `face_normal` the hit's normal; on placed, mirrored and duplicated
/// meshes and on identity-placed scenes (the flat walk), every cull mode,
/// with and without a mesh filter and a distance range, and rays that are
/// invalid (zero direction, non-finite origin) answering `None` in place.
#[test]
fn first_hits_equal_full_first_hits() {
    let mut rng = Rng(0xba7c_4175);
    let mut hits = 0;
    for round in 0..10 {
        let s = scene_placed(&mut rng, [1, 3, 8, 40, 90][round % 5], round % 2 == 1);
        let caster = RayCaster::new(&s);
        let odd = |m: MeshId| m % 2 == 1;
        let rays: Vec<Ray> = (0..300)
            .map(|k| {
                let origin = rng.vec3(-14.0, 14.0);
                let dir = rng.vec3(-9.0, 9.0) - origin;
                match k % 50 {
                    0 => Ray::new(origin, Vec3::ZERO),
                    1 => Ray::new(Vec3::new(f32::NAN, 0.0, 0.0), dir),
                    _ => Ray::new(origin, dir * rng.range(0.2, 3.0)),
                }
            })
            .collect();
        for (c, cull) in [CullMode::None, CullMode::Back, CullMode::Front]
            .into_iter()
            .enumerate()
        {
            let opts = RayOptions {
                near: if c == 1 { 2.0 } else { 0.0 },
                far: if c == 2 { 18.0 } else { f32::INFINITY },
                cull,
                filter: (round % 3 == 2).then_some(&odd as _),
                clip: None,
            };
            let batch: Vec<_> = caster.first_hits(rays.iter().copied(), &opts).collect();
            assert_eq!(batch.len(), rays.len());
            for (k, (ray, got)) in rays.iter().zip(&batch).enumerate() {
                let want = caster.first(ray, &opts);
                let at = format!("round {round} cull {c} ray {k}");
                match (want, got) {
                    (None, None) => {}
                    (Some(w), Some(g)) => {
                        hits += 1;
                        assert_batch_hit_is_full(&caster, g, &w, ray.direction_length(), &at);
                        assert_eq!(ray.at(g.t), w.position, "{at}");
                        assert_eq!(caster.face_normal(g.mesh, g.triangle), w.normal, "{at}");
                    }
                    (w, g) => panic!("{at}: full {:?}, batch {g:?}", w.map(|h| h.triangle)),
                }
            }
        }
    }
    assert!(hits > 500, "{hits} hits: the rays must often hit");
    let s = scene(&mut rng, 2);
    let caster = RayCaster::new(&s);
    assert_eq!(caster.face_normal(99, 0), Vec3::ZERO);
    assert_eq!(caster.face_normal(0, u32::MAX), Vec3::ZERO);
}

/// The batch hit's normal on the flat walk (from the leaf's corners, at
/// the identity without the matrix) is the full hit's bit for bit where a
/// corner coordinate is `-0`: the identity placement makes it `+0`, and
/// here that turns the normal's x from `-0` (the raw corners' normal) to
/// `+0`.
#[test]
fn hit_normal_places_negative_zero_corners_as_the_identity() {
    let p = vec![Vec3::ZERO, Vec3::ONE, Vec3::new(1.0, 0.0, -0.0)];
    let raw = crate::pick::face_normal([p[0], p[1], p[2]]);
    assert_eq!(
        raw.x.to_bits(),
        (-0.0f32).to_bits(),
        "the raw corners' normal"
    );
    let mut s = Scene::new();
    s.add_mesh(
        Mesh::new("m", p, vec![[0, 1, 2]], [1, 2, 3]).unwrap(),
        Transform::IDENTITY,
        None,
    );
    let caster = RayCaster::new(&s);
    let ray = Ray::new(Vec3::new(0.9, 0.5, -5.0), Vec3::new(0.0, 0.0, 1.0));
    let opts = RayOptions::default();
    let full = caster
        .first(&ray, &opts)
        .expect("the ray hits the triangle");
    let hit = caster
        .first_hits([ray], &opts)
        .next()
        .flatten()
        .expect("a batch hit");
    let bits = |v: Vec3| v.to_array().map(f32::to_bits);
    assert_eq!(bits(caster.hit_normal(&hit)), bits(full.normal));
    assert_eq!(full.normal.x.to_bits(), 0.0f32.to_bits());
}

/// A ray's direction may have any finite, non-zero length: scaled by a
/// power of two (2^±70 and 2^±100, where squaring the coordinates in
/// `f32` overflows or underflows), the same triangles are hit at the same
/// barycentrics (the walks' arithmetic scales exactly) and at the same
/// distance (the length's rounding aside), first hits and all hits.
#[test]
fn rays_of_any_direction_length_hit_alike() {
    let mut rng = Rng(0xd1_1e46_7400);
    let mut hits = 0;
    for round in 0..6 {
        let s = scene(&mut rng, [1, 5, 30][round % 3]);
        let caster = RayCaster::new(&s);
        for k in 0..200 {
            let origin = rng.vec3(-14.0, 14.0);
            let target = near_a_vertex(&mut rng, &s);
            let dir = target - origin;
            let opts = RayOptions {
                cull: [CullMode::None, CullMode::Back][k % 2],
                ..RayOptions::default()
            };
            let exact = |h: &Hit| {
                let b = h.barycentric;
                (
                    h.mesh,
                    h.triangle,
                    b.x.to_bits(),
                    b.y.to_bits(),
                    h.front_face,
                )
            };
            let base = caster.first(&Ray::new(origin, dir), &opts);
            let base_all = caster.all(&Ray::new(origin, dir), &opts);
            hits += usize::from(base.is_some());
            for e in [-100, -70, 70, 100] {
                let ray = Ray::new(origin, dir * 2f32.powi(e));
                let at = format!("round {round} ray {k} scale 2^{e}");
                let got = caster.first(&ray, &opts);
                assert_eq!(got.as_ref().map(exact), base.as_ref().map(exact), "{at}");
                if let (Some(g), Some(b)) = (&got, &base) {
                    let rel = (g.distance - b.distance).abs() / b.distance;
                    assert!(rel < 1e-6, "{at}: {} vs {}", g.distance, b.distance);
                }
                let all = caster.all(&ray, &opts);
                let keys = |v: &[Hit]| v.iter().map(exact).collect::<Vec<_>>();
                assert_eq!(keys(&all), keys(&base_all), "{at}");
                let rows: Vec<_> = caster.first_hits([ray], &opts).collect();
                let row = rows[0].as_ref().map(|h| (h.mesh, h.triangle));
                assert_eq!(row, base.as_ref().map(|h| (h.mesh, h.triangle)), "{at}");
            }
        }
    }
    assert!(hits > 300, "{hits} hits: the rays must mostly hit");
}

/// The batch's whole ray (default options) on the flat BVH takes its
/// range in `t` without the direction's length when no direction
/// coordinate exceeds 10^18: at every scale of the direction, on both
/// sides of that bound (2^59 and 2^60 times a direction whose largest
/// coordinate is 1) and where the length overflows to infinity (no hit
/// either way), its answers are full first hits' bit for bit, in scenes of
/// few meshes (their hits' meshes counted) and many (looked up).
#[test]
fn first_hits_of_the_whole_ray_at_any_direction_scale() {
    let mut rng = Rng(0x3a0e_5ca1);
    let mut hits = 0;
    let mut overflowed = 0;
    for round in 0..4 {
        let s = scene_placed(&mut rng, [1, 6, 40, 3][round], true);
        let caster = RayCaster::new(&s);
        let opts = RayOptions::default();
        for k in 0..120 {
            let origin = rng.vec3(-14.0, 14.0);
            // (aimed at a vertex of a random mesh: placed by the identity,
            // its positions are world positions)
            let p = s.meshes()[rng.below(s.meshes().len())].positions();
            let dir = p[rng.below(p.len())] * 0.9 - origin;
            let dir = dir / dir.abs().max_element();
            let scales = [
                2f32.powi(-100),
                2f32.powi(-60),
                1.0,
                2f32.powi(59),
                2f32.powi(60),
                2f32.powi(100),
                f32::MAX * 0.9,
            ];
            for (e, scale) in scales.into_iter().enumerate() {
                let ray = Ray::new(origin, dir * scale);
                let at = format!("round {round} ray {k} scale {e}");
                let len = ray.direction_length();
                overflowed += usize::from(len == f32::INFINITY);
                let want = caster.first(&ray, &opts);
                let got = caster.first_hits([ray], &opts).next().flatten();
                match (want, got) {
                    (None, None) => {}
                    (Some(w), Some(g)) => {
                        hits += 1;
                        assert_batch_hit_is_full(&caster, &g, &w, len, &at);
                    }
                    (w, g) => panic!("{at}: full {:?}, batch {g:?}", w.map(|h| h.triangle)),
                }
            }
        }
    }
    assert!(hits > 1000, "{hits} hits: the rays must often hit");
    assert!(overflowed > 50, "{overflowed}: some lengths must overflow");
}

/// From `INTERLEAVE_MIN_TRIS` triangles in an identity-placed scene the
/// compact batch walks the flat BVH eight rays at a time, interleaved step
/// by step: it still answers what full first hits answer, ray for ray, bit
/// for bit (a 502k-triangle grid and a soup beside it, every cull mode, a
/// distance range, rays that cannot hit or leave the fast walk mixed in,
/// a batch whose length is not a multiple of four).
#[test]
fn interleaved_first_hits_equal_full_first_hits() {
    let mut rng = Rng(0x1e4a_7e5e);
    let (p, t) = crate::test_util::grid(501, 0.4, &mut rng);
    let mut s = Scene::new();
    let grid = Mesh::new("grid", p, t, [1, 2, 3]).unwrap();
    s.add_mesh(grid, Transform::IDENTITY, None);
    // (1000 small triangles over the grid)
    let soup: Vec<Vec3> = (0..1000)
        .flat_map(|_| {
            let c = Vec3::new(
                rng.range(0.0, 501.0),
                rng.range(0.0, 501.0),
                rng.range(-3.0, 3.0),
            );
            [(); 3].map(|_| c + rng.vec3(-2.0, 2.0))
        })
        .collect();
    let soup_t = (0..1000u32)
        .map(|k| [3 * k, 3 * k + 1, 3 * k + 2])
        .collect();
    s.add_mesh(
        Mesh::new("soup", soup, soup_t, [4, 5, 6]).unwrap(),
        Transform::IDENTITY,
        None,
    );
    assert!(s.triangle_count() as usize >= crate::limits::INTERLEAVE_MIN_TRIS);
    let caster = RayCaster::new(&s);
    let rays: Vec<Ray> = (0..4001)
        .map(|k| {
            let origin = Vec3::new(
                rng.range(-50.0, 550.0),
                rng.range(-50.0, 550.0),
                rng.range(-20.0, 20.0),
            );
            let target = Vec3::new(
                rng.range(0.0, 501.0),
                rng.range(0.0, 501.0),
                rng.range(-1.0, 1.0),
            );
            let dir = target - origin;
            match k % 97 {
                0 => Ray::new(origin, Vec3::ZERO),
                1 => Ray::new(Vec3::new(f32::NAN, 0.0, 0.0), dir),
                2 => Ray::new(origin, Vec3::new(dir.x, 0.0, dir.z)),
                _ => Ray::new(origin, dir * rng.range(0.2, 3.0)),
            }
        })
        .collect();
    let mut hits = 0;
    for (c, cull) in [CullMode::None, CullMode::Back, CullMode::Front]
        .into_iter()
        .enumerate()
    {
        let opts = RayOptions {
            near: if c == 1 { 2.0 } else { 0.0 },
            far: if c == 2 { 30.0 } else { f32::INFINITY },
            cull,
            filter: None,
            clip: None,
        };
        // (the length stays exact while groups are walked ahead)
        let mut it = caster.first_hits(rays.iter().copied(), &opts);
        assert_eq!(it.len(), rays.len());
        let head = it.next();
        assert_eq!(it.len(), rays.len() - 1);
        let batch: Vec<_> = std::iter::once(head.unwrap()).chain(it).collect();
        assert_eq!(batch.len(), rays.len());
        for (k, (ray, got)) in rays.iter().zip(&batch).enumerate() {
            let want = caster.first(ray, &opts);
            let at = format!("cull {c} ray {k}");
            match (want, got) {
                (None, None) => {}
                (Some(w), Some(g)) => {
                    hits += 1;
                    assert_eq!((g.mesh, g.triangle), (w.mesh, w.triangle), "{at}");
                    assert_eq!(g.global_triangle, w.global_triangle, "{at}");
                    assert_eq!(g.barycentric, w.barycentric, "{at}");
                    assert_eq!(g.front_face, w.front_face, "{at}");
                    assert_eq!(g.t * ray.direction_length(), w.distance, "{at}");
                    let bits = |v: Vec3| v.to_array().map(f32::to_bits);
                    assert_eq!(bits(caster.hit_normal(g)), bits(w.normal), "{at}");
                }
                (w, g) => panic!("{at}: full {:?}, batch {g:?}", w.map(|h| h.triangle)),
            }
        }
    }
    assert!(hits > 6000, "{hits}");
}

/// A caster made after a change of the scene answers for the scene as it
/// is now, though the scene keeps the meshes' transforms from query to
/// query: after moving a node, moving it back, moving a mesh's vertices
/// (its world box) and adding a mesh, the first hit is the expected mesh's
/// and equals that of a clone (which starts without kept transforms).
#[test]
fn casters_follow_the_scenes_changes() {
    let quad = |z: f32| {
        let p = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
        let p: Vec<Vec3> = p.iter().map(|&(x, y)| Vec3::new(x, y, z)).collect();
        Mesh::new("quad", p, vec![[0, 1, 2], [0, 2, 3]], [200, 200, 200]).unwrap()
    };
    // (turned, so that the rays take the two-level walk, which uses the
    // kept world boxes, not the flat BVH)
    let turn = Transform {
        rotation: Quat::from_rotation_z(0.3),
        ..Transform::IDENTITY
    };
    let mut s = Scene::new();
    let a = s.add_mesh(quad(0.0), turn, None);
    let b = s.add_mesh(quad(-2.0), turn, None);
    let node_a = s.mesh_node(a).unwrap();
    let ray = Ray::new(Vec3::new(0.1, 0.2, 5.0), Vec3::NEG_Z);
    let opts = RayOptions::default();
    let check = |s: &Scene, want: MeshId, at: &str| {
        let got = RayCaster::new(s)
            .first(&ray, &opts)
            .map(|h| (h.mesh, h.distance));
        let fresh = s.clone();
        let reference = RayCaster::new(&fresh)
            .first(&ray, &opts)
            .map(|h| (h.mesh, h.distance));
        assert_eq!(got, reference, "{at}");
        assert_eq!(got.map(|h| h.0), Some(want), "{at}");
    };
    check(&s, a, "as built");
    assert!(s.translate(node_a, Vec3::new(10.0, 0.0, 0.0)));
    check(&s, b, "a moved away");
    assert!(s.translate(node_a, Vec3::new(-10.0, 0.0, 0.0)));
    check(&s, a, "a moved back");
    let lifted: Vec<Vec3> = quad(1.0).positions().to_vec();
    s.set_positions(b, lifted).unwrap();
    check(&s, b, "b's vertices lifted in front of a");
    let c = s.add_mesh(quad(3.0), turn, None);
    check(&s, c, "c added in front");
}
