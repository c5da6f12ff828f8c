//! The stand-in against rayon: each chain of rayon calls that `src/` makes,
//! written once (`chains!`) and run with rayon's items on a pool of three
//! threads and with the stand-in's, on the same seeded input; every result
//! and every written buffer must be equal. A rayon method that the crate
//! starts to use goes into `chains!` with the stand-in's version of it.

use softpick_testkit::Rng;

/// The input every chain reads.
struct Input {
    values: Vec<u32>,
}

/// What every chain gives, compared whole.
#[derive(Debug, PartialEq)]
struct Output {
    chunk_sums: (u64, u64),
    mapped: Vec<u64>,
    all_even: bool,
    all_small: bool,
    ids: Vec<u32>,
    min_max: (u32, u32),
    bands: Vec<u32>,
    collected: Vec<u64>,
    per_item: Vec<u32>,
    ored: Vec<bool>,
    three_way: (Vec<u32>, Vec<u32>, Vec<u32>),
    with_init: Vec<u32>,
    joined: (u64, u64),
    pool: u64,
}

/// The crate's chains over `$($m)::+`'s items (`rayon` or `super`).
macro_rules! chains {
    ($($m:ident)::+, $input:expr) => {{
        use $($m)::+::prelude::*;
        let input: &Input = $input;
        let v = &input.values;
        let n = v.len();
        // build.rs, binning: chunks zipped with writable chunks, mapped, reduced
        let mut tags = vec![0u8; n];
        let chunk_sums = v
            .par_chunks(7)
            .zip(tags.par_chunks_mut(7))
            .map(|(c, t)| {
                for (t, x) in t.iter_mut().zip(c) {
                    *t = (*x % 5) as u8;
                }
                (c.iter().map(|&x| u64::from(x)).sum::<u64>(), c.len() as u64)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        let tag_sum: u64 = tags.iter().map(|&t| u64::from(t)).sum();
        // collapse.rs and bvh/mod.rs: mapped into a vector kept between uses
        let mut mapped = vec![7u64; 3];
        v.par_iter()
            .with_min_len(4)
            .map(|&x| u64::from(x) * 3 + tag_sum)
            .collect_into_vec(&mut mapped);
        let all_even = v.par_iter().with_min_len(4).all(|&x| x % 2 == 0);
        let all_small = v.par_iter().with_min_len(4).all(|&x| x < u32::MAX);
        let mut ids = Vec::new();
        (0..n as u32)
            .into_par_iter()
            .with_min_len(4)
            .collect_into_vec(&mut ids);
        // bvh/mod.rs: bounds by fold and reduce
        let min_max = v
            .par_iter()
            .with_min_len(4)
            .fold(|| (u32::MAX, 0), |(lo, hi), &x| (lo.min(x), hi.max(x)))
            .reduce(|| (u32::MAX, 0), |a, b| (a.0.min(b.0), a.1.max(b.1)));
        // frame/maps.rs: owned pieces of writable slices, enumerated
        let mut bands = vec![0u32; n];
        let pieces: Vec<&mut [u32]> = bands.chunks_mut(5).collect();
        pieces.into_par_iter().enumerate().for_each(|(b, out)| {
            for (k, o) in out.iter_mut().enumerate() {
                *o = v[b * 5 + k] ^ b as u32;
            }
        });
        // scene/pose.rs: a range mapped and collected
        let collected: Vec<u64> = (0..n).into_par_iter().map(|i| u64::from(v[i]) + i as u64).collect();
        // scene/mod.rs, raster/bin.rs: every item by reference, or by
        // mutable reference with its index
        let seen = std::sync::atomic::AtomicU64::new(0);
        v.par_iter().for_each(|&x| {
            seen.fetch_add(u64::from(x), std::sync::atomic::Ordering::Relaxed);
        });
        let mut per_item = vec![0u32; n];
        per_item
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = v[i].rotate_left(i as u32));
        // select/mod.rs: bit sets folded over chunks, ORed
        let ored = v
            .par_chunks(16)
            .fold(
                || vec![false; 64],
                |mut bits, c| {
                    for &x in c {
                        bits[(x % 64) as usize] = true;
                    }
                    bits
                },
            )
            .reduce(
                || vec![false; 64],
                |a, b| a.iter().zip(&b).map(|(x, y)| *x || *y).collect(),
            );
        // raster/vertex.rs, raster/tile.rs: writable chunks zipped,
        // enumerated, zipped once more or not
        let (mut a, mut b, mut c) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
        let work = a
            .par_chunks_mut(6)
            .zip(b.par_chunks_mut(6))
            .enumerate();
        work.zip(c.par_chunks_mut(6)).for_each(|((k, (a, b)), c)| {
            for i in 0..a.len() {
                a[i] = v[k * 6 + i] + 1;
                b[i] = k as u32;
                c[i] = a.len() as u32;
            }
        });
        let mut d = vec![0u32; n];
        let work = d.par_chunks_mut(4).zip(b.par_chunks_mut(4)).enumerate();
        work.for_each(|(k, (d, b))| {
            for (d, b) in d.iter_mut().zip(b.iter_mut()) {
                *d = k as u32;
                *b += 1;
            }
        });
        c.iter_mut().zip(&d).for_each(|(c, d)| *c ^= *d);
        // pick_cache/direct_index.rs: a scratch value per piece of work
        let mut with_init = vec![0u32; n];
        with_init.par_iter_mut().enumerate().for_each_init(Vec::<u32>::new, |scratch, (i, x)| {
            scratch.clear();
            scratch.extend(v[..=i].iter().rev().take(3));
            *x = scratch.iter().sum();
        });
        // accel/bvh/build.rs: two halves at once
        let (lo, hi) = v.split_at(n / 2);
        let joined = $($m)::+::join(
            || lo.iter().map(|&x| u64::from(x)).sum::<u64>(),
            || hi.iter().map(|&x| u64::from(x)).sum::<u64>() + seen.into_inner(),
        );
        // frame/render.rs: a pool of N threads (the stand-in's is the
        // calling thread) running the work
        let pool = $($m)::+::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a pool of 2 threads");
        let pool = pool.install(|| v.par_iter().map(|&x| u64::from(x)).reduce(|| 0, |a, b| a + b));
        Output {
            chunk_sums,
            mapped,
            all_even,
            all_small,
            ids,
            min_max,
            bands,
            collected,
            per_item,
            ored,
            three_way: (a, b, c),
            with_init,
            joined,
            pool,
        }
    }};
}

#[test]
fn the_stand_in_gives_what_rayon_gives() {
    let rayon_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .expect("a pool of 3 threads");
    let mut rng = Rng::new(43);
    // empty, shorter than a chunk, and lengths that are and are not a
    // multiple of the chunks' sizes
    for n in [0usize, 1, 5, 84, 1000, 4099] {
        let input = Input {
            values: (0..n).map(|_| rng.below_u32(1 << 20)).collect(),
        };
        let with_rayon = rayon_pool.install(|| chains!(rayon, &input));
        let with_stand_in = chains!(super, &input);
        assert_eq!(with_rayon, with_stand_in, "{n} values");
    }
}

#[test]
fn the_stand_in_runs_on_the_calling_thread_in_order() {
    use super::prelude::*;
    let caller = std::thread::current().id();
    let order = std::sync::Mutex::new(Vec::new());
    (0..100).into_par_iter().with_min_len(1).for_each(|i| {
        assert_eq!(std::thread::current().id(), caller);
        order.lock().unwrap().push(i);
    });
    assert_eq!(order.into_inner().unwrap(), (0..100).collect::<Vec<_>>());
    let (a, b) = super::join(
        || std::thread::current().id(),
        || std::thread::current().id(),
    );
    assert_eq!((a, b), (caller, caller));
    assert_eq!(super::current_thread_index(), None);
    // `install` runs its work on the calling thread too, whatever the count
    let pool = super::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    assert_eq!(pool.install(|| std::thread::current().id()), caller);
}
