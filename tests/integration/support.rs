//! Shared test helpers: the seeded RNG and sphere of `softpick-testkit`
//! wrapped for softpick, an independent reference rasterizer, the camera of
//! the analytic checks and a temporary directory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use softpick::internals::snap;
use softpick::FillRule;

pub use softpick_testkit::Rng;

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
    let f = softpick::internals::render_2d(w, h, tris, rule).expect("valid size");
    let mut c = vec![0u32; (w * h) as usize];
    softpick::internals::for_each_coverage(&f, |p, _| c[p] += 1);
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

/// A unit UV sphere (testkit's) as a mesh scaled by `radius`:
/// 2·slices·(stacks−1) triangles, front faces outward.
pub fn sphere_mesh(name: &str, slices: u32, stacks: u32, radius: f32) -> softpick::Mesh {
    let (pos, tris) = softpick_testkit::uv_sphere(slices, stacks);
    let pos = pos.into_iter().map(|p| p * radius).collect();
    softpick::Mesh::new(name, pos, tris, [200, 200, 200]).expect("a valid sphere")
}

/// A unit UV sphere as a one-mesh scene, placed at the origin.
pub fn uv_sphere(slices: u32, stacks: u32) -> softpick::Scene {
    let mut scene = softpick::Scene::new();
    scene.add_mesh(
        sphere_mesh("sphere", slices, stacks, 1.0),
        softpick::Transform::IDENTITY,
        None,
    );
    scene
}

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

/// A fresh directory under the system temp dir, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "softpick-test-{}-{tag}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `bytes` to the file `name` in the directory; its path.
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
