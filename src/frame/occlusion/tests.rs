//! The occlusion cull changes nothing drawn or picked, and does cull.

use glam::{Mat4, Quat, Vec3, Vec4};

use super::{bound_box, Cull};
use crate::camera::{clip_to_window, Camera, Projection};
use crate::frame::render::Renderer;
use crate::frame::Frame;
use crate::geometry::Aabb;
use crate::pick::PickMethod;
use crate::raster::rules::{DepthTest, FillRule};
use crate::scene::{Mesh, Scene, Transform};
use crate::select::SelectMode;
use crate::test_util::{grid, Rng};
use crate::{CullMode, RenderOptions};

/// A UV sphere of about `2·n·m` triangles around `c`.
fn sphere(n: u32, m: u32, c: Vec3, r: f32) -> Mesh {
    let (pos, tris) = softpick_testkit::uv_sphere(n, m);
    let pos = pos.into_iter().map(|p| c + p * r).collect();
    Mesh::new("sphere", pos, tris, [200, 200, 200]).unwrap()
}

/// A jittered grid of `n`×`n` cells over [0, n]², at height `z`, seen
/// face on from +z once rotated, scaled to `s` around the origin.
fn plane(rng: &mut Rng, n: usize, z: f32, s: f32, noise: f32) -> Mesh {
    let (pos, tris) = grid(n, noise, rng);
    let half = n as f32 / 2.0;
    let pos = pos
        .into_iter()
        .map(|p| Vec3::new((p.x - half) * s / half, (p.y - half) * s / half, z + p.z))
        .collect();
    Mesh::new("plane", pos, tris, [90, 160, 220]).unwrap()
}

/// Scenes built to be culled: a dense sphere; stacked planes, two of them
/// the same at the same depth (ties between meshes) and one drawn before
/// the plane in front of it; a sphere inside a placed and mirrored one;
/// the built-in scene beside a sphere.
fn scenes(rng: &mut Rng) -> Vec<(&'static str, Scene)> {
    let mut out = Vec::new();
    let mut s = Scene::new();
    s.add_mesh(sphere(200, 100, Vec3::ZERO, 1.0), Transform::IDENTITY, None);
    out.push(("sphere", s));

    let mut s = Scene::new();
    let mut twin = Rng(rng.next_u64());
    let seed = twin.0;
    s.add_mesh(plane(rng, 90, -1.0, 1.5, 0.0), Transform::IDENTITY, None);
    s.add_mesh(
        plane(&mut twin, 90, 0.0, 1.0, 0.2),
        Transform::IDENTITY,
        None,
    );
    s.add_mesh(
        plane(&mut Rng(seed), 90, 0.0, 1.0, 0.2),
        Transform::IDENTITY,
        None,
    );
    s.add_mesh(plane(rng, 60, 0.5, 0.4, 0.05), Transform::IDENTITY, None);
    out.push(("planes", s));

    let mut s = Scene::new();
    s.add_mesh(sphere(120, 60, Vec3::ZERO, 0.5), Transform::IDENTITY, None);
    let place = Transform {
        rotation: Quat::from_axis_angle(rng.unit(), rng.range(0.0, 6.0)),
        scale: Vec3::new(-1.0, 1.0, 1.2),
        ..Transform::IDENTITY
    };
    s.add_mesh(sphere(160, 80, Vec3::ZERO, 1.0), place, None);
    out.push(("nested spheres", s));

    let mut s = crate::builtin_scene();
    let b = s.bounds();
    let r = (b.max - b.min).length() * 0.2;
    s.add_mesh(sphere(150, 110, b.centroid(), r), Transform::IDENTITY, None);
    out.push(("builtin and a sphere", s));
    out
}

/// Round `round`'s camera: framed, or an eye inside the scene's box
/// (triangles cross the near plane), or orthographic, or a pinhole; a
/// random direction around the framed view.
fn camera(rng: &mut Rng, round: usize, scene: &Scene, (w, h): (u32, u32)) -> Camera {
    let b = scene.bounds();
    let mut cam = Camera::auto_frame(&b, w, h);
    let turn = Quat::from_axis_angle(rng.unit(), rng.range(-1.5, 1.5));
    cam.eye = cam.target + turn * (cam.eye - cam.target);
    match round % 4 {
        1 => cam.eye = crate::test_util::in_box(rng, &b),
        2 => {
            cam.projection = Projection::Orthographic {
                height: (b.max - b.min).length(),
            }
        }
        3 => {
            cam.projection = Projection::Pinhole {
                fx: w as f32 * 0.9,
                fy: w as f32 * 0.9,
                cx: w as f32 * 0.45,
                cy: h as f32 * 0.55,
                skew: 0.0,
            }
        }
        _ => {}
    }
    cam
}

/// The same depth (bits), IDs and color (when drawn), and the same
/// counters but for the culled triangles' (not set up: fewer setups, bin
/// entries and the like).
fn assert_same_pixels(a: &Frame, b: &Frame, what: &str) {
    let bits = |f: &Frame| f.depth().iter().map(|d| d.to_bits()).collect::<Vec<_>>();
    assert!(bits(a) == bits(b), "{what}: depth");
    assert!(a.ids() == b.ids(), "{what}: ids");
    assert_eq!(a.has_color(), b.has_color(), "{what}");
    if a.has_color() {
        assert!(a.color() == b.color(), "{what}: color");
    }
    assert_eq!(a.stats().triangles, b.stats().triangles, "{what}");
}

/// Renders with the cull forced on and off and compares.
fn culled_and_not(scene: &Scene, cam: &Camera, opts: RenderOptions, what: &str) -> (Frame, Frame) {
    let mut r = Renderer::new(opts).unwrap();
    r.cull = Cull::Always;
    let culled = r.render(scene, cam).unwrap().clone();
    r.cull = Cull::Never;
    let plain = r.render(scene, cam).unwrap().clone();
    assert_eq!(plain.stats().occluded, 0);
    assert_same_pixels(&culled, &plain, what);
    (culled, plain)
}

/// Culled frames are the frames without the cull, bit for bit: scenes
/// built to be culled, every fill rule, both depth tests that cull, every
/// face cull mode, with and without color, on 1, 2 and 3 threads, from
/// framed, inner (near-plane crossings), orthographic and pinhole
/// cameras; and the cull did cull.
#[test]
fn culled_frames_equal_frames_without_the_cull() {
    let mut rng = Rng(0x0cc1_0de5_0000_0001);
    let mut occluded = 0;
    let mut rounds = 0;
    for (name, scene) in scenes(&mut rng) {
        for round in 0..12 {
            let size = [(64, 48), (160, 120), (320, 240), (97, 131)][round % 4];
            let cam = camera(&mut rng, round / 2, &scene, size);
            let opts = RenderOptions {
                rule: FillRule::ALL[round % 4],
                cull: [CullMode::None, CullMode::Back, CullMode::Front][round % 3],
                depth_test: [DepthTest::Less, DepthTest::LessEqual][round / 3 % 2],
                color: round % 5 < 2,
                threads: Some(1 + round % 3),
            };
            let what = format!("{name} round {round} {size:?} {opts:?} {cam:?}");
            let (culled, _) = culled_and_not(&scene, &cam, opts, &what);
            occluded += culled.stats().occluded;
            rounds += 1;
        }
    }
    assert_eq!(rounds, 48);
    assert!(occluded > 100_000, "{occluded}");
}

/// Nor do they depend on which chunks are drawn first as occluders:
/// twin meshes (the same triangles twice, so that every pixel they own
/// is a tie of depth between two triangles) with the occluders picked at
/// random, so that ties fall between an occluder and a survivor drawn
/// over it that comes before it in draw order or after it, under both
/// depth tests that cull.
#[test]
fn culled_frames_do_not_depend_on_which_chunks_occlude() {
    let mut rng = Rng(0x0cc1_0de5_0000_0003);
    let mut twins = Scene::new();
    for _ in 0..2 {
        let s = sphere(90, 45, Vec3::ZERO, 1.0);
        twins.add_mesh(s, Transform::IDENTITY, None);
    }
    let planes = scenes(&mut rng).swap_remove(1);
    assert_eq!(planes.0, "planes");
    let mut rounds = 0;
    for (name, scene) in [("twin spheres", twins), planes] {
        for round in 0..8 {
            let size = [(160, 120), (97, 131)][round % 2];
            let cam = camera(&mut rng, 0, &scene, size);
            let opts = RenderOptions {
                rule: FillRule::ALL[round % 4],
                cull: CullMode::None,
                depth_test: [DepthTest::Less, DepthTest::LessEqual][round / 2 % 2],
                color: round % 3 == 0,
                threads: Some(1 + round % 3),
            };
            let seed = rng.next_u64();
            let what = format!("{name} round {round} {size:?} {opts:?} seed {seed:#x}");
            let mut r = Renderer::new(opts).unwrap();
            r.cull = Cull::Shuffled(seed);
            let shuffled = r.render(&scene, &cam).unwrap().clone();
            r.cull = Cull::Never;
            let plain = r.render(&scene, &cam).unwrap().clone();
            assert_same_pixels(&shuffled, &plain, &what);
            rounds += 1;
        }
    }
    assert_eq!(rounds, 16);
}

/// A culled frame does not depend on the thread count: its buffers and
/// counters (the culled triangles included) on 1, 2 and 3 threads.
#[test]
fn culled_frames_do_not_depend_on_the_thread_count() {
    let mut rng = Rng(0x0cc1_0de5_0000_0002);
    for (name, scene) in scenes(&mut rng) {
        let cam = camera(&mut rng, 0, &scene, (200, 150));
        let mut want = None;
        for threads in 1..=3 {
            let mut r = Renderer::new(RenderOptions {
                threads: Some(threads),
                ..RenderOptions::default()
            })
            .unwrap();
            r.cull = Cull::Always;
            let f = r.render(&scene, &cam).unwrap().clone();
            let got = (
                f.ids().to_vec(),
                f.depth().to_vec(),
                f.color().to_vec(),
                *f.stats(),
            );
            let want = want.get_or_insert(got.clone());
            assert!(want == &got, "{name}, {threads} threads");
        }
    }
}

/// The cull takes the squares of a tile the raster left clear (no
/// triangle binned to it) at depth 1 without reading them: every such
/// tile holds the clear depth and id throughout, with one renderer drawn
/// again and again over scenes, cameras and sizes (tall frames, whose
/// bands are taller, among them), culled or not.
#[test]
fn tiles_left_clear_hold_the_clear_values() {
    let mut rng = Rng(0x0cc1_0de5_0000_0005);
    let mut r = Renderer::new(RenderOptions::default()).unwrap();
    let (mut clear, mut drawn) = (0, 0);
    for (name, scene) in scenes(&mut rng) {
        for round in 0..8 {
            let size = [(160, 120), (97, 131), (200, 600), (64, 48)][round % 4];
            let cam = camera(&mut rng, round / 2, &scene, size);
            r.cull = if round % 3 == 2 {
                Cull::Never
            } else {
                Cull::Always
            };
            let f = r.render(&scene, &cam).unwrap();
            let (w, h) = (f.width as usize, f.height as usize);
            let rows = crate::limits::band_rows(f.height) as usize;
            let side = crate::limits::TILE_SIZE as usize;
            let tiles_x = w.div_ceil(side);
            assert_eq!(f.clean.len(), h.div_ceil(rows) * tiles_x, "{name}");
            for (k, &c) in f.clean.iter().enumerate() {
                let (band, tx) = (k / tiles_x, k % tiles_x);
                if !c {
                    drawn += 1;
                    continue;
                }
                clear += 1;
                for y in band * rows..((band + 1) * rows).min(h) {
                    for x in tx * side..((tx + 1) * side).min(w) {
                        let i = y * w + x;
                        assert!(
                            f.depth()[i] == 1.0 && f.ids()[i] == 0,
                            "{name} round {round}: pixel ({x}, {y}) of a clear tile"
                        );
                    }
                }
            }
        }
    }
    assert!(clear > 100 && drawn > 100, "{clear} clear, {drawn} drawn");
}

/// A sphere seen from outside loses most of its far half; the
/// renderer's own choice culls a dense frame and leaves a sparse one
/// (and the one under `Always` or with clip planes) alone.
#[test]
fn the_back_of_a_sphere_is_culled() {
    // (rings of 1,200 triangles: a chunk spans 19 degrees of one)
    let mut scene = Scene::new();
    scene.add_mesh(sphere(600, 40, Vec3::ZERO, 1.0), Transform::IDENTITY, None);
    let n = u64::from(scene.triangle_count());
    let cam = Camera::auto_frame(&scene.bounds(), 160, 120);
    let mut r = Renderer::new(RenderOptions::default()).unwrap();
    let f = r.render(&scene, &cam).unwrap();
    assert!(f.stats().occluded * 100 > n * 15, "{:?}", f.stats());
    // a big frame: under OCCLUSION_TRIS_PER_KPIXEL (0.16 triangles a pixel)
    let big = Camera::auto_frame(&scene.bounds(), 640, 480);
    assert_eq!(r.render(&scene, &big).unwrap().stats().occluded, 0);
    r.set_options(RenderOptions {
        depth_test: DepthTest::Always,
        ..RenderOptions::default()
    });
    assert_eq!(r.render(&scene, &cam).unwrap().stats().occluded, 0);
    r.set_options(RenderOptions::default());
    r.set_clip_planes(Some(
        crate::ClipPlanes::new(&[[0.0, 1.0, 0.0, 2.0]]).unwrap(),
    ));
    assert_eq!(r.render(&scene, &cam).unwrap().stats().occluded, 0);
}

/// What lists hidden triangles too (`Picks::all` and `stack` by buffer
/// and direct, through selections) lists the same on a culled frame.
#[test]
fn hidden_triangles_are_still_listed() {
    let mut rng = Rng(0x0cc1_0de5_0000_0003);
    let mut occluded = 0;
    for (name, scene) in scenes(&mut rng).into_iter().take(3) {
        let cam = camera(&mut rng, 0, &scene, (120, 90));
        let (culled, plain) = culled_and_not(&scene, &cam, RenderOptions::default(), name);
        occluded += culled.stats().occluded;
        let (a, b) = (culled.picks(&scene).unwrap(), plain.picks(&scene).unwrap());
        for _ in 0..40 {
            let (x, y) = (rng.below(120) as i64, rng.below(90) as i64);
            for m in [PickMethod::Buffer, PickMethod::Direct] {
                let ids =
                    |v: Vec<crate::Hit>| v.iter().map(|h| h.global_triangle).collect::<Vec<_>>();
                assert_eq!(
                    ids(a.with(m).all(x, y)),
                    ids(b.with(m).all(x, y)),
                    "{name} ({x}, {y})"
                );
                assert_eq!(
                    ids(a.with(m).stack(x, y)),
                    ids(b.with(m).stack(x, y)),
                    "{name}"
                );
            }
        }
        let through = |p: &crate::Picks<'_>| p.rect(30, 20, 80, 70, SelectMode::Through);
        let s = through(&a);
        assert_eq!(s, through(&b), "{name}");
        assert!(s.triangles.len() > 100, "{name}");
    }
    assert!(occluded > 1_000, "{occluded}");
}

/// The bound holds for the vertex stage's own arithmetic: random boxes
/// (far from the origin, tiny and huge), world matrices and cameras; f32
/// window depths and positions of random points of each box (corners,
/// faces, inside) never lie below its `z_lo` nor outside its rectangle.
#[test]
fn the_box_bound_holds_for_f32_vertices() {
    let mut rng = Rng(0x0cc1_0de5_0000_0004);
    let mut bounded = 0;
    for round in 0..4000 {
        let scale = [1e-3, 1.0, 1e3, 1e5][round % 4];
        let centre = rng.vec3(-1.0, 1.0) * scale * [0.0, 1.0, 30.0][round % 3];
        let half = rng.vec3(0.0, 1.0) * scale * [1e-4, 0.1, 1.0][round / 3 % 3];
        let b = Aabb {
            min: centre - half,
            max: centre + half,
        };
        let world = Mat4::from_scale_rotation_translation(
            rng.vec3(0.3, 3.0),
            Quat::from_axis_angle(rng.unit(), rng.range(0.0, 6.0)),
            rng.vec3(-scale, scale),
        );
        let (w, h) = (1 + rng.below(2000) as u32, 1 + rng.below(2000) as u32);
        let bb = Aabb {
            min: world
                .transform_point3(b.min)
                .min(world.transform_point3(b.max)),
            max: world
                .transform_point3(b.min)
                .max(world.transform_point3(b.max)),
        };
        let mut cam = Camera::auto_frame(&bb, w, h);
        if round % 5 == 0 {
            cam.projection = Projection::Orthographic {
                height: (bb.max - bb.min).length() + 1e-3,
            };
        }
        cam.eye = cam.target
            + Quat::from_axis_angle(rng.unit(), rng.range(-2.0, 2.0)) * (cam.eye - cam.target);
        let vp = cam.view_proj();
        let (vp64, world64) = (vp.as_dmat4(), world.as_dmat4());
        let abs = super::abs(&vp64) * super::abs(&world64);
        let bound = bound_box(&(vp64 * world64), &abs, &b, w, h, 1);
        if bound.z_lo == f32::NEG_INFINITY {
            continue;
        }
        bounded += 1;
        let mvp = vp * world;
        for k in 0..40 {
            let mut p = crate::test_util::in_box(&mut rng, &b);
            if k < 8 {
                p = Vec3::select(
                    glam::BVec3::new(k & 1 == 0, k & 2 == 0, k & 4 == 0),
                    b.min,
                    b.max,
                );
            }
            let clip = mvp * Vec4::new(p.x, p.y, p.z, 1.0);
            let s = clip_to_window(clip, w as f32, h as f32);
            assert!(s.z >= bound.z_lo, "round {round}: {} < {}", s.z, bound.z_lo);
            if bound.on_screen() && (0.0..w as f32).contains(&s.x) && (0.0..h as f32).contains(&s.y)
            {
                let t = super::OCCLUSION_TILE as f32;
                let (tx, ty) = ((s.x / t) as u32, (s.y / t) as u32);
                let [x0, y0, x1, y1] = bound.rect;
                assert!(
                    (x0..=x1).contains(&tx) && (y0..=y1).contains(&ty),
                    "round {round}"
                );
            }
        }
    }
    assert!(bounded > 2000, "{bounded}");
}

/// Moved vertices get new chunk boxes: a sphere whose front half is moved
/// behind its back half (and its back half to the front) is drawn as
/// without the cull, right after a culled render of the old positions.
#[test]
fn moved_vertices_get_new_boxes() {
    let mut scene = Scene::new();
    let id = scene.add_mesh(sphere(300, 60, Vec3::ZERO, 1.0), Transform::IDENTITY, None);
    let cam = Camera::auto_frame(&scene.bounds(), 120, 90);
    let opts = RenderOptions::default();
    let (before, _) = culled_and_not(&scene, &cam, opts, "before");
    assert!(before.stats().occluded > 0);
    let flipped: Vec<Vec3> = scene.meshes()[0]
        .positions()
        .iter()
        .map(|p| Vec3::new(p.x, p.y, -p.z))
        .collect();
    scene.set_positions(id, flipped).unwrap();
    let mut r = Renderer::new(opts).unwrap();
    r.cull = Cull::Always;
    let culled = r.render(&scene, &cam).unwrap().clone();
    r.cull = Cull::Never;
    let plain = r.render(&scene, &cam).unwrap().clone();
    assert_same_pixels(&culled, &plain, "after");
    assert!(culled.stats().occluded > 0);
}
