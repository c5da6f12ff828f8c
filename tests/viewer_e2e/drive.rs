//! The collision post's scenario in the real window: on the built-in
//! collide scene, drive mode (`V`) and two clicks add both spheres to the
//! driving set, `W` held drives them along their lane into the thin wall,
//! the stdout lines say both moved, that they stopped at contacts and that
//! neither passed the wall; the window shows the three line colors while
//! they move, no motion line after `G`, and none of the lines after `L`.

use std::time::{Duration, Instant};

use softpick::internals::playground::{
    collide_mesh, collide_scene, SPHERE_CENTRES, SPHERE_RADIUS, WALL,
};
use softpick::viewer::BuiltinScene;
use softpick::{render, Camera, MeshId, RenderOptions, Scene};

use crate::expect::{H, W};
use crate::session::Viewer;

/// The line colors as documented: forward blue, motion green, ray red.
const FORWARD: u32 = 0x0000_00ff;
const MOTION: u32 = 0x0000_ff00;
const RAY: u32 = 0x00ff_0000;

/// Pixels of each line color in a window image.
fn colors(px: &[u32]) -> [usize; 3] {
    [FORWARD, MOTION, RAY].map(|c| px.iter().filter(|&&p| p == c).count())
}

/// The value of `key=` in a stdout line.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split(' ')
        .find_map(|w| w.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
        .unwrap_or_else(|| panic!("no {key}= in {line:?}"))
}

/// `(x,y,z)` of a stdout line's field `key`.
fn vec_field(line: &str, key: &str) -> [f32; 3] {
    let v = field(line, key);
    let parts: Vec<f32> = v
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(|n| n.parse().unwrap_or_else(|_| panic!("{key} in {line:?}")))
        .collect();
    assert_eq!(parts.len(), 3, "{line:?}");
    [parts[0], parts[1], parts[2]]
}

/// The mesh of a `velocity` or `collide` line.
fn mesh_of(line: &str) -> MeshId {
    field(line, "mesh").parse().unwrap()
}

/// A pixel well inside the mesh whose world centre is `c`, checked against
/// the library's pick of the viewer's first frame.
fn pixel_of(scene: &Scene, cam: &Camera, c: glam::Vec3, mesh: MeshId) -> (u32, u32) {
    let frame = render(scene, cam, RenderOptions::default()).unwrap();
    let p = cam.project(c).expect("in front of the camera");
    let (x, y) = (p.x.floor() as i64, p.y.floor() as i64);
    for (dx, dy) in [(0, 0), (-2, 0), (2, 0), (0, -2), (0, 2)] {
        let hit = frame.picks(scene).unwrap().at(x + dx, y + dy);
        assert_eq!(
            hit.map(|h| h.mesh),
            Some(mesh),
            "pixel ({x}, {y}) + ({dx}, {dy})"
        );
    }
    (x as u32, y as u32)
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn two_driven_spheres_stop_at_contacts_and_never_pass_the_thin_wall() {
    let scene = collide_scene();
    let cam = BuiltinScene::Collide.camera(&scene, W, H);
    let (a, b, wall) = (
        collide_mesh("sphere_a").unwrap(),
        collide_mesh("sphere_b").unwrap(),
        collide_mesh("wall").unwrap(),
    );
    let pa = pixel_of(&scene, &cam, SPHERE_CENTRES[0], a);
    let pb = pixel_of(&scene, &cam, SPHERE_CENTRES[1], b);
    let dir = std::env::temp_dir().join(format!("softpick-view-e2e-{}-drive", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let v = Viewer::start_with(&["--builtin", "collide"], &dir);
    assert_eq!(v.line("camera ", "the first render"), "camera clear");

    // V, then a click on each sphere: both join the driving set
    v.key("v");
    assert_eq!(v.line("set drive=", "V"), "set drive=on");
    v.click(pa);
    assert_eq!(
        v.line("drive ", "the click on sphere_a"),
        format!("drive add mesh={a} name=sphere_a forward=(1.000000,0.000000,0.000000)")
    );
    v.click(pb);
    assert_eq!(
        v.line("drive ", "the click on sphere_b"),
        format!("drive add mesh={b} name=sphere_b forward=(1.000000,0.000000,0.000000)")
    );

    // W held: both speed up along +X; read every line until both collided
    v.hold("w", true);
    let shot = dir.join("shot.png");
    let (mut lines, mut moving, mut seen_moving) = (Vec::new(), [false; 2], None);
    let t0 = Instant::now();
    while lines
        .iter()
        .filter(|l: &&String| l.starts_with("collide "))
        .count()
        < 2
    {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "no two collisions: {lines:?}"
        );
        let l = v.next_line(10, "the velocity and collide lines");
        if l.starts_with("velocity ") && field(&l, "speed").parse::<f32>().unwrap() > 0.3 {
            moving[usize::from(mesh_of(&l) == b)] = true;
        }
        lines.push(l);
        // while both move: the three line colors in the window
        if moving == [true, true] && seen_moving.is_none() {
            let px = v.settled_screenshot(&shot, |px| colors(px).iter().all(|&n| n >= 5));
            seen_moving = Some(colors(&px));
        }
    }
    v.hold("w", false);
    let [fwd, motion, ray] = seen_moving.expect("both spheres moved");
    assert!(
        fwd >= 5 && motion >= 5 && ray >= 5,
        "line pixels while moving: {fwd} {motion} {ray}"
    );

    // sphere_a stops at the wall, sphere_b behind it at sphere_a
    let collides: Vec<&String> = lines.iter().filter(|l| l.starts_with("collide ")).collect();
    assert!(
        collides[0].starts_with(&format!(
            "collide mesh={a} name=sphere_a with={wall} with_name=wall "
        )),
        "{collides:?}"
    );
    assert!(
        collides[1].starts_with(&format!(
            "collide mesh={b} name=sphere_b with={a} with_name=sphere_a "
        )),
        "{collides:?}"
    );
    // every position reported: in front of the wall, sphere_b behind sphere_a
    let mut last = [None, None];
    for l in lines.iter().filter(|l| l.starts_with("velocity ")) {
        let c = vec_field(l, "centre");
        assert!(c[0] + SPHERE_RADIUS < WALL.0[0], "passed the wall: {l}");
        last[usize::from(mesh_of(l) == b)] = Some(c[0]);
    }
    let (xa, xb) = (
        last[0].expect("sphere_a moved"),
        last[1].expect("sphere_b moved"),
    );
    assert!(
        xa > SPHERE_CENTRES[0][0] + 1.0,
        "sphere_a moved from its start: {xa}"
    );
    assert!(
        xb > SPHERE_CENTRES[1][0] + 1.0,
        "sphere_b moved from its start: {xb}"
    );
    assert!(
        xa - xb >= 2.0 * SPHERE_RADIUS,
        "sphere_b passed into sphere_a: {xa} {xb}"
    );
    let at = vec_field(collides[0], "at");
    assert!(
        (at[0] - WALL.0[0]).abs() < 0.05,
        "contact off the wall's face: {at:?}"
    );

    // G: everything stops; forward and ray lines stay, no motion line
    v.key("g");
    assert_eq!(v.line("stop ", "G"), "stop all");
    let px = v.settled_screenshot(&shot, |px| {
        let [f, m, r] = colors(px);
        f >= 5 && m == 0 && r >= 5
    });
    let [f, m, r] = colors(&px);
    assert!(
        f >= 5 && m == 0 && r >= 5,
        "line pixels after G: {f} {m} {r}"
    );
    // L hides the lines
    v.key("l");
    assert_eq!(v.line("set lines=", "L"), "set lines=off");
    let px = v.settled_screenshot(&shot, |px| colors(px) == [0, 0, 0]);
    assert_eq!(colors(&px), [0, 0, 0], "line pixels with the lines hidden");
    v.quit();
    let _ = std::fs::remove_dir_all(&dir);
}
