//! The driving set without a window: speed build-up and its limit, `G`,
//! turning, frame-rate independence, collisions of several movers, the thin
//! wall, ground following, the camera check, the three lines and the keys.

use std::f32::consts::FRAC_PI_2;

use glam::Quat;

use super::*;
use crate::geometry::Ray;
use crate::pick::ray::{RayCaster, RayOptions};
use crate::scene::Transform;
use crate::viewer::drive::{
    forward, world_box, Drive, DriveInput, ACCEL, MAX_SPEED, MAX_TICK, TURN_RATE,
    VELOCITY_LINE_INTERVAL,
};
use crate::viewer::lines::{guides, FORWARD_COLOR, MOTION_COLOR, RAY_COLOR};
use crate::viewer::overlay::{DRIVEN, DRIVEN_AMOUNT};
use crate::viewer::playground::{collide_mesh, collide_scene, sphere, SPHERE_RADIUS, WALL};
use crate::viewer::report::{collide_line, velocity_line};
use crate::viewer::sight::{camera_view, CameraView};
use crate::viewer::BuiltinScene;

const UNIT: f32 = 10.0;
const SKIN: f32 = 0.02;
const W_HELD: DriveInput = DriveInput {
    push: Vec3::X,
    turn: 0.0,
};
const NOTHING: DriveInput = DriveInput {
    push: Vec3::ZERO,
    turn: 0.0,
};

/// Unit spheres at `centres`, their node +Z turned to world `+X` when
/// `facing_x` says so (else to `-X`), far from anything else.
fn spheres(centres: &[(Vec3, bool)]) -> Scene {
    let mut scene = Scene::new();
    for (i, &(c, facing_x)) in centres.iter().enumerate() {
        let angle = if facing_x { FRAC_PI_2 } else { -FRAC_PI_2 };
        let t = Transform {
            translation: c,
            rotation: Quat::from_rotation_y(angle),
            scale: Vec3::ONE,
        };
        scene.add_mesh(
            sphere(&format!("s{i}"), 1.0, 16, 10, [200, 100, 50]),
            t,
            None,
        );
    }
    scene
}

/// Do the surfaces of meshes `a` and `b` cross: does an edge of one pass
/// through a triangle of the other? (Two closed meshes overlap exactly when
/// they do, or one holds the other whole.)
fn surfaces_cross(scene: &Scene, a: MeshId, b: MeshId) -> bool {
    [(a, b), (b, a)].into_iter().any(|(x, y)| {
        let m = scene.mesh(x).unwrap();
        let w = scene.mesh_world(x);
        let only = |k: MeshId| k == y;
        m.triangles().iter().any(|t| {
            (0..3).any(|k| {
                let p = w.transform_point3(m.positions()[t[k] as usize]);
                let q = w.transform_point3(m.positions()[t[(k + 1) % 3] as usize]);
                let len = (q - p).length();
                let opts = RayOptions {
                    far: len,
                    filter: Some(&only),
                    ..RayOptions::default()
                };
                RayCaster::new(scene)
                    .first(&Ray::new(p, (q - p) / len), &opts)
                    .is_some()
            })
        })
    })
}

fn centre(scene: &Scene, mesh: MeshId) -> Vec3 {
    let b = world_box(scene, mesh).unwrap();
    (b.min + b.max) * 0.5
}

fn drive_all(scene: &Scene, meshes: &[MeshId]) -> Drive {
    let mut d = Drive::new(UNIT, SKIN);
    let lines = d.set(scene, meshes);
    assert_eq!(lines.len(), meshes.len(), "{lines:?}");
    d
}

/// `n` ticks of `dt` under `input`; the lines they printed.
fn run(d: &mut Drive, scene: &mut Scene, input: DriveInput, dt: f32, n: usize) -> Vec<String> {
    (0..n)
        .flat_map(|_| d.tick(scene, input, dt).lines)
        .collect()
}

#[test]
fn holding_a_key_builds_speed_up_to_the_maximum_and_releasing_keeps_it() {
    let mut scene = spheres(&[(Vec3::ZERO, true)]);
    let mut d = drive_all(&scene, &[0]);
    run(&mut d, &mut scene, W_HELD, 0.01, 50);
    let s = d.movers()[0].speed;
    assert!((s.x - ACCEL * UNIT * 0.5).abs() < 1e-3, "{s}");
    assert_eq!((s.y, s.z), (0.0, 0.0));
    // released: the velocity stays as it is
    let before = centre(&scene, 0);
    run(&mut d, &mut scene, NOTHING, 0.01, 50);
    assert_eq!(d.movers()[0].speed, s);
    let moved = centre(&scene, 0) - before;
    assert!((moved - Vec3::X * s.x * 0.5).length() < 1e-3, "{moved}");
    // held long: capped at the documented maximum, along +X (node +Z turned)
    run(&mut d, &mut scene, W_HELD, 0.05, 200);
    assert!((d.movers()[0].speed.length() - MAX_SPEED * UNIT).abs() < 1e-4);
    let look = d.movers()[0].look.clone().unwrap();
    assert!((look.velocity - Vec3::X * MAX_SPEED * UNIT).length() < 1e-3);
    // S pushes back, D right (forward × up: +Z for forward +X), Space up
    let mut scene = spheres(&[(Vec3::ZERO, true)]);
    let mut d = drive_all(&scene, &[0]);
    let input = DriveInput {
        push: Vec3::new(-1.0, 1.0, 1.0),
        turn: 0.0,
    };
    run(&mut d, &mut scene, input, 0.01, 10);
    let v = d.movers()[0].look.clone().unwrap().velocity;
    let k = ACCEL * UNIT * 0.1;
    assert!((v - Vec3::new(-k, k, k)).length() < 1e-3, "{v}");
}

#[test]
fn keys_map_to_the_drive_input() {
    let held = [Key::W, Key::A, Key::RightCtrl, Key::Left];
    let i = DriveInput::from_keys(|k| held.contains(&k));
    assert_eq!(i.push, Vec3::new(1.0, -1.0, -1.0));
    assert_eq!(i.turn, 1.0);
    let both = [Key::W, Key::S, Key::Space, Key::Right];
    let i = DriveInput::from_keys(|k| both.contains(&k));
    assert_eq!(i.push, Vec3::new(0.0, 0.0, 1.0));
    assert_eq!(i.turn, -1.0);
}

#[test]
fn motion_is_frame_rate_independent() {
    let mut ends = Vec::new();
    for (dt, n) in [(0.01, 100), (0.05, 20), (0.1, 10)] {
        let mut scene = spheres(&[(Vec3::ZERO, true)]);
        let mut d = drive_all(&scene, &[0]);
        run(&mut d, &mut scene, W_HELD, 0.01, 30);
        run(&mut d, &mut scene, NOTHING, dt, n);
        ends.push(centre(&scene, 0));
    }
    for e in &ends[1..] {
        assert!((*e - ends[0]).length() < 1e-4, "{ends:?}");
    }
    // a stall counts as at most MAX_TICK
    let mut scene = spheres(&[(Vec3::ZERO, true)]);
    let mut d = drive_all(&scene, &[0]);
    run(&mut d, &mut scene, W_HELD, 0.01, 30);
    let (v, c) = (d.movers()[0].speed.x, centre(&scene, 0));
    d.tick(&mut scene, NOTHING, 60.0);
    assert!(((centre(&scene, 0) - c).x - v * MAX_TICK).abs() < 1e-4);
    d.tick(&mut scene, NOTHING, f32::NAN);
    d.tick(&mut scene, NOTHING, -1.0);
    assert!(((centre(&scene, 0) - c).x - v * MAX_TICK).abs() < 1e-4);
}

#[test]
fn g_stops_every_mover() {
    let mut scene = spheres(&[(Vec3::ZERO, true), (Vec3::new(0.0, 0.0, 10.0), false)]);
    let mut d = drive_all(&scene, &[0, 1]);
    let lines = run(&mut d, &mut scene, W_HELD, 0.02, 20);
    assert!(
        lines.iter().any(|l| l.starts_with("velocity mesh=1 ")),
        "{lines:?}"
    );
    let lines = d.stop_all();
    assert_eq!(lines[0], "stop all");
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[1..]
        .iter()
        .all(|l| l.contains(" v=(0.000000,0.000000,0.000000) speed=0.000000 ")));
    let c = [centre(&scene, 0), centre(&scene, 1)];
    let more = run(&mut d, &mut scene, NOTHING, 0.02, 20);
    assert!(more.is_empty(), "{more:?}");
    assert_eq!([centre(&scene, 0), centre(&scene, 1)], c);
    assert!(d.movers().iter().all(|m| m.speed == Vec3::ZERO));
    // a second G has nothing new to report
    assert_eq!(d.stop_all(), ["stop all"]);
}

#[test]
fn turning_turns_the_forward_direction_and_the_motion() {
    let mut scene = spheres(&[(Vec3::ZERO, true)]);
    let mut d = drive_all(&scene, &[0]);
    assert!((forward(&scene, 0, 0.0) - Vec3::X).length() < 1e-6);
    let left = DriveInput {
        push: Vec3::ZERO,
        turn: 1.0,
    };
    let t = run(&mut d, &mut scene, left, 0.01, 50);
    assert!(t.is_empty(), "turning alone prints nothing: {t:?}");
    let heading = d.movers()[0].heading;
    assert!((heading - TURN_RATE * 0.5).abs() < 1e-4);
    // counter-clockwise seen from above: +X turns toward -Z
    let f = d.movers()[0].look.clone().unwrap().forward;
    let want = Vec3::new(heading.cos(), 0.0, -heading.sin());
    assert!((f - want).length() < 1e-5, "{f} {want}");
    let c = centre(&scene, 0);
    run(&mut d, &mut scene, W_HELD, 0.01, 20);
    let moved = (centre(&scene, 0) - c).normalize();
    assert!((moved - want).length() < 1e-4, "{moved} {want}");
    // the right turn undoes it
    let right = DriveInput {
        push: Vec3::ZERO,
        turn: -1.0,
    };
    run(&mut d, &mut scene, right, 0.01, 50);
    assert!(
        d.movers()[0].heading.abs() < 1e-4
            || (d.movers()[0].heading - std::f32::consts::TAU).abs() < 1e-4
    );
}

#[test]
fn movers_that_collide_both_stop_and_never_overlap() {
    // 0 and 1 head at each other; 2 drives alone, far away
    let mut scene = spheres(&[
        (Vec3::new(-3.0, 0.0, 0.0), true),
        (Vec3::new(3.0, 0.0, 0.0), false),
        (Vec3::new(0.0, 0.0, 40.0), true),
    ]);
    let mut d = drive_all(&scene, &[0, 1, 2]);
    let mut collides = Vec::new();
    for _ in 0..200 {
        let t = d.tick(&mut scene, W_HELD, 0.02);
        collides.extend(t.lines.into_iter().filter(|l| l.starts_with("collide ")));
        let gap = (centre(&scene, 1) - centre(&scene, 0)).length();
        assert!(gap >= 2.0 * SPHERE_RADIUS, "the spheres overlap: {gap}");
        assert!(!surfaces_cross(&scene, 0, 1));
    }
    // one contact: mover 0 moves first and finds 1, which stops too
    assert_eq!(collides.len(), 1, "{collides:?}");
    assert!(collides[0].starts_with("collide mesh=0 name=s0 with=1 with_name=s1 at="));
    let gap = (centre(&scene, 1) - centre(&scene, 0)).length() - 2.0;
    assert!(gap < 0.1, "stopped {gap} apart");
    assert_eq!(d.movers()[0].speed, Vec3::ZERO);
    assert_eq!(d.movers()[1].speed, Vec3::ZERO);
    assert!(d.movers()[2].speed.x > 0.0, "the lone mover keeps going");
    // held keys push a stopped mover again only after a release
    run(&mut d, &mut scene, NOTHING, 0.02, 1);
    run(
        &mut d,
        &mut scene,
        DriveInput {
            push: -Vec3::X,
            turn: 0.0,
        },
        0.02,
        10,
    );
    assert!(d.movers()[0].speed.x < 0.0 && d.movers()[1].speed.x < 0.0);
}

#[test]
fn no_sphere_passes_the_thin_wall() {
    let mut scene = collide_scene();
    let (a, b, wall) = (
        collide_mesh("sphere_a").unwrap(),
        collide_mesh("sphere_b").unwrap(),
        collide_mesh("wall").unwrap(),
    );
    let mut d = drive_all(&scene, &[a, b]);
    let mut lines = Vec::new();
    // long ticks (the largest a tick can be) move farthest per check
    for _ in 0..100 {
        lines.extend(d.tick(&mut scene, W_HELD, MAX_TICK).lines);
        for m in [a, b] {
            assert!(
                world_box(&scene, m).unwrap().max.x < WALL.0.x,
                "{m} passed the wall"
            );
        }
    }
    let collides: Vec<_> = lines.iter().filter(|l| l.starts_with("collide ")).collect();
    assert_eq!(collides.len(), 2, "{collides:?}");
    assert!(collides[0].starts_with(&format!(
        "collide mesh={a} name=sphere_a with={wall} with_name=wall at=(-2.010000,"
    )));
    assert!(collides[1].starts_with(&format!("collide mesh={b} name=sphere_b with={a} ")));
    let gap = WALL.0.x - world_box(&scene, a).unwrap().max.x;
    assert!(gap > 0.0 && gap < 0.1, "{gap}");
    for m in [a, b] {
        let prefix = format!("velocity mesh={m} ");
        assert!(lines.iter().any(|l| l.starts_with(&prefix)), "{lines:?}");
    }
}

#[test]
fn velocity_lines_come_at_most_every_interval() {
    let mut scene = spheres(&[(Vec3::ZERO, true)]);
    let mut d = drive_all(&scene, &[0]);
    let dt = 0.01;
    let mut times = Vec::new();
    for i in 0..200 {
        let t = d.tick(&mut scene, W_HELD, dt);
        if t.lines.iter().any(|l| l.starts_with("velocity ")) {
            times.push(i as f64 * f64::from(dt));
        }
    }
    assert!(times.len() >= 5, "{times:?}");
    for w in times.windows(2) {
        assert!(w[1] - w[0] >= VELOCITY_LINE_INTERVAL - 1e-6, "{times:?}");
    }
}

/// The collide scene with `sphere_a` moved to `at`, facing world `dir`
/// (±X), driven alone with ground following on.
fn on_ground(at: Vec3, facing_x: bool) -> (Scene, Drive, MeshId) {
    let mut scene = collide_scene();
    let a = collide_mesh("sphere_a").unwrap();
    let node = scene.mesh_node(a).unwrap();
    let angle = if facing_x { FRAC_PI_2 } else { -FRAC_PI_2 };
    scene.set_local(
        node,
        Transform {
            translation: at,
            rotation: Quat::from_rotation_y(angle),
            scale: Vec3::ONE,
        },
    );
    let mut d = drive_all(&scene, &[a]);
    d.ground = true;
    (scene, d, a)
}

#[test]
fn ground_following_walks_up_the_ramp_and_falls_down_the_step() {
    let (mut scene, mut d, a) = on_ground(Vec3::new(-12.0, 1.5, -3.0), true);
    // settles onto the floor first
    run(&mut d, &mut scene, NOTHING, 0.02, 5);
    let bottom = world_box(&scene, a).unwrap().min.y;
    assert!(bottom > 0.0 && bottom < 0.1, "{bottom}");
    let (mut top, mut fell) = (0.0f32, false);
    for _ in 0..600 {
        let t = d.tick(&mut scene, W_HELD, 0.02);
        assert!(
            !t.lines.iter().any(|l| l.starts_with("collide ")),
            "{:?}",
            t.lines
        );
        for other in ["floor", "ramp", "step"] {
            assert!(
                !surfaces_cross(&scene, a, collide_mesh(other).unwrap()),
                "{other}"
            );
        }
        let b = world_box(&scene, a).unwrap();
        top = top.max(b.min.y);
        if b.min.x > -2.0 && top > 0.9 {
            fell = b.min.y < 0.1;
            if fell {
                break;
            }
        }
    }
    assert!(top > 1.0 && top < 1.1, "on the step at {top}");
    assert!(fell, "did not fall down the step");
    // Space does nothing while on the ground
    let y = world_box(&scene, a).unwrap().min.y;
    let up = DriveInput {
        push: Vec3::Z,
        turn: 0.0,
    };
    run(&mut d, &mut scene, up, 0.02, 20);
    assert!((world_box(&scene, a).unwrap().min.y - y).abs() < 0.05);
}

#[test]
fn a_step_higher_than_max_step_up_stops_a_ground_follower() {
    let step = collide_mesh("step").unwrap();
    let (mut scene, mut d, a) = on_ground(Vec3::new(1.5, 1.05, -3.0), false);
    let lines = run(&mut d, &mut scene, W_HELD, 0.02, 100);
    let c: Vec<_> = lines.iter().filter(|l| l.starts_with("collide ")).collect();
    assert!(
        !c.is_empty() && c[0].contains(&format!(" with={step} with_name=step ")),
        "{lines:?}"
    );
    let b = world_box(&scene, a).unwrap();
    assert!(b.min.x > -2.01 && b.min.y < 0.1, "{b:?}");
    // the step's top edge meets a facet between two rings of the sphere:
    // the edge-against-edge test of the sweep stops it there
    assert!(!surfaces_cross(&scene, a, step));
    // without ground following the sphere floats over nothing: off the
    // floor's edge it stays at its height
    let (mut scene, mut d, a) = on_ground(Vec3::new(11.0, 1.05, 5.0), true);
    d.ground = false;
    run(&mut d, &mut scene, W_HELD, 0.05, 40);
    let b = world_box(&scene, a).unwrap();
    assert!(b.min.x > 12.0 && (b.min.y - 0.05).abs() < 1e-3, "{b:?}");
}

#[test]
fn the_camera_check_finds_walls_and_insides() {
    let scene = collide_scene();
    let a = collide_mesh("sphere_a").unwrap();
    let b = collide_mesh("sphere_b").unwrap();
    let mut c = BuiltinScene::Collide.camera(&scene, 320, 240);
    assert_eq!(camera_view(&scene, &c, &[a]), CameraView::Clear);
    // behind the thin wall, following sphere_a in front of it (the target
    // does not matter)
    c.target = Vec3::new(20.0, 5.0, -9.0);
    c.eye = Vec3::new(3.0, 1.0, 2.0);
    assert_eq!(
        camera_view(&scene, &c, &[]),
        CameraView::Clear,
        "nothing followed"
    );
    let v = camera_view(&scene, &c, &[a]);
    assert_eq!(
        v,
        CameraView::Blocked {
            mesh: collide_mesh("wall").unwrap(),
            name: "wall".into()
        }
    );
    assert_eq!(
        v.line(),
        format!(
            "camera blocked mesh={} name=wall",
            collide_mesh("wall").unwrap()
        )
    );
    assert!(v.flag().contains("wall"));
    // the eye inside sphere_a, following sphere_b
    c.eye = Vec3::new(-7.0, 1.2, 2.1);
    let v = camera_view(&scene, &c, &[b]);
    assert_eq!(
        v,
        CameraView::Inside {
            mesh: a,
            name: "sphere_a".into()
        }
    );
    assert!(v.line().ends_with(" inside=yes"));
    assert_eq!(CameraView::Clear.line(), "camera clear");
    assert!(CameraView::Clear.flag().is_empty());
}

/// `softpick view MODEL`: the orbit target is the model's centre, inside
/// it, so the model always lies between target and eye; the camera check
/// follows the driven meshes only, so the view is clear until a mesh is
/// driven, and a driven mesh hidden behind another is blocked by that one,
/// not by itself.
#[test]
fn a_model_viewed_without_driving_is_never_blocked() {
    // a closed "model" whose box centre the automatic camera orbits
    let mut scene = spheres(&[(Vec3::new(0.0, 0.0, 0.0), true)]);
    let model = 0;
    let cam = Camera::auto_frame(&scene.framing_bounds(), 320, 240);
    assert!(
        crate::collide::first_blocker(&scene, cam.target, cam.eye, &RayOptions::default())
            .is_some(),
        "the model stands between its centre and the eye"
    );
    let mut s = ViewerState::new(
        cam,
        &scene.framing_bounds(),
        FillRule::TopLeft,
        PickMethod::Buffer,
    );
    assert_eq!(s.check_camera(&scene), Some("camera clear".to_string()));
    assert_eq!(s.check_camera(&scene), None, "printed when it changes");
    assert!(!s.title().contains("CAMERA"), "{}", s.title());
    // driving the model itself: still clear (it does not hide itself)
    assert!(s.drive.toggle(&scene, model).is_some());
    assert_eq!(s.check_camera(&scene), None);
    // a second sphere between the eye and the model, then driven alone:
    // the model hides nothing, the driven one is in sight
    let mid = cam.eye * 0.5 + cam.target * 0.5;
    let t = Transform {
        translation: mid,
        ..Transform::IDENTITY
    };
    let front = scene.add_mesh(sphere("front", 0.5, 16, 10, [0, 0, 255]), t, None);
    assert_eq!(
        s.check_camera(&scene),
        Some(format!("camera blocked mesh={front} name=front"))
    );
    assert!(
        s.title().contains("CAMERA BLOCKED by front"),
        "{}",
        s.title()
    );
    assert!(s.drive.toggle(&scene, model).is_some());
    assert!(s.drive.toggle(&scene, front).is_some());
    assert_eq!(s.check_camera(&scene), Some("camera clear".to_string()));
}

#[test]
fn the_three_lines_follow_the_motion() {
    let mut scene = collide_scene();
    let (a, wall) = (
        collide_mesh("sphere_a").unwrap(),
        collide_mesh("wall").unwrap(),
    );
    let mut d = drive_all(&scene, &[a]);
    // still: forward, and the ray along forward to the wall; no motion line
    let g = guides(&d);
    assert_eq!(
        g.iter().map(|g| g.color).collect::<Vec<_>>(),
        [RAY_COLOR, FORWARD_COLOR]
    );
    let ahead = d.movers()[0].look.clone().unwrap().ahead.unwrap();
    assert_eq!(ahead.mesh, wall);
    assert!((ahead.distance - (WALL.0.x + 7.0)).abs() < 1e-4);
    assert!(((g[1].to - g[1].from).length() - 1.5).abs() < 1e-4);
    // moving: the motion line's length is the speed (one second of travel)
    run(&mut d, &mut scene, W_HELD, 0.02, 20);
    let g = guides(&d);
    assert_eq!(g.len(), 3);
    let motion = g.iter().find(|g| g.color == MOTION_COLOR).unwrap();
    let speed = d.movers()[0].speed.length();
    assert!(((motion.to - motion.from).length() - speed).abs() < 1e-4);
    assert!(g
        .windows(2)
        .all(|w| (w[0].to - w[0].from).length() >= (w[1].to - w[1].from).length()));
    // L hides them
    d.lines = false;
    assert!(guides(&d).is_empty());
}

#[test]
fn drive_lines_have_their_documented_form() {
    assert_eq!(
        velocity_line(
            4,
            "sphere_a",
            Vec3::new(1.5, 0.0, -0.0),
            Vec3::new(-7.0, 1.05, 2.0),
            Some((3, "wall", 4.99))
        ),
        "velocity mesh=4 name=sphere_a v=(1.500000,0.000000,0.000000) speed=1.500000 \
         centre=(-7.000000,1.050000,2.000000) ahead=3:wall distance=4.990000"
    );
    assert!(velocity_line(1, "x", Vec3::ZERO, Vec3::ZERO, None).ends_with(" ahead=none"));
    assert_eq!(
        collide_line(4, "sphere_a", 3, "wall", Vec3::new(-2.01, 1.05, 2.0)),
        "collide mesh=4 name=sphere_a with=3 with_name=wall at=(-2.010000,1.050000,2.000000)"
    );
}

#[test]
fn keys_and_clicks_of_the_driving_set() {
    let scene = collide_scene();
    let cam = BuiltinScene::Collide.camera(&scene, 320, 240);
    let frame = crate::frame::render::render(&scene, &cam, RenderOptions::default()).unwrap();
    let picks = frame.picks(&scene).unwrap();
    let a = collide_mesh("sphere_a").unwrap();
    let p = cam.project(SPHERE_CENTRES_A).unwrap();
    let (x, y) = (p.x as i64, p.y as i64);
    let mut s = ViewerState::new(
        cam,
        &scene.framing_bounds(),
        FillRule::TopLeft,
        PickMethod::Buffer,
    );
    // V: clicks drive instead of picking
    assert_eq!(key(&mut s, Key::V), [Action::Say("set drive=on".into())]);
    poll(&mut s, x as f32 + 0.5, y as f32 + 0.5, false, false);
    press(&mut s, x as f32 + 0.5, y as f32 + 0.5);
    let a1 = poll(&mut s, x as f32 + 0.5, y as f32 + 0.5, false, false);
    assert_eq!(a1, [Action::DriveClick { x, y }]);
    let line = s.drive_click(picks, x, y);
    assert_eq!(
        line,
        format!("drive add mesh={a} name=sphere_a forward=(1.000000,0.000000,0.000000)")
    );
    assert!(s.drive.contains(a) && s.title().contains("drive (clicks) 1: sphere_a -> wall "));
    // with a driving set W no longer steps the picked mesh
    assert!(key(&mut s, Key::W).is_empty());
    assert!(key(&mut s, Key::Q).is_empty());
    hold(&mut s, Key::W, true);
    hold(&mut s, Key::Left, true);
    assert_eq!(
        s.drive_input(),
        DriveInput {
            push: Vec3::X,
            turn: 1.0
        }
    );
    s.handle(Event::FocusLost);
    assert_eq!(s.drive_input(), NOTHING);
    assert_eq!(key(&mut s, Key::G), [Action::StopAll]);
    assert_eq!(key(&mut s, Key::U), [Action::Say("ground on".into())]);
    assert_eq!(key(&mut s, Key::U), [Action::Say("ground off".into())]);
    assert_eq!(key(&mut s, Key::L), [Action::Say("set lines=off".into())]);
    assert_eq!(key(&mut s, Key::B), [Action::DriveSelection]);
    // the second click removes it; background says so
    assert_eq!(
        s.drive_click(picks, x, y),
        format!("drive remove mesh={a} name=sphere_a")
    );
    assert_eq!(s.drive_click(picks, 0, 0), "drive none x=0 y=0");
    // W steps the picked mesh again; V back to picking
    assert!(matches!(key(&mut s, Key::W).as_slice(), [Action::Move(_)]));
    assert_eq!(key(&mut s, Key::V), [Action::Say("set drive=off".into())]);
    press(&mut s, x as f32 + 0.5, y as f32 + 0.5);
    assert_eq!(
        poll(&mut s, x as f32 + 0.5, y as f32 + 0.5, false, false),
        [Action::Pick { x, y }]
    );
    // B: the selection becomes the driving set
    s.apply_selection(SelectOp::Replace, &[a, 1]);
    let lines = s.drive_selection(&scene);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("drive add mesh=1 name=ramp "));
    s.apply_selection(SelectOp::Replace, &[a]);
    assert_eq!(s.drive_selection(&scene), ["drive remove mesh=1 name=ramp"]);
    assert_eq!(s.drive_selection(&scene), ["drive unchanged"]);
}

const SPHERE_CENTRES_A: Vec3 = crate::viewer::playground::SPHERE_CENTRES[0];

#[test]
fn driven_meshes_are_tinted_and_their_lines_drawn_on_top() {
    let scene = collide_scene();
    let cam = BuiltinScene::Collide.camera(&scene, 320, 240);
    let frame = crate::frame::render::render(&scene, &cam, RenderOptions::default()).unwrap();
    let a = collide_mesh("sphere_a").unwrap();
    let d = drive_all(&scene, &[a]);
    let mesh_of = mesh_of_triangles(&scene);
    let ov = Overlay {
        driven: vec![a],
        guides: guides(&d),
        ..Overlay::default()
    };
    let mut img = Vec::new();
    compose(&frame, &scene, &mesh_of, &ov, &mut img);
    let mut plain = Vec::new();
    compose(&frame, &scene, &mesh_of, &Overlay::default(), &mut plain);
    let count = |c: u32| img.iter().filter(|&&p| p == c).count();
    assert!(
        count(FORWARD_COLOR) > 5 && count(RAY_COLOR) > 5,
        "{} {}",
        count(FORWARD_COLOR),
        count(RAY_COLOR)
    );
    assert_eq!(count(MOTION_COLOR), 0);
    for c in [FORWARD_COLOR, MOTION_COLOR, RAY_COLOR] {
        assert!(!plain.contains(&c), "the scene itself shows {c:06x}");
    }
    // a pixel of the sphere away from the lines: the driven tint
    let guides_px: Vec<bool> = img
        .iter()
        .map(|&p| p == FORWARD_COLOR || p == RAY_COLOR)
        .collect();
    let i = (0..img.len())
        .find(|&i| mesh_at(frame.ids()[i], &mesh_of) == Some(a) && !guides_px[i])
        .unwrap();
    assert_eq!(img[i], tint(frame.color()[i], DRIVEN, DRIVEN_AMOUNT));
}

#[test]
fn the_collide_scene_is_the_posts_setup() {
    let scene = collide_scene();
    assert_eq!(scene.meshes().len(), 6 + 22);
    let seed: u32 = scene.meshes()[6..]
        .iter()
        .map(|m| m.triangles().len() as u32)
        .sum();
    assert_eq!(seed, 362);
    for name in ["sphere_a", "sphere_b"] {
        let m = collide_mesh(name).unwrap();
        let b = world_box(&scene, m).unwrap();
        assert!(((b.max - b.min) - Vec3::splat(2.0 * SPHERE_RADIUS)).length() < 1e-4);
        // node +Z is world +X: the default forward points along the lane
        assert!((forward(&scene, m, 0.0) - Vec3::X).length() < 1e-6);
        // every triangle faces away from the centre
        let mesh = scene.mesh(m).unwrap();
        for t in 0..mesh.triangles().len() as u32 {
            let [p, q, r] = mesh.triangle(t);
            assert!((q - p).cross(r - p).dot(p) > 0.0, "{name} triangle {t}");
        }
    }
    let wall = world_box(&scene, collide_mesh("wall").unwrap()).unwrap();
    assert!((wall.max.x - wall.min.x - 0.02).abs() < 1e-5);
    assert_eq!(
        BuiltinScene::from_name("collide"),
        Some(BuiltinScene::Collide)
    );
    assert_eq!(
        BuiltinScene::from_name("default"),
        Some(BuiltinScene::Default)
    );
    assert_eq!(BuiltinScene::from_name("nope"), None);
    // the ramp and the step rise to 1
    for name in ["ramp", "step"] {
        let b = world_box(&scene, collide_mesh(name).unwrap()).unwrap();
        assert!((b.max.y - 1.0).abs() < 1e-6, "{name}");
    }
}
