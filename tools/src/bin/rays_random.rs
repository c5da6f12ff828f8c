//! First hits of seeded random rays through a model, the work of Python's
//! `cast_rays` benchmark without Python: rays from a sphere of twice the
//! model box's half-diagonal toward random points of the box (the rays of
//! `benches/rays.rs`), cast through `RayCaster::first_hits` in chunks of
//! 1024 on a pool of T threads. Prints the median time of the casts, the
//! time per ray and thread, and a checksum of every answer (triangle, `t`,
//! barycentrics and facing, bit for bit), so that two builds can be
//! compared for speed and for equal outputs, and (on Linux) the mean CPU
//! time of a cast, steadier than the wall time on a busy machine; with `--build R` also the
//! median of R BVH builds of the model (`Scene::build_bvhs` on a fresh
//! copy of the scene).
//!
//! ```sh
//! cargo run --release --manifest-path tools/Cargo.toml --bin rays_random -- \
//!     ../shared/models/snowden_bust.obj --rays 1000000 --threads 2 --reps 5
//! ```

use std::time::Instant;

use rayon::prelude::*;
use softpick::{Ray, RayCaster, RayOptions, Scene};
use softpick_tools::{cpu_ms, median, scene_arg};

/// `n` seeded random rays through the scene's box (testkit's `box_rays`,
/// the rays of `benches/rays.rs`).
fn random_rays(scene: &Scene, n: usize) -> Vec<Ray> {
    let b = scene.bounds();
    softpick_testkit::box_rays(b.min, b.max, n)
        .into_iter()
        .map(|(o, d)| Ray::new(o, d))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map_or(default, |v| {
                v.parse().unwrap_or_else(|_| {
                    eprintln!("{name}: not a number: {v}");
                    std::process::exit(2);
                })
            })
    };
    let (n, threads, reps, builds) = (
        opt("--rays", 1_000_000),
        opt("--threads", 1),
        opt("--reps", 5),
        opt("--build", 0),
    );
    let model = args.first().filter(|a| !a.starts_with("--"));
    let scene = scene_arg(model.map(String::as_str));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool");
    if builds > 0 {
        let times: Vec<f64> = (0..builds)
            .map(|_| {
                let fresh = scene_arg(model.map(String::as_str));
                let t = Instant::now();
                pool.install(|| fresh.build_bvhs());
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        println!("build_ms {:.3}", median(times));
    }
    pool.install(|| scene.build_bvhs());
    let rays = random_rays(&scene, n);
    let caster = RayCaster::new(&scene);
    let opts = RayOptions::default();
    let cast = || -> (usize, u64) {
        rays.par_chunks(1024)
            .map(|chunk| {
                let mut hits = 0usize;
                let mut sum = 0u64;
                for h in caster.first_hits(chunk.iter().copied(), &opts) {
                    let Some(h) = h else { continue };
                    hits += 1;
                    let b = h.barycentric;
                    let words = [
                        h.global_triangle,
                        h.t.to_bits(),
                        b.x.to_bits(),
                        b.y.to_bits(),
                        b.z.to_bits(),
                        u32::from(h.front_face),
                    ];
                    for w in words {
                        sum = (sum ^ u64::from(w)).wrapping_mul(0x100_0000_01b3);
                    }
                }
                (hits, sum)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1.wrapping_add(b.1)))
    };
    let (hits, sum) = pool.install(cast);
    let cpu0 = cpu_ms();
    let times: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let t = Instant::now();
            let _ = pool.install(cast);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    // the mean CPU time of a cast (all threads)
    let cpu = cpu0
        .zip(cpu_ms())
        .map(|(a, b)| (b - a) / reps.max(1) as f64);
    let ms = median(times);
    println!(
        "triangles {} rays {n} threads {threads} hits {hits} checksum {sum:016x} median_ms {ms:.3} ns_per_ray_thread {:.1} cpu_ms {} cpu_ns_per_ray {}",
        scene.triangle_count(),
        ms * 1e6 / n as f64 * threads.max(1) as f64,
        cpu.map_or("-".into(), |c| format!("{c:.1}")),
        cpu.map_or("-".into(), |c| format!("{:.1}", c * 1e6 / n as f64)),
    );
}
