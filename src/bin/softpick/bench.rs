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
use softpick::{Camera, RenderOptions, Renderer, Scene, StageTimes};

use crate::args::{BenchRenderCmd, PassArg};
use crate::common::{check_min_time, say, say_json_lines, CliError, Res, Setup};

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
    /// Timed with its frames alternating with those of the same pass on
    /// one thread (`--against-one-thread`), which is the next result.
    pub interleaved: bool,
    /// The first frame of a fresh renderer (buffer allocation included).
    pub first_frame_ms: f64,
    pub best_ms: f64,
    pub median_ms: f64,
    pub mean_ms: f64,
    /// Best time to fill three W×H 32-bit buffers on the same threads.
    pub fill_floor_ms: f64,
    pub covered_px: u64,
    /// Median time of each stage over the timed frames
    /// ([`softpick::StageTimes`]): the vertex stage; clipping, setup and
    /// binning; clearing and rasterizing the tiles.
    pub vertex_ms: f64,
    pub setup_ms: f64,
    pub raster_ms: f64,
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

/// Times the chosen passes of `scene` from `camera`. With `against_one`
/// (and more than one thread) each pass is also timed on one thread, in
/// blocks of frames alternating with the N-thread ones, so that a change
/// in the machine's load touches both: the pair gives the 2-threads-vs-1
/// figure (taken as two runs seconds apart, the city's 1080p ratio was
/// 1.77× and 1.94× in two peer runs of the same depth + ID render code:
/// the "Twentieth round" of `git show 75449c2:docs/perf-history.md`).
pub fn run(
    s: &Setup,
    passes: Passes,
    frames: u32,
    min_time: f64,
    against_one: bool,
) -> Res<Vec<BenchResult>> {
    let (scene, camera, opts) = (&s.scene, &s.camera, s.opts);
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
    let counts = if against_one && threads > 1 {
        vec![threads, 1]
    } else {
        vec![threads]
    };
    let mut out = Vec::new();
    for &color in list {
        let mut timed = Vec::with_capacity(counts.len());
        for &t in &counts {
            // (cut by the clip planes of `--clip`, if any)
            let renderer = s.renderer(RenderOptions {
                color,
                threads: Some(t),
                ..opts
            })?;
            timed.push(Timed::new(renderer, t));
        }
        // the first frame of each (buffer allocation), then the warm-up ones
        for r in &mut timed {
            r.first(scene, camera)?;
            for _ in 1..WARMUP {
                let t = Instant::now();
                r.renderer.render(scene, camera)?;
                r.warm = t.elapsed();
            }
        }
        if let [one] = &mut timed[..] {
            let start = Instant::now();
            while one.times.len() < frames as usize || start.elapsed().as_secs_f64() < min_time {
                one.frame(scene, camera)?;
            }
        } else {
            // blocks of about BLOCK_S each, alternating, each after one
            // untimed frame (frame by frame, each renderer would find its
            // threads asleep and its buffers out of cache: the built-in
            // scene at 360² took 0.34 ms a frame instead of 0.12)
            let start = Instant::now();
            let per_block = |r: &Timed| {
                let f = r.warm.as_secs_f64().max(1e-6);
                ((BLOCK_S / f) as usize).clamp(1, frames as usize)
            };
            let blocks: Vec<usize> = timed.iter().map(per_block).collect();
            while timed.iter().any(|r| r.times.len() < frames as usize)
                || start.elapsed().as_secs_f64() < min_time
            {
                for (r, &k) in timed.iter_mut().zip(&blocks) {
                    r.renderer.render(scene, camera)?;
                    for _ in 0..k {
                        r.frame(scene, camera)?;
                    }
                }
            }
        }
        let interleaved = timed.len() > 1;
        for r in timed {
            out.push(r.result(color, scene, camera, floor, interleaved));
        }
    }
    Ok(out)
}

/// Untimed frames before the timed ones, the first included.
const WARMUP: u32 = 3;

/// About how long one block of `--against-one-thread` frames takes.
const BLOCK_S: f64 = 0.1;

/// One renderer under test and its frame times.
struct Timed {
    renderer: Renderer,
    threads: usize,
    first: Duration,
    /// The last warm-up frame's time.
    warm: Duration,
    covered: u64,
    times: Vec<Duration>,
    /// The stage times of each timed frame.
    stages: Vec<StageTimes>,
}

impl Timed {
    fn new(renderer: Renderer, threads: usize) -> Self {
        Timed {
            renderer,
            threads,
            first: Duration::ZERO,
            warm: Duration::ZERO,
            covered: 0,
            times: Vec::new(),
            stages: Vec::new(),
        }
    }

    /// The first frame of the fresh renderer: its time and covered pixels.
    fn first(&mut self, scene: &Scene, camera: &Camera) -> Res<()> {
        let t = Instant::now();
        let frame = self.renderer.render(scene, camera)?;
        self.first = t.elapsed();
        self.covered = frame
            .ids()
            .iter()
            .filter(|&&i| i != softpick::Frame::NO_TRIANGLE)
            .count() as u64;
        Ok(())
    }

    fn frame(&mut self, scene: &Scene, camera: &Camera) -> Res<()> {
        let t = Instant::now();
        let stages = self.renderer.render(scene, camera)?.stage_times();
        self.times.push(t.elapsed());
        self.stages.push(stages);
        Ok(())
    }

    fn result(
        self,
        color: bool,
        scene: &Scene,
        camera: &Camera,
        floor: f64,
        interleaved: bool,
    ) -> BenchResult {
        let mut times: Vec<f64> = self.times.iter().map(|&d| ms(d)).collect();
        // (sorted by `median`: the best is the first)
        let mid = median(&mut times);
        let n = times.len();
        let mean = times.iter().sum::<f64>() / n as f64;
        let stage = |f: fn(&StageTimes) -> Duration| {
            median(&mut self.stages.iter().map(|s| ms(f(s))).collect::<Vec<_>>())
        };
        let (vertex_ms, setup_ms, raster_ms) =
            (stage(|s| s.vertex), stage(|s| s.setup), stage(|s| s.raster));
        BenchResult {
            pass: if color { "color" } else { "ids" },
            width: camera.width,
            height: camera.height,
            triangles: scene.triangle_count(),
            threads: self.threads,
            frames: n as u32,
            warmup: WARMUP,
            interleaved,
            first_frame_ms: ms(self.first),
            best_ms: times[0],
            median_ms: mid,
            mean_ms: mean,
            fill_floor_ms: floor,
            covered_px: self.covered,
            vertex_ms,
            setup_ms,
            raster_ms,
        }
    }
}

/// The median of `v` (the mean of the middle two for an even count; zero
/// when empty), which it leaves sorted, least first.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
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
        "{:<6} {:>7} {:>7} {:>10} {:>10} {:>10} {:>10}",
        "pass", "threads", "frames", "first ms", "best ms", "median ms", "mean ms"
    ))?;
    for r in results {
        say(format_args!(
            "{:<6} {:>7} {:>7} {:>10.3} {:>10.3} {:>10.3} {:>10.3}",
            r.pass, r.threads, r.frames, r.first_frame_ms, r.best_ms, r.median_ms, r.mean_ms
        ))?;
    }
    say(format_args!(
        "{:<6} {:>7} {:>10} {:>10} {:>10}   (median ms of each stage)",
        "pass", "threads", "vertex", "setup+bin", "raster"
    ))?;
    for r in results {
        say(format_args!(
            "{:<6} {:>7} {:>10.3} {:>10.3} {:>10.3}",
            r.pass, r.threads, r.vertex_ms, r.setup_ms, r.raster_ms
        ))?;
    }
    for pair in results.windows(2) {
        let [n, one] = pair else { continue };
        if n.interleaved && one.interleaved && n.pass == one.pass && one.threads == 1 {
            say(format_args!(
                "{}: {} threads vs 1, {:.2}x (medians; frames alternated)",
                n.pass,
                n.threads,
                one.median_ms / n.median_ms
            ))?;
        }
    }
    Ok(())
}

/// `softpick bench-threads` (also the `--json` line): how much faster N
/// threads are than one on this machine when nothing but the cores limits
/// them. No parallel renderer or sweep can scale better than this; on a
/// virtual machine whose cores share hardware or a busy host it is well
/// below N. The `memory_` fields are the same for work that streams
/// through memory instead: the ceiling of the memory-bound part of a
/// frame (clearing and writing large buffers, reading setup records).
#[derive(Serialize, Debug, Clone)]
pub struct ThreadCeiling {
    pub threads: usize,
    pub rounds: u32,
    /// Median time of one unit of work on one thread alone.
    pub one_thread_ms: f64,
    /// Per round, `threads` × (one thread's time for one unit) / (the time
    /// for `threads` units on `threads` threads at once): the least, the
    /// median and the greatest over the rounds.
    pub ratio_min: f64,
    pub ratio_median: f64,
    pub ratio_max: f64,
    /// Each thread's buffer for the memory rounds, in MiB
    /// ([`memory_unit_bytes`]).
    pub memory_mib_per_thread: f64,
    /// Median time of one memory unit on one thread alone.
    pub memory_one_thread_ms: f64,
    /// As `ratio_*`, for the memory units.
    pub memory_ratio_min: f64,
    pub memory_ratio_median: f64,
    pub memory_ratio_max: f64,
}

/// One unit of pure computation, about 40 ms on one core of the
/// project's machine: eight independent integer chains and eight float
/// ones in registers, keeping a core's units busy as the renderer's inner
/// loops do, and no memory traffic. (One long dependent chain per thread,
/// tried first, leaves most units idle and gave 1.97× medians where this
/// gives 1.70–1.87×.)
fn compute_unit(seed: u64) -> u64 {
    let mut x: [u64; 8] = std::array::from_fn(|k| seed ^ (k as u64).wrapping_mul(0x9e37_79b9));
    let mut f = [1.0f32 + (seed % 7) as f32; 8];
    for i in 0..8_000_000u64 {
        for k in 0..8 {
            x[k] = x[k]
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(i ^ k as u64);
            x[k] ^= x[k] >> 17;
            f[k] = f[k] * 0.999 + 0.25;
        }
    }
    x.iter().fold(0, |a, b| a ^ b) ^ f.iter().fold(0, |a, b| a ^ u64::from(b.to_bits()))
}

/// Bytes of each thread's buffer in a memory unit: 64 MiB, more than the
/// last-level cache of the machines this runs on, or less when that many
/// threads would need more than 2 GiB together.
pub fn memory_unit_bytes(threads: usize) -> usize {
    const PER_THREAD: usize = 64 << 20;
    const TOTAL: usize = 2 << 30;
    PER_THREAD.min(TOTAL / threads.max(1)) & !63
}

/// One unit of memory traffic: writes the whole buffer, then reads it
/// back (as a frame clears and fills its buffers, and writes its setup
/// records and reads them back).
fn memory_unit(buf: &mut [u32], seed: u32) -> u64 {
    for (i, v) in buf.iter_mut().enumerate() {
        *v = (i as u32) ^ seed;
    }
    buf.iter().fold(0u64, |a, &v| a.wrapping_add(u64::from(v)))
}

/// The time of one unit alone on this thread, then of one unit on each
/// of as many threads at once as `state` has entries (`unit(k, state[k])`
/// is thread k's), in seconds.
fn one_then_many<T: Send>(
    unit: impl Fn(usize, &mut T) -> u64 + Sync,
    state: &mut [T],
) -> Res<(f64, f64)> {
    let threads = state.len();
    let t = Instant::now();
    std::hint::black_box(unit(0, &mut state[0]));
    let one = t.elapsed().as_secs_f64();
    let t = Instant::now();
    std::thread::scope(|s| -> Res<()> {
        let mut handles = Vec::with_capacity(threads);
        for (k, st) in state.iter_mut().enumerate() {
            let unit = &unit;
            let h = std::thread::Builder::new()
                .spawn_scoped(s, move || unit(k, st))
                .map_err(|e| {
                    CliError(format!("--threads {threads}: cannot start a thread: {e}"))
                })?;
            handles.push(h);
        }
        for h in handles {
            std::hint::black_box(
                h.join()
                    .map_err(|_| CliError("a timing thread panicked".into()))?,
            );
        }
        Ok(())
    })?;
    Ok((one, t.elapsed().as_secs_f64()))
}

/// Measures [`ThreadCeiling`]: `rounds` times, one unit alone on one
/// thread, then one unit on each of `threads` threads at once, first of
/// computation and then of memory traffic, alternating, so that a change
/// in the machine's load touches all four. The memory buffers are
/// allocated (and written once) before the clock.
pub fn thread_ceiling(threads: usize, rounds: u32) -> Res<ThreadCeiling> {
    let threads = threads.max(1);
    let rounds = rounds.max(1);
    let words = memory_unit_bytes(threads) / 4;
    let mut bufs: Vec<Vec<u32>> = Vec::with_capacity(threads);
    for _ in 0..threads {
        let mut b = Vec::new();
        b.try_reserve_exact(words).map_err(|e| {
            CliError(format!(
                "--threads {threads}: cannot allocate {} MiB per thread for the memory rounds: {e}",
                words >> 18
            ))
        })?;
        b.resize(words, 0u32);
        bufs.push(b);
    }
    let mut units = vec![(); threads];
    let (mut ratios, mut ones) = (Vec::new(), Vec::new());
    let (mut mem_ratios, mut mem_ones) = (Vec::new(), Vec::new());
    for r in 0..u64::from(rounds) {
        let compute = |k: usize, _: &mut ()| compute_unit(std::hint::black_box(r * 64 + k as u64));
        let (one, many) = one_then_many(compute, &mut units)?;
        ratios.push(threads as f64 * one / many.max(f64::MIN_POSITIVE));
        ones.push(one);
        let memory = |k: usize, b: &mut Vec<u32>| memory_unit(b, (r * 64 + k as u64) as u32);
        let (one, many) = one_then_many(memory, &mut bufs)?;
        mem_ratios.push(threads as f64 * one / many.max(f64::MIN_POSITIVE));
        mem_ones.push(one);
    }
    let ratio_median = median(&mut ratios);
    let memory_ratio_median = median(&mut mem_ratios);
    Ok(ThreadCeiling {
        threads,
        rounds,
        one_thread_ms: median(&mut ones) * 1e3,
        ratio_median,
        ratio_min: ratios[0],
        ratio_max: ratios[ratios.len() - 1],
        memory_mib_per_thread: (words * 4) as f64 / f64::from(1u32 << 20),
        memory_one_thread_ms: median(&mut mem_ones) * 1e3,
        memory_ratio_median,
        memory_ratio_min: mem_ratios[0],
        memory_ratio_max: mem_ratios[mem_ratios.len() - 1],
    })
}

/// Prints the ceiling as a sentence, or as one JSON line.
pub fn print_ceiling(c: &ThreadCeiling, json: bool) -> Res<()> {
    if json {
        return say_json_lines(std::slice::from_ref(c));
    }
    say(format_args!(
        "{} threads vs 1, pure computation, {} rounds of {:.1} ms units: \
         {:.2}x median (least {:.2}x, greatest {:.2}x); a perfect machine gives {}x",
        c.threads, c.rounds, c.one_thread_ms, c.ratio_median, c.ratio_min, c.ratio_max, c.threads
    ))?;
    say(format_args!(
        "{} threads vs 1, memory traffic ({:.0} MiB written and read back per thread), \
         {} rounds of {:.1} ms units: {:.2}x median (least {:.2}x, greatest {:.2}x)",
        c.threads,
        c.memory_mib_per_thread,
        c.rounds,
        c.memory_one_thread_ms,
        c.memory_ratio_median,
        c.memory_ratio_min,
        c.memory_ratio_max
    ))
}

/// `softpick bench-render`.
pub fn bench_render_cmd(a: &BenchRenderCmd) -> Res<()> {
    check_min_time(a.min_time)?;
    let s = Setup::new(&a.scene, Some(&a.raster))?.with_clip(&a.clip)?;
    let passes = match a.pass {
        PassArg::Ids => Passes::Ids,
        PassArg::Color => Passes::Color,
        PassArg::Both => Passes::Both,
    };
    let results = run(&s, passes, a.frames, a.min_time, a.against_one_thread)?;
    print(&results, a.json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_ceiling_reports_ordered_ratios_per_round() {
        let c = thread_ceiling(2, 3).unwrap();
        assert_eq!((c.threads, c.rounds), (2, 3));
        assert!(c.one_thread_ms > 0.0 && c.one_thread_ms.is_finite());
        assert!(0.0 < c.ratio_min && c.ratio_min <= c.ratio_median);
        assert!(c.ratio_median <= c.ratio_max && c.ratio_max.is_finite());
        assert_eq!(c.memory_mib_per_thread, 64.0);
        assert!(c.memory_one_thread_ms > 0.0 && c.memory_one_thread_ms.is_finite());
        assert!(0.0 < c.memory_ratio_min && c.memory_ratio_min <= c.memory_ratio_median);
        assert!(c.memory_ratio_median <= c.memory_ratio_max && c.memory_ratio_max.is_finite());
        // zero threads or rounds mean one
        let c = thread_ceiling(0, 0).unwrap();
        assert_eq!((c.threads, c.rounds), (1, 1));
        assert_eq!(c.ratio_min, c.ratio_max);
        assert_eq!(c.memory_ratio_min, c.memory_ratio_max);
    }

    /// 64 MiB per thread, less when more than 2 GiB in all, in whole
    /// cache lines; and a memory unit reads back what it wrote.
    #[test]
    fn memory_units_are_bounded_and_read_what_they_write() {
        assert_eq!(memory_unit_bytes(0), 64 << 20);
        assert_eq!(memory_unit_bytes(32), 64 << 20);
        assert_eq!(memory_unit_bytes(64), 32 << 20);
        let b = memory_unit_bytes(1000);
        assert!(
            b * 1000 <= 2 << 30 && b.is_multiple_of(64) && b > 2 << 20,
            "{b}"
        );
        let mut buf = vec![7u32; 1000];
        let sum: u64 = (0..1000u64).map(|i| i ^ 5).sum();
        assert_eq!(memory_unit(&mut buf, 5), sum);
        assert_eq!(buf[999], 999 ^ 5);
    }

    /// The built-in scene in a 64×48 frame, rendered on `threads`.
    fn small_frame(threads: usize) -> Setup {
        let scene = softpick::builtin_scene();
        let camera = Camera::auto_frame(&scene.framing_bounds(), 64, 48);
        let opts = RenderOptions {
            threads: Some(threads),
            ..RenderOptions::default()
        };
        Setup {
            scene,
            camera,
            opts,
            clip: None,
            label: "the built-in scene".into(),
        }
    }

    #[test]
    fn both_passes_time_every_frame_and_cover_pixels() {
        let s = small_frame(1);
        let r = run(&s, Passes::Both, 4, 0.0, false).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].pass, r[1].pass), ("ids", "color"));
        for p in &r {
            assert_eq!((p.width, p.height, p.threads), (64, 48, 1));
            assert!(p.frames >= 4);
            assert!(p.best_ms <= p.median_ms && p.median_ms.is_finite());
            assert!(p.covered_px > 0 && p.covered_px <= 64 * 48);
            assert_eq!(p.triangles, s.scene.triangle_count());
        }
        // both passes see the same coverage
        assert_eq!(r[0].covered_px, r[1].covered_px);
    }

    /// Alternated blocks: the N-thread and one-thread results of a pass
    /// each time at least the frames asked for, however the block sizes
    /// (frames per 0.1 s) round.
    #[test]
    fn against_one_thread_times_both_counts() {
        let r = run(&small_frame(2), Passes::Ids, 7, 0.0, true).unwrap();
        let got: Vec<_> = r
            .iter()
            .map(|p| (p.pass, p.threads, p.interleaved))
            .collect();
        assert_eq!(got, [("ids", 2, true), ("ids", 1, true)]);
        assert!(r.iter().all(|p| p.frames >= 7 && p.best_ms <= p.median_ms));
        assert_eq!(r[0].covered_px, r[1].covered_px);
    }
}
