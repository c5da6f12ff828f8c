//! Generated test meshes shared by benches and examples.

use glam::Vec3;
use softpick::{Mesh, Scene, Transform};

/// UV sphere with `s` slices and `r` stacks (2·s·(r−1) triangles), like the peers' gen_models.py.
pub fn uv_sphere(s: u32, r: u32) -> Scene {
    let mut pos = vec![Vec3::Y];
    for i in 1..r {
        let th = std::f32::consts::PI * i as f32 / r as f32;
        for j in 0..s {
            let ph = std::f32::consts::TAU * j as f32 / s as f32;
            pos.push(Vec3::new(
                th.sin() * ph.cos(),
                th.cos(),
                th.sin() * ph.sin(),
            ));
        }
    }
    pos.push(-Vec3::Y);
    let ring = |i: u32, j: u32| 1 + (i - 1) * s + (j % s);
    let mut t = Vec::new();
    for j in 0..s {
        t.push([0, ring(1, j + 1), ring(1, j)]);
    }
    for i in 1..r - 1 {
        for j in 0..s {
            t.push([ring(i, j), ring(i, j + 1), ring(i + 1, j + 1)]);
            t.push([ring(i, j), ring(i + 1, j + 1), ring(i + 1, j)]);
        }
    }
    let last = pos.len() as u32 - 1;
    for j in 0..s {
        t.push([last, ring(r - 1, j), ring(r - 1, j + 1)]);
    }
    let mut sc = Scene::new();
    sc.add_mesh(
        Mesh::new("sphere", pos, t, [200, 200, 200]).unwrap(),
        Transform::IDENTITY,
        None,
    );
    sc
}
