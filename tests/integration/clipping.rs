//! Near-plane clipping in homogeneous space: a triangle through the camera
//! plane renders its visible part only (not dropped, not wrapped around).

use glam::Vec3;
use softpick::{render, Camera, Mesh, Projection, RenderOptions, Scene, Transform};

fn ground(size: f32) -> Scene {
    let mut s = Scene::new();
    let p = vec![
        Vec3::new(-size, 0.0, -size),
        Vec3::new(size, 0.0, -size),
        Vec3::new(size, 0.0, size),
        Vec3::new(-size, 0.0, size),
    ];
    let m = Mesh::new("ground", p, vec![[0, 2, 1], [0, 3, 2]], [120, 160, 90]).unwrap();
    s.add_mesh(m, Transform::IDENTITY, None);
    s
}

fn camera() -> Camera {
    Camera {
        eye: Vec3::new(0.0, 1.0, 5.0),
        target: Vec3::new(0.0, 0.6, 0.0),
        up: Vec3::Y,
        projection: Projection::Perspective { fov_y_deg: 60.0 },
        near: 0.1,
        far: 200.0,
        width: 160,
        height: 120,
    }
}

#[test]
fn ground_through_camera_plane_renders_visible_part_only() {
    // the ground extends far behind the eye: both triangles cross the near plane
    let scene = ground(50.0);
    let cam = camera();
    let f = render(&scene, &cam, RenderOptions::default()).unwrap();
    assert!(
        f.stats().clipped >= 1,
        "the triangles must have been clipped"
    );
    let (mut wrong, mut covered) = (0, 0);
    for y in 0..cam.height {
        for x in 0..cam.width {
            let ray = cam.ray_for_pixel(x, y);
            // analytic: does the pixel ray meet the ground square in front?
            let t = -ray.origin.y / ray.direction.y;
            let p = ray.at(t);
            let visible = ray.direction.y < 0.0
                && t > 0.0
                && p.x.abs() < 50.0
                && p.z.abs() < 50.0
                && (p - ray.origin).length() < 150.0;
            let got = f.triangle_at(i64::from(x), i64::from(y)).is_some();
            covered += usize::from(got);
            if got != visible {
                wrong += 1;
            }
            if got {
                let d = f.depth()[(y * cam.width + x) as usize];
                assert!((0.0..=1.0).contains(&d), "depth {d} at ({x},{y})");
            }
        }
    }
    let total = (cam.width * cam.height) as usize;
    println!("clipped ground: {covered} covered, {wrong} differ from the analytic answer");
    assert!(covered > total / 3);
    // only pixels whose centre is within a hair of the horizon may differ
    assert!(wrong <= cam.width as usize, "{wrong} pixels differ");
    // nothing wrapped around into the sky: the top rows stay empty
    for x in 0..cam.width {
        assert!(f.triangle_at(i64::from(x), 0).is_none());
    }
}

#[test]
fn triangle_behind_the_camera_draws_nothing() {
    let mut s = Scene::new();
    let m = Mesh::new(
        "behind",
        vec![
            Vec3::new(-1.0, 0.0, 8.0),
            Vec3::new(1.0, 0.0, 8.0),
            Vec3::new(0.0, 1.0, 9.0),
        ],
        vec![[0, 1, 2]],
        [255, 0, 0],
    )
    .unwrap();
    s.add_mesh(m, Transform::IDENTITY, None);
    let f = render(&s, &camera(), RenderOptions::default()).unwrap();
    assert!(f.ids().iter().all(|&i| i == 0));
}

/// Clipping keeps a small vertex next to huge ones (near plane) and the
/// guard-band intersections of huge clip coordinates exact enough: both
/// triangles cover the whole frame.
#[test]
fn clipping_keeps_precision_with_huge_and_tiny_vertices() {
    let cam = crate::support::cam(64, 48);
    let cases = [
        [
            Vec3::new(-44_250_730.0, -232_071_980.0, -9963.356),
            Vec3::new(189_526_200.0, -14_895_149.0, -9177.244),
            Vec3::new(-0.460_186_03, 0.829_350_3, 4.9),
        ],
        [
            Vec3::new(-523_923_060_000.0, 328_620_300_000.0, -34.168_365),
            Vec3::new(4.608_367_8e29, -2.879_343_4e29, -30.959_118),
            Vec3::new(-176_383_440_000.0, -32_942_944_000.0, -12.720_158),
        ],
    ];
    for (k, p) in cases.iter().enumerate() {
        let mut s = Scene::new();
        let m = Mesh::new("big", p.to_vec(), vec![[0, 1, 2]], [9, 9, 9]).unwrap();
        s.add_mesh(m, Transform::IDENTITY, None);
        let f = render(&s, &cam, RenderOptions::default()).unwrap();
        let covered = f.ids().iter().filter(|&&i| i != 0).count();
        assert_eq!(covered, 64 * 48, "case {k}: {:?}", f.stats());
    }
}

/// The view of the huge-ground tests: from just above the ground, one
/// ground corner behind the eye and two far beyond the far plane.
fn close_above_ground() -> Camera {
    Camera {
        eye: Vec3::new(0.0, 1.7, 3.0),
        target: Vec3::ZERO,
        far: 1000.0,
        width: 96,
        height: 96,
        ..camera()
    }
}

/// One ground triangle (y = 0) about `e` units wide around the origin.
fn ground_triangle(e: f32) -> Scene {
    let mut s = Scene::new();
    let p = vec![
        Vec3::new(-e, 0.0, -e),
        Vec3::new(e, 0.0, -e),
        Vec3::new(0.0, 0.0, e),
    ];
    let m = Mesh::new("ground", p, vec![[0, 1, 2]], [9, 9, 9]).unwrap();
    s.add_mesh(m, Transform::IDENTITY, None);
    s
}

/// The sizes of the huge-ground tests, in units from the origin to a
/// corner's far coordinate.
const HUGE: [f32; 13] = [
    1e3, 1e5, 1e6, 1e7, 1e8, 1e9, 1e12, 1e15, 1e17, 1e18, 1e20, 1e30, 1e38,
];

/// A ground triangle far wider than the view, seen from just above it
/// (one corner behind the eye, two far beyond the far plane): where it
/// crosses the view is a small difference of huge clip coordinates, so
/// clipping works from f64 ones, and the vertices where two clipping
/// planes meet on the ground come from the ground's plane, not from
/// crossings on its far edges. From 10^3 to 10^38 units wide it covers
/// the same pixels as the 10^3 one, the lower half and more, each at the
/// depth of the ground plane there (the pixel ray's analytic meeting with
/// y = 0, projected) within 2·10^-6.
#[test]
fn huge_ground_triangles_clip_to_the_ground_plane() {
    let cam = close_above_ground();
    let mut reference = None;
    for e in HUGE {
        let s = ground_triangle(e);
        let f = render(&s, &cam, RenderOptions::default()).unwrap();
        assert!(f.stats().clipped >= 1, "{e}: not clipped");
        let ids = f.ids().to_vec();
        let covered = ids.iter().filter(|&&i| i != 0).count();
        assert!(covered > 96 * 48, "{e}: {covered} pixels");
        match &reference {
            None => reference = Some(ids.clone()),
            Some(r) => assert!(r == &ids, "{e}: other pixels than the 10^3 ground"),
        }
        for (x, y) in [(48, 95), (10, 80), (90, 60), (48, 50), (3, 55)] {
            let ray = cam.ray_for_pixel(x, y);
            let t = -ray.origin.y / ray.direction.y;
            let want = cam.project(ray.at(t)).expect("in front").z;
            let d = f.depth()[(y * 96 + x) as usize];
            assert!(
                (d - want).abs() < 2e-6,
                "{e} ({x},{y}): depth {d}, the ground plane's {want}"
            );
        }
    }
}

/// The ray picks of the huge grounds above agree with their buffers: a
/// pixel ray hits the ground exactly where the buffer holds it (10^3 to
/// 10^38 units wide), at the ground plane's analytic depth and point:
/// an f32 triangle test alone loses the ray's origin against corners
/// 10^5 units away, so this needs the f64 refinement of far-cornered hits.
#[test]
fn huge_ground_triangles_ray_picks_agree_with_the_buffer() {
    let cam = close_above_ground();
    for e in HUGE {
        let s = ground_triangle(e);
        let f = render(&s, &cam, RenderOptions::default()).unwrap();
        let mut worst = 0.0f32;
        for y in 0..96 {
            for x in 0..96 {
                let i = (y * 96 + x) as usize;
                let ray_hit = f
                    .picks(&s)
                    .unwrap()
                    .with(softpick::PickMethod::Ray)
                    .at(i64::from(x), i64::from(y));
                let in_buffer = f.ids()[i] != 0;
                assert_eq!(
                    ray_hit.is_some(),
                    in_buffer,
                    "{e} ({x},{y}): ray {ray_hit:?}"
                );
                let Some(h) = ray_hit else { continue };
                let ray = cam.ray_for_pixel(x, y);
                let t = -ray.origin.y / ray.direction.y;
                let want = cam.project(ray.at(t)).expect("in front").z;
                worst = worst.max((h.depth - want).abs());
                assert!(
                    (h.depth - want).abs() < 2e-6,
                    "{e} ({x},{y}): ray depth {}, the ground plane's {want}",
                    h.depth
                );
                assert!(
                    (h.position - ray.at(t)).length() < 1e-4 * ray.at(t).length().max(1.0),
                    "{e} ({x},{y}): ray point {}, the ground plane's {}",
                    h.position,
                    ray.at(t)
                );
            }
        }
        assert!(worst < 2e-6, "{e}: {worst}");
    }
}

/// A tilted ground from two corners behind the eye, 2·10^5 units apart, to
/// one up to 10^30 units ahead (its vertices in every rotation): the
/// buffer holds it exactly where the pixel rays hit it, at their depth
/// (within 2·10^-6), whichever vertex comes first: the ground's plane must
/// not be taken at the far corner, where f64 rounding loses its offset.
#[test]
fn tilted_grounds_to_a_far_corner_draw_where_the_rays_hit() {
    let cam = close_above_ground();
    for far in [1e3f32, 1e10, 1e20, 1e30] {
        let p = [
            Vec3::new(0.0, -0.123_456_7 * far, -far),
            Vec3::new(-1e5, 0.0, 5.0),
            Vec3::new(1e5, 0.0, 5.0),
        ];
        for r in 0..3 {
            let mut s = Scene::new();
            let m = Mesh::new(
                "ground",
                p.to_vec(),
                vec![[r, (r + 1) % 3, (r + 2) % 3]],
                [9; 3],
            );
            s.add_mesh(m.unwrap(), Transform::IDENTITY, None);
            let f = render(&s, &cam, RenderOptions::default()).unwrap();
            assert!(f.stats().clipped == 1);
            let mut both = 0;
            for (i, (&id, &depth)) in f.ids().iter().zip(f.depth()).enumerate() {
                let (x, y) = (i as u32 % 96, i as u32 / 96);
                let ray = f
                    .picks(&s)
                    .unwrap()
                    .with(softpick::PickMethod::Ray)
                    .at(x.into(), y.into());
                assert_eq!(ray.is_some(), id != 0, "{far} {r} ({x},{y}): {ray:?}");
                if let Some(h) = ray {
                    assert!(
                        (h.depth - depth).abs() < 2e-6,
                        "{far} {r} ({x},{y}): {depth}, {h:?}"
                    );
                    both += 1;
                }
            }
            assert!(both > 96 * 48, "{far} {r}: {both}");
        }
    }
}
