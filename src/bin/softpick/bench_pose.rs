//! `softpick bench-pose`: the cost of picking a moving scene, per frame:
//! pose (animation channels, morph targets, skins) and BVH refit, render,
//! a buffer sweep of every pixel, and a ray sweep of every pixel on the
//! refit BVHs; then refit against a full rebuild of the posed meshes' BVHs.
//! A scene without animations is deformed instead: every frame moves all
//! vertices of every mesh along a wave through `Scene::set_positions` (the
//! public call for deformations a program computes itself).

use std::time::{Duration, Instant};

use glam::Vec3;
use softpick::animation::LoopMode;
use softpick::internals::Bvh;
use softpick::{PickMethod, Renderer, Scene};

use crate::common::{say, say_json_lines, CliError, Res, Setup};
use crate::sweep::sweep_into;

/// Median of the samples, in milliseconds.
fn median_ms(v: &mut [Duration]) -> f64 {
    v.sort_unstable();
    v[v.len() / 2].as_secs_f64() * 1e3
}

/// One frame's step timings.
#[derive(Default)]
struct Times {
    pose: Vec<Duration>,
    render: Vec<Duration>,
    buffer_sweep: Vec<Duration>,
    ray_sweep: Vec<Duration>,
    refit: Vec<Duration>,
    rebuild: Vec<Duration>,
}

#[derive(serde::Serialize)]
struct PoseResult<'a> {
    scene: &'a str,
    mode: &'static str,
    width: u32,
    height: u32,
    frames: u32,
    triangles: u32,
    pose_refit_ms: f64,
    render_ms: f64,
    buffer_sweep_ms: f64,
    frame_ms: f64,
    ray_sweep_ms: f64,
    refit_ms: f64,
    rebuild_ms: f64,
    refits: usize,
    rebuilds: usize,
}

/// The wave that deforms a static scene at time `t`: each vertex moves
/// along its mesh's up axis by a fraction of the mesh's size.
fn wave(rest: &[Vec3], size: f32, t: f32) -> Vec<Vec3> {
    rest.iter()
        .map(|p| {
            let s = (p.x / size * 6.0 + t * 4.0).sin() * (p.z / size * 5.0 + t * 3.0).cos();
            *p + Vec3::Y * (s * size * 0.02)
        })
        .collect()
}

/// Runs the benchmark: `frames` frames at `start + k · step` seconds (past
/// the animation's end as `looping` says).
pub fn run(
    s: Setup,
    frames: u32,
    (start, step, looping): (f32, f32, LoopMode),
    animation: Option<&str>,
    json: bool,
) -> Res<()> {
    let Setup {
        mut scene,
        camera,
        opts,
        label,
        ..
    } = s;
    let anim =
        match animation {
            Some(k) => Some(scene.find_animation(k).ok_or_else(|| {
                CliError(format!("--animation {k}: {label} has no such animation"))
            })?),
            None => (!scene.animations().is_empty()).then_some(0),
        };
    let deformed = (0..scene.meshes().len() as u32).any(|m| scene.deformer(m).is_some());
    let mode = match (anim, deformed) {
        (Some(_), true) => "animation, deformed meshes",
        (Some(_), false) => "animation, rigid nodes",
        (None, _) => "wave through set_positions",
    };
    let rest: Vec<Vec<Vec3>> = scene
        .meshes()
        .iter()
        .map(|m| m.positions().to_vec())
        .collect();
    let sizes: Vec<f32> = scene
        .meshes()
        .iter()
        .map(|m| (m.bounds().max - m.bounds().min).max_element().max(1e-6))
        .collect();
    scene.build_bvhs();
    let mut renderer = Renderer::new(opts)?;
    let mut grid = vec![0u32; camera.width as usize * camera.height as usize];
    let mut t = Times::default();
    let (mut refits, mut rebuilds) = (0, 0);
    let pose = |scene: &mut Scene, time: f32| -> Res<softpick::animation::PoseStats> {
        match anim {
            Some(a) => scene
                .pose(time, Some(a), looping)
                .map_err(|e| CliError(format!("{label}: {e}"))),
            None => {
                let mut all = softpick::animation::PoseStats::default();
                for (m, (r, &size)) in rest.iter().zip(&sizes).enumerate() {
                    let st = scene
                        .set_positions(m as u32, wave(r, size, time))
                        .map_err(|e| CliError(format!("{label}: {e}")))?;
                    all.deformed += st.deformed;
                    all.refitted += st.refitted;
                    all.rebuilt += st.rebuilt;
                }
                Ok(all)
            }
        }
    };
    // two warm-up frames, then the timed ones
    for k in 0..frames + 2 {
        let time = start + step * k.saturating_sub(2) as f32;
        let t0 = Instant::now();
        let st = pose(&mut scene, time)?;
        let posed = t0.elapsed();
        let t0 = Instant::now();
        let frame = renderer.render(&scene, &camera)?;
        let rendered = t0.elapsed();
        let picks = frame.picks(&scene)?;
        let t0 = Instant::now();
        sweep_into(picks, &mut grid, &|_| {});
        let buffer = t0.elapsed();
        let t0 = Instant::now();
        let rays = picks.with(PickMethod::Ray);
        rays.prepare();
        sweep_into(rays, &mut grid, &|_| {});
        let ray = t0.elapsed();
        if k < 2 {
            continue;
        }
        refits += st.refitted;
        rebuilds += st.rebuilt;
        t.pose.push(posed);
        t.render.push(rendered);
        t.buffer_sweep.push(buffer);
        t.ray_sweep.push(ray);
        // refit against rebuild of the posed meshes' BVHs, on copies
        let (mut refit, mut rebuild) = (Duration::ZERO, Duration::ZERO);
        for m in scene.meshes() {
            let mut b: Bvh = softpick::internals::mesh_bvh(m).clone();
            let t0 = Instant::now();
            let _ = b.refit(m.positions(), m.triangles());
            refit += t0.elapsed();
            let t0 = Instant::now();
            let fresh = Bvh::build(m.positions(), m.triangles());
            rebuild += t0.elapsed();
            drop(fresh);
        }
        t.refit.push(refit);
        t.rebuild.push(rebuild);
    }
    let pose_ms = median_ms(&mut t.pose);
    let render_ms = median_ms(&mut t.render);
    let buffer_ms = median_ms(&mut t.buffer_sweep);
    let r = PoseResult {
        scene: &label,
        mode,
        width: camera.width,
        height: camera.height,
        frames,
        triangles: scene.triangle_count(),
        pose_refit_ms: pose_ms,
        render_ms,
        buffer_sweep_ms: buffer_ms,
        frame_ms: pose_ms + render_ms + buffer_ms,
        ray_sweep_ms: median_ms(&mut t.ray_sweep),
        refit_ms: median_ms(&mut t.refit),
        rebuild_ms: median_ms(&mut t.rebuild),
        refits,
        rebuilds,
    };
    if json {
        return say_json_lines(&[r]);
    }
    say(format_args!(
        "{}: {} triangles, {}x{}, {} ({} frames, medians)",
        r.scene, r.triangles, r.width, r.height, r.mode, r.frames
    ))?;
    say(format_args!(
        "  pose + refit {:.3} ms, render {:.3} ms, buffer sweep {:.3} ms: {:.3} ms a frame",
        r.pose_refit_ms, r.render_ms, r.buffer_sweep_ms, r.frame_ms
    ))?;
    say(format_args!(
        "  ray sweep on the refit BVHs {:.3} ms",
        r.ray_sweep_ms
    ))?;
    say(format_args!(
        "  BVHs: refit {:.3} ms, rebuild {:.3} ms ({:.1}x); {} refits, {} rebuilds while posing",
        r.refit_ms,
        r.rebuild_ms,
        r.rebuild_ms / r.refit_ms.max(1e-9),
        r.refits,
        r.rebuilds
    ))?;
    Ok(())
}
