//! Fixtures shared by the ray-kernel unit tests (seeded, deterministic).

use glam::Vec3;

/// SplitMix64: tiny deterministic RNG for tests.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub(crate) fn f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    pub(crate) fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.f32()
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub(crate) fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }

    /// A random triangle with corners in the cube [lo, hi]³ (three
    /// [`Rng::vec3`] draws, in corner order).
    pub(crate) fn tri(&mut self, lo: f32, hi: f32) -> [Vec3; 3] {
        [self.vec3(lo, hi), self.vec3(lo, hi), self.vec3(lo, hi)]
    }

    /// A random unit vector.
    pub(crate) fn unit(&mut self) -> Vec3 {
        loop {
            let v = self.vec3(-1.0, 1.0);
            let l = v.length_squared();
            if l > 1e-4 && l <= 1.0 {
                return v / l.sqrt();
            }
        }
    }
}

/// Jittered (n+1)×(n+1) height-field grid over [0,n]², boundary straight,
/// random diagonals, z noise in ±`z_noise`.
pub(crate) fn grid(n: usize, z_noise: f32, rng: &mut Rng) -> (Vec<Vec3>, Vec<[u32; 3]>) {
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
