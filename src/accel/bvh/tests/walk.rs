//! The walks' tests: the one-ray walk against brute force on spheres,
//! grids and soups (ties, watertightness, axis-aligned rays, parallel and
//! binary-shaped trees, random grid meshes), and the four- and eight-ray
//! walks and every instruction set's build against the one-ray walk.

use super::*;

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

/// A walk's answer with every bit of it: triangle, `t`, barycentrics,
/// facing (`TriHit`'s `==` takes `-0.0` for `0.0`).
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

/// [`hit_bits`] of a walk's answer with its leaf, which must hold the hit
/// triangle with the mesh's corners (what the compact batch's normals read).
fn leaf_hit_bits(
    bvh: &Bvh,
    pos: &[Vec3],
    tris: &[[u32; 3]],
    h: Option<crate::accel::bvh::traverse::LeafHit>,
) -> Option<(u32, u32, [u32; 3], bool)> {
    if let Some(((id, _), leaf)) = h {
        let want = tris[id as usize].map(|v| pos[v as usize]);
        assert_eq!(bvh.leaf_corners(leaf, id), Some(want), "the hit's leaf");
    }
    hit_bits(h.map(|(hit, _)| hit))
}

/// The walks' builds for each instruction set agree bit for bit: the
/// portable lanes (`Scalar`, what `wasm32` runs), SSE's two halves and,
/// on a CPU with AVX2, its 256-bit lanes, for the one-ray walk (against
/// brute force too) and the four-ray walk, on rays from everywhere and
/// bundles of neighbouring rays. (The AVX2 build is compared where the CPU
/// has it, which the CI's machines do; `Isa::detect` is asserted to find
/// it there.)
#[test]
fn walk_builds_agree_bit_for_bit() {
    use crate::cpu::{Isa, Kernel, Scalar};
    let isa = Isa::detect();
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        matches!(isa, Isa::Avx2(_)),
        crate::cpu::has_avx2(),
        "Isa::detect"
    );
    let mut rng = Rng(0x4a11_0000_0000_0b17);
    let (sphere_p, sphere_t) = uv_sphere(60, 40, Vec3::new(0.3, -0.2, 0.1), 2.0);
    let (grid_p, grid_t) = grid(24, 0.4, &mut rng);
    let meshes = [(sphere_p, sphere_t), (grid_p, grid_t), soup(3000, &mut rng)];
    let culls = [CullMode::None, CullMode::Back, CullMode::Front];
    let (mut s1, mut s4) = (MeshStack::new(), PacketStack::new());
    let mut hits = 0;
    for (pos, tris) in &meshes {
        let bvh = Bvh::build(pos, tris);
        let b = bvh.root_bounds();
        for i in 0..1500 {
            let rays: [RayPrecomp; 4] = if i % 2 == 0 {
                std::array::from_fn(|_| random_ray(&mut rng, pos, tris, &b).0)
            } else {
                let (o, target) = bundle(&mut rng, &b);
                let step = rng.vec3(-0.05, 0.05);
                std::array::from_fn(|r| RayPrecomp::new(o, target + step * r as f32 - o))
            };
            let t_min = if i % 7 == 0 { 0.5 } else { 0.0 };
            let t_max: [f32; 4] = std::array::from_fn(|_| [f32::INFINITY, 1.0, 2.5][rng.below(3)]);
            let cull: [CullMode; 4] = std::array::from_fn(|_| culls[rng.below(3)]);
            for r in 0..4 {
                let (ray, t_max, cull) = (&rays[r], t_max[r], cull[r]);
                macro_rules! walk {
                    () => {
                        FirstHit {
                            bvh: &bvh,
                            ray,
                            t_min,
                            t_max,
                            cull,
                            stack: &mut s1,
                        }
                    };
                }
                let want = hit_bits(brute_first(pos, tris, ray, t_min, t_max, cull));
                assert_eq!(
                    leaf_hit_bits(&bvh, pos, tris, walk!().run(Scalar)),
                    want,
                    "{i}/{r}"
                );
                #[cfg(target_arch = "x86_64")]
                assert_eq!(
                    leaf_hit_bits(&bvh, pos, tris, walk!().run(crate::cpu::Sse)),
                    want,
                    "{i}/{r}"
                );
                assert_eq!(
                    leaf_hit_bits(&bvh, pos, tris, isa.run(walk!())),
                    want,
                    "{i}/{r}"
                );
                assert_eq!(hit_bits(bvh.first_hit(ray, t_min, t_max, cull)), want);
                hits += usize::from(want.is_some());
            }
            let lanes: [Option<(&RayPrecomp, CullMode)>; 4] =
                std::array::from_fn(|r| Some((&rays[r], cull[r])));
            macro_rules! walk4 {
                () => {
                    Walk4 {
                        bvh: &bvh,
                        rays: lanes,
                        t_min,
                        t_max,
                        stack: &mut s4,
                        single: &mut s1,
                    }
                };
            }
            let want = walk4!().run(Scalar).map(hit_bits);
            #[cfg(target_arch = "x86_64")]
            assert_eq!(walk4!().run(crate::cpu::Sse).map(hit_bits), want);
            assert_eq!(isa.run(walk4!()).map(hit_bits), want);
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

#[test]
fn binary_shaped_tree_gives_the_same_hits() {
    let mut rng = Rng(34);
    let (pos, tris) = soup(1500, &mut rng);
    let wide = Bvh::build(&pos, &tris);
    let binary = Bvh::build_impl(&pos, &tris, false);
    binary.validate(&pos, &tris).unwrap();
    assert!(binary.depth() > wide.depth());
    assert!(binary.nodes.iter().all(|q| q.used().count() == 2));
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

/// A mesh on a coarse grid (shared vertices and edges, coplanar and
/// coincident triangles, rays through edges and corners) and one ray with
/// its range and cull mode, for the property test below.
#[allow(clippy::type_complexity)]
fn grid_mesh_and_ray() -> impl proptest::strategy::Strategy<
    Value = (Vec<[i8; 3]>, Vec<[u8; 3]>, [i8; 3], [i8; 3], (u8, u8, u8)),
> {
    let coord = || [-4i8..=4, -4i8..=4, -4i8..=4];
    (
        proptest::collection::vec(coord(), 3..24),
        proptest::collection::vec([0u8..24, 0u8..24, 0u8..24], 1..48),
        [-12i8..=12, -12i8..=12, -12i8..=12],
        coord(),
        (0u8..3, 0u8..3, 0u8..3),
    )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// Every build of the one-ray walk (the portable lanes of `wasm32`,
    /// SSE's, the CPU's best) and the binary-shaped tree's walk give brute
    /// force's first hit, bit for bit, on meshes of coarse-grid triangles
    /// and rays from grid points.
    #[test]
    fn walks_equal_brute_force_on_grid_meshes(
        (verts, tris, origin, target, (range, cull, scale)) in grid_mesh_and_ray()
    ) {
        use crate::cpu::{Isa, Kernel, Scalar};
        let pos: Vec<Vec3> = verts
            .iter()
            .map(|v| Vec3::new(v[0].into(), v[1].into(), v[2].into()) * 0.5)
            .collect();
        // (indices past the vertices make invalid triangles, left out)
        let tris: Vec<[u32; 3]> = tris.iter().map(|t| t.map(u32::from)).collect();
        let o = Vec3::new(origin[0].into(), origin[1].into(), origin[2].into()) * 0.75;
        let to = Vec3::new(target[0].into(), target[1].into(), target[2].into()) * 0.5;
        let ray = RayPrecomp::new(o, (to - o) * [1.0, 0.25, 3.0][usize::from(scale)]);
        let (t_min, t_max) = [(0.0, f32::INFINITY), (0.5, 1.0), (f32::NEG_INFINITY, 2.0)]
            [usize::from(range)];
        let cull = [CullMode::None, CullMode::Back, CullMode::Front][usize::from(cull)];
        let want = hit_bits(brute_first(&pos, &tris, &ray, t_min, t_max, cull));
        let wide = Bvh::build(&pos, &tris);
        let binary = Bvh::build_impl(&pos, &tris, false);
        let mut stack = MeshStack::new();
        macro_rules! walk {
            () => {
                FirstHit { bvh: &wide, ray: &ray, t_min, t_max, cull, stack: &mut stack }
            };
        }
        // (the kernels are run only on the rays of the fast walk, which
        // `first_hit` chooses by `walks_fast`)
        if wide.walks_fast(&ray, t_min, t_max) {
            proptest::prop_assert_eq!(leaf_hit_bits(&wide, &pos, &tris, walk!().run(Scalar)), want);
            #[cfg(target_arch = "x86_64")]
            proptest::prop_assert_eq!(leaf_hit_bits(&wide, &pos, &tris, walk!().run(crate::cpu::Sse)), want);
            proptest::prop_assert_eq!(leaf_hit_bits(&wide, &pos, &tris, Isa::detect().run(walk!())), want);
        }
        proptest::prop_assert_eq!(hit_bits(wide.first_hit(&ray, t_min, t_max, cull)), want);
        proptest::prop_assert_eq!(hit_bits(binary.first_hit(&ray, t_min, t_max, cull)), want);
    }
}

/// `by_distance` orders the lanes of a mask farthest first, a higher lane
/// first among equal distances (the order the walk pushes them in), as a
/// sort does: random masks of three or more lanes over distances drawn
/// from a few values (many ties), lanes outside the mask holding anything.
#[test]
fn by_distance_orders_as_a_sort() {
    let mut rng = Rng(0x4a11_0000_0000_0b1d);
    for _ in 0..5000 {
        let mask = loop {
            let m = rng.below(256) as u32;
            if m.count_ones() >= 3 {
                break m;
            }
        };
        let near: [f32; WIDTH] = std::array::from_fn(|_| match rng.below(5) {
            0 => f32::NAN,
            k => k as f32 * 0.5,
        });
        let near = std::array::from_fn(|k| {
            if mask >> k & 1 == 1 && near[k].is_nan() {
                0.0
            } else {
                near[k]
            }
        });
        let mut want: Vec<usize> = (0..WIDTH).filter(|&k| mask >> k & 1 == 1).collect();
        want.sort_by(|&a, &b| near[b].total_cmp(&near[a]).then(b.cmp(&a)));
        let got = super::super::traverse::by_distance(mask, &near);
        let got: Vec<usize> = got[..want.len()].iter().map(|&k| usize::from(k)).collect();
        assert_eq!(got, want, "mask {mask:08b}, near {near:?}");
    }
}

/// Rays walked together, interleaved step by step
/// (`Bvh::first_leaf_hits_on`), get each what its one-ray walk gives it,
/// bit for bit and with the same leaf, through `Isa::detect`'s lanes (AVX2
/// on the CI's machines) and the baseline's, and the interleaved kernel
/// gives the same on the portable lanes (`Scalar`, what `wasm32` runs):
/// groups of one to eight rays mixing rays of the fast walk with rays that
/// walk alone (negative `t_min`, zero direction components, a zero
/// direction, empty ranges), on a sphere, a grid and a soup.
#[test]
fn interleaved_walks_equal_one_ray_walks() {
    use crate::accel::bvh::interleave::Interleaved;
    use crate::accel::bvh::INTERLEAVE;
    use crate::cpu::{Isa, Kernel, Scalar};
    let mut rng = Rng(0x4a11_0000_0000_001e);
    let (sphere_p, sphere_t) = uv_sphere(60, 40, Vec3::new(0.3, -0.2, 0.1), 2.0);
    let (grid_p, grid_t) = crate::test_util::grid(24, 0.4, &mut rng);
    let meshes = [(sphere_p, sphere_t), (grid_p, grid_t), soup(3000, &mut rng)];
    let culls = [CullMode::None, CullMode::Back, CullMode::Front];
    let mut stacks: [MeshStack; INTERLEAVE] = std::array::from_fn(|_| MeshStack::new());
    let mut single = MeshStack::new();
    let (mut hits, mut alone) = (0, 0);
    for (pos, tris) in &meshes {
        let bvh = Bvh::build(pos, tris);
        let b = bvh.root_bounds();
        for i in 0..1500 {
            let n = 1 + rng.below(INTERLEAVE);
            let mut rays = Vec::new();
            let mut range = Vec::new();
            for _ in 0..n {
                let (ray, t_min, t_max, _) = random_ray(&mut rng, pos, tris, &b);
                let ray = match rng.below(16) {
                    0 => {
                        let mut d = Vec3::ONE / ray.inv_dir();
                        d.y = 0.0;
                        RayPrecomp::new(ray.origin(), d)
                    }
                    1 => RayPrecomp::new(ray.origin(), Vec3::ZERO),
                    _ => ray,
                };
                let (t_min, t_max) = if rng.below(16) == 0 {
                    (t_max, t_min)
                } else {
                    (t_min, t_max)
                };
                rays.push(ray);
                range.push((t_min, t_max));
            }
            let cull = culls[rng.below(3)];
            for isa in [Isa::detect(), Isa::Base] {
                let mut got = vec![None; n];
                bvh.first_leaf_hits_on(isa, &rays, &range, cull, &mut stacks, &mut got);
                for r in 0..n {
                    let (t_min, t_max) = range[r];
                    let want =
                        bvh.first_leaf_hit_on(isa, &rays[r], t_min, t_max, cull, &mut single);
                    assert_eq!(
                        leaf_hit_bits(&bvh, pos, tris, got[r]),
                        leaf_hit_bits(&bvh, pos, tris, want),
                        "group {i} ray {r}"
                    );
                    assert_eq!(got[r].map(|h| h.1), want.map(|h| h.1), "group {i} ray {r}");
                    hits += usize::from(want.is_some());
                }
            }
            // the portable lanes, on the rays of the fast walk
            let fast: Vec<(usize, &RayPrecomp, f32, f32)> = (0..n)
                .filter(|&r| bvh.walks_fast(&rays[r], range[r].0, range[r].1))
                .map(|r| (r, &rays[r], range[r].0, range[r].1))
                .collect();
            alone += n - fast.len();
            let mut got = vec![None; n];
            Interleaved {
                bvh: &bvh,
                fast: &fast,
                cull,
                stacks: &mut stacks,
                out: &mut got,
            }
            .run(Scalar);
            for &(r, ray, t_min, t_max) in &fast {
                let want = bvh.first_leaf_hit_on(Isa::Base, ray, t_min, t_max, cull, &mut single);
                assert_eq!(got[r], want, "group {i} ray {r} (Scalar)");
            }
        }
    }
    assert!(hits > 4000 && alone > 500, "{hits} {alone}");
}
