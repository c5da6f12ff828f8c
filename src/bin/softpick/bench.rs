//! `softpick bench-render`: frame times of the renderer alone, the figure
//! that issue 6 compares with llvmpipe and euc. One renderer is reused for
//! every frame (no allocation per frame once the buffers exist); each pass
//! is warmed up, then timed for at least `--frames` frames and `--min-time`
//! seconds. The best, median and mean frame times are reported, plus the
//! "fill floor": the time to fill three W×H 32-bit buffers (depth, ID,
//! color) on the same number of threads.

use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;
use softpick::{Camera, RenderOptions, Renderer, Scene};

use crate::common::{say, say_json_lines, CliError, Res};

/// Which passes a render benchmark times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passes {
    /// The pick-only pass: depth + ID.
    Ids,
    /// Depth + ID + shaded color.
    Color,
    /// Both, pick-only first.
    Both,
}

/// One timed pass (also the `--json` line).
#[derive(Serialize, Debug, Clone)]
pub struct BenchResult {
    /// `"ids"` (depth + ID) or `"color"` (depth + ID + color).
    pub pass: &'static str,
    pub width: u32,
    pub height: u32,
    pub triangles: u32,
    pub threads: usize,
    /// Timed frames (after `warmup` untimed ones).
    pub frames: u32,
    pub warmup: u32,
    /// The first frame of a fresh renderer (buffer allocation included).
    pub first_frame_ms: f64,
    pub best_ms: f64,
    pub median_ms: f64,
    pub mean_ms: f64,
    /// Best time to fill three W×H 32-bit buffers on the same threads.
    pub fill_floor_ms: f64,
    pub covered_px: u64,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Best time of filling three `n`-element buffers on `pool`.
fn fill_floor(pool: &rayon::ThreadPool, n: usize, frames: u32) -> f64 {
    let mut a = vec![0u32; n];
    let mut b = vec![0f32; n];
    let mut c = vec![0u32; n];
    let chunk = 64 * 1024;
    let mut best = Duration::MAX;
    for i in 0..frames.max(5) {
        let t = Instant::now();
        pool.install(|| {
            a.par_chunks_mut(chunk).for_each(|s| s.fill(i));
            b.par_chunks_mut(chunk).for_each(|s| s.fill(1.0));
            c.par_chunks_mut(chunk).for_each(|s| s.fill(i ^ 0xff));
        });
        best = best.min(t.elapsed());
        std::hint::black_box((&a, &b, &c));
    }
    ms(best)
}

/// Times the chosen passes of `scene` from `camera`.
pub fn run(
    scene: &Scene,
    camera: &Camera,
    opts: RenderOptions,
    passes: Passes,
    frames: u32,
    min_time: f64,
) -> Res<Vec<BenchResult>> {
    let threads = opts.threads.unwrap_or_else(rayon::current_num_threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| {
            CliError(format!(
                "--threads {threads}: cannot start the threads: {e}"
            ))
        })?;
    let (w, h) = (camera.width, camera.height);
    let floor = fill_floor(&pool, w as usize * h as usize, frames);
    // (its threads would otherwise compete with the renderer's while they wind down)
    drop(pool);
    let list: &[bool] = match passes {
        Passes::Ids => &[false],
        Passes::Color => &[true],
        Passes::Both => &[false, true],
    };
    let warmup = 3;
    let mut out = Vec::new();
    for &color in list {
        let mut renderer = Renderer::new(RenderOptions {
            color,
            threads: Some(threads),
            ..opts
        })?;
        let t = Instant::now();
        let covered = renderer
            .render(scene, camera)?
            .ids()
            .iter()
            .filter(|&&i| i != softpick::NO_TRIANGLE)
            .count() as u64;
        let first = t.elapsed();
        for _ in 1..warmup {
            renderer.render(scene, camera)?;
        }
        let mut times = Vec::with_capacity(frames as usize);
        let start = Instant::now();
        while times.len() < frames as usize || start.elapsed().as_secs_f64() < min_time {
            let t = Instant::now();
            renderer.render(scene, camera)?;
            times.push(t.elapsed());
        }
        times.sort_unstable();
        let n = times.len();
        let median = if n % 2 == 1 {
            times[n / 2]
        } else {
            (times[n / 2 - 1] + times[n / 2]) / 2
        };
        let mean = times.iter().sum::<Duration>() / n as u32;
        out.push(BenchResult {
            pass: if color { "color" } else { "ids" },
            width: w,
            height: h,
            triangles: scene.triangle_count(),
            threads,
            frames: n as u32,
            warmup,
            first_frame_ms: ms(first),
            best_ms: ms(times[0]),
            median_ms: ms(median),
            mean_ms: ms(mean),
            fill_floor_ms: floor,
            covered_px: covered,
        });
    }
    Ok(out)
}

/// Prints a table, or one JSON line per pass.
pub fn print(results: &[BenchResult], json: bool) -> Res<()> {
    if json {
        return say_json_lines(results);
    }
    if let Some(r) = results.first() {
        say(format_args!(
            "render {}x{}, {} triangles, {} threads, fill floor (3 buffers) {:.3} ms",
            r.width, r.height, r.triangles, r.threads, r.fill_floor_ms
        ))?;
    }
    say(format_args!(
        "{:<6} {:>7} {:>10} {:>10} {:>10} {:>10}",
        "pass", "frames", "first ms", "best ms", "median ms", "mean ms"
    ))?;
    for r in results {
        say(format_args!(
            "{:<6} {:>7} {:>10.3} {:>10.3} {:>10.3} {:>10.3}",
            r.pass, r.frames, r.first_frame_ms, r.best_ms, r.median_ms, r.mean_ms
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_passes_time_every_frame_and_cover_pixels() {
        let scene = softpick::builtin_scene();
        let camera = Camera::auto_frame(&scene.framing_bounds(), 64, 48);
        let opts = RenderOptions {
            threads: Some(1),
            ..RenderOptions::default()
        };
        let r = run(&scene, &camera, opts, Passes::Both, 4, 0.0).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].pass, r[1].pass), ("ids", "color"));
        for p in &r {
            assert_eq!((p.width, p.height, p.threads), (64, 48, 1));
            assert!(p.frames >= 4);
            assert!(p.best_ms <= p.median_ms && p.median_ms.is_finite());
            assert!(p.covered_px > 0 && p.covered_px <= 64 * 48);
            assert_eq!(p.triangles, scene.triangle_count());
        }
        // both passes see the same coverage
        assert_eq!(r[0].covered_px, r[1].covered_px);
    }
}
