//! Lower bounds for one scene's depth + ID frame on this machine:
//! - `read`: every position and vertex index read once, nothing else;
//! - `project`: every vertex multiplied by the view-projection and stored;
//! - softpick's own frame of the same view (`full`), and of the same view
//!   with only some triangles and their vertices: those an occlusion
//!   culler with the final depth buffer would still draw (`unoccluded`),
//!   and those with a visible pixel (`visible`), which no culler reaches:
//!   it cannot tell that a triangle covers no pixel centre without setting
//!   it up.
//!
//! Each is timed in alternating rounds (env `ROUNDS`, default 4, of `N`
//! frames, default 40) and reported as the best 10th percentile, in ms.
//! `cargo run --release --manifest-path tools/Cargo.toml --bin row_bounds -- SCENE [THREADS] [SIZE]`
//! SCENE: builtin, sphere70k, sphere100k, sphere1m or FILE.obj (meshes
//! placed with identity transforms, as all of these are); SIZE: 360
//! (default), 1080 or WxH.
use rayon::prelude::*;
use softpick::internals::ScreenVertex;
use softpick::{Camera, Frame, Mesh, MeshId, RenderOptions, Renderer, Scene, Transform};
use softpick_tools::{env_usize, scene_arg, size_arg};
use std::time::Instant;

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

/// Which triangles of `scene` (by global index) an occlusion culler would
/// still have to draw in `frame`: `visible` those whose ID shows; else
/// (`unoccluded`) also every other one not wholly behind the final depth
/// buffer: one with a vertex behind the eye, or one on screen whose
/// nearest vertex is no farther than the farthest depth over the pixels
/// of its box (at least the pixel its box lies in), like the sub-pixel
/// triangles on the front of a dense mesh that cover no pixel centre. A
/// triangle off screen is dropped (the frame culls it before setup too).
fn kept(scene: &Scene, frame: &Frame, visible: bool) -> Vec<bool> {
    let mut keep = vec![false; scene.triangle_count() as usize];
    for &id in frame.ids() {
        if let Some(s) = keep.get_mut(id as usize) {
            *s = true;
        }
    }
    if visible {
        return keep;
    }
    let (w, h) = (frame.width() as i64, frame.height() as i64);
    let mut g = 0;
    for (mi, m) in scene.meshes().iter().enumerate() {
        for t in m.triangles() {
            if !keep[g] {
                let v = t.map(|i| softpick::internals::screen_vertex(frame, mi as u32, i).unwrap());
                keep[g] = if v.iter().any(|v| v.w <= 0.0 || !v.x.is_finite()) {
                    true
                } else {
                    let lo = |f: fn(&ScreenVertex) -> f32| v.iter().map(f).fold(f32::MAX, f32::min);
                    let hi = |f: fn(&ScreenVertex) -> f32| v.iter().map(f).fold(f32::MIN, f32::max);
                    let (x0, x1) = (lo(|v| v.x).floor() as i64, hi(|v| v.x).floor() as i64);
                    let (y0, y1) = (lo(|v| v.y).floor() as i64, hi(|v| v.y).floor() as i64);
                    if x1 < 0 || y1 < 0 || x0 >= w || y0 >= h {
                        false
                    } else {
                        let mut far = 0.0f32;
                        for y in y0.max(0)..=y1.min(h - 1) {
                            for x in x0.max(0)..=x1.min(w - 1) {
                                far = far.max(frame.depth()[(y * w + x) as usize]);
                            }
                        }
                        lo(|v| v.z) <= far
                    }
                };
            }
            g += 1;
        }
    }
    keep
}

/// The scene with only the triangles `keep` names and the vertices they
/// use (in their first use's order), placed and framed the same, so the
/// same camera sees them.
fn only(scene: &Scene, keep: &[bool]) -> Scene {
    let mut out = Scene::new();
    let mut base = 0;
    for (i, m) in scene.meshes().iter().enumerate() {
        assert_eq!(
            scene.mesh_world(i as MeshId),
            glam::Mat4::IDENTITY,
            "meshes placed with identity transforms"
        );
        let mut remap = vec![u32::MAX; m.positions().len()];
        let mut positions = Vec::new();
        let tris = m
            .triangles()
            .iter()
            .zip(&keep[base..])
            .filter(|(_, &k)| k)
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
    let path = a.get(1).expect("usage: row_bounds SCENE [THREADS] [SIZE]");
    let threads: usize = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(2);
    let (w, h) = size_arg(a.get(3).map(String::as_str), (360, 360));
    let (rounds, n) = (env_usize("ROUNDS", 4).max(1), env_usize("N", 40).max(1));
    let scene = scene_arg(Some(path));
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let opts = RenderOptions {
        threads: Some(threads),
        ..RenderOptions::default()
    };
    let mut full = Renderer::new(opts).unwrap();
    full.render(&scene, &cam).unwrap();
    let visible = only(&scene, &kept(&scene, full.frame(), true));
    let unoccluded = only(&scene, &kept(&scene, full.frame(), false));
    let mut oracle = Renderer::new(opts).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let vp = cam.view_proj();
    let total: usize = scene.meshes().iter().map(|m| m.positions().len()).sum();
    let mut clip = vec![glam::Vec4::ZERO; total];
    let mut best = [f64::MAX; 5];
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
        let u = p10(n, || {
            oracle.render(&unoccluded, &cam).unwrap();
        });
        let v = p10(n, || {
            oracle.render(&visible, &cam).unwrap();
        });
        for (b, t) in best.iter_mut().zip([read, project, f, u, v]) {
            *b = b.min(t);
        }
    }
    let counts = |s: &Scene| {
        let v: usize = s.meshes().iter().map(|m| m.positions().len()).sum();
        format!("{} triangles, {v} vertices", s.triangle_count())
    };
    println!(
        "{path} {w}x{h}, {threads} threads: read {:.3} ms, project {:.3} ms; full {:.2} ms ({}); \
         unoccluded {:.2} ms ({}; {:.2} of full); visible {:.2} ms ({}; {:.2} of full)",
        best[0],
        best[1],
        best[2],
        counts(&scene),
        best[3],
        counts(&unoccluded),
        best[3] / best[2],
        best[4],
        counts(&visible),
        best[4] / best[2],
    );
}
