//! User clip planes (`ClipPlanes`): ray queries narrow each ray to what
//! the planes keep and find what is behind a cut; renders clip the
//! triangles that cross a plane; the frame's three picks agree (direct
//! with buffer everywhere, ray with buffer away from ID edges), and a
//! plane that cuts nothing changes no pixel.

use glam::Vec3;
use softpick::{
    builtin_scene, Camera, ClipPlanes, Mesh, PickMethod, Ray, RayCaster, RayOptions, RenderOptions,
    Renderer, Scene, Transform,
};

/// Two unit squares facing +z, at z = 0 (mesh 0) and z = −1 (mesh 1).
fn two_squares() -> Scene {
    let mut s = Scene::new();
    for (k, z) in [0.0f32, -1.0].into_iter().enumerate() {
        let p = vec![
            Vec3::new(-1.0, -1.0, z),
            Vec3::new(1.0, -1.0, z),
            Vec3::new(1.0, 1.0, z),
            Vec3::new(-1.0, 1.0, z),
        ];
        let m = Mesh::new(
            format!("square{k}"),
            p,
            vec![[0, 1, 2], [0, 2, 3]],
            [200; 3],
        )
        .unwrap();
        s.add_mesh(m, Transform::IDENTITY, None);
    }
    s
}

fn down_z(x: f32, y: f32) -> Ray {
    Ray::new(Vec3::new(x, y, 5.0), Vec3::NEG_Z)
}

#[test]
fn a_cut_sends_the_ray_on_to_what_is_behind() {
    let scene = two_squares();
    let caster = RayCaster::new(&scene);
    let ray = down_z(0.2, 0.3);
    let hit = |clip: &ClipPlanes| {
        let opts = RayOptions {
            clip: Some(clip),
            ..RayOptions::default()
        };
        let first = caster.first(&ray, &opts).map(|h| (h.mesh, h.distance));
        // every way of asking answers alike
        let batch = caster.first_hits([ray], &opts).next().flatten();
        assert_eq!(batch.map(|h| h.mesh), first.map(|f| f.0));
        let all: Vec<_> = caster.all(&ray, &opts).iter().map(|h| h.mesh).collect();
        assert_eq!(all.first().copied(), first.map(|f| f.0));
        (first, all)
    };
    // keep z <= −0.5: the front square is cut away
    let (first, all) = hit(&ClipPlanes::new(&[[0.0, 0.0, -1.0, -0.5]]).unwrap());
    assert_eq!(first.map(|f| f.0), Some(1));
    assert!((first.unwrap().1 - 6.0).abs() < 1e-6);
    assert_eq!(all, vec![1]);
    // keep z >= 0.5: both are cut away
    assert_eq!(
        hit(&ClipPlanes::new(&[[0.0, 0.0, 1.0, -0.5]]).unwrap()).0,
        None
    );
    // a plane along the ray that keeps it (x >= 0 at x = 0.2), and one
    // parallel to it that does not (x >= 0.5)
    assert_eq!(
        hit(&ClipPlanes::new(&[[1.0, 0.0, 0.0, 0.0]]).unwrap())
            .0
            .map(|f| f.0),
        Some(0)
    );
    assert_eq!(
        hit(&ClipPlanes::new(&[[1.0, 0.0, 0.0, -0.5]]).unwrap()).0,
        None
    );
    // a mesh's own plane cuts that mesh only
    let own = ClipPlanes::default()
        .with_mesh(0, &[[0.0, 0.0, -1.0, -0.5]])
        .unwrap();
    let (first, all) = hit(&own);
    assert_eq!(first.map(|f| f.0), Some(1));
    assert_eq!(all, vec![1]);
    let own = ClipPlanes::default()
        .with_mesh(1, &[[0.0, 0.0, -1.0, -0.5]])
        .unwrap();
    assert_eq!(hit(&own).1, vec![0, 1]);
}

#[test]
fn bad_planes_are_named() {
    // each refusal is an `Error::InvalidClipPlanes` saying what is wrong
    let msg = |r: Result<ClipPlanes, softpick::Error>| {
        let e = r.unwrap_err();
        assert!(matches!(e, softpick::Error::InvalidClipPlanes(_)), "{e:?}");
        e.to_string()
    };
    let m = msg(ClipPlanes::new(&[[0.0, 0.0, 0.0, 1.0]]));
    assert!(
        m.starts_with("invalid clip planes: ") && m.contains("zero normal"),
        "{m}"
    );
    assert!(msg(ClipPlanes::new(&[[f32::NAN, 0.0, 1.0, 1.0]])).contains("not finite"));
    let nine = [[1.0, 0.0, 0.0, 0.0]; 9];
    assert!(msg(ClipPlanes::new(&nine)).contains("at most 8"));
    let five = [[1.0, 0.0, 0.0, 0.0]; 5];
    let c = ClipPlanes::new(&five).unwrap();
    assert!(msg(c.clone().with_mesh(3, &five)).contains("at most 8"));
    // with_plane adds a plane for every mesh, counting each mesh's own
    let p = [0.0, 1.0, 0.0, 0.0];
    let seven = ClipPlanes::new(&[p; 7]).unwrap();
    let eight = seven.with_plane(p).unwrap();
    assert_eq!(eight.planes_of(0).count(), 8);
    assert!(msg(eight.with_plane(p)).contains("at most 8"));
    let own = c.with_mesh(3, &[p; 2]).unwrap();
    let own = own.with_plane(p).unwrap();
    assert_eq!((own.planes_of(0).count(), own.planes_of(3).count()), (6, 8));
    assert!(msg(own.with_plane(p)).contains("at most 8"));
    assert!(msg(ClipPlanes::default().with_plane([0.0; 4])).contains("zero normal"));
}

/// The planes of the tests below: an oblique cut through the built-in
/// scene for every mesh, and a second one of mesh 1's own.
fn cuts(scene: &Scene) -> ClipPlanes {
    let b = scene.bounds();
    let c = (b.min + b.max) * 0.5;
    let n = Vec3::new(0.6, -0.3, 0.74).normalize();
    let n1 = Vec3::new(-0.2, 0.9, 0.1).normalize();
    ClipPlanes::new(&[[n.x, n.y, n.z, -n.dot(c)]])
        .unwrap()
        .with_mesh(1, &[[n1.x, n1.y, n1.z, -n1.dot(c)]])
        .unwrap()
}

#[test]
fn a_clipped_render_draws_what_the_planes_keep_and_its_picks_agree() {
    let scene = builtin_scene();
    let clip = cuts(&scene);
    for cam in [
        Camera::auto_frame(&scene.framing_bounds(), 240, 200),
        Camera {
            eye: scene.framing_bounds().min - Vec3::splat(0.3),
            ..Camera::auto_frame(&scene.framing_bounds(), 160, 160)
        },
    ] {
        let mut r = Renderer::new(RenderOptions::default()).unwrap();
        let all = r.render(&scene, &cam).unwrap().clone();
        r.set_clip_planes(Some(clip.clone()));
        let f = r.render(&scene, &cam).unwrap();
        assert_eq!(f.clip_planes(), Some(&clip));
        let (mut covered, mut cut, mut ray_agree, mut off_edge) = (0, 0, 0, 0);
        let id = |x: i64, y: i64| f.triangle_at(x, y);
        let picks = f.picks(&scene).unwrap();
        let (direct, rays) = (picks.with(PickMethod::Direct), picks.with(PickMethod::Ray));
        for y in 0..i64::from(cam.height) {
            for x in 0..i64::from(cam.width) {
                let b = picks.at(x, y);
                let d = direct.at(x, y);
                assert_eq!(
                    b.as_ref().map(|h| h.global_triangle),
                    d.as_ref().map(|h| h.global_triangle),
                    "direct and buffer at ({x}, {y})"
                );
                if all.triangle_at(x, y).is_some() && b.is_none() {
                    cut += 1;
                }
                let Some(h) = b else { continue };
                covered += 1;
                // what is drawn is kept by the planes of its mesh (within
                // the depth buffer's resolution)
                for p in clip.planes_of(h.mesh) {
                    let s = Vec3::new(p[0], p[1], p[2]).dot(h.position) + p[3];
                    assert!(s > -1e-3, "({x}, {y}): drawn {s} behind a plane");
                }
                let r = rays.at(x, y).map(|h| h.global_triangle);
                if r == Some(h.global_triangle) {
                    ray_agree += 1;
                } else {
                    let t = h.global_triangle;
                    let edge = (-1..=1).any(|dy| (-1..=1).any(|dx| id(x + dx, y + dy) != Some(t)));
                    // (coincident surfaces of two meshes tie in depth: a
                    // clipped triangle's pieces may win a tie its whole
                    // triangle lost, so a tie may go either way)
                    let tie = rays
                        .at(x, y)
                        .is_some_and(|r| (r.distance - h.distance).abs() <= 1e-4 * h.distance);
                    off_edge += usize::from(!edge && !tie);
                }
            }
        }
        assert!(cut > 100, "the planes cut {cut} pixels away");
        assert!(covered > 1000, "{covered} pixels drawn");
        assert_eq!(
            off_edge, 0,
            "ray and buffer picks differ away from ID edges"
        );
        assert!(
            ray_agree as f64 >= 0.99 * covered as f64,
            "{ray_agree}/{covered}"
        );
        assert!(f.stats().clipped > 0);
        // the frame's rows of ray picks are its single ray picks
        let mut row = vec![None; cam.width as usize];
        let y = i64::from(cam.height / 2);
        rays.span(0, y, &mut row);
        for (x, p) in row.iter().enumerate() {
            assert_eq!(*p, rays.id_at(x as i64, y));
        }
    }
}

#[test]
fn planes_that_cut_nothing_change_no_pixel() {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 200, 160);
    let mut r = Renderer::new(RenderOptions::default()).unwrap();
    let plain = r.render(&scene, &cam).unwrap().clone();
    // far away, keeping the whole scene
    r.set_clip_planes(Some(ClipPlanes::new(&[[0.0, 1.0, 0.0, 1e4]]).unwrap()));
    let kept = r.render(&scene, &cam).unwrap();
    assert_eq!(kept.ids(), plain.ids());
    assert_eq!(kept.depth(), plain.depth());
    // no planes at all is no clipping
    r.set_clip_planes(Some(ClipPlanes::default()));
    assert_eq!(r.clip_planes(), None);
}
