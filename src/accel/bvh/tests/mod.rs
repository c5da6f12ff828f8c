//! Unit tests of the mesh BVH. Here: the shared helpers (meshes, brute
//! force, random rays) and the build's tests (layout, empty and invalid
//! inputs, validation, depth, thread-count independence, refit); the
//! walks' tests (one-, four- and eight-ray walks against brute force and
//! each other) are in `walk.rs`.

mod walk;

use glam::{Vec3, Vec4};

use super::build::PAR_BIN_MIN;
use super::packet::Walk4;
use super::traverse::FirstHit;
use super::*;
use crate::accel::triangle::{intersect, RayPrecomp, TriHit};
use crate::geometry::{Aabb, CullMode};
use crate::test_util::{grid, in_box, Rng};

type Mesh = (Vec<Vec3>, Vec<[u32; 3]>);

/// The testkit's UV sphere (`stacks` from pole to pole, `slices` around)
/// moved to `center` and scaled to `radius`.
fn uv_sphere(stacks: u32, slices: u32, center: Vec3, radius: f32) -> Mesh {
    let (pos, tris) = softpick_testkit::uv_sphere(slices, stacks);
    (pos.into_iter().map(|p| center + p * radius).collect(), tris)
}

/// Overlapping random triangles in [-1, 1]^3.
fn soup(n: usize, rng: &mut Rng) -> Mesh {
    let mut pos = Vec::new();
    let mut tris = Vec::new();
    for i in 0..n as u32 {
        let c = rng.vec3(-1.0, 1.0);
        let s = rng.range(0.02, 0.6);
        for _ in 0..3 {
            pos.push(c + rng.vec3(-s, s));
        }
        tris.push([3 * i, 3 * i + 1, 3 * i + 2]);
    }
    (pos, tris)
}

fn tri_valid(pos: &[Vec3], t: &[u32; 3]) -> bool {
    t.iter()
        .all(|&i| pos.get(i as usize).is_some_and(|p| p.is_finite()))
}

fn brute_all(
    pos: &[Vec3],
    tris: &[[u32; 3]],
    ray: &RayPrecomp,
    t_min: f32,
    t_max: f32,
    cull: CullMode,
) -> Vec<(u32, TriHit)> {
    let mut v: Vec<(u32, TriHit)> = tris
        .iter()
        .enumerate()
        .filter(|(_, t)| tri_valid(pos, t))
        .filter_map(|(i, t)| {
            let [a, b, c] = t.map(|k| pos[k as usize]);
            intersect(ray, a, b, c, t_min, t_max, cull).map(|h| (i as u32, h))
        })
        .collect();
    v.sort_by(|a, b| a.1.t.total_cmp(&b.1.t).then(a.0.cmp(&b.0)));
    v
}

fn brute_first(
    pos: &[Vec3],
    tris: &[[u32; 3]],
    ray: &RayPrecomp,
    t_min: f32,
    t_max: f32,
    cull: CullMode,
) -> Option<(u32, TriHit)> {
    brute_all(pos, tris, ray, t_min, t_max, cull)
        .into_iter()
        .next()
}

/// Random rays: origins around the bounds, aimed at triangle interiors
/// (mostly) or random points; random range and cull mode.
fn random_ray(
    rng: &mut Rng,
    pos: &[Vec3],
    tris: &[[u32; 3]],
    b: &Aabb,
) -> (RayPrecomp, f32, f32, CullMode) {
    let grown = Aabb {
        min: b.min - (b.max - b.min),
        max: b.max + (b.max - b.min),
    };
    let o = if rng.below(4) == 0 {
        in_box(rng, b)
    } else {
        in_box(rng, &grown)
    };
    let target = if rng.below(4) == 0 {
        in_box(rng, b)
    } else {
        let t = loop {
            let t = tris[rng.below(tris.len())];
            if tri_valid(pos, &t) {
                break t;
            }
        };
        let w = rng.vec3(0.0, 1.0) + Vec3::splat(1e-3);
        let w = w / w.element_sum();
        let [a, bb, c] = t.map(|k| pos[k as usize]);
        a * w.x + bb * w.y + c * w.z
    };
    let ray = RayPrecomp::new(o, (target - o) * rng.range(0.1, 3.0));
    let (t_min, t_max) = match rng.below(4) {
        0 => (rng.range(0.0, 1.0), f32::INFINITY),
        1 => (0.0, rng.range(0.5, 5.0)),
        2 => (f32::NEG_INFINITY, f32::INFINITY),
        _ => (0.0, f32::INFINITY),
    };
    let cull = [CullMode::None, CullMode::Back, CullMode::Front][rng.below(3)];
    (ray, t_min, t_max, cull)
}

/// Compares first_hit/all_hits with brute force; returns the hit count.
fn check_against_brute_force(pos: &[Vec3], tris: &[[u32; 3]], rays: usize, seed: u64) -> usize {
    let bvh = Bvh::build(pos, tris);
    bvh.validate(pos, tris).unwrap();
    assert!(bvh.depth() <= MAX_DEPTH);
    let b = bvh.root_bounds();
    let mut rng = Rng(seed);
    let mut hits = 0;
    let mut all = Vec::new();
    for i in 0..rays {
        let (ray, t_min, t_max, cull) = random_ray(&mut rng, pos, tris, &b);
        let expect = brute_first(pos, tris, &ray, t_min, t_max, cull);
        let got = bvh.first_hit(&ray, t_min, t_max, cull);
        assert_eq!(got, expect, "ray {i}: {ray:?} [{t_min}, {t_max}] {cull:?}");
        hits += got.is_some() as usize;
        all.clear();
        bvh.all_hits(&ray, t_min, t_max, cull, &mut all);
        assert_eq!(
            all,
            brute_all(pos, tris, &ray, t_min, t_max, cull),
            "ray {i}"
        );
    }
    hits
}

fn node_bits(bvh: &Bvh) -> Vec<[u32; 64]> {
    bvh.nodes
        .iter()
        .map(|q| {
            let mut v = [0u32; 64];
            let f: Vec<f32> = q.planes.iter().flatten().copied().collect();
            for (d, s) in v.iter_mut().zip(&f) {
                *d = s.to_bits();
            }
            v[48..56].copy_from_slice(&q.index);
            v[56..64].copy_from_slice(&q.count);
            v
        })
        .collect()
}

#[test]
fn node_layout() {
    assert_eq!(std::mem::size_of::<Node>(), 256);
    assert_eq!(std::mem::align_of::<Node>(), 64);
}

#[test]
fn empty_and_invalid_inputs() {
    let ray = RayPrecomp::new(Vec3::ZERO, Vec3::X);
    let bvh = Bvh::build(&[], &[]);
    assert!(bvh.is_empty() && bvh.node_count() == 0 && bvh.depth() == 0);
    assert!(bvh.root_bounds().is_empty());
    bvh.validate(&[], &[]).unwrap();
    assert_eq!(
        bvh.first_hit(&ray, 0.0, f32::INFINITY, CullMode::None),
        None
    );
    let mut out = Vec::new();
    bvh.all_hits(&ray, 0.0, f32::INFINITY, CullMode::None, &mut out);
    assert!(out.is_empty());

    // Only invalid triangles: NaN, inf, out-of-range index.
    let pos = vec![
        Vec3::new(1.0, -1.0, -1.0),
        Vec3::new(1.0, 1.0, -1.0),
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(f32::NAN, 0.0, 0.0),
        Vec3::new(0.0, f32::INFINITY, 0.0),
    ];
    let bad = [[0, 1, 3], [0, 4, 2], [0, 1, 7]];
    let bvh = Bvh::build(&pos, &bad);
    assert!(bvh.is_empty());
    bvh.validate(&pos, &bad).unwrap();
    assert_eq!(
        bvh.first_hit(&ray, 0.0, f32::INFINITY, CullMode::None),
        None
    );

    // Mixed: the one valid triangle is found, bounds are finite.
    let mixed = [[0, 1, 3], [0, 1, 2], [0, 4, 2], [9, 1, 2]];
    let bvh = Bvh::build(&pos, &mixed);
    bvh.validate(&pos, &mixed).unwrap();
    assert_eq!(
        (bvh.triangle_count(), bvh.node_count(), bvh.depth()),
        (1, 1, 1)
    );
    assert!(bvh.root_bounds().min.is_finite() && bvh.root_bounds().max.is_finite());
    let h = bvh.first_hit(&ray, 0.0, f32::INFINITY, CullMode::None);
    assert_eq!(h.map(|h| h.0), Some(1));
    // Invalid rays / ranges.
    for r in [
        RayPrecomp::new(Vec3::ZERO, Vec3::ZERO),
        RayPrecomp::new(Vec3::NAN, Vec3::X),
        RayPrecomp::new(Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 0.0)),
    ] {
        assert_eq!(bvh.first_hit(&r, 0.0, 10.0, CullMode::None), None);
    }
    assert_eq!(bvh.first_hit(&ray, 2.0, 1.0, CullMode::None), None);
    assert_eq!(bvh.first_hit(&ray, f32::NAN, 1.0, CullMode::None), None);
}

#[test]
fn small_trees_validate() {
    let mut rng = Rng(12);
    for n in 0..40 {
        let (pos, tris) = soup(n, &mut rng);
        let bvh = Bvh::build(&pos, &tris);
        bvh.validate(&pos, &tris).unwrap();
        assert_eq!(bvh.triangle_count(), n);
    }
}

#[test]
fn adversarial_centroids_keep_depth_bounded() {
    // Tiny triangles at exponentially spaced x: binned SAH peels off one
    // triangle per level; the depth cap must kick in.
    let mut pos = Vec::new();
    let mut tris = Vec::new();
    for k in 0..1500u32 {
        let x = 1.05f32.powi(k as i32) - 1.0;
        let s = 1e-3 * (1.0 + x * 1e-3);
        pos.extend([
            Vec3::new(x, 0.0, 0.0),
            Vec3::new(x + s, 0.0, s),
            Vec3::new(x, s, s),
        ]);
        tris.push([3 * k, 3 * k + 1, 3 * k + 2]);
    }
    let bvh = Bvh::build(&pos, &tris);
    bvh.validate(&pos, &tris).unwrap();
    assert!(bvh.depth() <= MAX_DEPTH);
    let hits = check_against_brute_force(&pos, &tris, 500, 30);
    assert!(hits > 20, "{hits}");
}

/// `validate` rejects leaves that refer to the wrong packs and packs
/// whose corners are not their triangles' (what the walks read).
#[test]
fn validate_checks_the_leaves_packs() {
    let (pos, tris) = uv_sphere(20, 20, Vec3::ZERO, 1.0);
    let bvh = Bvh::build(&pos, &tris);
    bvh.validate(&pos, &tris).unwrap();
    assert!(bvh.packs.len() > 20);
    // a leaf sent to its neighbour's packs
    let mut moved = bvh.clone();
    let q = moved.nodes.iter_mut().find(|q| q.count[0] > 0).unwrap();
    q.index[0] = (q.index[0] + 1) % moved.packs.len() as u32;
    assert!(moved.validate(&pos, &tris).is_err());
    // a pack corner off its triangle
    let mut bent = bvh.clone();
    bent.packs[7].p[1][2] += Vec4::splat(1e-3);
    assert!(bent.validate(&pos, &tris).is_err());
    // padding lanes marked used
    let mut padded = bvh.clone();
    let pk = padded.packs.iter_mut().find(|p| p.used != 0b1111).unwrap();
    pk.used = 0b1111;
    assert!(padded.validate(&pos, &tris).is_err());
}

#[test]
fn build_is_independent_of_thread_count() {
    let (mut pos, tris) = uv_sphere(200, 200, Vec3::ZERO, 1.0);
    // Jitter so that bins are not perfectly symmetric.
    let mut rng = Rng(32);
    for p in &mut pos {
        *p += rng.vec3(-1e-3, 1e-3);
    }
    assert!(tris.len() > 2 * PAR_BIN_MIN);
    let build = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| Bvh::build(&pos, &tris))
    };
    let one = build(1);
    one.validate(&pos, &tris).unwrap();
    for threads in [2, 3] {
        let many = build(threads);
        assert_eq!(node_bits(&one), node_bits(&many), "{threads} threads");
        assert_eq!((&one.packs, one.tri_count), (&many.packs, many.tri_count));
        assert_eq!(one.nodes.len(), many.nodes.len());
        assert_eq!((one.root, one.root_bounds), (many.root, many.root_bounds));
        assert_eq!((one.node_count, one.depth), (many.node_count, many.depth));
    }
}

/// A refit tree over moved vertices answers every ray exactly as brute
/// force on the moved vertices (and passes validation); moves that make
/// the boxes overlap too much, or change which triangles are valid, build
/// the tree again instead.
#[test]
fn refit_follows_moved_vertices_exactly_and_rebuilds_when_it_must() {
    let mut rng = Rng(0x5EF1);
    for (n, seed) in [(3usize, 1u64), (40, 2), (900, 3), (5000, 4)] {
        let (pos, tris) = soup(n, &mut rng);
        let mut bvh = Bvh::build(&pos, &tris);
        // a small wave: every vertex moves a little
        let moved: Vec<Vec3> = pos
            .iter()
            .map(|p| *p + Vec3::new((p.y * 3.0).sin(), (p.z * 2.0).cos(), p.x) * 0.02)
            .collect();
        assert_eq!(
            bvh.refit_or_rebuild(&moved, &tris),
            Refit::Refitted,
            "n {n}"
        );
        bvh.validate(&moved, &tris).unwrap();
        let b = bvh.root_bounds();
        let mut r = Rng(seed);
        for i in 0..300 {
            let (ray, t_min, t_max, cull) = random_ray(&mut r, &moved, &tris, &b);
            assert_eq!(
                bvh.first_hit(&ray, t_min, t_max, cull),
                brute_first(&moved, &tris, &ray, t_min, t_max, cull),
                "n {n} ray {i}"
            );
        }
        // scattering the triangles over a box 50 times wider: rebuilt
        let scattered: Vec<Vec3> = pos
            .iter()
            .enumerate()
            .map(|(i, p)| *p + Vec3::splat(((i / 3) % 7) as f32 * 15.0) * Vec3::new(1.0, -1.0, 0.5))
            .collect();
        if n > 4 {
            assert_eq!(
                bvh.refit_or_rebuild(&scattered, &tris),
                Refit::Rebuilt,
                "n {n}"
            );
            assert_eq!(bvh, Bvh::build(&scattered, &tris));
        }
        // a vertex turning NaN removes its triangle from the tree: rebuilt
        let mut broken = moved.clone();
        broken[0] = Vec3::NAN;
        assert_eq!(bvh.refit_or_rebuild(&broken, &tris), Refit::Rebuilt);
        assert_eq!(bvh.triangle_count(), n - 1);
        // and back: rebuilt again with every triangle
        assert_eq!(bvh.refit_or_rebuild(&moved, &tris), Refit::Rebuilt);
        assert_eq!(bvh.triangle_count(), n);
    }
}
