//! The built-in collide scene (`softpick view --builtin collide`): the
//! setup of the three.js collision post, made of plain meshes so it needs
//! no files.
//!
//! World +Y is up, lengths are in metres of the post's scale (its spheres
//! have radius 1). From front to back, as the default camera sees it:
//!
//! - `floor`: a flat quad at y = 0, x in −14..12, z in −8..6;
//! - lane z = 2: `sphere_b` at x = −11 and `sphere_a` at x = −7 (centres at
//!   y = 1.05, so they float just above the floor), both with node +Z
//!   turned to world +X, so their default forward points right, along the
//!   lane; and the thin `wall` across the lane, 0.02 thick, at x = −2;
//! - lane z = −3: the `ramp`, rising from y = 0 at x = −10 to y = 1 at
//!   x = −6, and the `step`, a 1-high box from x = −6 to x = −2 that drops
//!   back to the floor at its far end;
//! - the pick test's 362-triangle scene (the default built-in scene), under
//!   a node at (6, 0, −2), its meshes named `pick_` + their own name.

use std::f32::consts::FRAC_PI_2;

use glam::{Quat, Vec3};

use crate::builtin::builtin_scene;
use crate::error::Error;
use crate::scene::{Mesh, MeshId, Scene, Transform};

/// Names of the scene's own meshes, in mesh-id order (the pick test's
/// meshes follow them). (Used by softpick's own tests and tools, through
/// `internals`.)
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub const COLLIDE_MESHES: [&str; 6] = ["floor", "ramp", "step", "wall", "sphere_a", "sphere_b"];

/// Radius of the two spheres.
pub const SPHERE_RADIUS: f32 = 1.0;

/// Centres of `sphere_a` and `sphere_b` at the start.
pub const SPHERE_CENTRES: [Vec3; 2] = [Vec3::new(-7.0, 1.05, 2.0), Vec3::new(-11.0, 1.05, 2.0)];

/// The thin wall's box (min, max corners).
pub const WALL: (Vec3, Vec3) = (Vec3::new(-2.01, 0.0, 0.0), Vec3::new(-1.99, 2.5, 4.0));
/// How far above the automatic framing the collide scene is first seen,
/// degrees (`BuiltinScene::camera`).
pub const COLLIDE_VIEW_PITCH_DEG: f32 = 30.0;

/// Where the pick test's scene is placed.
const PICK_TEST_AT: Vec3 = Vec3::new(6.0, 0.0, -2.0);

/// The collide scene described in the module docs.
#[must_use]
pub fn collide_scene() -> Scene {
    let mut scene = Scene::new();
    let root = scene.add_node("collide", Transform::IDENTITY, None);
    let floor = Mesh::new(
        "floor",
        vec![
            Vec3::new(-14.0, 0.0, -8.0),
            Vec3::new(-14.0, 0.0, 6.0),
            Vec3::new(12.0, 0.0, 6.0),
            Vec3::new(12.0, 0.0, -8.0),
        ],
        // counter-clockwise seen from above: the floor faces up
        vec![[0, 1, 2], [0, 2, 3]],
        [150, 150, 140],
    );
    let ramp = solid(
        "ramp",
        vec![
            Vec3::new(-10.0, 0.0, -4.5),
            Vec3::new(-10.0, 0.0, -1.5),
            Vec3::new(-6.0, 0.0, -4.5),
            Vec3::new(-6.0, 0.0, -1.5),
            Vec3::new(-6.0, 1.0, -4.5),
            Vec3::new(-6.0, 1.0, -1.5),
        ],
        &[
            [0, 2, 3, 1],
            [0, 1, 5, 4],
            [2, 4, 5, 3],
            [0, 4, 2, 0],
            [1, 3, 5, 1],
        ],
        [200, 170, 120],
    );
    let step = cuboid(
        "step",
        Vec3::new(-6.0, 0.0, -4.5),
        Vec3::new(-2.0, 1.0, -1.5),
        [170, 140, 110],
    );
    let wall = cuboid("wall", WALL.0, WALL.1, [210, 210, 225]);
    for mesh in [floor, ramp, step, wall] {
        let mesh = mesh.expect("the collide scene's indices are in range");
        scene.add_mesh(mesh, Transform::IDENTITY, Some(root));
    }
    for (name, centre, color) in [
        ("sphere_a", SPHERE_CENTRES[0], [230, 120, 60]),
        ("sphere_b", SPHERE_CENTRES[1], [90, 150, 220]),
    ] {
        let mesh = sphere(name, SPHERE_RADIUS, 16, 10, color);
        // node +Z becomes world +X: the sphere's forward points along its lane
        let t = Transform {
            translation: centre,
            rotation: Quat::from_rotation_y(FRAC_PI_2),
            scale: Vec3::ONE,
        };
        scene.add_mesh(mesh, t, Some(root));
    }
    let seed = builtin_scene();
    let node = scene.add_node(
        "pick_test",
        Transform::from_translation(PICK_TEST_AT),
        Some(root),
    );
    for m in seed.meshes() {
        let copy = Mesh::new(
            format!("pick_{}", m.name()),
            m.positions().to_vec(),
            m.triangles().to_vec(),
            m.color(),
        )
        .expect("a copy of a valid mesh is valid");
        scene.add_mesh(copy, Transform::IDENTITY, Some(node));
    }
    scene
}

/// The id of the collide scene's mesh `name` (one of [`COLLIDE_MESHES`]).
#[must_use]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn collide_mesh(name: &str) -> Option<MeshId> {
    COLLIDE_MESHES
        .iter()
        .position(|n| *n == name)
        .map(|i| i as MeshId)
}

/// A convex solid from its corners and its faces (quads; a triangle is a
/// quad whose last corner repeats its first). Each triangle is wound so its
/// normal points away from the corners' mean, which for a convex solid is
/// outward (counter-clockwise seen from outside).
fn solid(
    name: &str,
    corners: Vec<Vec3>,
    quads: &[[u32; 4]],
    color: [u8; 3],
) -> Result<Mesh, Error> {
    let mean = corners.iter().copied().sum::<Vec3>() / corners.len() as f32;
    let mut tris = Vec::new();
    for q in quads {
        for t in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
            if t[0] == t[2] || t[1] == t[2] {
                continue;
            }
            tris.push(outward(&corners, mean, t));
        }
    }
    Mesh::new(name, corners, tris, color)
}

/// `t` or its reverse, whichever has its normal pointing away from `inside`.
fn outward(p: &[Vec3], inside: Vec3, t: [u32; 3]) -> [u32; 3] {
    let [a, b, c] = t.map(|i| p[i as usize]);
    if (b - a).cross(c - a).dot(a - inside) < 0.0 {
        [t[0], t[2], t[1]]
    } else {
        t
    }
}

/// An axis-aligned box between `lo` and `hi`.
fn cuboid(name: &str, lo: Vec3, hi: Vec3, color: [u8; 3]) -> Result<Mesh, Error> {
    let corners = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            )
        })
        .collect();
    let faces = [
        [0, 1, 3, 2],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 3, 7, 5],
    ];
    solid(name, corners, &faces, color)
}

/// A UV sphere of radius `r` around the origin: `seg` segments around the
/// Y axis and `rings` rings from pole to pole.
pub(super) fn sphere(name: &str, r: f32, seg: u32, rings: u32, color: [u8; 3]) -> Mesh {
    let mut p = vec![Vec3::new(0.0, r, 0.0)];
    for i in 1..rings {
        let polar = std::f32::consts::PI * i as f32 / rings as f32;
        for j in 0..seg {
            let az = std::f32::consts::TAU * j as f32 / seg as f32;
            p.push(Vec3::new(
                r * polar.sin() * az.cos(),
                r * polar.cos(),
                r * polar.sin() * az.sin(),
            ));
        }
    }
    p.push(Vec3::new(0.0, -r, 0.0));
    let bottom = p.len() as u32 - 1;
    let at = |i: u32, j: u32| 1 + (i - 1) * seg + j % seg;
    let mut tris = Vec::new();
    for j in 0..seg {
        tris.push([0, at(1, j), at(1, j + 1)]);
        tris.push([bottom, at(rings - 1, j), at(rings - 1, j + 1)]);
        for i in 1..rings - 1 {
            tris.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            tris.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    let tris = tris
        .into_iter()
        .map(|t| outward(&p, Vec3::ZERO, t))
        .collect();
    Mesh::new(name, p, tris, color).expect("the sphere's indices are in range")
}
