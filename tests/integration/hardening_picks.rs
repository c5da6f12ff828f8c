//! Hardening, picks: negative, out-of-frame and extreme coordinates answer
//! `None` with every method (the library takes i64; the CLI parses and
//! reports non-numbers); NaN or degenerate rays hit nothing; a frame picked
//! with the wrong scene, or one without a camera, never panics.

use glam::Vec3;
use softpick::{
    builtin_scene, raycast_all, raycast_first, render, render_2d, Camera, FillRule, Frame, Ray,
    RayOptions, RenderOptions, Renderer, Scene,
};

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

fn builtin_frame(w: u32, h: u32) -> (Scene, Frame) {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let f = render(&scene, &cam, RenderOptions::default()).unwrap();
    (scene, f)
}

fn assert_all_none(scene: &Scene, f: &Frame, x: i64, y: i64) {
    assert!(f.pick(scene, x, y).is_none(), "pick ({x},{y})");
    assert!(
        f.pick_direct(scene, x, y).is_none(),
        "pick_direct ({x},{y})"
    );
    assert!(f.pick_ray(scene, x, y).is_none(), "pick_ray ({x},{y})");
    assert!(f.pick_all(scene, x, y).is_empty(), "pick_all ({x},{y})");
    assert!(
        f.triangle_at_direct(x, y).is_none(),
        "triangle_at_direct ({x},{y})"
    );
}

#[test]
fn out_of_frame_coordinates_are_none_for_every_method() {
    let (scene, f) = builtin_frame(96, 64);
    // a covered pixel, to be sure the frame is not empty
    let covered = (0..64i64)
        .flat_map(|y| (0..96i64).map(move |x| (x, y)))
        .find(|&(x, y)| f.pick(&scene, x, y).is_some())
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
        assert!(f.world_at(x, y).is_none());
        assert!(f.index(x, y).is_none());
    }
}

#[test]
fn nan_and_degenerate_rays_hit_nothing() {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 64, 64);
    let opts = RayOptions::default();
    let aimed = cam.ray_for_pixel(32, 40);
    let mut rays = vec![
        cam.ray_through(f32::NAN, 10.0),
        cam.ray_through(10.0, f32::NAN),
        cam.ray_through(f32::INFINITY, f32::NEG_INFINITY),
        Ray::new(aimed.origin, Vec3::ZERO),
        Ray::new(aimed.origin, Vec3::NAN),
        Ray::new(Vec3::NAN, aimed.direction),
        Ray::new(Vec3::splat(f32::INFINITY), aimed.direction),
        Ray::new(aimed.origin, Vec3::new(f32::INFINITY, 0.0, 0.0)),
    ];
    rays.push(Ray::new(aimed.origin, aimed.direction * f32::MIN_POSITIVE));
    for (k, r) in rays.iter().enumerate() {
        if k == rays.len() - 1 {
            // a tiny but valid direction: no panic, whatever it answers
            let _ = raycast_first(&scene, r, &opts);
            continue;
        }
        assert!(raycast_first(&scene, r, &opts).is_none(), "ray {k}: {r:?}");
        assert!(raycast_all(&scene, r, &opts).is_empty(), "ray {k}: {r:?}");
    }
    // NaN / inverted distance limits: nothing, no panic
    for (near, far) in [(f32::NAN, 10.0), (0.0, f32::NAN), (10.0, 1.0), (-5.0, -1.0)] {
        let o = RayOptions {
            near,
            far,
            ..RayOptions::default()
        };
        assert!(raycast_first(&scene, &aimed, &o).is_none(), "{near} {far}");
        assert!(raycast_all(&scene, &aimed, &o).is_empty(), "{near} {far}");
    }
}

#[test]
fn picking_with_the_wrong_scene_or_no_camera_never_panics() {
    let (scene, f) = builtin_frame(64, 48);
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
    let mut drawn = 0;
    for y in 0..48i64 {
        for x in 0..64i64 {
            drawn += usize::from(f.pick(&scene, x, y).is_some());
            for other in [&empty, &smaller] {
                // whatever they answer (the IDs index another scene), no panic
                let _ = f.pick(other, x, y);
                let _ = f.pick_direct(other, x, y);
                let _ = f.pick_all(other, x, y);
                let _ = f.pick_ray(other, x, y);
            }
            assert!(f.pick(&empty, x, y).is_none());
        }
    }
    assert!(drawn > 0);
    // a 2D frame has no camera: full hits are None, IDs still answer
    let f2 = render_2d(
        16,
        16,
        &[[[0.0, 0.0], [16.0, 0.0], [0.0, 16.0]]],
        FillRule::TopLeft,
    )
    .unwrap();
    assert_eq!(f2.triangle_at(2, 2), Some(0));
    assert_eq!(f2.triangle_at_direct(2, 2).map(|t| t.0), Some(0));
    for (x, y) in [(2, 2), (-1, 2), (i64::MAX, 0)] {
        assert!(f2.pick(&smaller, x, y).is_none());
        assert!(f2.pick_direct(&smaller, x, y).is_none());
        assert!(f2.pick_ray(&smaller, x, y).is_none());
    }
    // render_2d with invalid sizes
    assert!(render_2d(0, 5, &[], FillRule::TopLeft).is_none());
    assert!(render_2d(16385, 5, &[], FillRule::TopLeft).is_none());
    assert!(Frame::new(5, 0).is_none());
}

#[test]
fn a_reused_renderer_answers_for_its_latest_size_only() {
    let scene = builtin_scene();
    let mut r = Renderer::new(RenderOptions::default()).unwrap();
    let big = Camera::auto_frame(&scene.framing_bounds(), 200, 150);
    let small = big.try_with_size(20, 15).unwrap();
    r.render(&scene, &big).unwrap();
    let far = (150..200i64)
        .flat_map(|x| (0..150i64).map(move |y| (x, y)))
        .find(|&(x, y)| r.frame().pick(&scene, x, y).is_some());
    r.render(&scene, &small).unwrap();
    let f = r.frame();
    assert_eq!((f.width(), f.height()), (20, 15));
    if let Some((x, y)) = far {
        assert_all_none(&scene, f, x, y);
    }
    // 1×1 and one-row frames
    for (w, h) in [(1, 1), (1, 300), (300, 1)] {
        let c = big.try_with_size(w, h).unwrap();
        r.render(&scene, &c).unwrap();
        let f = r.frame();
        for (x, y) in [(0, 0), (i64::from(w), 0), (0, i64::from(h)), (-1, -1)] {
            let a = f.pick(&scene, x, y).map(|h| h.global_triangle);
            let b = f.pick_direct(&scene, x, y).map(|h| h.global_triangle);
            assert_eq!(a, b, "{w}x{h} ({x},{y})");
        }
    }
}
