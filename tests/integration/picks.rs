//! Picks: buffer and direct picks agree everywhere, compact picks equal
//! full ones, frames do not depend on threads, and coordinates outside the
//! frame or a frame picked with the wrong scene answer nothing, never a
//! panic.

use glam::Vec3;
use softpick::internals::render_2d;
use softpick::Error;
use softpick::{
    builtin_scene, render, Camera, CullMode, DepthTest, FillRule, Frame, Mesh, PickId, PickMethod,
    Projection, RenderOptions, Renderer, Scene, Transform,
};

use crate::support::Rng;

pub(crate) fn assert_direct_equals_buffer(scene: &Scene, f: &Frame, what: &str) {
    let mut covered = 0;
    for y in 0..f.height() {
        for x in 0..f.width() {
            let a = f
                .triangle_at(i64::from(x), i64::from(y))
                .map(|t| (t, f.depth()[(y * f.width() + x) as usize]));
            let b = softpick::internals::direct_triangle_at(f, i64::from(x), i64::from(y));
            assert_eq!(a, b, "{what}: pixel ({x},{y})");
            covered += usize::from(a.is_some());
        }
    }
    assert!(covered > 0, "{what}: nothing drawn");
    // full hits agree too on a sample
    for (x, y) in [
        (f.width() / 2, f.height() / 2),
        (f.width() / 3, f.height() * 2 / 3),
    ] {
        let (x, y) = (i64::from(x), i64::from(y));
        assert_eq!(
            f.picks(scene).unwrap().at(x, y),
            f.picks(scene)
                .unwrap()
                .with(softpick::PickMethod::Direct)
                .at(x, y)
        );
    }
}

const EXTREMES: [i64; 9] = [
    i64::MIN,
    i64::MIN + 1,
    -(1 << 32),
    -1,
    4_294_967_296, // 2^32: wraps to 0 if truncated to u32
    4_294_967_295,
    u32::MAX as i64 + 17,
    1 << 40,
    i64::MAX,
];

/// The built-in scene and its frame at w×h, automatic camera.
fn builtin_frame(w: u32, h: u32) -> (Scene, Frame) {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let f = render(&scene, &cam, RenderOptions::default()).unwrap();
    (scene, f)
}

/// Every pick method answers nothing at (x, y).
pub fn assert_all_none(scene: &Scene, f: &Frame, x: i64, y: i64) {
    assert!(f.picks(scene).unwrap().at(x, y).is_none(), "pick ({x},{y})");
    assert!(
        f.picks(scene)
            .unwrap()
            .with(softpick::PickMethod::Direct)
            .at(x, y)
            .is_none(),
        "pick_direct ({x},{y})"
    );
    assert!(
        f.picks(scene)
            .unwrap()
            .with(softpick::PickMethod::Ray)
            .at(x, y)
            .is_none(),
        "pick_ray ({x},{y})"
    );
    assert!(
        f.picks(scene).unwrap().all(x, y).is_empty(),
        "pick_all ({x},{y})"
    );
    assert!(
        softpick::internals::direct_triangle_at(f, x, y).is_none(),
        "triangle_at_direct ({x},{y})"
    );
    for m in PickMethod::ALL {
        assert!(
            f.picks(scene).unwrap().with(m).id_at(x, y).is_none(),
            "{m:?} ({x},{y})"
        );
    }
}

/// A random soup of triangles in front of (and some through) the camera.
pub fn random_scene(seed: u64, n: usize) -> Scene {
    let mut rng = Rng::new(seed);
    let mut s = Scene::new();
    for m in 0..4 {
        let mut pos = Vec::new();
        let mut tris = Vec::new();
        for _ in 0..n / 4 {
            let c = Vec3::new(
                rng.range(-3.0, 3.0),
                rng.range(-3.0, 3.0),
                rng.range(-6.0, 4.9),
            );
            let s = rng.range(0.01, 2.5);
            let base = pos.len() as u32;
            for _ in 0..3 {
                pos.push(c + Vec3::new(rng.range(-s, s), rng.range(-s, s), rng.range(-s, s)));
            }
            tris.push([base, base + 1, base + 2]);
        }
        let mesh = Mesh::new(
            format!("soup_{m}"),
            pos,
            tris,
            softpick::Mesh::palette_color(m),
        )
        .unwrap();
        s.add_mesh(mesh, Transform::IDENTITY, None);
    }
    s
}

pub fn soup_camera() -> Camera {
    Camera {
        eye: Vec3::new(0.0, 0.0, 5.0),
        target: Vec3::ZERO,
        up: Vec3::Y,
        projection: Projection::Perspective { fov_y_deg: 60.0 },
        near: 0.05,
        far: 30.0,
        width: 200,
        height: 150,
    }
}

#[test]
fn direct_equals_buffer_on_builtin_scene_every_rule() {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    for rule in FillRule::ALL {
        let f = render(
            &scene,
            &cam,
            RenderOptions {
                rule,
                ..RenderOptions::default()
            },
        )
        .unwrap();
        assert_direct_equals_buffer(&scene, &f, rule.name());
    }
}

/// A dense mesh renders most triangles in the mask form (pixel box at most
/// 8×8) and the rest with edge functions; both forms agree with the direct
/// picks everywhere, under every rule, depth test and cull mode.
#[test]
fn small_and_big_triangles_agree_with_direct_picks() {
    let scene = crate::support::uv_sphere(40, 21);
    for (w, h) in [(240, 180), (800, 600)] {
        let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
        for rule in FillRule::ALL {
            for depth_test in [DepthTest::Less, DepthTest::LessEqual, DepthTest::Always] {
                for cull in [CullMode::None, CullMode::Back] {
                    let opts = RenderOptions {
                        rule,
                        depth_test,
                        cull,
                        ..RenderOptions::default()
                    };
                    let f = render(&scene, &cam, opts).unwrap();
                    let st = f.stats();
                    assert!(st.small > 0 && st.small < st.setups, "{w}x{h} {st:?}");
                    assert_direct_equals_buffer(&scene, &f, &format!("{w}x{h} {opts:?}"));
                }
            }
        }
    }
}

#[test]
fn direct_equals_buffer_on_random_scenes_with_clipping() {
    for seed in 0..6 {
        let scene = random_scene(seed, 400);
        let f = render(&scene, &soup_camera(), RenderOptions::default()).unwrap();
        assert!(
            f.stats().clipped > 0,
            "seed {seed}: expected near-plane clipping"
        );
        assert_direct_equals_buffer(&scene, &f, &format!("soup {seed}"));
    }
}

#[test]
fn frames_identical_for_any_thread_count() {
    let scenes = [builtin_scene(), random_scene(42, 4000)];
    for scene in &scenes {
        let cam = Camera::auto_frame(&scene.framing_bounds(), 333, 217);
        let frames: Vec<Frame> = [1, 2, 3]
            .iter()
            .map(|&t| {
                render(
                    scene,
                    &cam,
                    RenderOptions {
                        threads: Some(t),
                        ..RenderOptions::default()
                    },
                )
                .unwrap()
            })
            .collect();
        for f in &frames[1..] {
            assert_eq!(f.ids(), frames[0].ids());
            assert_eq!(f.color(), frames[0].color());
            let (a, b): (Vec<u32>, Vec<u32>) = (
                f.depth().iter().map(|d| d.to_bits()).collect(),
                frames[0].depth().iter().map(|d| d.to_bits()).collect(),
            );
            assert_eq!(a, b);
        }
    }
}

/// The compact pick of every method is the full pick, shortened: same mesh,
/// triangles and depth at every pixel, and `Frame::hit` expands it back.
#[test]
fn compact_picks_equal_full_picks_every_method() {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 96, 72);
    let f = render(&scene, &cam, RenderOptions::default()).unwrap();
    let mut found = [0usize; 3];
    for (k, m) in PickMethod::ALL.into_iter().enumerate() {
        for y in 0..72 {
            for x in 0..96 {
                let full = f.picks(&scene).unwrap().with(m).at(x, y);
                let id = f.picks(&scene).unwrap().with(m).id_at(x, y);
                assert_eq!(id.is_some(), full.is_some(), "{m:?} ({x},{y})");
                let (Some(full), Some(id)) = (full, id) else {
                    continue;
                };
                found[k] += 1;
                assert_eq!(
                    (id.mesh, id.triangle, id.global_triangle),
                    (full.mesh, full.triangle, full.global_triangle),
                    "{m:?} ({x},{y})"
                );
                assert_eq!(id.depth.to_bits(), full.depth.to_bits(), "{m:?} ({x},{y})");
                if m != PickMethod::Ray {
                    assert_eq!(
                        f.picks(&scene).unwrap().hit(id, x, y),
                        Some(full),
                        "{m:?} ({x},{y})"
                    );
                }
            }
        }
    }
    assert!(found.iter().all(|&n| n > 1000), "{found:?}");
    assert_eq!(
        found[0], found[1],
        "buffer and direct cover the same pixels"
    );
    // runs of pixels give what single picks give, runs leaving the frame
    // included, and so does each run handed to a function (the raw ID and
    // the depth's bits here), past the 64 pixels picked at a time and up to
    // the last x there is
    for m in PickMethod::ALL {
        for y in [0u32, 20, 45, 71, 72, 500] {
            for (x, len) in [
                (0u32, 96usize),
                (10, 40),
                (90, 20),
                (96, 3),
                (400, 2),
                (0, 200),
                (u32::MAX - 70, 140),
            ] {
                let mut row = vec![None; len];
                f.picks(&scene)
                    .unwrap()
                    .with(m)
                    .span(i64::from(x), i64::from(y), &mut row);
                let mut raw = vec![(9u32, 9u32); len];
                f.picks(&scene).unwrap().with(m).span_with(
                    i64::from(x),
                    i64::from(y),
                    &mut raw,
                    |p| {
                        p.map_or((Frame::NO_TRIANGLE, 0), |p| {
                            (p.global_triangle + 1, p.depth.to_bits())
                        })
                    },
                );
                for (k, (got, raw)) in row.iter().zip(&raw).enumerate() {
                    let want = f
                        .picks(&scene)
                        .unwrap()
                        .with(m)
                        .id_at(i64::from(x) + k as i64, i64::from(y));
                    assert_eq!(*got, want, "{m:?} span at ({x},{y}) +{k}");
                    let want_raw = want.map_or((Frame::NO_TRIANGLE, 0), |p| {
                        (p.global_triangle + 1, p.depth.to_bits())
                    });
                    assert_eq!(*raw, want_raw, "{m:?} span_with at ({x},{y}) +{k}");
                }
            }
        }
    }
    // so do blocks of rows: the whole frame, odd sizes, blocks leaving the
    // frame, and no columns at all
    for m in PickMethod::ALL {
        for (x, y, width, rows) in [
            (0u32, 0u32, 96usize, 72usize),
            (10, 20, 41, 5),
            (90, 69, 9, 6),
            (5, 500, 4, 2),
            (3, 7, 0, 3),
        ] {
            // (stale picks first: every cell must be written)
            let stale = PickId {
                mesh: 7,
                triangle: 7,
                global_triangle: 7,
                depth: 0.5,
            };
            let mut block = vec![Some(stale); width.max(1) * rows];
            f.picks(&scene)
                .unwrap()
                .with(m)
                .block(i64::from(x), i64::from(y), width, &mut block);
            for (k, got) in block.iter().enumerate() {
                let want = (width > 0)
                    .then(|| {
                        let (dx, dy) = ((k % width) as i64, (k / width) as i64);
                        f.picks(&scene)
                            .unwrap()
                            .with(m)
                            .id_at(i64::from(x) + dx, i64::from(y) + dy)
                    })
                    .flatten();
                assert_eq!(*got, want, "{m:?} block at ({x},{y}) +{k}");
            }
        }
    }
}

/// Negative, out-of-frame and extreme coordinates (the library takes i64:
/// values that wrap to a pixel if truncated to u32 included) answer
/// nothing with every method.
#[test]
fn out_of_frame_coordinates_are_none_for_every_method() {
    let (scene, f) = builtin_frame(96, 64);
    // a covered pixel, to be sure the frame is not empty
    let covered = (0..64i64)
        .flat_map(|y| (0..96i64).map(move |x| (x, y)))
        .find(|&(x, y)| f.picks(&scene).unwrap().at(x, y).is_some())
        .expect("something is drawn");
    for &x in &EXTREMES {
        for &y in &EXTREMES {
            assert_all_none(&scene, &f, x, y);
        }
        // one coordinate in range, the other not
        assert_all_none(&scene, &f, x, covered.1);
        assert_all_none(&scene, &f, covered.0, x);
    }
    // just past each border
    for (x, y) in [
        (96, 0),
        (0, 64),
        (96, 64),
        (-1, 0),
        (0, -1),
        (95, 64),
        (96, 63),
    ] {
        assert_all_none(&scene, &f, x, y);
    }
    // the top-left corner is background
    assert!(
        f.picks(&scene).unwrap().at(0, 0).is_none(),
        "corner is background"
    );
    // the buffer accessors
    for (x, y) in [
        (96, 0),
        (0, 64),
        (-1, 0),
        (0, -1),
        (i64::from(u32::MAX), i64::from(u32::MAX)),
        (i64::from(u32::MAX), 0),
    ] {
        assert!(f.triangle_at(x, y).is_none());
        assert!(f.index(x, y).is_none());
    }
}

/// A frame picked with another scene than the one it rendered, with its
/// scene after that scene changed, or (2D triangles) with any scene, gets
/// no pick view: [`Frame::picks`] is the one check, so no pick or selection
/// can answer about geometry that is not drawn.
#[test]
fn picking_with_another_or_a_changed_scene_is_an_error() {
    let (scene, f) = builtin_frame(64, 48);
    let picks = f.picks(&scene).expect("the scene it was rendered from");
    let empty = Scene::new();
    let mut smaller = Scene::new();
    smaller.add_mesh(
        softpick::Mesh::new(
            "one",
            vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            vec![[0, 1, 2]],
            [1, 2, 3],
        )
        .unwrap(),
        softpick::Transform::IDENTITY,
        None,
    );
    // a copy is another scene too: it may change independently
    let copy = scene.clone();
    let stale = |e: Error| matches!(e, Error::StaleFrame(_));
    for other in [&empty, &smaller, &copy] {
        assert!(stale(f.picks(other).unwrap_err()));
    }
    let drawn = (0..48i64)
        .flat_map(|y| (0..64i64).map(move |x| (x, y)))
        .filter(|&(x, y)| picks.at(x, y).is_some())
        .count();
    assert!(drawn > 0);
    assert!(
        f.to_owned().picks(&scene).is_ok(),
        "a cloned frame keeps its scene"
    );

    // the same scene after a change: every change of what is drawn counts
    let mut moved = scene.clone();
    let cam = Camera::auto_frame(&moved.framing_bounds(), 64, 48);
    let f = render(&moved, &cam, RenderOptions::default()).unwrap();
    assert!(f.picks(&moved).is_ok());
    let node = moved.mesh_node(0).unwrap();
    moved.translate(node, Vec3::new(0.0, 0.1, 0.0));
    let err = f.picks(&moved).unwrap_err();
    assert!(err.to_string().contains("before it changed"), "{err}");
    let f = render(&moved, &cam, RenderOptions::default()).unwrap();
    moved.set_local(node, softpick::Transform::IDENTITY);
    assert!(stale(f.picks(&moved).unwrap_err()));
    let f = render(&moved, &cam, RenderOptions::default()).unwrap();
    moved.add_node("empty", softpick::Transform::IDENTITY, None);
    assert!(stale(f.picks(&moved).unwrap_err()));
    let f = render(&moved, &cam, RenderOptions::default()).unwrap();
    moved.add_mesh(
        smaller.meshes()[0].clone(),
        softpick::Transform::IDENTITY,
        None,
    );
    assert!(stale(f.picks(&moved).unwrap_err()));
    // rendered again, it answers
    let f = render(&moved, &cam, RenderOptions::default()).unwrap();
    assert!(f.picks(&moved).is_ok());

    // a 2D frame was rendered from no scene: IDs answer, scene picks refuse
    let f2 = render_2d(
        16,
        16,
        &[[[0.0, 0.0], [16.0, 0.0], [0.0, 16.0]]],
        FillRule::TopLeft,
    )
    .unwrap();
    assert_eq!(f2.triangle_at(2, 2), Some(0));
    assert_eq!(
        softpick::internals::direct_triangle_at(&f2, 2, 2).map(|t| t.0),
        Some(0)
    );
    assert!(stale(f2.picks(&smaller).unwrap_err()));
    assert!(stale(
        Frame::new(4, 4).unwrap().picks(&smaller).unwrap_err()
    ));
    // render_2d with invalid sizes
    assert!(render_2d(0, 5, &[], FillRule::TopLeft).is_none());
    assert!(render_2d(16385, 5, &[], FillRule::TopLeft).is_none());
    assert!(Frame::new(5, 0).is_none());
}

#[test]
fn pick_all_is_sorted_and_starts_with_the_visible_triangle() {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let f = render(&scene, &cam, RenderOptions::default()).unwrap();
    let picks = f.picks(&scene).unwrap();
    let mut stacked = 0;
    for y in (0..360).step_by(3) {
        for x in (0..360).step_by(3) {
            let all = picks.all(x, y);
            let top = picks.at(x, y);
            assert_eq!(
                all.first().map(|h| h.global_triangle),
                top.as_ref().map(|h| h.global_triangle)
            );
            assert!(all.windows(2).all(|w| w[0].depth <= w[1].depth));
            stacked += usize::from(all.len() >= 2);
        }
    }
    assert!(stacked > 100, "overlapping objects expected, got {stacked}");
}

#[test]
fn hit_records_are_consistent() {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let f = render(&scene, &cam, RenderOptions::default()).unwrap();
    let mut n = 0;
    for y in (0..360).step_by(7) {
        for x in (0..360).step_by(7) {
            let Some(h) = f.picks(&scene).unwrap().at(x, y) else {
                continue;
            };
            n += 1;
            let b = h.barycentric;
            assert!((b.x + b.y + b.z - 1.0).abs() < 1e-3, "{b}");
            assert!(
                b.min_element() > -0.05,
                "pixel centre lies in the triangle: {b}"
            );
            let m = scene.mesh(h.mesh).unwrap();
            assert_eq!(m.name(), &*h.mesh_name);
            assert_eq!(scene.global_triangle(h.mesh, h.triangle), h.global_triangle);
            let p = m.triangle(h.triangle);
            let q = p[0] * b.x + p[1] * b.y + p[2] * b.z;
            assert!(
                (q - h.position).length() < 1e-2 * (1.0 + h.distance),
                "{q} vs {}",
                h.position
            );
            assert!(h.normal.is_normalized());
        }
    }
    assert!(n > 500);
}

#[test]
fn cull_modes_keep_front_or_back_faces() {
    use softpick::CullMode;
    // a closed sphere: one side faces the camera, the other away from it
    let scene = crate::support::uv_sphere(24, 13);
    let cam = Camera::auto_frame(&scene.framing_bounds(), 120, 120);
    let frame = |cull| {
        render(
            &scene,
            &cam,
            RenderOptions {
                cull,
                ..RenderOptions::default()
            },
        )
        .unwrap()
    };
    let (none, back, front) = (
        frame(CullMode::None),
        frame(CullMode::Back),
        frame(CullMode::Front),
    );
    assert!(
        none.ids() == back.ids() || none.ids() == front.ids(),
        "without culling the nearer side shows, which is one of the culled images"
    );
    assert!(back.ids() != front.ids());
    // the raster decides facing on the snapped screen triangle, the hit record
    // on the 3D triangle: they differ only for triangles seen almost edge-on
    let (mut n, mut odd) = (0, 0);
    for y in 0..120 {
        for x in 0..120 {
            let (hb, hf) = (
                back.picks(&scene).unwrap().at(x, y),
                front.picks(&scene).unwrap().at(x, y),
            );
            assert_eq!(hb.is_some(), hf.is_some(), "same silhouette at ({x},{y})");
            let (Some(hb), Some(hf)) = (hb, hf) else {
                continue;
            };
            n += 1;
            odd += usize::from(!hb.front_face || hf.front_face);
        }
    }
    assert!(n > 1000);
    assert!(odd * 100 <= n, "{odd} of {n} pixels disagree on facing");
    assert!(back.stats().face_culled > 0 && front.stats().face_culled > 0);
}

/// Direct == buffer at every pixel, triangle and depth bits; returns the
/// number of covered pixels.
fn direct_matches_buffer_bits(f: &Frame, what: &str) -> usize {
    let mut covered = 0;
    for y in 0..f.height() {
        for x in 0..f.width() {
            let a = f
                .triangle_at(i64::from(x), i64::from(y))
                .map(|t| (t, f.depth()[(y * f.width() + x) as usize].to_bits()));
            let b = softpick::internals::direct_triangle_at(f, i64::from(x), i64::from(y))
                .map(|(t, z)| (t, z.to_bits()));
            assert_eq!(a, b, "{what}: pixel ({x},{y})");
            covered += usize::from(a.is_some());
        }
    }
    covered
}

fn opts(rule: FillRule, depth_test: DepthTest, cull: CullMode) -> RenderOptions {
    RenderOptions {
        rule,
        depth_test,
        cull,
        color: false,
        ..RenderOptions::default()
    }
}

/// Every fill rule × depth test × cull mode, on soups with near-plane
/// clipping (a clipped triangle's pieces share its ID) and triangles from
/// sub-pixel to larger than a tile (every cell level of the index).
#[test]
fn direct_equals_buffer_every_rule_depth_test_and_cull_mode() {
    for seed in [3, 11] {
        let scene = random_scene(seed, 800);
        for (w, h) in [(200, 150), (131, 257)] {
            let cam = Camera {
                width: w,
                height: h,
                ..soup_camera()
            };
            for rule in FillRule::ALL {
                for test in [DepthTest::Less, DepthTest::LessEqual, DepthTest::Always] {
                    for cull in [CullMode::None, CullMode::Back, CullMode::Front] {
                        let f = render(&scene, &cam, opts(rule, test, cull)).unwrap();
                        let what = format!("seed {seed} {w}x{h} {rule:?} {test:?} {cull:?}");
                        assert!(f.stats().clipped > 0, "{what}: expected clipping");
                        assert!(direct_matches_buffer_bits(&f, &what) > 1000, "{what}");
                    }
                }
            }
        }
    }
}

/// Stacks of triangles at exactly equal depths (duplicates in several
/// meshes, coplanar overlaps facing an orthographic camera) and at nearly
/// equal depths (coplanar overlaps on a tilted plane in perspective): the
/// draw-order tie rule of each depth test decides, as in the rasterizer.
#[test]
fn direct_equals_buffer_on_equal_depth_stacks() {
    let mut rng = Rng::new(77);
    let mut scene = Scene::new();
    // one random layer of triangles in the plane z = 0, repeated in four
    // meshes, plus a fifth mesh of other triangles in the same plane
    let layer: Vec<Vec3> = (0..600)
        .map(|_| Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0))
        .collect();
    for m in 0..5u32 {
        let pos: Vec<Vec3> = if m < 4 {
            layer.clone()
        } else {
            (0..600)
                .map(|_| Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0))
                .collect()
        };
        let tris: Vec<[u32; 3]> = (0..200).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect();
        let mesh = Mesh::new(
            format!("layer_{m}"),
            pos,
            tris,
            softpick::Mesh::palette_color(m),
        )
        .unwrap();
        scene.add_mesh(mesh, Transform::IDENTITY, None);
    }
    let ortho = Camera {
        eye: Vec3::new(0.0, 0.0, 3.0),
        target: Vec3::ZERO,
        up: Vec3::Y,
        projection: Projection::Orthographic { height: 2.2 },
        near: 0.5,
        far: 10.0,
        width: 160,
        height: 120,
    };
    let tilted = Camera {
        eye: Vec3::new(1.5, -2.0, 2.0),
        projection: Projection::Perspective { fov_y_deg: 50.0 },
        width: 150,
        height: 170,
        ..ortho
    };
    for cam in [ortho, tilted] {
        for rule in FillRule::ALL {
            for test in [DepthTest::Less, DepthTest::LessEqual, DepthTest::Always] {
                let f = render(&scene, &cam, opts(rule, test, CullMode::None)).unwrap();
                let what = format!("{:?} {rule:?} {test:?}", cam.projection);
                assert!(direct_matches_buffer_bits(&f, &what) > 5000, "{what}");
            }
        }
        // the ties really are decided by draw order: the duplicated layer
        // shows mesh 0 (first) under Less and a later mesh under LessEqual
        let first = render(&scene, &cam, RenderOptions::default()).unwrap();
        let last = render(
            &scene,
            &cam,
            opts(FillRule::TopLeft, DepthTest::LessEqual, CullMode::None),
        )
        .unwrap();
        assert_ne!(first.ids(), last.ids(), "{:?}", cam.projection);
    }
}

/// One renderer, re-rendered with another camera, size, depth test and
/// scene after direct picks were made: the index follows every render; a
/// clone keeps the index of its own render.
#[test]
fn direct_index_follows_every_render() {
    let soup = random_scene(5, 1200);
    let other = builtin_scene();
    let mut r = Renderer::new(RenderOptions::default()).unwrap();
    let f = r.render(&soup, &soup_camera()).unwrap();
    direct_matches_buffer_bits(f, "first");
    let kept = f.clone();
    let mut moved = soup_camera();
    moved.eye = Vec3::new(1.0, 0.5, 4.0);
    moved.width = 257;
    moved.height = 93;
    direct_matches_buffer_bits(r.render(&soup, &moved).unwrap(), "moved and resized");
    r.set_options(opts(FillRule::Inclusive, DepthTest::Always, CullMode::Back));
    direct_matches_buffer_bits(r.render(&soup, &moved).unwrap(), "always");
    r.set_options(opts(FillRule::Strict, DepthTest::LessEqual, CullMode::None));
    direct_matches_buffer_bits(r.render(&soup, &moved).unwrap(), "less-equal");
    let cam = Camera::auto_frame(&other.framing_bounds(), 70, 300);
    direct_matches_buffer_bits(r.render(&other, &cam).unwrap(), "other scene");
    direct_matches_buffer_bits(&kept, "clone of the first frame");
}

/// The first direct picks of a frame made from a parallel loop (the index
/// is then built inside a worker) agree with the buffer.
#[test]
fn direct_picks_from_a_parallel_loop() {
    use rayon::prelude::*;
    let scene = random_scene(8, 2000);
    let f = render(&scene, &soup_camera(), RenderOptions::default()).unwrap();
    let w = f.width() as usize;
    let direct: Vec<Option<u32>> = (0..w * f.height() as usize)
        .into_par_iter()
        .map(|p| {
            softpick::internals::direct_triangle_at(&f, (p % w) as i64, (p / w) as i64).map(|t| t.0)
        })
        .collect();
    let buffer: Vec<Option<u32>> = (0..w * f.height() as usize)
        .map(|p| f.triangle_at((p % w) as i64, (p / w) as i64))
        .collect();
    assert_eq!(direct, buffer);
}
