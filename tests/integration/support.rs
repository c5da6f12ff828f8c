//! Shared test helpers: a seeded RNG and an independent reference rasterizer.

use softpick::rules::{snap, FillRule};

/// SplitMix64: small, seeded, deterministic.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n)) as u32
    }
}

/// Snaps to the rasterizer's lattice (the conformance model's step 1).
pub fn snapped(p: [f32; 2]) -> [i64; 2] {
    [snap(p[0]), snap(p[1])]
}

/// Independent per-pixel coverage of one triangle, written from the rule
/// definitions (llvmpipe's model in `conformance.py`), not from softpick's
/// span code: edge function at every pixel centre (256·i, 256·j).
pub fn reference_mask(t: [[f32; 2]; 3], w: u32, h: u32, rule: FillRule) -> Vec<bool> {
    let mut v = t.map(snapped);
    let area =
        (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[1][1] - v[0][1]) * (v[2][0] - v[0][0]);
    let mut m = vec![false; (w * h) as usize];
    if area == 0 && rule != FillRule::Inclusive {
        return m;
    }
    if area == 0 && v[0] == v[1] && v[1] == v[2] {
        return m;
    }
    if area < 0 {
        v.swap(1, 2);
    }
    for j in 0..h as i64 {
        for i in 0..w as i64 {
            let (px, py) = (256 * i, 256 * j);
            let inside = (0..3).all(|k| {
                let (a, b) = (v[k], v[(k + 1) % 3]);
                let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
                let e = dx * (py - a[1]) - dy * (px - a[0]);
                let tie = dy < 0 || (dy == 0 && dx > 0);
                match rule {
                    FillRule::Strict => e > 0,
                    FillRule::Inclusive | FillRule::AreaGuard => e >= 0,
                    FillRule::TopLeft => e > 0 || (e == 0 && tie),
                }
            });
            m[(j * w as i64 + i) as usize] = inside;
        }
    }
    m
}

/// Coverage count per pixel of a 2D triangle list under a rule (depth ignored).
pub fn coverage_counts(w: u32, h: u32, tris: &[[[f32; 2]; 3]], rule: FillRule) -> Vec<u32> {
    let f = softpick::render_2d(w, h, tris, rule).expect("valid size");
    let mut c = vec![0u32; (w * h) as usize];
    f.for_each_coverage(|p, _| c[p] += 1);
    c
}

/// Is the lattice point strictly inside the snapped convex polygon?
pub fn strictly_inside(poly: &[[i64; 2]], px: i64, py: i64) -> bool {
    let n = poly.len();
    let area: i64 = (0..n)
        .map(|k| poly[k][0] * poly[(k + 1) % n][1] - poly[(k + 1) % n][0] * poly[k][1])
        .sum();
    let s = area.signum();
    (0..n).all(|k| {
        let (a, b) = (poly[k], poly[(k + 1) % n]);
        s * ((b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0])) > 0
    })
}

#[path = "../../benches/common/sphere.rs"]
mod sphere;
pub use sphere::uv_sphere;

/// The camera of the analytic checks: at (0, 0, 5) looking at the origin.
pub fn cam(width: u32, height: u32) -> softpick::Camera {
    use glam::Vec3;
    use softpick::{Camera, Projection};
    Camera {
        eye: Vec3::new(0.0, 0.0, 5.0),
        target: Vec3::ZERO,
        up: Vec3::Y,
        projection: Projection::Perspective { fov_y_deg: 60.0 },
        near: 0.1,
        far: 100.0,
        width,
        height,
    }
}
