//! The renderer's tests: the batched, sorted and culled paths against
//! the references they replace, frame by frame.

use glam::{Quat, Vec3};

use super::{Cull, EarlyEmpty, FrontEnd, Renderer, TileSort};
use crate::camera::{Camera, Projection};
use crate::frame::Frame;
use crate::limits::TILE_SORT_MIN_TRIS;
use crate::raster::bin::BinnedChunk;
use crate::raster::grid::TileGrid;
use crate::scene::{Mesh, Scene, Transform};
use crate::test_util::{grid, Rng};
use crate::{CullMode, FillRule, PickMethod, RenderOptions};

/// Are the chunk's records of each form stored by the tile of their
/// box corner (the order `sort_by_tile` gives)?
fn by_tile(c: &BinnedChunk, g: TileGrid) -> bool {
    let big = c.tris.iter().map(|t| crate::raster::bin::big_tile(g, t));
    let small = c.small.iter().map(|t| crate::raster::bin::small_tile(g, t));
    let sorted = |k: Vec<usize>| k.windows(2).all(|w| w[0] <= w[1]);
    sorted(big.collect()) && sorted(small.collect())
}

/// Are they in draw order (setup's order, nothing moved)?
fn in_draw_order(c: &BinnedChunk) -> bool {
    c.tris.windows(2).all(|w| w[0].id <= w[1].id) && c.small.windows(2).all(|w| w[0].id <= w[1].id)
}

/// A soup of `n` triangles of every size scattered over a box, listed
/// in no spatial order.
fn soup(rng: &mut Rng, n: usize, c: Vec3) -> Mesh {
    let pos: Vec<Vec3> = (0..n)
        .flat_map(|_| {
            let p = c + rng.vec3(-2.0, 2.0);
            let s = [0.02, 0.1, 0.5, 2.0][rng.below(4)];
            [p, p + rng.vec3(-s, s), p + rng.vec3(-s, s)]
        })
        .collect();
    let tris = (0..n as u32)
        .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
        .collect();
    Mesh::new("soup", pos, tris, [200, 120, 40]).unwrap()
}

fn render(r: &mut Renderer, sort: TileSort, scene: &Scene, cam: &Camera) -> Frame {
    r.tile_sort = sort;
    r.render(scene, cam).unwrap().clone()
}

/// A random rotation and a scale that mirrors x, or the identity.
fn placement(rng: &mut Rng, placed: bool) -> Transform {
    let mut place = Transform::IDENTITY;
    if placed {
        place.rotation = Quat::from_axis_angle(rng.unit(), rng.range(0.0, 6.0));
        place.scale = rng.vec3(0.5, 1.5) * Vec3::new(-1.0, 1.0, 1.0);
    }
    place
}

/// Round `round`'s view of `scene` in a `w` × `h` frame and its
/// options: every third round an eye among the triangles (within
/// `eye` of the origin), every fourth orthographic, the fill rules in
/// turn, color every other round, one and two threads.
fn round_view(
    rng: &mut Rng,
    round: usize,
    scene: &Scene,
    (w, h): (u32, u32),
    eye: f32,
) -> (Camera, RenderOptions) {
    let mut cam = Camera::auto_frame(&scene.bounds(), w, h);
    if round % 3 == 2 {
        cam.eye = rng.vec3(-eye, eye);
    }
    if round % 4 == 3 {
        cam.projection = Projection::Orthographic { height: 6.0 };
    }
    let opts = RenderOptions {
        rule: FillRule::ALL[round % FillRule::ALL.len()],
        color: round.is_multiple_of(2),
        threads: Some(1 + round % 2),
        ..RenderOptions::default()
    };
    (cam, opts)
}

/// The same depth (bit for bit), ID and color buffers (color when
/// rendered with it) and counters, and the same direct pick at every
/// pixel.
fn assert_same_frames(a: &Frame, b: &Frame, scene: &Scene, what: &str) {
    assert!(
        a.depth()
            .iter()
            .zip(b.depth())
            .all(|(p, q)| p.to_bits() == q.to_bits()),
        "{what}"
    );
    assert_eq!(a.ids(), b.ids(), "{what}");
    // (the color buffer means something only after a render with color)
    assert_eq!(a.has_color(), b.has_color(), "{what}");
    if a.has_color() {
        assert_eq!(a.color(), b.color(), "{what}");
    }
    assert_eq!(a.stats(), b.stats(), "{what}");
    for y in 0..i64::from(a.height()) {
        for x in 0..i64::from(a.width()) {
            assert_eq!(
                a.picks(scene).unwrap().with(PickMethod::Direct).id_at(x, y),
                b.picks(scene).unwrap().with(PickMethod::Direct).id_at(x, y),
                "{what} at ({x}, {y})"
            );
        }
    }
}

/// Storing the records tile by tile changes nothing drawn or picked:
/// random scenes of soups (records in scattered order), placed and
/// mirrored meshes, eyes among the triangles (clipping), both
/// projections, every fill rule, with and without color, one and two
/// threads. Depth, ID and color buffers, counters and the direct picks
/// of every pixel are the same as without the sort, which did move
/// records.
#[test]
fn records_sorted_by_tile_draw_and_pick_the_same() {
    let mut rng = Rng(0x7113_5047);
    let mut moved = 0;
    for round in 0..24 {
        let mut scene = Scene::new();
        for m in 0..1 + rng.below(5) {
            let n = [0, 1, 40, 700, 3000][rng.below(5)];
            let place = placement(&mut rng, m % 3 == 1);
            let c = rng.vec3(-2.0, 2.0);
            scene.add_mesh(soup(&mut rng, n, c), place, None);
        }
        let (w, h) = (1 + rng.below(300) as u32, 1 + rng.below(200) as u32);
        let (cam, opts) = round_view(&mut rng, round, &scene, (w, h), 3.0);
        let mut r = Renderer::new(opts).unwrap();
        let plain = render(&mut r, TileSort::Never, &scene, &cam);
        let sorted = render(&mut r, TileSort::Always, &scene, &cam);
        let what = format!("round {round} ({w}x{h}, {opts:?})");
        assert_same_frames(&sorted, &plain, &scene, &what);
        let g = TileGrid::new(w, h);
        assert!(sorted.chunks.iter().all(|c| by_tile(c, g)), "{what}");
        moved += sorted.chunks.iter().filter(|c| !in_draw_order(c)).count();
    }
    assert!(moved > 20, "{moved}");
}

/// Testing each triangle's box for a pixel centre before setup (on for
/// scenes with at least as many triangles as pixels) changes nothing
/// drawn, counted or picked: random dense soups, placed and mirrored,
/// eyes among the triangles (clipped triangles are tested too), both
/// projections, every fill rule, with and without color, one and two
/// threads, against the same renders with the test off.
#[test]
fn early_empty_test_draws_counts_and_picks_the_same() {
    let mut rng = Rng(0x0e4b_7e57);
    let mut tested = 0;
    for round in 0..24 {
        let mut scene = Scene::new();
        for m in 0..1 + rng.below(3) {
            let place = placement(&mut rng, m % 2 == 1);
            let c = rng.vec3(-1.0, 1.0);
            let n = 1000 + rng.below(2000);
            scene.add_mesh(soup(&mut rng, n, c), place, None);
        }
        let (w, h) = (1 + rng.below(60) as u32, 1 + rng.below(50) as u32);
        let (cam, opts) = round_view(&mut rng, round, &scene, (w, h), 2.0);
        let mut r = Renderer::new(opts).unwrap();
        r.early_empty = EarlyEmpty::Never;
        let plain = r.render(&scene, &cam).unwrap().clone();
        r.early_empty = EarlyEmpty::Auto;
        let early = r.render(&scene, &cam).unwrap().clone();
        let what = format!("round {round} ({w}x{h}, {opts:?})");
        let dense = u64::from(scene.triangle_count()) >= u64::from(w * h);
        assert!(dense, "{what}");
        tested += usize::from(opts.rule != FillRule::Inclusive);
        assert!(early.stats().empty > 0, "{what}");
        assert_same_frames(&early, &plain, &scene, &what);
    }
    assert!(tested >= 18, "{tested}");
}

/// The batched front end draws, counts and picks exactly what the
/// one-at-a-time loop drew: random scenes of soups from sub-pixel to
/// large triangles (mostly boxes of one or two pixel centres), placed
/// and mirrored meshes, eyes among the triangles (clipping), both
/// projections, every fill rule and cull mode, with and without
/// color, one and two threads; depth, IDs, color, counters and the
/// direct picks of every pixel.
#[test]
fn batches_draw_count_and_pick_as_one_at_a_time() {
    let mut rng = Rng(0xba7c_4e50_0000_0001);
    let mut small = 0;
    for round in 0..30 {
        let mut scene = Scene::new();
        for m in 0..1 + rng.below(4) {
            let place = placement(&mut rng, m % 3 == 1);
            let c = rng.vec3(-1.5, 1.5);
            let n = [1, 9, 300, 2000, 5000][rng.below(5)];
            scene.add_mesh(soup(&mut rng, n, c), place, None);
        }
        let (w, h) = (1 + rng.below(160) as u32, 1 + rng.below(120) as u32);
        let (cam, mut opts) = round_view(&mut rng, round, &scene, (w, h), 2.5);
        opts.cull = [CullMode::None, CullMode::Back, CullMode::Front][round / 4 % 3];
        let mut r = Renderer::new(opts).unwrap();
        r.front_end = FrontEnd::PerTriangle;
        let one = r.render(&scene, &cam).unwrap().clone();
        for front in [FrontEnd::Batches, FrontEnd::BaselineBatches] {
            r.front_end = front;
            let batched = r.render(&scene, &cam).unwrap().clone();
            let what = format!("round {round} ({w}x{h}, {opts:?}, {front:?})");
            assert_same_frames(&batched, &one, &scene, &what);
        }
        small += one.stats().small;
    }
    assert!(small > 10_000, "{small}");
}

/// A hash of a frame's depth (bits), ID and color buffers.
fn frame_hash(f: &Frame) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    f.ids().hash(&mut h);
    f.depth().iter().for_each(|d| d.to_bits().hash(&mut h));
    if f.has_color() {
        f.color().hash(&mut h);
    }
    h.finish()
}

/// Renders `scene` at each size, rule and thread count (1, 2, 3), with
/// and without color, by the batches and by the one-at-a-time loop,
/// with and without the occlusion cull, and checks that the buffers'
/// hashes are the same for all, and the counters for every thread
/// count and both paths. Returns how many frames.
fn same_hashes_both_ways(scene: &Scene, sizes: &[(u32, u32)]) -> usize {
    let mut frames = 0;
    for &(w, h) in sizes {
        let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
        for rule in FillRule::ALL {
            for color in [false, true] {
                // the same pixels with the occlusion cull and without
                let mut want_hash = None;
                for cull in [Cull::Never, Cull::Always] {
                    let mut want = None;
                    for threads in 1..=3 {
                        let opts = RenderOptions {
                            rule,
                            color,
                            threads: Some(threads),
                            ..RenderOptions::default()
                        };
                        let mut r = Renderer::new(opts).unwrap();
                        r.cull = cull;
                        for front in [
                            FrontEnd::PerTriangle,
                            FrontEnd::BaselineBatches,
                            FrontEnd::Batches,
                        ] {
                            r.front_end = front;
                            let f = r.render(scene, &cam).unwrap();
                            let got = (frame_hash(f), *f.stats());
                            let what = format!(
                                "{w}x{h} {rule:?} color {color} {threads} threads {front:?} {cull:?}"
                            );
                            assert_eq!(&got, want.get_or_insert(got), "{what}");
                            assert_eq!(got.0, *want_hash.get_or_insert(got.0), "{what}");
                            frames += 1;
                        }
                    }
                }
            }
        }
    }
    frames
}

/// The hashes of the frames of several models (the built-in scene, a
/// 70,000-triangle sphere, a jittered grid and a dense soup) at three
/// sizes, under every rule, with and without color, on 1, 2 and 3
/// threads, are the same by the batches as by the one-at-a-time loop.
#[test]
fn model_hashes_equal_the_reference_path() {
    let mut rng = Rng(0x4a54_0000_0000_0042);
    let sphere = {
        let (pos, tris) = softpick_testkit::uv_sphere(250, 141);
        let mut s = Scene::new();
        let mesh = Mesh::new("sphere", pos, tris, [200, 200, 200]).unwrap();
        s.add_mesh(mesh, Transform::IDENTITY, None);
        s
    };
    let grid_scene = {
        let (pos, tris) = grid(120, 0.3, &mut rng);
        let mut s = Scene::new();
        s.add_mesh(
            Mesh::new("grid", pos, tris, [9, 99, 199]).unwrap(),
            Transform::IDENTITY,
            None,
        );
        s
    };
    let mut soup_scene = Scene::new();
    soup_scene.add_mesh(
        soup(&mut rng, 20_000, Vec3::ZERO),
        Transform::IDENTITY,
        None,
    );
    let sizes = [(64, 48), (360, 360), (640, 480)];
    let mut frames = 0;
    for scene in [&crate::builtin_scene(), &sphere, &grid_scene, &soup_scene] {
        frames += same_hashes_both_ways(scene, &sizes);
    }
    assert_eq!(frames, 4 * 3 * 4 * 2 * 2 * 3 * 3);
}

/// [`model_hashes_equal_the_reference_path`] on the shared models
/// (`../shared/models`: city_san_francisco, snowden_bust, bunny_3k)
/// at 640×480 and 1920×1080. Like tests/shared_models.rs, it is built
/// only with the `shared-models` feature (`cargo test --release --lib
/// --features shared-models`), so the required tests never need them.
#[cfg(all(feature = "obj", feature = "shared-models"))]
#[test]
fn shared_model_hashes_equal_the_reference_path() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models");
    for name in ["bunny_3k.obj", "snowden_bust.obj", "city_san_francisco.obj"] {
        let path = dir.join(name);
        let (scene, _) = crate::io::obj::load_obj(&path)
            .unwrap_or_else(|e| panic!("needs {}: {e}", path.display()));
        same_hashes_both_ways(&scene, &[(640, 480), (1920, 1080)]);
    }
}

/// A render into a frame handed back from earlier renders (other
/// scenes, sizes, fill rules, color on or off, a frame of ray picks)
/// equals a fresh render: depth, IDs, color, counters and every
/// pixel's direct pick, and the frame's ray picks too; an invalid
/// camera leaves the frame as it was.
#[test]
fn render_to_a_used_frame_equals_a_fresh_render() {
    let mut rng = Rng(0x4e05_ed01);
    let mut r = Renderer::new(RenderOptions::default()).unwrap();
    let mut used = Frame::new(3, 2).unwrap();
    for round in 0..16 {
        let mut scene = Scene::new();
        for m in 0..1 + rng.below(4) {
            let n = [1, 40, 700][rng.below(3)];
            let c = rng.vec3(-2.0, 2.0);
            scene.add_mesh(soup(&mut rng, n, c), placement(&mut rng, m % 2 == 1), None);
        }
        let (w, h) = (1 + rng.below(200) as u32, 1 + rng.below(150) as u32);
        let (cam, opts) = round_view(&mut rng, round, &scene, (w, h), 3.0);
        r.set_options(opts);
        r.render_to(&scene, &cam, &mut used).unwrap();
        let fresh = super::render(&scene, &cam, opts).unwrap();
        let what = format!("round {round} ({w}x{h}, {opts:?})");
        assert_same_frames(&used, &fresh, &scene, &what);
        for (x, y) in [
            (0, 0),
            (w as i64 / 2, h as i64 / 2),
            (w as i64 - 1, h as i64 - 1),
        ] {
            let key = |f: &Frame| {
                f.picks(&scene)
                    .unwrap()
                    .with(crate::pick::PickMethod::Ray)
                    .id_at(x, y)
            };
            assert_eq!(key(&used), key(&fresh), "{what} at ({x}, {y})");
        }
        if round % 5 == 4 {
            // a frame filled by picks, handed back to the renderer
            used = Frame::from_picks(&scene, &cam, crate::CullMode::None, None, |_, ids, _| {
                ids.fill(7)
            })
            .unwrap();
        }
    }
    let before = used.ids().to_vec();
    let mut bad = Camera::auto_frame(&Scene::new().bounds(), 8, 8);
    bad.near = -1.0;
    assert!(r.render_to(&Scene::new(), &bad, &mut used).is_err());
    assert_eq!(used.ids(), &before[..]);
}

/// The renderer's own choice: a large scene listed in scattered order
/// is stored tile by tile; one listed by place (a grid, row by row),
/// or a small scattered one, keeps setup's order.
#[test]
fn records_are_sorted_for_large_scattered_scenes_only() {
    let mut rng = Rng(0x5047_0002);
    let n = TILE_SORT_MIN_TRIS as usize;
    let (pos, tris) = grid(72, 0.1, &mut rng);
    assert!(tris.len() >= n);
    let cases = [
        (soup(&mut rng, n, Vec3::ZERO), true),
        (Mesh::new("grid", pos, tris, [9, 9, 9]).unwrap(), false),
        (soup(&mut rng, n - 1, Vec3::ZERO), false),
    ];
    let mut r = Renderer::new(RenderOptions::default()).unwrap();
    for (k, (mesh, want)) in cases.into_iter().enumerate() {
        let mut scene = Scene::new();
        scene.add_mesh(mesh, Transform::IDENTITY, None);
        let cam = Camera::auto_frame(&scene.bounds(), 640, 480);
        let f = render(&mut r, TileSort::Auto, &scene, &cam);
        let g = TileGrid::new(640, 480);
        for c in &f.chunks {
            if want {
                assert!(by_tile(c, g) && !in_draw_order(c), "case {k}");
            } else {
                assert!(in_draw_order(c), "case {k}");
            }
        }
    }
}

/// Each render records how long its stages took: none before the
/// first, all three within the time around the call, the last one
/// overwriting the one before; a 2D render has no vertex stage.
#[test]
fn stage_times_cover_each_render() {
    use crate::raster::StageTimes;
    use std::time::{Duration, Instant};
    let scene = crate::builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    assert_eq!(
        Frame::new(8, 8).unwrap().stage_times(),
        StageTimes::default()
    );
    for threads in [1, 2] {
        let mut r = Renderer::new(RenderOptions {
            threads: Some(threads),
            ..RenderOptions::default()
        })
        .unwrap();
        let mut last = StageTimes::default();
        for _ in 0..3 {
            let t0 = Instant::now();
            let t = r.render(&scene, &cam).unwrap().stage_times();
            let around = t0.elapsed();
            for (stage, d) in [
                ("vertex", t.vertex),
                ("setup", t.setup),
                ("raster", t.raster),
            ] {
                assert!(d > Duration::ZERO, "{threads} threads: {stage} {t:?}");
            }
            assert!(t.total() <= around, "{t:?} within {around:?}");
            assert_ne!(t, last, "a new render, new times");
            last = t;
        }
    }
    let tri = [[[1.0, 1.0], [30.0, 2.0], [5.0, 20.0]]];
    let f = super::render_2d(32, 32, &tri, FillRule::TopLeft).unwrap();
    let t = f.stage_times();
    assert_eq!(t.vertex, Duration::ZERO);
    assert!(
        t.setup > Duration::ZERO && t.raster > Duration::ZERO,
        "{t:?}"
    );
}

/// A mesh whose vertex buffer is shuffled (a scan's draw order jumps
/// around its vertices) is set up with vertex prefetches, and gives
/// exactly the frame of the same triangles numbered in order, which is
/// set up without; `scattered` tells the two apart.
#[test]
fn a_scattered_vertex_order_gives_the_same_frame() {
    use crate::raster::bin::scattered;
    let mut rng = Rng(0x5ca7_7e2e_d000_0001);
    // 7,200 triangles: setup chunks of 512, each sampled
    let (pos, tris) = grid(60, 2.0, &mut rng);
    let mut perm: Vec<u32> = (0..pos.len() as u32).collect();
    for i in (1..perm.len()).rev() {
        perm.swap(i, rng.below(i + 1));
    }
    let mut moved = vec![Vec3::ZERO; pos.len()];
    for (old, &new) in perm.iter().enumerate() {
        moved[new as usize] = pos[old];
    }
    let renamed: Vec<[u32; 3]> = tris.iter().map(|t| t.map(|i| perm[i as usize])).collect();
    assert!(!scattered(&tris[..1000]) && scattered(&renamed[..1000]));
    assert!(!scattered(&renamed[..256]), "too few to sample");
    let scene = |p: Vec<Vec3>, t: Vec<[u32; 3]>| {
        let mut s = Scene::new();
        let mesh = Mesh::new("grid", p, t, [90, 160, 220]).unwrap();
        s.add_mesh(mesh, Transform::IDENTITY, None);
        s
    };
    let (a, b) = (scene(pos, tris), scene(moved, renamed));
    let bounds = a.framing_bounds();
    let far = Camera::auto_frame(&bounds, 200, 150);
    // and one from inside the grid's box, which clips triangles
    let near = Camera {
        eye: Vec3::new(30.0, 8.0, 1.0),
        target: Vec3::new(30.0, 40.0, 0.0),
        up: Vec3::Z,
        projection: Projection::Perspective { fov_y_deg: 70.0 },
        near: 0.5,
        far: 100.0,
        ..far
    };
    let mut clipped = 0;
    for (cam, color) in [(far, false), (far, true), (near, true)] {
        let mut r = Renderer::new(RenderOptions {
            color,
            ..RenderOptions::default()
        })
        .unwrap();
        let fa = r.render(&a, &cam).unwrap().clone();
        let fb = r.render(&b, &cam).unwrap();
        assert_eq!(fa.ids(), fb.ids());
        assert!(fa.ids().iter().filter(|&&i| i != 0).count() > 5_000);
        let bits = |f: &Frame| f.depth().iter().map(|d| d.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&fa), bits(fb));
        assert_eq!(fa.color(), fb.color());
        assert_eq!(fa.stats(), fb.stats());
        clipped += fa.stats().clipped;
    }
    assert!(clipped > 0, "the near view clips");
}
