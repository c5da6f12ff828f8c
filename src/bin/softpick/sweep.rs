//! The timing test of the original pick test: W×H picks covering every
//! pixel, per method, with the setup cost (the pick-only render for the
//! buffer and direct methods, the BVH build for rays) and the agreement of
//! every method with the ID buffer.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use softpick::{PickId, PickMethod, Picks, RenderOptions};

use crate::args::{SweepCmd, SweepMethodArg};
use crate::common::{check_min_time, say, say_json_lines, Res, Setup};

/// Picks every pixel of the view's frame (rows in parallel, as
/// [`pick_rows`]) with the compact pick, returning per pixel the (mesh,
/// global triangle) of the hit. `on_rows(n)` is called after each `n` rows.
pub fn pick_grid(picks: Picks<'_>, on_rows: &(dyn Fn(u64) + Sync)) -> Vec<Option<(u32, u32)>> {
    let frame = picks.frame();
    let mut out = vec![None; frame.width() as usize * frame.height() as usize];
    pick_rows(picks, &mut out, on_rows, |p| {
        p.map(|h| (h.mesh, h.global_triangle))
    });
    out
}

/// The timed sweep: every pixel of `frame` picked with the compact pick,
/// rows in parallel, into `out` in the raw ID format (global triangle + 1,
/// 0 = nothing), the `.u32` the peers' sweeps write (Embree's timed pass
/// keeps only primID too). `out` is allocated by the caller before the clock
/// starts, as the peers' output arrays are. The buffer method's picks go
/// straight into `out` ([`Picks::span_with`]): each pixel's ID is
/// read, checked and resolved to its mesh, but the depth a pick carries is
/// not kept, so the compiled loop need not read it (the "Fifteenth round"
/// of `git show 75449c2:docs/perf-history.md` measures the loop with depth
/// and mesh kept too).
pub fn sweep_into(picks: Picks<'_>, out: &mut [u32], on_rows: &(dyn Fn(u64) + Sync)) {
    pick_rows(picks, out, on_rows, |p| {
        p.map_or(softpick::Frame::NO_TRIANGLE, |h| h.global_triangle + 1)
    });
}

/// Most repetitions `--min-time` adds to a method (cheap sweeps of tiny
/// frames would otherwise run thousands of times).
const MAX_REPS: u32 = 1000;

/// Rows picked per parallel task of [`pick_rows`] (and per progress tick:
/// a tick is an atomic update and a clock read, shared by the threads).
const ROWS_PER_TASK: usize = 8;

/// Every row of the view's frame picked with its method (tasks of
/// [`ROWS_PER_TASK`] rows in parallel), each pick stored in `out` through
/// `cell`: rays with [`Picks::block`] into one buffer of picks per worker,
/// the other methods row by row with [`Picks::span_with`], without one;
/// `on_rows(n)` after each task of `n` rows. The direct method's cell
/// index is built first, on all threads (a first pick inside the rows
/// would build it on one).
fn pick_rows<T: Send>(
    picks: Picks<'_>,
    out: &mut [T],
    on_rows: &(dyn Fn(u64) + Sync),
    cell: impl Fn(Option<PickId>) -> T + Sync,
) {
    let method = picks.method();
    if method == PickMethod::Direct {
        picks.prepare();
    }
    let w = picks.frame().width() as usize;
    out.par_chunks_mut(w * ROWS_PER_TASK)
        .enumerate()
        .for_each_init(Vec::new, |buf, (task, rows)| {
            let y0 = task * ROWS_PER_TASK;
            if method == PickMethod::Ray {
                // (rays go in 4×2-pixel blocks, through a buffer of picks)
                buf.resize(rows.len(), None);
                picks.block(0, y0 as i64, w, buf);
                for (c, &p) in rows.iter_mut().zip(buf.iter()) {
                    *c = cell(p);
                }
            } else {
                for (k, row) in rows.chunks_mut(w).enumerate() {
                    picks.span_with(0, (y0 + k) as i64, row, &cell);
                }
            }
            on_rows((rows.len() / w) as u64);
        });
}

/// The result of one method (also the `--json` line).
#[derive(Serialize, Debug, Clone)]
pub struct SweepResult {
    pub method: &'static str,
    pub width: u32,
    pub height: u32,
    pub picks: u64,
    /// Setup before the first pick: the render (buffer, direct) plus the
    /// direct picks' cell index (`index_ms`), or the BVH build (ray).
    pub setup_ms: f64,
    /// The direct picks' cell index build, included in `setup_ms` (0 for
    /// the other methods).
    pub index_ms: f64,
    pub sweep_ms: f64,
    pub picks_per_sec: f64,
    /// Repetitions made (`--reps`, or more for `--min-time`).
    pub reps: u32,
    /// Pixels where the method returned the same global triangle (or nothing) as the ID buffer.
    pub agree: u64,
    pub total: u64,
    pub threads: usize,
}

/// A progress bar that only appears on a terminal, and only once the run
/// has taken more than a second.
struct Progress {
    bar: ProgressBar,
    start: Instant,
    tty: bool,
    shown: AtomicBool,
}

impl Progress {
    fn new(len: u64) -> Self {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
        if let Ok(style) =
            ProgressStyle::with_template("{msg:>8} [{bar:40}] {pos}/{len} rows, {elapsed}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        Self {
            bar,
            start: Instant::now(),
            tty: std::io::stderr().is_terminal(),
            shown: AtomicBool::new(false),
        }
    }

    fn tick(&self, rows: u64) {
        self.bar.inc(rows);
        if self.tty
            && !self.shown.load(Ordering::Relaxed)
            && self.start.elapsed() > Duration::from_secs(1)
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs the sweep for each method `reps` times, and more until the
/// method has taken `min_time` seconds (cheap sweeps get as many samples
/// as `bench-render`'s frames), keeping the best setup and sweep times.
pub fn run(s: &Setup, methods: &[PickMethod], reps: u32, min_time: f64) -> Res<Vec<SweepResult>> {
    let (scene, camera) = (&s.scene, &s.camera);
    let (w, h) = (camera.width, camera.height);
    let total = u64::from(w) * u64::from(h);
    let mut renderer = s.renderer(RenderOptions {
        color: false,
        ..s.opts
    })?;
    // the reference: the ID buffer of the same render (untimed)
    let reference: Vec<u32> = renderer.render(scene, camera)?.ids().to_vec();
    let progress = Progress::new(methods.len() as u64 * u64::from(reps) * u64::from(h));
    let tick = |rows| progress.tick(rows);
    let mut results = Vec::new();
    for &method in methods {
        progress.bar.set_message(method.name());
        let (mut best_setup, mut best_sweep) = (Duration::MAX, Duration::MAX);
        let mut best_index = Duration::MAX;
        let mut grid = vec![softpick::Frame::NO_TRIANGLE; total as usize];
        let started = Instant::now();
        let mut done = 0u32;
        while done < reps || (started.elapsed().as_secs_f64() < min_time && done < MAX_REPS) {
            if done >= reps {
                progress.bar.inc_length(u64::from(h));
            }
            done += 1;
            let (setup, sweep);
            let mut index = Duration::ZERO;
            match method {
                PickMethod::Buffer | PickMethod::Direct => {
                    let t = Instant::now();
                    let frame = renderer.render(scene, camera)?;
                    let rendered = t.elapsed();
                    let picks = frame.picks(scene)?.with(method);
                    if method == PickMethod::Direct {
                        // the cell index, otherwise built by the first pick
                        let t = Instant::now();
                        picks.prepare();
                        index = t.elapsed();
                    }
                    setup = rendered + index;
                    let t = Instant::now();
                    sweep_into(picks, &mut grid, &tick);
                    sweep = t.elapsed();
                }
                PickMethod::Ray => {
                    // a fresh copy has no BVHs yet, a fresh render no top-level
                    // BVH: time building those the ray picks walk
                    let fresh = scene.clone_without_bvhs();
                    let frame = renderer.render(&fresh, camera)?;
                    let picks = frame.picks(&fresh)?.with(method);
                    let t = Instant::now();
                    fresh.build_bvhs();
                    picks.prepare();
                    setup = t.elapsed();
                    let t = Instant::now();
                    sweep_into(picks, &mut grid, &tick);
                    sweep = t.elapsed();
                }
            }
            best_setup = best_setup.min(setup);
            best_index = best_index.min(index);
            best_sweep = best_sweep.min(sweep);
        }
        let agree = grid.iter().zip(&reference).filter(|(g, r)| g == r).count() as u64;
        let secs = best_sweep.as_secs_f64().max(1e-9);
        results.push(SweepResult {
            method: method.name(),
            width: w,
            height: h,
            picks: total,
            setup_ms: ms(best_setup),
            index_ms: ms(best_index),
            sweep_ms: ms(best_sweep),
            picks_per_sec: total as f64 / secs,
            reps: done,
            agree,
            total,
            threads: rayon::current_num_threads(),
        });
    }
    progress.bar.finish_and_clear();
    Ok(results)
}

fn rate(r: f64) -> String {
    if r >= 1e6 {
        format!("{:.2} M/s", r / 1e6)
    } else {
        format!("{:.1} k/s", r / 1e3)
    }
}

/// Prints a table, or one JSON line per method.
pub fn print(results: &[SweepResult], json: bool) -> Res<()> {
    if json {
        return say_json_lines(results);
    }
    if let Some(r) = results.first() {
        say(format_args!(
            "sweep {}x{} = {} picks per method, {} threads, best of the repetitions",
            r.width, r.height, r.picks, r.threads
        ))?;
    }
    say(format_args!(
        "{:<7} {:>14} {:>10} {:>12} {:>12} {:>5}  agreement with buffer",
        "method", "setup", "setup ms", "sweep ms", "picks/s", "reps"
    ))?;
    for r in results {
        let setup = match r.method {
            "ray" => "bvh",
            "direct" => "render+index",
            _ => "render",
        };
        let pct = 100.0 * r.agree as f64 / r.total.max(1) as f64;
        say(format_args!(
            "{:<7} {:>14} {:>10.3} {:>12.3} {:>12} {:>5}  {}/{} ({pct:.2}%)",
            r.method,
            setup,
            r.setup_ms,
            r.sweep_ms,
            rate(r.picks_per_sec),
            r.reps,
            r.agree,
            r.total
        ))?;
    }
    for r in results.iter().filter(|r| r.method == "direct") {
        say(format_args!(
            "direct setup: render {:.3} ms + cell index {:.3} ms",
            r.setup_ms - r.index_ms,
            r.index_ms
        ))?;
    }
    Ok(())
}

/// `softpick sweep`.
pub fn sweep_cmd(a: &SweepCmd) -> Res<()> {
    check_min_time(a.min_time)?;
    let s = Setup::new(&a.scene, Some(&a.raster))?.with_clip(&a.clip)?;
    let methods: Vec<PickMethod> = match a.method {
        SweepMethodArg::All => PickMethod::ALL.to_vec(),
        SweepMethodArg::Buffer => vec![PickMethod::Buffer],
        SweepMethodArg::Direct => vec![PickMethod::Direct],
        SweepMethodArg::Ray => vec![PickMethod::Ray],
    };
    let results = run(&s, &methods, a.reps, a.min_time)?;
    print(&results, a.json)
}
