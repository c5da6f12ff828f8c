//! The lazy walk against the full pose: the same packed hits, bit for bit,
//! on a generated skinned and morphed tube (weights that do not sum to 1,
//! vertices without weights, two primitives, front, back and double sides,
//! a mirrored placement, a static object beside it) and on the Fox of the
//! browser tests' fixtures, over many rays and poses: random rays, rays
//! that miss, rays at posed vertices and at the corners and edges of the
//! clusters' boxes; nearest hits and every hit; both sides of the switch.

use glam::{DMat4, DVec3, Mat4, Quat, Vec3};

use super::*;
use crate::query::{self, BatchOut};
use crate::world::World;

/// xorshift32 in [0, 1).
fn rng(seed: u32) -> impl FnMut() -> f32 {
    let mut s = seed.max(1);
    move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        (s >> 8) as f32 / 16_777_216.0
    }
}

/// A tube along y (`rows` rings of `radial` vertices, height 4, radius
/// 0.5), skinned to `bones` bones along it, with two morph targets; in
/// two primitives (the lower and the upper half of its quads).
fn tube(rows: usize, radial: usize, bones: usize) -> Geometry {
    let mut pos = Vec::new();
    for r in 0..rows {
        let y = -2.0 + 4.0 * r as f32 / (rows - 1) as f32;
        for k in 0..radial {
            let a = std::f32::consts::TAU * k as f32 / radial as f32;
            pos.extend([0.5 * a.cos(), y, 0.5 * a.sin()]);
        }
    }
    let mut idx = Vec::new();
    for r in 0..rows - 1 {
        for k in 0..radial {
            let (a, b) = (
                (r * radial + k) as u32,
                (r * radial + (k + 1) % radial) as u32,
            );
            let (c, d) = (a + radial as u32, b + radial as u32);
            idx.extend([a, c, b, b, c, d]);
        }
    }
    let half = (idx.len() / 6 / 2 * 6) as u32;
    let ranges = [0, half, half, idx.len() as u32];
    let mut g = Geometry::new(&pos, Some(&idx), Some(&ranges)).unwrap();
    let n = g.positions.len();
    let seg = 4.0 / (bones - 1) as f32;
    for i in 0..n {
        let p = g.positions[i];
        let u = ((p.y + 2.0) / seg).clamp(0.0, bones as f32 - 1.0001);
        let b = u.floor();
        let w = u - b;
        let (b0, b1) = (b as u16, b as u16 + 1);
        let mut ws = [1.0 - w, w, 0.0, 0.0];
        // weights that do not sum to 1 (three.js does not normalise), and
        // a few vertices without any
        match i % 7 {
            3 => ws = ws.map(|x| x * 1.25),
            5 => ws = ws.map(|x| x * 0.7),
            _ => {}
        }
        if i % 97 == 11 {
            ws = [0.0; 4];
        }
        g.deform.joints.push([b0, b1, 0, 0]);
        g.deform.weights.push(ws);
    }
    g.deform.targets = vec![
        g.positions
            .iter()
            .map(|p| Vec3::new(p.x * 0.6, 0.0, p.z * 0.6))
            .collect(),
        g.positions
            .iter()
            .map(|p| Vec3::new(-p.z * 0.3, 0.1 * p.y, p.x * 0.3))
            .collect(),
    ];
    g
}

/// A bone chain of `bones` along y at time `t`: each bone a rotation
/// about its joint, as the browser tests' tube poses it.
fn chain(bones: usize, t: f32) -> Vec<f32> {
    let seg = 4.0 / (bones - 1) as f32;
    let mut world = Mat4::from_translation(Vec3::new(0.0, -2.0, 0.0));
    let mut out = Vec::new();
    for b in 0..bones {
        if b > 0 {
            world *= Mat4::from_translation(Vec3::new(0.0, seg, 0.0));
        }
        let fb = b as f32;
        world *= Mat4::from_quat(Quat::from_euler(
            glam::EulerRot::XYZ,
            0.35 * (t + fb).sin(),
            0.2 * (0.7 * t + fb).cos(),
            0.3 * (1.3 * t - fb).sin(),
        ));
        // boneMatrix = bone world · inverse of its rest world
        let rest = Mat4::from_translation(Vec3::new(0.0, -2.0 + seg * fb, 0.0));
        out.extend((world * rest.inverse()).to_cols_array());
    }
    out
}

/// Poses object `id` as `RawScene::poseObject` does.
fn pose(w: &mut World, id: u32, bones: &[f32], bind: &DMat4, influences: &[f32]) {
    let gid = w.object(id).unwrap().geometry;
    let g = w.geometry_mut(gid).unwrap();
    let p = Pose::new(g, bones, bind, &bind.inverse(), influences).unwrap();
    w.pose_with(id, p).unwrap();
}

/// Two worlds made alike: `lazy` keeps its poses waiting, `full` poses in
/// full at once (as before the lazy path).
struct Pair {
    lazy: World,
    full: World,
    object: u32,
}

impl Pair {
    fn pose(&mut self, bones: &[f32], bind: &DMat4, influences: &[f32]) {
        pose(&mut self.lazy, self.object, bones, bind, influences);
        pose(&mut self.full, self.object, bones, bind, influences);
        self.full.settle_all();
        assert!(self.full.lazy_ids.is_empty());
    }

    /// Both worlds' packed hits of a ray (`all`: every hit), compared bit
    /// for bit; the number of hits.
    fn same(&mut self, o: Vec3, d: Vec3, all: bool, mask: Option<&[u8]>, what: &str) -> usize {
        let ray = softpick::Ray::new(o, d);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        query::cast(&mut self.lazy, &ray, 0.0, f64::INFINITY, mask, all, &mut a).unwrap();
        query::cast(&mut self.full, &ray, 0.0, f64::INFINITY, mask, all, &mut b).unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&a),
            bits(&b),
            "{what}: ray {o} {d}: lazy {a:?} full {b:?}"
        );
        a.len() / query::HIT_STRIDE
    }
}

/// The generated pair: the tube (placed by `matrix`, with `sides`) and a
/// static quad across it as another object.
fn tube_pair(matrix: DMat4, sides: &[u8]) -> Pair {
    let make = || {
        let mut w = World::new();
        let g = w.add_geometry(tube(24, 16, 5)).unwrap();
        let quad = [
            -1.0, 0.3, 0.0, 1.0, 0.3, 0.0, 1.0, 0.3, -1.0, -1.0, 0.3, -1.0,
        ];
        let q = w
            .add_geometry(Geometry::new(&quad, Some(&[0, 2, 1, 0, 3, 2]), None).unwrap())
            .unwrap();
        w.add_object(q, DMat4::IDENTITY, None, &[2]).unwrap();
        let id = w.add_object(g, matrix, None, sides).unwrap();
        (w, id)
    };
    let ((lazy, object), (full, _)) = (make(), make());
    let mut p = Pair { lazy, full, object };
    // the first pose is applied at the first build (the object is not
    // built yet); the poses after it wait
    p.pose(&chain(5, 0.0), &DMat4::IDENTITY, &[0.0, 0.0]);
    p.lazy.build();
    p.full.build();
    p
}

/// The world-space corners of the posed boxes of the object's cluster
/// trees, and the midpoints of their edges (rays at them graze the boxes).
fn box_points(w: &mut World, id: u32) -> Vec<Vec3> {
    let first = mesh_of(w, id);
    let prims = w.prim_count(id);
    let worlds: Vec<Mat4> = (0..prims)
        .map(|p| w.core.scene().mesh_world(first + p))
        .collect();
    let l = w.lazy_pose_mut(id).expect("a waiting pose");
    let mut out = Vec::new();
    for (prim, world) in worlds.iter().enumerate() {
        for n in 0..l.clusters.trees[prim].nodes.len() {
            let b = l.node_box(prim, n);
            if b.is_empty() || !b.min.is_finite() {
                continue;
            }
            for k in 0..8 {
                let c = |bit: usize, a: f32, z: f32| if k & bit == 0 { a } else { z };
                let corner = Vec3::new(
                    c(1, b.min.x, b.max.x),
                    c(2, b.min.y, b.max.y),
                    c(4, b.min.z, b.max.z),
                );
                out.push(world.transform_point3(corner));
                let mid = Vec3::new(
                    c(1, b.min.x, b.max.x),
                    c(2, b.min.y, b.max.y),
                    0.5 * (b.min.z + b.max.z),
                );
                out.push(world.transform_point3(mid));
            }
        }
    }
    out
}

/// The first softpick mesh of an object (without a build).
fn mesh_of(w: &World, id: u32) -> u32 {
    w.meshes.iter().position(|r| r.object == id).unwrap() as u32
}

/// The posed vertices of the object in world space (from its first mesh).
fn posed_vertices(w: &World, id: u32) -> Vec<Vec3> {
    let scene = w.core.scene();
    let m = mesh_of(w, id);
    let world = scene.mesh_world(m);
    scene.meshes()[m as usize]
        .positions()
        .iter()
        .map(|&p| world.transform_point3(p))
        .collect()
}

/// Many rays on the pair's current pose, lazily (the budget given back
/// after each), compared; the number of hits.
fn many_rays(p: &mut Pair, seed: u32, what: &str) -> usize {
    let mut r = rng(seed);
    let mut hits = 0;
    let id = p.object;
    // every box of the walk made now (before the rays that skin leaves)
    let grazing = box_points(&mut p.lazy, id);
    p.lazy.reset_lazy_budget();
    let vertices = posed_vertices(&p.full, id);
    let mut targets: Vec<Vec3> = Vec::new();
    for _ in 0..150 {
        // random points around the tube (some rays miss it)
        targets.push(Vec3::new(
            (r() - 0.5) * 4.0,
            (r() - 0.5) * 7.0,
            (r() - 0.5) * 4.0,
        ));
    }
    for k in 0..60 {
        targets.push(vertices[(k * 7919) % vertices.len()]);
    }
    for k in 0..80 {
        targets.push(grazing[(k * 104_729) % grazing.len()]);
    }
    for (k, &t) in targets.iter().enumerate() {
        let a = r() * std::f32::consts::TAU;
        let e = (r() - 0.5) * 2.5;
        let o = Vec3::new(6.0 * a.cos(), 3.0 * e, 6.0 * a.sin());
        // along a box face: the origin moved in the face's plane
        let o = if k >= 210 && k % 2 == 0 {
            Vec3::new(o.x, t.y, o.z)
        } else {
            o
        };
        let all = k % 3 == 0;
        hits += p.same(o, t - o, all, None, what);
        p.lazy.reset_lazy_budget();
        // only the tube, by the object mask
        let mut mask = vec![0u8; 2];
        mask[id as usize] = 1;
        hits += p.same(o, t - o, false, Some(&mask), what);
        p.lazy.reset_lazy_budget();
        assert!(!p.lazy.lazy_ids.is_empty(), "{what}: the pose still waits");
    }
    hits
}

#[test]
fn lazy_hits_are_the_full_pose_hits_on_a_skinned_morphed_tube() {
    let placements = [
        (DMat4::IDENTITY, vec![0u8, 2]),
        (
            DMat4::from_scale_rotation_translation(
                DVec3::new(-1.0, 1.2, 0.9), // mirrored
                glam::DQuat::from_rotation_z(0.2),
                DVec3::new(0.4, -0.3, 0.2),
            ),
            vec![1, 0],
        ),
    ];
    for (pi, (m, sides)) in placements.iter().enumerate() {
        let mut p = tube_pair(*m, sides);
        let bind = DMat4::from_translation(DVec3::new(0.1, 0.2, -0.1));
        let mut hits = 0;
        for k in 0..5 {
            let t = 0.4 + 1.1 * k as f32;
            let infl = [(t.sin()).powi(2), 0.5 + 0.5 * (1.7 * t).cos()];
            p.pose(&chain(5, t), &bind, &infl);
            assert!(!p.lazy.lazy_ids.is_empty(), "the pose waits");
            hits += many_rays(&mut p, 17 + k, &format!("placement {pi}, pose {k}"));
        }
        assert!(hits > 1000, "placement {pi}: only {hits} hits");
    }
}

#[test]
fn after_the_budget_a_pose_is_applied_and_answers_stay_the_same() {
    let mut p = tube_pair(DMat4::IDENTITY, &[0, 0]);
    let mut r = rng(5);
    for k in 0..3 {
        p.pose(&chain(5, k as f32), &DMat4::IDENTITY, &[0.3, 0.1]);
        let mut lazy_rays = 0;
        for ray in 0..200 {
            let o = Vec3::new(5.0, (r() - 0.5) * 4.0, (r() - 0.5) * 2.0);
            let t = Vec3::new(0.0, (r() - 0.5) * 4.0, 0.0);
            let id = p.object;
            // the work so far against the budget: a ray past it poses in full
            let spent = p.lazy.lazy_pose_mut(id).map(|l| l.work >= l.budget);
            p.same(o, t - o, ray % 2 == 0, None, "budget");
            match spent {
                Some(false) => {
                    lazy_rays += 1;
                    let l = p.lazy.lazy_pose_mut(id).expect("still waiting");
                    assert!(l.work > 0, "pose {k}, ray {ray}: the work is counted");
                }
                Some(true) => assert!(p.lazy.lazy_ids.is_empty(), "pose {k}, ray {ray}"),
                None => {}
            }
        }
        assert!(
            p.lazy.lazy_ids.is_empty(),
            "pose {k}: applied after {lazy_rays} rays"
        );
        assert!(lazy_rays >= 1, "pose {k}: no lazy ray");
    }
    // a ray on the static quad only (the mask leaves the tube out) does
    // not count against the tube's pose
    p.pose(&chain(5, 9.0), &DMat4::IDENTITY, &[0.0, 0.0]);
    for _ in 0..200 {
        let o = Vec3::new(0.0, 3.0, -0.5);
        p.same(o, Vec3::NEG_Y, false, Some(&[1, 0]), "masked");
    }
    assert!(!p.lazy.lazy_ids.is_empty());
    // a render (any build) applies the pose: the meshes are the full ones
    p.lazy.build();
    assert!(p.lazy.lazy_ids.is_empty());
    let (a, b) = (
        posed_vertices(&p.lazy, p.object),
        posed_vertices(&p.full, p.object),
    );
    assert_eq!(a, b);
}

/// `batch` on both worlds, compared.
fn same_batch(p: &mut Pair, n: usize, seed: u32) -> bool {
    let mut r = rng(seed);
    let mut o = Vec::new();
    let mut d = Vec::new();
    for _ in 0..n {
        let from = Vec3::new(5.0, (r() - 0.5) * 5.0, (r() - 0.5) * 3.0);
        let to = Vec3::new((r() - 0.5) * 0.5, (r() - 0.5) * 4.0, (r() - 0.5) * 0.5);
        o.extend(from.to_array());
        d.extend((to - from).to_array());
    }
    let run = |w: &mut World| {
        let (mut ob, mut inst, mut idx, mut dist) =
            (vec![0; n], vec![0; n], vec![0; n], vec![0.0; n]);
        let out = BatchOut {
            object: &mut ob,
            instance: &mut inst,
            index: &mut idx,
            distance: &mut dist,
        };
        query::batch(w, &o, &d, 0.0, f64::INFINITY, None, out).unwrap();
        (
            ob,
            inst,
            idx,
            dist.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        )
    };
    let (a, b) = (run(&mut p.lazy), run(&mut p.full));
    assert_eq!(a, b, "a batch of {n}");
    assert!(a.0.iter().filter(|&&x| x >= 0).count() > n / 4, "{:?}", a.0);
    !p.lazy.lazy_ids.is_empty()
}

#[test]
fn a_batch_poses_in_full_first() {
    let mut p = tube_pair(DMat4::IDENTITY, &[0, 0]);
    for (k, n) in [1usize, 16, 1024].into_iter().enumerate() {
        p.pose(&chain(5, k as f32), &DMat4::IDENTITY, &[0.5, 0.5]);
        assert!(!p.lazy.lazy_ids.is_empty());
        assert!(!same_batch(&mut p, n, 3 + k as u32), "applied");
    }
}

#[test]
fn negative_weights_and_clip_planes_take_the_full_pose() {
    let mut p = tube_pair(DMat4::IDENTITY, &[0, 0]);
    p.lazy.clipping.set_all(vec![[0.0, 1.0, 0.0, 0.5]]).unwrap();
    p.full.clipping.set_all(vec![[0.0, 1.0, 0.0, 0.5]]).unwrap();
    p.pose(&chain(5, 1.0), &DMat4::IDENTITY, &[0.0, 0.0]);
    assert!(!p.lazy.lazy_ids.is_empty());
    p.same(
        Vec3::new(5.0, 0.0, 0.0),
        Vec3::NEG_X,
        false,
        None,
        "clipped",
    );
    assert!(p.lazy.lazy_ids.is_empty(), "clip planes: applied");

    let mut w = World::new();
    let mut g = tube(6, 8, 3);
    g.deform.weights[3] = [1.2, -0.2, 0.0, 0.0];
    let g = w.add_geometry(g).unwrap();
    let id = w.add_object(g, DMat4::IDENTITY, None, &[0]).unwrap();
    pose(&mut w, id, &chain(3, 0.0), &DMat4::IDENTITY, &[]);
    w.build();
    pose(&mut w, id, &chain(3, 1.0), &DMat4::IDENTITY, &[]);
    assert!(w.lazy_ids.is_empty(), "a negative weight: posed in full");
}

#[test]
fn a_bone_past_the_skeleton_is_the_full_pose_error() {
    let mut w = World::new();
    let g = w.add_geometry(tube(6, 8, 3)).unwrap();
    let id = w.add_object(g, DMat4::IDENTITY, None, &[0]).unwrap();
    pose(&mut w, id, &chain(3, 0.0), &DMat4::IDENTITY, &[]);
    w.build();
    let geometry = w.geometry_mut(g).unwrap();
    let p = Pose::new(
        geometry,
        &chain(2, 1.0),
        &DMat4::IDENTITY,
        &DMat4::IDENTITY,
        &[],
    )
    .unwrap();
    let want = p.all(geometry).unwrap_err();
    let e = w.pose_with(id, p).unwrap_err();
    assert_eq!(e, want);
    assert!(
        e.contains("bound to bone 2, but the skeleton has 2 bones"),
        "{e}"
    );
}

/// The Fox of the browser tests (web/test/fixtures/Fox, in the
/// repository): its rest pose, skin and animations through softpick's
/// glTF loader, posed as three.js poses it.
#[test]
fn lazy_hits_are_the_full_pose_hits_on_the_fox() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/test/fixtures/Fox/Fox.gltf");
    let (mut scene, _) =
        softpick::load_model(std::path::Path::new(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mesh = (0..scene.meshes().len() as u32)
        .find(|&m| scene.deformer(m).is_some_and(|d| !d.joints.is_empty()))
        .expect("the Fox is skinned");
    let d = scene.deformer(mesh).unwrap().clone();
    let tris: Vec<u32> = scene.meshes()[mesh as usize]
        .triangles()
        .iter()
        .flatten()
        .copied()
        .collect();
    let pos: Vec<f32> = d.rest.iter().flat_map(|p| p.to_array()).collect();
    let node = scene.mesh_node(mesh).unwrap();
    let skin = scene.skins()[0].clone();
    let make = || {
        let mut w = World::new();
        let mut g = Geometry::new(&pos, Some(&tris), None).unwrap();
        g.deform.joints = d.joints[0].clone();
        g.deform.weights = d.weights[0].clone();
        let g = w.add_geometry(g).unwrap();
        // placed small and turned, as a scene would
        let m = DMat4::from_scale_rotation_translation(
            DVec3::splat(0.02),
            glam::DQuat::from_rotation_y(0.7),
            DVec3::new(0.5, 0.0, -0.25),
        );
        let id = w.add_object(g, m, None, &[0]).unwrap();
        (w, id)
    };
    let ((lazy, object), (full, _)) = (make(), make());
    let mut p = Pair { lazy, full, object };
    let bind = scene.world_matrix(node).as_dmat4();
    let mut hits = 0;
    let mut first = true;
    for anim in 0..scene.animations().len().min(2) {
        let duration = scene.animations()[anim].duration();
        for k in 0..5 {
            let t = duration * k as f32 / 5.0 + 0.05;
            scene
                .pose(t, Some(anim), softpick::animation::LoopMode::Once)
                .unwrap();
            let bones: Vec<f32> = skin
                .joints
                .iter()
                .zip(&skin.inverse_bind)
                .flat_map(|(&j, ib)| (scene.world_matrix(j) * *ib).to_cols_array())
                .collect();
            p.pose(&bones, &bind, &[]);
            if first {
                p.lazy.build();
                p.full.build();
                first = false;
                continue;
            }
            assert!(!p.lazy.lazy_ids.is_empty(), "the pose waits");
            hits += fox_rays(&mut p, 101 * anim as u32 + k);
        }
    }
    assert!(hits > 1000, "only {hits} hits");
}

/// Rays at the posed Fox (placed small: about 1.2 units long, around
/// the origin): random, at its vertices, at its boxes.
fn fox_rays(p: &mut Pair, seed: u32) -> usize {
    let mut r = rng(seed + 1);
    let id = p.object;
    let grazing = box_points(&mut p.lazy, id);
    p.lazy.reset_lazy_budget();
    let vertices = posed_vertices(&p.full, id);
    let (lo, hi) = vertices
        .iter()
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let mut hits = 0;
    for k in 0..300 {
        let target = match k % 3 {
            0 => lo + (hi - lo) * Vec3::new(r(), r(), r()) * 1.2 - (hi - lo) * 0.1,
            1 => vertices[(k * 7919) % vertices.len()],
            _ => grazing[(k * 104_729) % grazing.len()],
        };
        let a = r() * std::f32::consts::TAU;
        let c = 0.5 * (lo + hi);
        let o = c + Vec3::new(3.0 * a.cos(), (r() - 0.3) * 2.0, 3.0 * a.sin());
        hits += p.same(o, target - o, k % 4 == 0, None, "fox");
        p.lazy.reset_lazy_budget();
    }
    hits
}
