use glam::{Vec3, Vec4};

use super::build::PAR_BIN_MIN;
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

fn node_bits(bvh: &Bvh) -> Vec<[u32; 32]> {
    bvh.quads
        .iter()
        .map(|q| {
            let mut v = [0u32; 32];
            let f: Vec<f32> = q.planes.iter().flat_map(|p| p.to_array()).collect();
            for (d, s) in v.iter_mut().zip(&f) {
                *d = s.to_bits();
            }
            v[24..28].copy_from_slice(&q.index);
            v[28..32].copy_from_slice(&q.count);
            v
        })
        .collect()
}

#[test]
fn node_layout() {
    assert_eq!(std::mem::size_of::<Quad>(), 128);
    assert_eq!(std::mem::align_of::<Quad>(), 64);
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

/// The four-ray walk gives each lane exactly what the one-ray walk
/// gives its ray: coherent packets (one origin, nearby targets, as
/// neighbouring pixels), incoherent ones, empty lanes, per-lane range
/// ends and cull modes, rays with zero direction components.
#[test]
fn four_ray_walk_equals_one_ray_walks() {
    let mut rng = Rng(0x4a11_0000_0000_0004);
    let (sphere_p, sphere_t) = uv_sphere(60, 40, Vec3::new(0.3, -0.2, 0.1), 2.0);
    let (grid_p, grid_t) = crate::test_util::grid(24, 0.4, &mut rng);
    let meshes = [(sphere_p, sphere_t), (grid_p, grid_t), soup(3000, &mut rng)];
    let culls = [CullMode::None, CullMode::Back, CullMode::Front];
    let (mut stack, mut single) = (PacketStack::new(), MeshStack::new());
    let mut hits = 0;
    for (pos, tris) in &meshes {
        let bvh = Bvh::build(pos, tris);
        let b = bvh.root_bounds();
        for i in 0..1500 {
            let rays: [RayPrecomp; 4] = if i % 3 == 0 {
                std::array::from_fn(|_| random_ray(&mut rng, pos, tris, &b).0)
            } else {
                let (o, target) = bundle(&mut rng, &b);
                let step = rng.vec3(-0.05, 0.05);
                std::array::from_fn(|r| {
                    let mut d = target + step * r as f32 - o;
                    if i % 50 == 1 {
                        d.y = 0.0; // a zero component: the generic slab
                    }
                    RayPrecomp::new(o, d)
                })
            };
            let t_min = if i % 7 == 0 { 0.5 } else { 0.0 };
            let t_max: [f32; 4] = std::array::from_fn(|_| [f32::INFINITY, 1.0, 2.5][rng.below(3)]);
            let cull: [CullMode; 4] = std::array::from_fn(|_| culls[rng.below(3)]);
            let used: [bool; 4] = std::array::from_fn(|_| rng.below(8) != 0);
            let lanes: [Option<(&RayPrecomp, CullMode)>; 4] =
                std::array::from_fn(|r| used[r].then_some((&rays[r], cull[r])));
            let got = bvh.first_hit_x4(lanes, t_min, t_max, &mut stack, &mut single);
            for r in 0..4 {
                let want = if used[r] {
                    bvh.first_hit(&rays[r], t_min, t_max[r], cull[r])
                } else {
                    None
                };
                assert_eq!(got[r], want, "packet {i} lane {r}");
                hits += usize::from(want.is_some());
            }
        }
    }
    assert!(hits > 4000, "{hits}");
}

/// The origin (within three times the bounds `b`) and the target
/// (within `b`) of a bundle of neighbouring rays.
fn bundle(rng: &mut Rng, b: &Aabb) -> (Vec3, Vec3) {
    let far = Aabb {
        min: b.min * 3.0,
        max: b.max * 3.0,
    };
    let o = in_box(rng, &far);
    (o, in_box(rng, b))
}

/// Bundles of eight rays (as a row of pixels walks them) give each lane
/// what the one-ray walk gives its ray: the portable half (two four-ray
/// walks, what a CPU without AVX2 runs) everywhere, the AVX2 half (the
/// eight-ray walk) where the CPU has AVX2; the test says which ran.
#[test]
fn eight_ray_walk_equals_one_ray_walks() {
    let avx2 = crate::cpu::Avx2::detect();
    let mut rng = Rng(0x4a11_0000_0000_0008);
    let (sphere_p, sphere_t) = uv_sphere(60, 40, Vec3::new(0.3, -0.2, 0.1), 2.0);
    let (grid_p, grid_t) = crate::test_util::grid(24, 0.4, &mut rng);
    let (small_p, small_t) = uv_sphere(2, 3, Vec3::ZERO, 1.0); // one leaf
    let meshes = [
        (sphere_p, sphere_t),
        (grid_p, grid_t),
        soup(3000, &mut rng),
        (small_p, small_t),
    ];
    let culls = [CullMode::None, CullMode::Back, CullMode::Front];
    let mut stacks = (Packet8Stack::new(), PacketStack::new(), MeshStack::new());
    let mut hits = 0;
    for (pos, tris) in &meshes {
        let bvh = Bvh::build(pos, tris);
        let b = bvh.root_bounds();
        for i in 0..1500 {
            // a bundle from one origin (as a row of pixels' rays), some
            // with mixed direction signs, a zero component, a NaN
            let (o, target) = bundle(&mut rng, &b);
            let step = rng.vec3(-0.05, 0.05) * if i % 5 == 0 { 20.0 } else { 1.0 };
            let lanes: [(Vec3, Vec3); 8] = std::array::from_fn(|r| {
                let mut d = target + step * r as f32 - o;
                if i % 50 == 1 && r == 2 {
                    d.y = 0.0;
                }
                if i % 70 == 3 && r == 5 {
                    d.x = f32::NAN;
                }
                if i % 3 == 0 {
                    (in_box(&mut rng, &b) * 2.0, rng.unit())
                } else {
                    (o, d)
                }
            });
            let mut rays = Rays8::default();
            for (r, &(o, d)) in lanes.iter().enumerate() {
                rays.set(r, o, d);
            }
            let t_min = if i % 7 == 0 { 0.5 } else { 0.0 };
            let t_max = [f32::INFINITY, 1.0, 2.5][rng.below(3)];
            let cull = culls[rng.below(3)];
            let live = rng.below(256) as u32 | if i % 2 == 0 { 0xff } else { 0 };
            let pre: [RayPrecomp; 8] =
                std::array::from_fn(|r| RayPrecomp::new(lanes[r].0, lanes[r].1));
            let want: [_; 8] = std::array::from_fn(|r| {
                (live >> r & 1 != 0)
                    .then(|| bvh.first_hit(&pre[r], t_min, t_max, cull))
                    .flatten()
            });
            // the portable half: lanes 0–3 and 4–7 in two four-ray walks
            for half in 0..2 {
                let four: [Option<(&RayPrecomp, CullMode)>; 4] = std::array::from_fn(|k| {
                    let r = 4 * half + k;
                    (live >> r & 1 != 0).then_some((&pre[r], cull))
                });
                let got = bvh.first_hit_x4(four, t_min, [t_max; 4], &mut stacks.1, &mut stacks.2);
                for (k, got) in got.iter().enumerate() {
                    let r = 4 * half + k;
                    assert_eq!(*got, want[r], "portable: packet {i} lane {r}");
                }
            }
            // the AVX2 half: the eight-ray walk
            if let Some(avx2) = avx2 {
                let got = bvh.first_hit_x8(
                    &rays,
                    live,
                    cull,
                    t_min,
                    t_max,
                    (&mut stacks.0, &mut stacks.1, &mut stacks.2),
                    avx2,
                );
                for r in 0..8 {
                    assert_eq!(got[r], want[r], "AVX2: packet {i} lane {r}");
                }
            }
            hits += want.iter().filter(|w| w.is_some()).count();
        }
    }
    assert!(hits > 8000, "{hits}");
    // (straight to stderr: the harness keeps a passing test's eprintln!)
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "eight_ray_walk_equals_one_ray_walks: portable half ran; AVX2 half {}",
        if avx2.is_some() {
            "ran"
        } else {
            "not run (this CPU has no AVX2)"
        }
    );
}

#[test]
fn sphere_matches_brute_force() {
    let (pos, tris) = uv_sphere(50, 50, Vec3::new(0.3, -0.2, 0.1), 2.0);
    assert!(tris.len() > 4800);
    let hits = check_against_brute_force(&pos, &tris, 2500, 21);
    assert!(hits > 1000, "{hits}");
}

#[test]
fn grid_matches_brute_force() {
    let mut rng = Rng(22);
    let (pos, tris) = grid(40, 0.5, &mut rng);
    let hits = check_against_brute_force(&pos, &tris, 2500, 23);
    assert!(hits > 1000, "{hits}");
}

#[test]
fn soup_matches_brute_force() {
    let mut rng = Rng(24);
    let (pos, tris) = soup(2000, &mut rng);
    let hits = check_against_brute_force(&pos, &tris, 2500, 25);
    assert!(hits > 1000, "{hits}");
}

#[test]
fn soup_with_invalid_triangles_matches_brute_force() {
    let mut rng = Rng(26);
    let (mut pos, mut tris) = soup(1500, &mut rng);
    for k in 0..150 {
        let i = rng.below(pos.len());
        pos[i][k % 3] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][k % 3];
    }
    tris.push([0, 1, pos.len() as u32]);
    let bvh = Bvh::build(&pos, &tris);
    assert!(bvh.triangle_count() < 1450);
    assert!(bvh.root_bounds().min.is_finite() && bvh.root_bounds().max.is_finite());
    let hits = check_against_brute_force(&pos, &tris, 1500, 27);
    assert!(hits > 300, "{hits}");
}

#[test]
fn exact_ties_pick_the_smallest_index() {
    // Every triangle duplicated (same vertex indices) far away in index
    // order: equal t, the original (smaller) index must win.
    let mut rng = Rng(28);
    let (pos, mut tris) = soup(1000, &mut rng);
    let dup: Vec<[u32; 3]> = tris.iter().rev().copied().collect();
    tris.extend(dup);
    let hits = check_against_brute_force(&pos, &tris, 1500, 29);
    assert!(hits > 300, "{hits}");
    let bvh = Bvh::build(&pos, &tris);
    let b = bvh.root_bounds();
    let mut found = 0;
    for _ in 0..1000 {
        let (ray, t_min, t_max, cull) = random_ray(&mut rng, &pos, &tris, &b);
        if let Some((id, _)) = bvh.first_hit(&ray, t_min, t_max, cull) {
            assert!(id < 1000);
            found += 1;
        }
    }
    assert!(found > 200);
    // All triangles identical: coincident centroids → median splits.
    let same = vec![[0u32, 1, 2]; 1000];
    let bvh = Bvh::build(&pos, &same);
    bvh.validate(&pos, &same).unwrap();
    assert!(bvh.depth() <= 10, "{}", bvh.depth());
    let c = (pos[0] + pos[1] + pos[2]) / 3.0;
    let ray = RayPrecomp::new(c + Vec3::splat(5.0), -Vec3::splat(5.0));
    let h = bvh.first_hit(&ray, 0.0, f32::INFINITY, CullMode::None);
    assert_eq!(h.map(|h| h.0), Some(0));
    let mut out = Vec::new();
    bvh.all_hits(&ray, 0.0, f32::INFINITY, CullMode::None, &mut out);
    assert_eq!(out.len(), 1000);
    assert!(out.iter().enumerate().all(|(i, h)| h.0 == i as u32));
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

#[test]
fn grid_is_watertight_through_the_bvh() {
    let mut rng = Rng(31);
    let n = 40;
    let (pos, tris) = grid(n, 0.5, &mut rng);
    let bvh = Bvh::build(&pos, &tris);
    let interior = |v: u32| {
        let (x, y) = (v as usize % (n + 1), v as usize / (n + 1));
        x > 0 && y > 0 && x < n && y < n
    };
    for i in 0..6000 {
        let t = tris[rng.below(tris.len())];
        let k = rng.below(3);
        let (a, b) = (t[k], t[(k + 1) % 3]);
        // A shared edge has at least one interior endpoint... or lies on
        // the boundary; aim only at edges/vertices inside the grid.
        let target = if i % 2 == 0 {
            if !interior(a) {
                continue;
            }
            pos[a as usize]
        } else {
            if !(interior(a) || interior(b)) {
                continue;
            }
            pos[a as usize].lerp(pos[b as usize], rng.range(0.05, 0.95))
        };
        let dir_up = Vec3::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5), 1.0);
        let o = target + dir_up * rng.range(2.0, 30.0) * if i % 3 == 0 { -1.0 } else { 1.0 };
        let ray = RayPrecomp::new(o, target - o);
        let h = bvh.first_hit(&ray, 0.0, f32::INFINITY, CullMode::None);
        assert!(h.is_some(), "ray {i} {o:?} -> {target:?}");
        assert_eq!(
            h,
            brute_first(&pos, &tris, &ray, 0.0, f32::INFINITY, CullMode::None)
        );
    }
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
    let q = moved.quads.iter_mut().find(|q| q.count[0] > 0).unwrap();
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
        assert_eq!(one.quads.len(), many.quads.len());
        assert_eq!((one.root, one.root_bounds), (many.root, many.root_bounds));
        assert_eq!((one.node_count, one.depth), (many.node_count, many.depth));
    }
}

#[test]
fn binary_shaped_tree_gives_the_same_hits() {
    let mut rng = Rng(34);
    let (pos, tris) = soup(1500, &mut rng);
    let wide = Bvh::build(&pos, &tris);
    let binary = Bvh::build_impl(&pos, &tris, false);
    binary.validate(&pos, &tris).unwrap();
    assert!(binary.depth() > wide.depth());
    assert!(binary
        .quads
        .iter()
        .all(|q| (0..4).filter(|&k| q.lane_used(k)).count() == 2));
    let b = wide.root_bounds();
    for _ in 0..1500 {
        let (ray, t_min, t_max, cull) = random_ray(&mut rng, &pos, &tris, &b);
        assert_eq!(
            wide.first_hit(&ray, t_min, t_max, cull),
            binary.first_hit(&ray, t_min, t_max, cull)
        );
    }
}

#[test]
fn axis_aligned_rays_match_brute_force() {
    // Zero direction components take the generic slab path (and meet
    // unused quad lanes there).
    let mut rng = Rng(35);
    let (sphere_pos, sphere_tris) = uv_sphere(30, 30, Vec3::new(0.1, 0.2, 0.3), 1.0);
    let (grid_pos, grid_tris) = grid(20, 0.5, &mut rng);
    for (pos, tris) in [(&sphere_pos, &sphere_tris), (&grid_pos, &grid_tris)] {
        let bvh = Bvh::build(pos, tris);
        let b = bvh.root_bounds();
        let mut hits = 0;
        for i in 0..3000 {
            let mut d = Vec3::ZERO;
            d[i % 3] = if i % 2 == 0 { 1.0 } else { -1.0 };
            if i % 5 == 0 {
                d[(i + 1) % 3] = rng.range(-1.0, 1.0); // one zero component
            }
            // Origins on vertex coordinates too, to hit the 0 * inf case.
            let mut o = in_box(&mut rng, &b) - d * 3.0 * (b.max - b.min).max_element();
            if i % 3 == 0 {
                let v = pos[rng.below(pos.len())];
                for k in 0..3 {
                    if d[k] == 0.0 {
                        o[k] = v[k];
                    }
                }
            }
            let ray = RayPrecomp::new(o, d);
            for (t_min, t_max) in [(0.0, f32::INFINITY), (f32::NEG_INFINITY, 1e9)] {
                let expect = brute_first(pos, tris, &ray, t_min, t_max, CullMode::None);
                let got = bvh.first_hit(&ray, t_min, t_max, CullMode::None);
                assert_eq!(got, expect, "ray {i} {ray:?}");
                hits += got.is_some() as usize;
            }
        }
        assert!(hits > 1000, "{hits}");
    }
}

#[test]
fn parallel_built_tree_matches_brute_force() {
    let (pos, tris) = uv_sphere(130, 130, Vec3::ZERO, 1.0);
    assert!(tris.len() > PAR_BIN_MIN);
    let hits = check_against_brute_force(&pos, &tris, 300, 33);
    assert!(hits > 100, "{hits}");
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
