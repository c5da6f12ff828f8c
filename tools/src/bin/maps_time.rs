//! The per-pixel maps of a rendered frame (`Picks::maps`, what Python's
//! `Frame.barycentrics`, `normals`, `distance`, `z` and `mesh_ids` read),
//! timed apart from the render, one map per call as the Python package
//! asks for them, on a pool of T threads. Prints the median render time,
//! each map's median time, its mean CPU time (Linux; steadier than the
//! wall time on a busy machine) and a checksum of each map's bits, so that
//! two builds can be compared for speed and for equal outputs.
//!
//! ```sh
//! cargo run --release --manifest-path tools/Cargo.toml --bin maps_time -- \
//!     ../shared/models/city_san_francisco.obj 640x480 --threads 2 --reps 5 [--maps bary,normal]
//! ```

use std::time::Instant;

use softpick::{Camera, MapRequest, PixelMaps, RenderOptions, Renderer};
use softpick_tools::{cpu_ms, median, scene_arg, size_arg};

/// FNV-1a over the bits of every value of every map.
fn checksum(m: &PixelMaps) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325_u64;
    let mut eat = |bits: u32| {
        h ^= u64::from(bits);
        h = h.wrapping_mul(0x100_0000_01b3);
    };
    for v in m.mesh.iter().flatten() {
        eat(*v);
    }
    for v in [&m.barycentric, &m.normal, &m.distance, &m.z]
        .into_iter()
        .flatten()
        .flatten()
    {
        eat(v.to_bits());
    }
    h
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let flag = |name: &str, d: &str| {
        a.iter()
            .position(|s| s == name)
            .and_then(|i| a.get(i + 1).cloned())
            .unwrap_or_else(|| d.to_string())
    };
    let scene = scene_arg(a.get(1).map(String::as_str));
    let (w, h) = size_arg(a.get(2).map(String::as_str), (640, 480));
    let threads: usize = flag("--threads", "2").parse().expect("--threads N");
    let reps: usize = flag("--reps", "5").parse().expect("--reps N");
    let maps = flag("--maps", "bary,normal,distance,z,mesh");
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let mut r = Renderer::new(RenderOptions {
        threads: Some(threads),
        ..RenderOptions::default()
    })
    .expect("a renderer");
    let mut render = Vec::new();
    for _ in 0..=reps {
        let t = Instant::now();
        r.render(&scene, &cam).expect("a frame");
        render.push(t.elapsed().as_secs_f64() * 1e3);
    }
    render.remove(0);
    print!("render {:.2} ms", median(render));
    let frame = r.frame();
    let picks = frame.picks(&scene).expect("the frame's scene");
    for name in maps.split(',') {
        let mut want = MapRequest::default();
        match name {
            "bary" => want.barycentric = true,
            "normal" => want.normal = true,
            "distance" => want.distance = true,
            "z" => want.z = true,
            "mesh" => want.mesh = true,
            "all" => {
                want = MapRequest {
                    mesh: true,
                    barycentric: true,
                    normal: true,
                    distance: true,
                    z: true,
                }
            }
            _ => {
                eprintln!("--maps: bary, normal, distance, z, mesh or all (got {name})");
                std::process::exit(2);
            }
        }
        let mut times = Vec::new();
        let mut sum = 0;
        let mut cpu0 = None;
        for rep in 0..=reps {
            if rep == 1 {
                cpu0 = cpu_ms();
            }
            let t = Instant::now();
            let m = pool.install(|| picks.maps(want));
            times.push(t.elapsed().as_secs_f64() * 1e3);
            sum = checksum(&m);
        }
        let cpu = cpu0.zip(cpu_ms()).map_or(String::new(), |(a, b)| {
            format!(" (cpu {:.2} ms)", (b - a) / reps as f64)
        });
        times.remove(0);
        print!(" | {name} {:.2} ms{cpu} {sum:016x}", median(times));
    }
    println!();
}
