//! Lower bounds for one scene's depth + ID frame on this machine, for the
//! buffer-sweep rows of issue 6 that softpick misses (BENCHMARKS.md,
//! "Twenty-second round"):
//! - `read`: every position and vertex index read once, nothing else;
//! - `project`: every vertex multiplied by the view-projection and stored;
//! - `oracle`: softpick's own frame of the same view with only the
//!   triangles that end up with a visible pixel and their vertices (what a
//!   free and perfect occlusion culler would leave to draw), next to the
//!   `full` frame.
//!
//! Each is timed in alternating rounds (env `ROUNDS`, default 4, of `N`
//! frames, default 40) and reported as the best 10th percentile, in ms.
//! `cargo run --release --example row_bounds -- FILE.obj [THREADS] [360|1080]`
use rayon::prelude::*;
use softpick::*;
use std::time::Instant;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The 10th percentile of `n` runs of `f`, in ms.
fn p10(n: usize, mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..n)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[n / 10]
}

/// The scene with only the triangles whose ID shows in `frame` and the
/// vertices they use (in their first use's order), placed and framed the
/// same, so the same camera sees them.
fn visible_only(scene: &Scene, frame: &Frame) -> Scene {
    let mut seen = vec![false; scene.triangle_count() as usize];
    for &id in frame.ids() {
        if let Some(s) = seen.get_mut(id as usize) {
            *s = true;
        }
    }
    let mut out = Scene::new();
    let mut base = 0;
    for (i, m) in scene.meshes().iter().enumerate() {
        assert_eq!(
            scene.mesh_world(i as MeshId),
            glam::Mat4::IDENTITY,
            "an OBJ scene"
        );
        // the visible triangles, and only the vertices they use
        let mut remap = vec![u32::MAX; m.positions().len()];
        let mut positions = Vec::new();
        let tris = m
            .triangles()
            .iter()
            .zip(&seen[base..])
            .filter(|(_, &s)| s)
            .map(|(t, _)| {
                t.map(|v| {
                    if remap[v as usize] == u32::MAX {
                        remap[v as usize] = positions.len() as u32;
                        positions.push(m.positions()[v as usize]);
                    }
                    remap[v as usize]
                })
            })
            .collect();
        base += m.triangles().len();
        let mesh = Mesh::new(m.name(), positions, tris, m.color()).unwrap();
        out.add_mesh(mesh, Transform::default(), None);
    }
    out.set_framing_bounds(Some(scene.framing_bounds()));
    out
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let path = a
        .get(1)
        .expect("usage: row_bounds FILE.obj [THREADS] [360|1080]");
    let threads: usize = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(2);
    let (w, h) = match a.get(3).map(String::as_str) {
        Some("1080") => (1920, 1080),
        _ => (360, 360),
    };
    let (rounds, n) = (env("ROUNDS", 4), env("N", 40));
    let scene = load_obj(std::path::Path::new(path)).unwrap().0;
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let opts = RenderOptions {
        threads: Some(threads),
        ..Default::default()
    };
    let mut full = Renderer::new(opts).unwrap();
    full.render(&scene, &cam).unwrap();
    let oracle_scene = visible_only(&scene, full.frame());
    let mut oracle = Renderer::new(opts).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let vp = cam.view_proj();
    let total: usize = scene.meshes().iter().map(|m| m.positions().len()).sum();
    let mut clip = vec![glam::Vec4::ZERO; total];
    let mut best = [f64::MAX; 4];
    for _ in 0..rounds {
        let read = p10(n, || {
            let r: f64 = pool.install(|| {
                scene
                    .meshes()
                    .par_iter()
                    .map(|m| {
                        let p: f32 = m
                            .positions()
                            .par_chunks(8192)
                            .map(|c| c.iter().map(|v| v.x + v.y + v.z).sum::<f32>())
                            .sum();
                        let t: u64 = m
                            .triangles()
                            .par_chunks(16_384)
                            .map(|c| c.iter().map(|t| u64::from(t[0] ^ t[1] ^ t[2])).sum::<u64>())
                            .sum();
                        f64::from(p) + t as f64
                    })
                    .sum()
            });
            std::hint::black_box(r);
        });
        let project = p10(n, || {
            pool.install(|| {
                let mut rest: &mut [glam::Vec4] = &mut clip;
                let mut jobs = Vec::new();
                for m in scene.meshes() {
                    let (o, r) = rest.split_at_mut(m.positions().len());
                    jobs.push((o, m.positions()));
                    rest = r;
                }
                jobs.into_par_iter().for_each(|(o, p)| {
                    o.par_chunks_mut(8192)
                        .zip(p.par_chunks(8192))
                        .for_each(|(o, p)| {
                            for (o, p) in o.iter_mut().zip(p) {
                                *o = vp * p.extend(1.0);
                            }
                        })
                });
            });
            std::hint::black_box(&clip);
        });
        let f = p10(n, || {
            full.render(&scene, &cam).unwrap();
        });
        let o = p10(n, || {
            oracle.render(&oracle_scene, &cam).unwrap();
        });
        for (b, t) in best.iter_mut().zip([read, project, f, o]) {
            *b = b.min(t);
        }
    }
    println!(
        "{path} {w}x{h} threads {threads}: read {:.3} ms, project {:.3} ms, full {:.2} ms, \
         oracle {:.2} ms ({} of {} triangles visible, {:.0} %, with {} of {} vertices; \
         oracle/full {:.2})",
        best[0],
        best[1],
        best[2],
        best[3],
        oracle_scene.triangle_count(),
        scene.triangle_count(),
        100.0 * f64::from(oracle_scene.triangle_count()) / f64::from(scene.triangle_count()),
        oracle_scene
            .meshes()
            .iter()
            .map(|m| m.positions().len())
            .sum::<usize>(),
        total,
        best[3] / best[2],
    );
}
