//! 3D ray queries on scenes: transforms, all-hits order, limits, agreement
//! with the pick buffer, and the collision utilities.

use glam::{Quat, Vec3};
use softpick::collision::{ground_height, line_of_sight, plan_sweep, sweep_move};
use softpick::{
    builtin_scene, render, Camera, CullMode, Frame, Mesh, PickMethod, Projection, Ray, RayCaster,
    RayOptions, RenderOptions, Scene, Transform,
};

/// An axis-aligned box mesh centred at the origin with half extents `h`
/// (12 triangles, counter-clockwise seen from outside).
fn cube(name: &str, h: Vec3) -> Mesh {
    let p: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            )
        })
        .collect();
    let q = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let t = q
        .iter()
        .flat_map(|f| [[f[0], f[1], f[2]], [f[0], f[2], f[3]]])
        .collect();
    Mesh::new(name, p, t, [180, 180, 180]).unwrap()
}

#[test]
fn first_and_all_hits_on_stacked_boxes() {
    let mut s = Scene::new();
    for (i, z) in [0.0f32, -3.0, -6.0].iter().enumerate() {
        s.add_mesh(
            cube(&format!("box{i}"), Vec3::splat(0.5)),
            Transform::from_translation(Vec3::new(0.0, 0.0, *z)),
            None,
        );
    }
    let ray = Ray::new(Vec3::new(0.1, 0.2, 5.0), Vec3::NEG_Z);
    let first = RayCaster::new(&s)
        .first(&ray, &RayOptions::default())
        .expect("hit");
    assert_eq!(first.mesh, 0);
    assert!((first.distance - 4.5).abs() < 1e-4, "{}", first.distance);
    assert!(first.front_face);
    assert!((first.normal - Vec3::Z).length() < 1e-5);
    let all = RayCaster::new(&s).all(&ray, &RayOptions::default());
    assert_eq!(all.len(), 6, "enter and leave three boxes");
    let d: Vec<f32> = all.iter().map(|h| h.distance).collect();
    for (k, want) in [4.5f32, 5.5, 7.5, 8.5, 10.5, 11.5].iter().enumerate() {
        assert!((d[k] - want).abs() < 1e-4, "{d:?}");
    }
    assert!(all
        .iter()
        .map(|h| h.front_face)
        .eq([true, false, true, false, true, false]));
    // near / far limits and culling
    let lim = RayOptions {
        near: 5.0,
        far: 10.0,
        ..RayOptions::default()
    };
    assert_eq!(RayCaster::new(&s).all(&ray, &lim).len(), 3);
    let back = RayOptions {
        cull: CullMode::Back,
        ..RayOptions::default()
    };
    assert!(RayCaster::new(&s)
        .all(&ray, &back)
        .iter()
        .all(|h| h.front_face));
    let only2 = |m: u32| m == 2;
    let filt = RayOptions {
        filter: Some(&only2),
        ..RayOptions::default()
    };
    assert_eq!(RayCaster::new(&s).first(&ray, &filt).unwrap().mesh, 2);
}

#[test]
fn transformed_child_of_moved_group_is_hit_where_it_is_drawn() {
    let mut s = Scene::new();
    let g = s.add_node(
        "group",
        Transform::from_translation(Vec3::new(1.0, 0.0, 0.0)),
        None,
    );
    let child = Transform {
        translation: Vec3::new(0.0, 0.5, -1.0),
        rotation: Quat::from_rotation_y(0.7) * Quat::from_rotation_x(-0.3),
        scale: Vec3::new(1.5, 0.5, 2.0),
    };
    let m = s.add_mesh(cube("child", Vec3::splat(0.4)), child, Some(g));
    s.translate(g, Vec3::new(-0.5, 0.25, 0.0)); // move the group after building
    let cam = Camera::auto_frame(&s.bounds(), 160, 120);
    let f = render(&s, &cam, RenderOptions::default()).unwrap();
    let (mut checked, mut agree) = (0, 0);
    for y in 0..120 {
        for x in 0..160 {
            let buf = f.picks(&s).unwrap().at(x, y);
            let ray = f
                .picks(&s)
                .unwrap()
                .with(softpick::PickMethod::Ray)
                .at(x, y);
            if let Some(b) = &buf {
                checked += 1;
                assert_eq!(b.mesh, m);
                if let Some(r) = &ray {
                    agree += usize::from(r.global_triangle == b.global_triangle);
                    assert!(
                        (r.position - b.position).length() < 0.05,
                        "{} vs {}",
                        r.position,
                        b.position
                    );
                }
            }
        }
    }
    assert!(checked > 200);
    assert!(agree as f64 >= 0.97 * checked as f64, "{agree}/{checked}");
}

/// A frame's ray picks use the transforms its render used, prepared at
/// the first ray pick or by `prepare_rays`: a frame rendered before a move
/// refuses to pick the moved scene (instead of answering from transforms
/// that are no longer drawn), and a render of the moved scene picks what
/// it draws, which differs from before the move.
#[test]
fn ray_picks_refuse_a_scene_moved_after_the_render_and_follow_a_new_render() {
    let mut s = Scene::new();
    let g = s.add_node("group", Transform::from_translation(Vec3::X), None);
    let spin = Transform {
        rotation: Quat::from_rotation_y(0.6),
        ..Transform::IDENTITY
    };
    s.add_mesh(cube("a", Vec3::splat(0.4)), spin, Some(g));
    s.add_mesh(
        cube("b", Vec3::new(0.3, 0.6, 0.3)),
        Transform::from_translation(Vec3::new(-0.8, 0.0, -0.5)),
        None,
    );
    let cam = Camera::auto_frame(&s.bounds(), 96, 72);
    let picks = |f: &Frame, s: &Scene| -> Result<Vec<_>, softpick::Error> {
        let rays = f.picks(s)?.with(softpick::PickMethod::Ray);
        Ok((0..72)
            .flat_map(|y| (0..96).map(move |x| (x, y)))
            .map(|(x, y)| rays.id_at(x, y))
            .collect())
    };
    let answers = |v: Result<Vec<_>, _>| -> Vec<_> { v.unwrap() };
    let before = render(&s, &cam, RenderOptions::default()).unwrap();
    let want = answers(picks(&before, &s));
    let lazy = render(&s, &cam, RenderOptions::default()).unwrap();
    let prepared = render(&s, &cam, RenderOptions::default()).unwrap();
    prepared
        .picks(&s)
        .unwrap()
        .with(softpick::PickMethod::Ray)
        .prepare();
    assert_eq!(
        answers(picks(&prepared, &s)),
        want,
        "prepared before the move"
    );
    s.translate(g, Vec3::new(0.0, 0.7, 0.2));
    assert!(picks(&lazy, &s).is_err(), "first ray pick after the move");
    assert!(picks(&prepared, &s).is_err(), "prepared, after the move");
    let hits = want.iter().flatten().count();
    assert!(hits > 1_000, "{hits}");
    let moved = render(&s, &cam, RenderOptions::default()).unwrap();
    let after = answers(picks(&moved, &s));
    assert_ne!(after, want, "the move changes the picks");
    // a mesh added after the render: refused as well
    s.add_mesh(cube("c", Vec3::splat(0.1)), Transform::IDENTITY, None);
    assert!(picks(&moved, &s).is_err());
}

pub(crate) fn agreement(scene: &Scene, f: &Frame) -> (usize, usize) {
    let (w, h) = (f.width() as i64, f.height() as i64);
    let id = |x: i64, y: i64| f.triangle_at(x, y);
    let (mut agree, mut covered) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            let Some(t) = id(x, y) else { continue };
            covered += 1;
            let r = f
                .picks(scene)
                .unwrap()
                .with(softpick::PickMethod::Ray)
                .at(x, y)
                .map(|h| h.global_triangle);
            if r == Some(t) {
                agree += 1;
                continue;
            }
            // away from ID edges the two methods must agree exactly
            let near_edge = (-1..=1).any(|dy| {
                (-1..=1).any(|dx| {
                    let (u, v) = (x + dx, y + dy);
                    u < 0 || v < 0 || u >= w || v >= h || id(u, v) != Some(t)
                })
            });
            assert!(near_edge, "pixel ({x},{y}): buffer {t}, ray {r:?}");
        }
    }
    (agree, covered)
}

#[test]
fn pick_ray_agrees_with_pick_buffer() {
    let scene = builtin_scene();
    let f = render(
        &scene,
        &Camera::auto_frame(&scene.framing_bounds(), 360, 360),
        RenderOptions::default(),
    )
    .unwrap();
    let (a, c) = agreement(&scene, &f);
    println!(
        "builtin 360x360: pick_ray agrees with pick on {a}/{c} covered pixels ({:.3}%)",
        100.0 * a as f64 / c as f64
    );
    assert!(a as f64 >= 0.99 * c as f64);

    let sphere = crate::support::uv_sphere(48, 33); // 3,072 triangles
    let f = render(
        &sphere,
        &Camera::auto_frame(&sphere.framing_bounds(), 360, 360),
        RenderOptions::default(),
    )
    .unwrap();
    let (a, c) = agreement(&sphere, &f);
    println!(
        "sphere 3k 360x360: pick_ray agrees with pick on {a}/{c} covered pixels ({:.3}%)",
        100.0 * a as f64 / c as f64
    );
    assert!(a as f64 >= 0.99 * c as f64);
}

/// Rays with NaN, infinite or zero components, and a ray that hits with
/// NaN or inverted distance limits, hit nothing; a short direction hits
/// like a unit one.
#[test]
fn nan_and_degenerate_rays_hit_nothing() {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 64, 64);
    let opts = RayOptions::default();
    let aimed = cam.ray_for_pixel(32, 50);
    let hit = RayCaster::new(&scene)
        .first(&aimed, &opts)
        .expect("the aimed ray hits the scene");
    let rays = [
        cam.ray_through(f32::NAN, 10.0),
        cam.ray_through(10.0, f32::NAN),
        cam.ray_through(f32::INFINITY, f32::NEG_INFINITY),
        Ray::new(aimed.origin, Vec3::ZERO),
        Ray::new(aimed.origin, Vec3::NAN),
        Ray::new(Vec3::NAN, aimed.direction),
        Ray::new(Vec3::splat(f32::INFINITY), aimed.direction),
        Ray::new(aimed.origin, Vec3::new(f32::INFINITY, 0.0, 0.0)),
    ];
    for (k, r) in rays.iter().enumerate() {
        assert!(
            RayCaster::new(&scene).first(r, &opts).is_none(),
            "ray {k}: {r:?}"
        );
        assert!(
            RayCaster::new(&scene).all(r, &opts).is_empty(),
            "ray {k}: {r:?}"
        );
    }
    // directions need not be unit: a short one finds the same hit; one so
    // short its products underflow finds that hit or nothing, never another
    let short = Ray::new(aimed.origin, aimed.direction * 1e-10);
    let h = RayCaster::new(&scene)
        .first(&short, &opts)
        .expect("a short direction hits");
    assert_eq!(h.global_triangle, hit.global_triangle);
    assert!((h.position - hit.position).length() < 1e-4, "{h:?}");
    for scale in [1e-20, 1e-30, f32::MIN_POSITIVE] {
        let tiny = Ray::new(aimed.origin, aimed.direction * scale);
        if let Some(h) = RayCaster::new(&scene).first(&tiny, &opts) {
            assert_eq!(h.global_triangle, hit.global_triangle, "scale {scale}");
            assert!(
                (h.position - hit.position).length() < 1e-3,
                "{scale}: {h:?}"
            );
        }
    }
    // NaN / inverted distance limits: nothing, no panic
    for (near, far) in [(f32::NAN, 10.0), (0.0, f32::NAN), (10.0, 1.0), (-5.0, -1.0)] {
        let o = RayOptions {
            near,
            far,
            ..RayOptions::default()
        };
        assert!(
            RayCaster::new(&scene).first(&aimed, &o).is_none(),
            "{near} {far}"
        );
        assert!(
            RayCaster::new(&scene).all(&aimed, &o).is_empty(),
            "{near} {far}"
        );
    }
}

#[test]
fn ground_height_and_line_of_sight() {
    let mut s = Scene::new();
    s.add_mesh(
        cube("ground", Vec3::new(5.0, 0.5, 5.0)),
        Transform::from_translation(Vec3::new(0.0, -0.5, 0.0)),
        None,
    );
    s.add_mesh(
        cube("step", Vec3::new(0.5, 0.5, 0.5)),
        Transform::from_translation(Vec3::new(2.0, 0.5, 0.0)),
        None,
    );
    assert!((ground_height(&s, 0.0, 0.0).unwrap() - 0.0).abs() < 1e-5);
    assert!((ground_height(&s, 2.0, 0.0).unwrap() - 1.0).abs() < 1e-5);
    assert!(ground_height(&s, 20.0, 0.0).is_none());
    assert!(line_of_sight(
        &s,
        Vec3::new(0.0, 0.5, 0.0),
        Vec3::new(0.0, 0.5, 3.0)
    ));
    assert!(
        !line_of_sight(&s, Vec3::new(0.0, 0.5, 0.0), Vec3::new(4.0, 0.5, 0.0)),
        "the step blocks"
    );
}

/// One ground triangle in the plane y = 0, `size` units from the origin
/// to each corner's far coordinate, facing up.
fn ground(size: f32) -> Scene {
    let pos = vec![
        Vec3::new(-size, 0.0, size),
        Vec3::new(size, 0.0, size),
        Vec3::new(0.0, 0.0, -size),
    ];
    let ground = Mesh::new("ground", pos, vec![[0, 1, 2]], [90, 90, 90]).unwrap();
    let mut s = Scene::new();
    s.add_mesh(ground, Transform::IDENTITY, None);
    s
}

/// A hit's normal survives triangles far beyond f32's cross product: a
/// ground triangle 10^20 and 10^30 units wide (whose f32 cross product
/// overflows) and one 10^-20 wide (where it underflows to zero), hit from
/// above: the normal is +Y, of unit length, and the ground height is 0.
#[test]
fn hit_normals_of_huge_and_tiny_triangles() {
    for size in [1e-20f32, 1.0, 1e20, 1e30] {
        let s = ground(size);
        let above = Vec3::new(0.0, size.max(1e-3), 0.0);
        let hit = RayCaster::new(&s)
            .first(&Ray::new(above, Vec3::NEG_Y), &RayOptions::default())
            .unwrap_or_else(|| panic!("size {size}: no hit"));
        assert!(hit.front_face, "size {size}");
        assert!(
            (hit.normal - Vec3::Y).length() < 1e-6,
            "size {size}: {hit:?}"
        );
        assert_eq!(ground_height(&s, 0.0, 0.0), Some(0.0), "size {size}");
    }
}

/// Which pixels of `f` a ray pick hits, row by row, asserting that each
/// row of ray picks equals the single picks and that every hit's
/// `coord` lies within `tol` of 0 (on the plane the scene lies in);
/// `what` names the case in the failure messages.
fn ray_rows_on_plane(
    f: &Frame,
    scene: &Scene,
    coord: fn(Vec3) -> f32,
    tol: f32,
    what: &str,
) -> Vec<bool> {
    let mut hit_mask = Vec::new();
    for y in 0..f.height() {
        let mut row = vec![None; f.width() as usize];
        f.picks(scene)
            .unwrap()
            .with(PickMethod::Ray)
            .span(0, y.into(), &mut row);
        for (x, got) in row.iter().enumerate() {
            let single = f
                .picks(scene)
                .unwrap()
                .with(softpick::PickMethod::Ray)
                .id_at(x as i64, y.into());
            assert_eq!(*got, single, "{what}: row at ({x},{y})");
            hit_mask.push(single.is_some());
            if single.is_some() {
                let hit = f
                    .picks(scene)
                    .unwrap()
                    .with(softpick::PickMethod::Ray)
                    .at(x as i64, y.into())
                    .unwrap();
                assert!(
                    coord(hit.position).abs() < tol,
                    "{what}: ({x},{y}): {hit:?}"
                );
            }
        }
    }
    hit_mask
}

/// A triangle 6·10^37 units long (a fuzzer input), listed six times in
/// its six vertex orders (so every hit is a tie), seen from a few units
/// above its plane z = 0. Its edge functions overflow f32, so the ray test
/// redoes it in f64 and refines `t` like any far-cornered hit; a wrong `t`
/// would let a BVH walk prune the other copies and make rows of picks and
/// single picks disagree on the tie. Every pick must lie on the plane and
/// be the same whether made alone, in a row or in a block.
#[test]
fn ray_picks_of_a_10e37_long_triangle_lie_on_it_and_agree_in_rows() {
    let pos = vec![
        Vec3::new(-3e8, -3e37, 0.0),
        Vec3::new(0.0, 3e37, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
    ];
    let orders = vec![
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut scene = Scene::new();
    scene.add_mesh(
        Mesh::new("long", pos, orders, [90, 90, 90]).unwrap(),
        Transform::IDENTITY,
        None,
    );
    // above x = -1.5e8, where the triangle spans y from about -1.5e37 to
    // 0 (the last two are the fuzzer input's cameras)
    for (eye, target) in [
        ((-1.5e8, -2.0, 4.0), (-1.5e8, -3.0, 0.0)),
        ((-1.5e8, 0.2, 3.7), (-1.5e8, 0.0, 1.5)),
        ((-149_999_200.0, 0.2, 6.2), (-149_999_200.0, 0.0, 4.0)),
    ] {
        let cam = Camera {
            eye: eye.into(),
            target: target.into(),
            up: Vec3::Y,
            projection: Projection::Perspective { fov_y_deg: 45.0 },
            near: 0.01,
            far: 10.0,
            width: 64,
            height: 48,
        };
        let f = render(&scene, &cam, RenderOptions::default()).unwrap();
        let w = f.width() as usize;
        let mut block = vec![None; w * f.height() as usize];
        f.picks(&scene)
            .unwrap()
            .with(PickMethod::Ray)
            .block(0, 0, w, &mut block);
        let hit_mask = ray_rows_on_plane(&f, &scene, |p| p.z, 1e-4, &format!("{eye:?}"));
        for (k, got) in block.iter().enumerate() {
            let single = f
                .picks(&scene)
                .unwrap()
                .with(softpick::PickMethod::Ray)
                .id_at((k % w) as i64, (k / w) as i64);
            assert_eq!(*got, single, "block at {eye:?}: ({}, {})", k % w, k / w);
        }
        let hits = hit_mask.iter().filter(|&&h| h).count();
        assert!(hits > block.len() / 4, "{eye:?}: {hits} hits");
    }
}

/// Ground triangles from 10^3 to 10^30 units wide in the plane y = 0,
/// seen from two units above: every pixel ray below the horizon hits the
/// ground, on it (y = 0), a row of picks equals the single picks, and the
/// buffer holds the ground at exactly those pixels. From 10^15 wide the
/// ray test's weighted corner distances overflow f32 and from 10^17 f64
/// cannot hold a corner's offset from the eye to the unit, so `t` must
/// come from the plane through the corners; the clipper must likewise
/// solve the vertices where clipping planes meet on the ground from its
/// plane.
#[test]
fn ray_picks_of_grounds_up_to_10e30_wide_hit_them() {
    let cam = Camera {
        eye: Vec3::new(0.3, 2.0, 5.0),
        target: Vec3::ZERO,
        up: Vec3::Y,
        projection: Projection::Perspective { fov_y_deg: 60.0 },
        near: 0.1,
        far: 100.0,
        width: 64,
        height: 48,
    };
    let mut first: Option<Vec<bool>> = None;
    for size in [1e3f32, 1e15, 1e17, 1e20, 1e30] {
        let scene = ground(size);
        let f = render(&scene, &cam, RenderOptions::default()).unwrap();
        let hit_mask = ray_rows_on_plane(&f, &scene, |p| p.y, 1e-5, &format!("{size}"));
        // and the buffer holds the ground exactly where the rays hit it
        let in_buffer: Vec<bool> = f.ids().iter().map(|&i| i != Frame::NO_TRIANGLE).collect();
        assert!(in_buffer == hit_mask, "{size}: buffer and rays differ");
        // the 10^3 ground covers every pixel below the horizon already
        let hits = hit_mask.iter().filter(|&&h| h).count();
        assert!(hits > 64 * 30, "{size}: {hits} hits");
        match &first {
            None => first = Some(hit_mask),
            Some(m) => assert!(*m == hit_mask, "{size}: not the 10^3 ground's pixels"),
        }
    }
}

#[test]
fn sweep_move_stops_at_walls() {
    let mut s = Scene::new();
    let wall = s.add_mesh(
        cube("wall", Vec3::new(0.1, 2.0, 2.0)),
        Transform::from_translation(Vec3::new(3.0, 0.0, 0.0)),
        None,
    );
    let c = s.add_mesh(cube("mover", Vec3::splat(0.5)), Transform::IDENTITY, None);
    // into the wall: the mover's face at x=0.5 may reach the wall face at x=2.9 minus skin
    let r = sweep_move(&mut s, c, Vec3::new(5.0, 0.0, 0.0), 0.01).unwrap();
    assert!(r.blocked);
    assert_eq!(r.hit.as_ref().unwrap().mesh, wall);
    assert!((r.allowed.x - (2.4 - 0.01)).abs() < 1e-3, "{}", r.allowed);
    let x = s.mesh_world(c).transform_point3(Vec3::ZERO).x;
    assert!((x - 2.39).abs() < 1e-3, "the node moved to {x}");
    // parallel to the wall: not stopped
    let r = sweep_move(&mut s, c, Vec3::new(0.0, 0.0, 1.0), 0.01).unwrap();
    assert!(!r.blocked);
    assert_eq!(r.allowed, Vec3::new(0.0, 0.0, 1.0));
}

#[test]
fn sweep_move_catches_a_corner_entering_a_face() {
    // a small spike (tetrahedron) whose tip points at the big mover's flat face:
    // no mover vertex ray hits the spike, only the reverse ray from its tip does
    let mut s = Scene::new();
    let spike = Mesh::new(
        "spike",
        vec![
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(2.6, 0.2, 0.2),
            Vec3::new(2.6, -0.2, 0.2),
            Vec3::new(2.6, 0.0, -0.25),
        ],
        vec![[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]],
        [200, 0, 0],
    )
    .unwrap();
    s.add_mesh(spike, Transform::IDENTITY, None);
    let mover = s.add_mesh(
        cube("slab", Vec3::new(0.5, 2.0, 2.0)),
        Transform::IDENTITY,
        None,
    );
    let r = plan_sweep(&s, mover, Vec3::new(3.0, 0.0, 0.0), 0.0).unwrap();
    assert!(r.blocked, "the spike's tip must stop the slab");
    assert!(r.by_other_vertex);
    assert!((r.allowed.x - 1.5).abs() < 1e-3, "{}", r.allowed);
}

#[test]
fn pick_id_ray_is_pick_ray_compacted_at_every_pixel() {
    // builtin (22 meshes, transformed) and a mirrored, moved copy of the sphere
    let mut sphere = crate::support::uv_sphere(24, 17);
    let node = sphere.mesh_node(0).unwrap();
    sphere.set_local(
        node,
        Transform {
            translation: Vec3::new(0.3, -0.2, 0.1),
            rotation: Quat::from_rotation_z(0.4),
            scale: Vec3::new(-1.0, 0.8, 1.2),
        },
    );
    for (scene, cull) in [
        (builtin_scene(), CullMode::None),
        (builtin_scene(), CullMode::Back),
        (sphere, CullMode::Back),
    ] {
        let cam = Camera::auto_frame(&scene.framing_bounds(), 96, 72);
        let opts = RenderOptions {
            cull,
            ..RenderOptions::default()
        };
        let f = render(&scene, &cam, opts).unwrap();
        let picks = f.picks(&scene).unwrap();
        let mut hits = 0;
        for y in -1..73 {
            for x in -1..97 {
                let full = picks.with(softpick::PickMethod::Ray).at(x, y);
                let id = picks.with(softpick::PickMethod::Ray).id_at(x, y);
                assert_eq!(full.is_some(), id.is_some(), "({x},{y})");
                if let (Some(h), Some(i)) = (full, id) {
                    hits += 1;
                    assert_eq!(
                        (h.mesh, h.triangle, h.global_triangle, h.depth.to_bits()),
                        (i.mesh, i.triangle, i.global_triangle, i.depth.to_bits()),
                        "({x},{y})"
                    );
                    assert!(h.depth > 0.0 && h.depth < 1.0);
                    assert!(picks.hit(i, x, y).is_some(), "({x},{y})");
                }
            }
        }
        assert!(hits > 500, "{hits}");
    }
}
