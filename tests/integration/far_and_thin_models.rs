//! Whole models at the edges of precision: one far from the origin and a
//! generated thin-winged aircraft. The buffer and direct picks agree at
//! every pixel; the ray pick agrees away from ID edges.

use glam::{Quat, Vec3};
use softpick::{render, Camera, Frame, RenderOptions, Scene, Transform};

use crate::support::sphere_mesh;

/// Pixels whose 3×3 neighbourhood has one ID (no ID edge within 1 px).
fn interior(f: &Frame, x: u32, y: u32) -> bool {
    let id = f.ids()[(y * f.width() + x) as usize];
    id != 0
        && (y.saturating_sub(1)..=(y + 1).min(f.height() - 1)).all(|yy| {
            (x.saturating_sub(1)..=(x + 1).min(f.width() - 1))
                .all(|xx| f.ids()[(yy * f.width() + xx) as usize] == id)
        })
}

/// Buffer == direct at every pixel (full hits too); returns (pixels where
/// the ray pick agrees, interior pixels checked).
fn picks_agree(scene: &Scene, f: &Frame) -> (usize, usize) {
    let (mut agree, mut checked) = (0, 0);
    for y in 0..f.height() {
        for x in 0..f.width() {
            let (xi, yi) = (i64::from(x), i64::from(y));
            let a = f.picks(scene).unwrap().at(xi, yi);
            let b = f
                .picks(scene)
                .unwrap()
                .with(softpick::PickMethod::Direct)
                .at(xi, yi);
            assert_eq!(a, b, "({x},{y})");
            if interior(f, x, y) {
                checked += 1;
                let r = f
                    .picks(scene)
                    .unwrap()
                    .with(softpick::PickMethod::Ray)
                    .at(xi, yi)
                    .map(|h| h.global_triangle);
                agree += usize::from(r == a.map(|h| h.global_triangle));
            }
        }
    }
    (agree, checked)
}

#[test]
fn a_model_far_from_the_origin_renders_and_picks_consistently() {
    let mut scene = Scene::new();
    let q = Quat::from_rotation_y(0.3);
    scene.add_mesh(
        sphere_mesh("far_sphere", 40, 40, 12.0),
        Transform {
            translation: Vec3::new(1600.0, 2.0, -300.0),
            rotation: q,
            scale: Vec3::ONE,
        },
        None,
    );
    scene.add_mesh(
        sphere_mesh("far_moon", 12, 12, 3.0),
        Transform::from_translation(Vec3::new(1615.0, 8.0, -290.0)),
        None,
    );
    let c = Camera::auto_frame(&scene.bounds(), 320, 240);
    let f = render(&scene, &c, RenderOptions::default()).unwrap();
    let (agree, checked) = picks_agree(&scene, &f);
    println!("far from origin: ray agrees on {agree} of {checked} interior pixels");
    assert!(checked > 2_000, "{checked}");
    // the ray pick agrees on >= 99% of the pixels not within 1 px of an ID edge
    assert!(agree * 100 >= checked * 99, "{agree} of {checked}");
}

/// A generated aircraft: a fuselage, wings and a tail fin made of
/// squashed spheres (non-uniform scales, rotations, wings a few hundredths
/// thick), seen from above, from the side and nearly edge-on to the wings:
/// buffer and direct picks agree at every pixel, and the ray pick agrees on
/// at least 99% of the pixels not within 1 px of an ID edge.
#[test]
fn a_thin_winged_model_renders_and_picks_consistently() {
    let mut scene = Scene::new();
    let place = |at: Vec3, rotation: Quat, scale: Vec3| Transform {
        translation: at,
        rotation,
        scale,
    };
    let yaw = place(Vec3::ZERO, Quat::from_rotation_y(0.4), Vec3::ONE);
    let plane = scene.add_node("plane", yaw, None);
    // coarse spheres: triangles several pixels wide, so most pixels lie
    // inside one
    let part = |name: &str, n: u32| sphere_mesh(name, n, n / 2 + 1, 1.0);
    scene.add_mesh(
        part("fuselage", 16),
        place(Vec3::ZERO, Quat::IDENTITY, Vec3::new(4.0, 0.45, 0.45)),
        Some(plane),
    );
    for side in [-1.0f32, 1.0] {
        scene.add_mesh(
            part("wing", 12),
            place(
                Vec3::new(0.3, 0.0, side * 2.6),
                Quat::from_rotation_y(side * 0.25),
                Vec3::new(0.8, 0.04, 2.4),
            ),
            Some(plane),
        );
        scene.add_mesh(
            part("stabilizer", 8),
            place(
                Vec3::new(-3.6, 0.1, side * 0.8),
                Quat::IDENTITY,
                Vec3::new(0.4, 0.02, 0.8),
            ),
            Some(plane),
        );
    }
    scene.add_mesh(
        part("fin", 8),
        place(
            Vec3::new(-3.5, 0.7, 0.0),
            Quat::from_rotation_z(-0.3),
            Vec3::new(0.6, 0.8, 0.02),
        ),
        Some(plane),
    );
    let b = scene.framing_bounds();
    for (k, eye_dir) in [
        Vec3::new(0.3, 1.0, 0.4),
        Vec3::new(0.1, 0.15, 1.0),
        Vec3::new(1.0, 0.01, 0.2),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = Camera::auto_frame(&b, 480, 360);
        c.eye = c.target + eye_dir.normalize() * (c.eye - c.target).length();
        let f = render(&scene, &c, RenderOptions::default()).unwrap();
        let shown: std::collections::BTreeSet<u32> = f
            .ids()
            .iter()
            .filter_map(|&i| i.checked_sub(1))
            .filter_map(|t| scene.locate(t))
            .map(|(m, _)| m)
            .collect();
        assert!(shown.len() >= 3, "view {k}: meshes {shown:?}");
        let (agree, checked) = picks_agree(&scene, &f);
        println!("aircraft view {k}: ray agrees on {agree} of {checked} interior pixels");
        assert!(checked > 500, "view {k}: {checked}");
        assert!(
            agree * 100 >= checked * 99,
            "view {k}: {agree} of {checked}"
        );
    }
}
