//! Seeded, deterministic test data for softpick: one random number
//! generator ([`Rng`]), a jittered height-field grid ([`grid`]), a UV
//! sphere ([`uv_sphere`]) and the random rays of the ray benchmarks
//! ([`box_rays`]).
//!
//! Everything here returns plain data (glam vectors and index triples), so
//! softpick's unit tests, its integration tests, benches, examples and tools
//! all use the same generators; callers wrap the data in a `softpick::Mesh`.

use glam::Vec3;

/// SplitMix64: a tiny, seeded, deterministic generator.
///
/// The field is the state and is public so a generator can be written
/// `Rng(seed)` as well as `Rng::new(seed)`. The sequence for a seed never
/// changes: seeded tests depend on the exact numbers.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 24 bits (every value exact in f32).
    pub fn f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.f32()
    }

    /// An index in 0..n (`n` > 0), for slices and small choices.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A value in 0..n (`n` > 0), for pixel coordinates and sizes. The same
    /// draw as [`Rng::below`]: `below_u32(n)` equals `below(n as usize)`.
    pub fn below_u32(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n)) as u32
    }

    /// A point in the cube [lo, hi)³ (x, y, then z drawn).
    pub fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }

    /// A triangle with corners in the cube [lo, hi)³ (three [`Rng::vec3`]
    /// draws, in corner order).
    pub fn tri(&mut self, lo: f32, hi: f32) -> [Vec3; 3] {
        [self.vec3(lo, hi), self.vec3(lo, hi), self.vec3(lo, hi)]
    }

    /// A unit vector, uniform over the sphere (rejection sampling in the
    /// unit ball, skipping points too close to the centre to normalize).
    pub fn unit(&mut self) -> Vec3 {
        loop {
            let v = self.vec3(-1.0, 1.0);
            let l = v.length_squared();
            if l > 1e-4 && l <= 1.0 {
                return v / l.sqrt();
            }
        }
    }
}

/// A jittered (n+1)×(n+1)-vertex height field over [0, n]² in the xy plane:
/// interior vertices moved up to 0.3 in x and y, the boundary kept straight,
/// z noise in ±`z_noise`, and a random diagonal in each cell
/// (2·n² triangles). Returns positions and triangles.
pub fn grid(n: usize, z_noise: f32, rng: &mut Rng) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut pos = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let jit = if i == 0 || j == 0 || i == n || j == n {
                0.0
            } else {
                0.3
            };
            pos.push(Vec3::new(
                i as f32 + rng.range(-jit, jit),
                j as f32 + rng.range(-jit, jit),
                rng.range(-z_noise, z_noise),
            ));
        }
    }
    let id = |i: usize, j: usize| (j * (n + 1) + i) as u32;
    let mut tris = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            if rng.below(2) == 0 {
                tris.push([a, b, c]);
                tris.push([a, c, d]);
            } else {
                tris.push([a, b, d]);
                tris.push([b, c, d]);
            }
        }
    }
    (pos, tris)
}

/// A unit UV sphere around the origin with `slices` meridians and `stacks`
/// bands (`stacks` ≥ 2, `slices` ≥ 3): one vertex at each pole,
/// 2·slices·(stacks−1) triangles, counter-clockwise seen from outside.
/// Returns positions and triangles.
pub fn uv_sphere(slices: u32, stacks: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    assert!(slices >= 3 && stacks >= 2, "uv_sphere({slices}, {stacks})");
    let (s, r) = (slices, stacks);
    let mut pos = vec![Vec3::Y];
    for i in 1..r {
        let th = std::f32::consts::PI * i as f32 / r as f32;
        for j in 0..s {
            let ph = std::f32::consts::TAU * j as f32 / s as f32;
            pos.push(Vec3::new(
                th.sin() * ph.cos(),
                th.cos(),
                th.sin() * ph.sin(),
            ));
        }
    }
    pos.push(-Vec3::Y);
    // vertex j of ring i (rings 1..r, from the north pole down)
    let ring = |i: u32, j: u32| 1 + (i - 1) * s + (j % s);
    let mut t = Vec::with_capacity((2 * s * (r - 1)) as usize);
    for j in 0..s {
        t.push([0, ring(1, j + 1), ring(1, j)]);
    }
    for i in 1..r - 1 {
        for j in 0..s {
            t.push([ring(i, j), ring(i, j + 1), ring(i + 1, j + 1)]);
            t.push([ring(i, j), ring(i + 1, j + 1), ring(i + 1, j)]);
        }
    }
    let last = pos.len() as u32 - 1;
    for j in 0..s {
        t.push([last, ring(r - 1, j), ring(r - 1, j + 1)]);
    }
    (pos, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sequence is SplitMix64's, which seeded tests rely on.
    #[test]
    fn rng_sequence_is_splitmix64() {
        let mut r = Rng(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(r.next_u64(), 0x06c4_5d18_8009_454f);
        let mut r = Rng::new(7);
        assert_eq!(r.next_u64(), 0x63cb_e1e4_5932_0dd7);
        assert_eq!(r.next_u64(), 0x044c_3cd7_f43c_661c);
    }

    #[test]
    fn draws_stay_in_range_and_below_forms_agree() {
        let (mut a, mut b) = (Rng(42), Rng(42));
        for n in 1..500u32 {
            assert_eq!(a.below(n as usize), b.below_u32(n) as usize);
        }
        let mut r = Rng::new(1);
        for _ in 0..10_000 {
            let x = r.range(-2.0, 3.0);
            assert!((-2.0..3.0).contains(&x), "{x}");
            assert!((0.0..1.0).contains(&r.f32()));
            assert!((r.unit().length() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn grid_and_sphere_sizes() {
        let (p, t) = grid(5, 0.1, &mut Rng(3));
        assert_eq!((p.len(), t.len()), (36, 50));
        assert!(t.iter().flatten().all(|&i| (i as usize) < p.len()));
        let (p, t) = uv_sphere(24, 13);
        assert_eq!((p.len(), t.len()), (2 + 24 * 12, 2 * 24 * 12));
        assert!(t.iter().flatten().all(|&i| (i as usize) < p.len()));
        assert!(p.iter().all(|v| (v.length() - 1.0).abs() < 1e-6));
        // outward: each triangle's normal points away from the centre
        for tri in &t {
            let [a, b, c] = tri.map(|i| p[i as usize]);
            assert!((b - a).cross(c - a).dot(a + b + c) > 0.0, "{tri:?}");
        }
    }
}

/// `n` seeded random rays through the box `min..max`, as `(origin,
/// direction)`: from a sphere around the box's centre of twice its
/// half-diagonal toward random points of the box, the rays that the `rays`
/// bench, the `rays_random` tool and `scripts/bench_python.py` cast. The
/// numbers come from xorshift64* (a fixed sequence of its own, not
/// [`Rng`]'s), so the rays never change; a direction is the target minus
/// the origin (not normalized).
pub fn box_rays(min: Vec3, max: Vec3, n: usize) -> Vec<(Vec3, Vec3)> {
    let (c, r) = ((min + max) / 2.0, (max - min).length());
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut unit = move || {
        // (xorshift64*: a fixed, dependency-free sequence)
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|_| {
            let d = Vec3::new(unit() - 0.5, unit() - 0.5, unit() - 0.5).normalize_or(Vec3::X);
            let o = c + r * d;
            let to = min + (max - min) * Vec3::new(unit(), unit(), unit());
            (o, to - o)
        })
        .collect()
}
