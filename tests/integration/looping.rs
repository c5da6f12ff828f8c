//! Loop modes through a generated glTF file: a node whose translation
//! (LINEAR), rotation (LINEAR, slerp) and scale (CUBICSPLINE) keys run from
//! 0.5 s to 2 s, and a second node stepping (STEP), posed with every
//! `LoopMode` at times before, inside and after the keys. Each transform
//! equals the glTF 2.0 spec's sampler formulas (Appendix C), written out
//! here, at the clip time of the mode: the time itself for `once` (the
//! sampler clamps), `t mod d` for `repeat` and `t` mirrored into `[0, d]`
//! for `pingpong`, with d = 2 s the clip's duration (its last key).
#![cfg(feature = "gltf")]

use glam::{Quat, Vec3};
use serde_json::json;
use softpick::animation::LoopMode;
use softpick::{load_model_bytes, Scene};

use crate::gltf::{quad, Doc};

const TIMES: [f32; 3] = [0.5, 1.5, 2.0];
const MOVE: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [4.0, 1.0, 0.0], [2.0, 0.0, -1.0]];
/// Scale keys of the cubic spline: (in-tangent, value, out-tangent) each.
const SCALE: [[[f32; 3]; 3]; 3] = [
    [[0.0; 3], [1.0, 1.0, 1.0], [2.0, 0.0, 1.0]],
    [[1.0, -1.0, 0.0], [2.0, 1.5, 1.0], [0.5, 0.5, 0.5]],
    [[-1.0, 0.0, 2.0], [1.0, 2.0, 3.0], [0.0; 3]],
];
const STEPS: [[f32; 3]; 3] = [[0.0, 5.0, 0.0], [0.0, 6.0, 0.0], [0.0, 7.0, 0.0]];

fn turns() -> [Quat; 3] {
    [
        Quat::IDENTITY,
        Quat::from_rotation_y(1.2),
        Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0).normalize(), 2.5),
    ]
}

/// The file: node 0 (`mover`) and node 1 (`stepper`), each placing the unit
/// quad, and one animation `clip` over both.
fn clip_glb() -> Vec<u8> {
    let mut d = Doc::default();
    let (pos, idx) = quad();
    let pa = d.positions(&pos);
    let ia = d.indices(&idx);
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let times = d.accessor(&f32s(&TIMES), 5126, 3, "SCALAR", false);
    d.accessors[times]["min"] = json!([TIMES[0]]);
    d.accessors[times]["max"] = json!([TIMES[2]]);
    let flat3 = |v: &[[f32; 3]]| f32s(&v.concat());
    let tr = d.accessor(&flat3(&MOVE), 5126, 3, "VEC3", false);
    let q: Vec<f32> = turns().iter().flat_map(|q| q.to_array()).collect();
    let rot = d.accessor(&f32s(&q), 5126, 3, "VEC4", false);
    let sc = d.accessor(&f32s(&SCALE.concat().concat()), 5126, 9, "VEC3", false);
    let st = d.accessor(&flat3(&STEPS), 5126, 3, "VEC3", false);
    let root = json!({
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "mover", "mesh": 0}, {"name": "stepper", "mesh": 0}],
        "meshes": [{"name": "quad", "primitives": [{"attributes": {"POSITION": pa}, "indices": ia}]}],
        "animations": [{"name": "clip", "samplers": [
            {"input": times, "output": tr, "interpolation": "LINEAR"},
            {"input": times, "output": rot, "interpolation": "LINEAR"},
            {"input": times, "output": sc, "interpolation": "CUBICSPLINE"},
            {"input": times, "output": st, "interpolation": "STEP"},
        ], "channels": [
            {"sampler": 0, "target": {"node": 0, "path": "translation"}},
            {"sampler": 1, "target": {"node": 0, "path": "rotation"}},
            {"sampler": 2, "target": {"node": 0, "path": "scale"}},
            {"sampler": 3, "target": {"node": 1, "path": "translation"}},
        ]}],
    });
    d.glb(root)
}

/// The clip time of each mode, written out: `t − d·⌊t/d⌋` and its mirror.
fn clip_time(mode: LoopMode, t: f32, d: f32) -> f32 {
    match mode {
        LoopMode::Once => t,
        LoopMode::Repeat => t - d * (t / d).floor(),
        LoopMode::PingPong => {
            let u = t - 2.0 * d * (t / (2.0 * d)).floor();
            if u > d {
                2.0 * d - u
            } else {
                u
            }
        }
    }
}

/// glTF's keyframe search: the clamped time's key interval and the
/// interpolation factor `(t − t_k) / (t_k+1 − t_k)`; `None` outside the
/// keys (the first or last key then holds).
fn interval(t: f32) -> Result<(usize, f32), usize> {
    if t <= TIMES[0] {
        return Err(0);
    }
    if t >= TIMES[2] {
        return Err(2);
    }
    let k = if t < TIMES[1] { 0 } else { 1 };
    Ok((k, (t - TIMES[k]) / (TIMES[k + 1] - TIMES[k])))
}

/// The spec's LINEAR: `(1 − s)·v_k + s·v_k+1`.
fn linear(t: f32) -> Vec3 {
    match interval(t) {
        Err(k) => Vec3::from(MOVE[k]),
        Ok((k, s)) => Vec3::from(MOVE[k]) * (1.0 - s) + Vec3::from(MOVE[k + 1]) * s,
    }
}

/// The spec's spherical linear interpolation: `a = acos|q_k · q_k+1|`,
/// `(sin(a(1 − s))/sin a)·q_k + (sin(a s)/sin a)·s'·q_k+1` with `s'` the
/// sign of the dot product (the shorter way).
fn slerp(t: f32) -> Quat {
    let q = turns();
    match interval(t) {
        Err(k) => q[k],
        Ok((k, s)) => {
            let (a, mut b) = (q[k], q[k + 1]);
            let mut dot = a.dot(b);
            if dot < 0.0 {
                b = -b;
                dot = -dot;
            }
            let angle = dot.min(1.0).acos();
            let (wa, wb) = if angle < 1e-6 {
                (1.0 - s, s)
            } else {
                (
                    (angle * (1.0 - s)).sin() / angle.sin(),
                    (angle * s).sin() / angle.sin(),
                )
            };
            (a * wa + b * wb).normalize()
        }
    }
}

/// The spec's CUBICSPLINE: `(2s³ − 3s² + 1)·v_k + td·(s³ − 2s² + s)·b_k +
/// (−2s³ + 3s²)·v_k+1 + td·(s³ − s²)·a_k+1`, with `b_k` key k's
/// out-tangent, `a_k+1` key k+1's in-tangent and `td` the interval.
fn cubic(t: f32) -> Vec3 {
    let key = |k: usize, part: usize| Vec3::from(SCALE[k][part]);
    match interval(t) {
        Err(k) => key(k, 1),
        Ok((k, s)) => {
            let td = TIMES[k + 1] - TIMES[k];
            let (s2, s3) = (s * s, s * s * s);
            key(k, 1) * (2.0 * s3 - 3.0 * s2 + 1.0)
                + key(k, 2) * (td * (s3 - 2.0 * s2 + s))
                + key(k + 1, 1) * (-2.0 * s3 + 3.0 * s2)
                + key(k + 1, 0) * (td * (s3 - s2))
        }
    }
}

/// The spec's STEP: the value of the last key at or before the time.
fn step(t: f32) -> Vec3 {
    let k = match interval(t) {
        Err(k) => k,
        Ok((k, _)) => k,
    };
    Vec3::from(STEPS[k])
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 2e-5
}

#[test]
fn every_loop_mode_samples_the_spec_formulas_before_inside_and_after_the_keys() {
    let (mut scene, report): (Scene, _) = load_model_bytes("clip.glb", &clip_glb()).unwrap();
    assert_eq!(report.animations, 1);
    let d = scene.animations()[0].duration();
    assert_eq!(d, 2.0);
    let node = |name: &str| {
        scene
            .nodes()
            .iter()
            .position(|n| n.name == name)
            .unwrap_or_else(|| panic!("no node {name}")) as u32
    };
    let (mover, stepper) = (node("mover"), node("stepper"));
    // before the first key (0.5 s), inside, on keys, at the end, after it,
    // several periods on, and before 0
    let times = [
        -3.3, -0.7, 0.0, 0.2, 0.5, 0.9, 1.5, 1.75, 2.0, 2.3, 2.6, 3.9, 4.0, 5.3, 7.45, 11.0,
    ];
    for mode in LoopMode::ALL {
        for t in times {
            scene.pose(t, Some(0), mode).unwrap();
            let u = clip_time(mode, t, d);
            assert!((u - mode.clip_time(t, d)).abs() < 1e-6, "{mode:?} {t}: {u}");
            let m = scene.local(mover).unwrap();
            let what = format!("{} at {t} s (clip time {u})", mode.name());
            assert!(
                close(m.translation, linear(u)),
                "{what}: {} vs {}",
                m.translation,
                linear(u)
            );
            let (q, want) = (m.rotation, slerp(u));
            assert!(q.dot(want).abs() > 1.0 - 1e-5, "{what}: {q:?} vs {want:?}");
            assert!(
                close(m.scale, cubic(u)),
                "{what}: {} vs {}",
                m.scale,
                cubic(u)
            );
            assert_eq!(scene.local(stepper).unwrap().translation, step(u), "{what}");
        }
    }
    // the modes differ where they should: after the end, once holds the
    // last key, repeat starts over (at 0.6 s), pingpong comes back (1.4 s)
    let at = |scene: &mut Scene, mode| {
        scene.pose(2.6, Some(0), mode).unwrap();
        scene.local(mover).unwrap().translation
    };
    assert!(close(at(&mut scene, LoopMode::Once), Vec3::from(MOVE[2])));
    assert!(close(at(&mut scene, LoopMode::Repeat), linear(0.6)));
    assert!(close(at(&mut scene, LoopMode::PingPong), linear(1.4)));
}
