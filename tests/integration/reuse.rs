//! A reused renderer gives exactly the frame a fresh one gives: it clears
//! only the tiles its last render drew into, so every change of view,
//! scene, size and pass is checked against a render from scratch; and its
//! frame picks for the latest size only.

use glam::Vec3;
use softpick::{
    builtin_scene, render, Camera, CullMode, Mesh, RenderOptions, Renderer, Scene, Transform,
};

use crate::picks::assert_all_none;
use crate::support::Rng;

/// `meshes` clusters of random triangles spread over a 4-unit cube.
fn soup(rng: &mut Rng, meshes: u8) -> Scene {
    let mut scene = Scene::new();
    for m in 0..meshes {
        let (c, s) = (
            Vec3::new(
                rng.range(-2.0, 2.0),
                rng.range(-2.0, 2.0),
                rng.range(-2.0, 2.0),
            ),
            rng.range(0.05, 1.5),
        );
        let n = if meshes == 1 { 1 } else { 1 + rng.below(40) };
        let mut pos = Vec::new();
        for _ in 0..3 * n {
            pos.push(c + Vec3::new(rng.range(-s, s), rng.range(-s, s), rng.range(-s, s)));
        }
        let tris = (0..n as u32)
            .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
            .collect();
        let mesh = Mesh::new(format!("m{m}"), pos, tris, [200, 120 + m * 40, 60]).unwrap();
        scene.add_mesh(mesh, Transform::default(), None);
    }
    scene
}

#[test]
fn a_reused_renderer_equals_a_fresh_render_after_any_change() {
    let mut rng = Rng::new(2026);
    // (one of them a single triangle: a tile it leaves must be cleared
    // although only one triangle was ever binned to it)
    let scenes = [
        builtin_scene(),
        soup(&mut rng, 3),
        soup(&mut rng, 3),
        soup(&mut rng, 1),
    ];
    // (300×33 and 320×64 have the same number of bands and tile columns)
    let sizes = [
        (200, 130),
        (200, 130),
        (64, 64),
        (129, 97),
        (1, 1),
        (300, 33),
        (320, 64),
        // tall frames: bands of whole tile rows (`limits::band_rows`)
        (90, 600),
        (90, 600),
        (70, 512),
    ];
    let mut r = Renderer::new(RenderOptions::default()).unwrap();
    let mut drawn = 0;
    for step in 0..100 {
        let scene = &scenes[rng.below(scenes.len())];
        let (w, h) = sizes[rng.below(sizes.len())];
        let mut cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
        // zoom in and out and pan: the covered tiles change from render to render
        let back = cam.eye - cam.target;
        let pan = Vec3::new(rng.range(-1.5, 1.5), rng.range(-1.5, 1.5), 0.0) * back.length() * 0.3;
        cam.eye = cam.target + back * rng.range(0.3, 4.0) + pan;
        cam.target += pan;
        let opts = RenderOptions {
            color: rng.below(3) != 0,
            cull: [CullMode::None, CullMode::Back][rng.below(2)],
            threads: Some(2),
            ..RenderOptions::default()
        };
        r.set_options(opts);
        let got = r.render(scene, &cam).unwrap();
        let want = render(scene, &cam, opts).unwrap();
        assert_eq!(got.ids(), want.ids(), "step {step}: ids ({w}x{h})");
        assert_eq!(got.depth(), want.depth(), "step {step}: depth ({w}x{h})");
        assert_eq!(got.has_color(), opts.color);
        if opts.color {
            assert_eq!(got.color(), want.color(), "step {step}: color ({w}x{h})");
        }
        drawn += usize::from(got.ids().iter().any(|&i| i != 0));
    }
    // most views draw something, so stale pixels would show
    assert!(drawn > 60, "{drawn}");
}

/// After a render at a smaller size, a reused renderer's frame answers for
/// that size only: a pixel covered in the larger frame is out of frame now;
/// 1×1 and one-row frames pick like any other.
#[test]
fn a_reused_renderer_answers_for_its_latest_size_only() {
    let scene = builtin_scene();
    let mut r = Renderer::new(RenderOptions::default()).unwrap();
    let big = Camera::auto_frame(&scene.framing_bounds(), 200, 150);
    let small = big.try_with_size(20, 15).unwrap();
    r.render(&scene, &big).unwrap();
    // a covered pixel of the big frame outside the small one
    let (x, y) = (150..200i64)
        .flat_map(|x| (0..150i64).map(move |y| (x, y)))
        .find(|&(x, y)| r.frame().picks(&scene).unwrap().at(x, y).is_some())
        .expect("the big frame covers a pixel right of x = 150");
    r.render(&scene, &small).unwrap();
    let f = r.frame();
    assert_eq!((f.width(), f.height()), (20, 15));
    assert_all_none(&scene, f, x, y);
    // 1×1 and one-row frames
    for (w, h) in [(1, 1), (1, 300), (300, 1)] {
        let c = big.try_with_size(w, h).unwrap();
        r.render(&scene, &c).unwrap();
        let f = r.frame();
        for (x, y) in [(0, 0), (i64::from(w), 0), (0, i64::from(h)), (-1, -1)] {
            let a = f.picks(&scene).unwrap().at(x, y).map(|h| h.global_triangle);
            let b = f
                .picks(&scene)
                .unwrap()
                .with(softpick::PickMethod::Direct)
                .at(x, y)
                .map(|h| h.global_triangle);
            assert_eq!(a, b, "{w}x{h} ({x},{y})");
        }
    }
}
