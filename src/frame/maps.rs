//! Per-pixel maps of a frame beyond its ID and depth buffers (the mesh,
//! barycentrics, normal, distance and camera-space z of each pixel's
//! triangle), for bulk readers such as the Python package, and frames
//! whose ID and depth buffers are filled by picks instead of rasterization.

use crate::par::prelude::*;
use glam::{DVec3, Mat4};

use super::Frame;
use crate::camera::{Camera, Projection};
use crate::cpu::Isa;
use crate::error::Error;
use crate::geometry::{ClipPlanes, CullMode};
use crate::pick_cache::ray_setup::ViewRays;
use crate::scene::Scene;
use band::{Shared, BAND};
use meshes::Meshes;

mod band;
mod hit;
mod meshes;

/// Which maps [`Picks::maps`](crate::pick::Picks::maps) computes (each costs a buffer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapRequest {
    /// The mesh id of each pixel's triangle.
    pub mesh: bool,
    /// The barycentric weights of the triangle's corners 0, 1, 2.
    pub barycentric: bool,
    /// The triangle's unit geometric normal in world space.
    pub normal: bool,
    /// The distance from the camera to the hit along the pixel ray.
    pub distance: bool,
    /// The hit's camera-space depth along the viewing direction.
    pub z: bool,
}

/// The maps of [`Picks::maps`](crate::pick::Picks::maps): row-major, row 0 on top, one value
/// (three for barycentrics and normals) per pixel; `None` when not asked.
/// Background pixels hold [`PixelMaps::NO_MESH`], zero vectors and
/// infinite distances.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PixelMaps {
    /// Mesh id per pixel, [`PixelMaps::NO_MESH`] on background.
    pub mesh: Option<Vec<u32>>,
    /// Barycentrics (perspective-correct: weights of the world corners).
    pub barycentric: Option<Vec<f32>>,
    /// Unit normal `(v1 − v0) × (v2 − v0)` of the world triangle.
    pub normal: Option<Vec<f32>>,
    /// Perspective: distance from the eye; orthographic: from the eye's plane.
    pub distance: Option<Vec<f32>>,
    /// Distance from the eye's plane along the viewing direction.
    pub z: Option<Vec<f32>>,
}

impl PixelMaps {
    /// The mesh id of background pixels.
    pub const NO_MESH: u32 = u32::MAX;
}

/// One band of rows of every requested map.
struct BandOut<'a> {
    mesh: Option<&'a mut [u32]>,
    bary: Option<&'a mut [f32]>,
    normal: Option<&'a mut [f32]>,
    distance: Option<&'a mut [f32]>,
    z: Option<&'a mut [f32]>,
}

/// The first `n` values of `rest` (which keeps the others).
fn take<'a, T>(rest: &mut Option<&'a mut [T]>, n: usize) -> Option<&'a mut [T]> {
    let s = rest.take()?;
    let (a, b) = s.split_at_mut(n.min(s.len()));
    *rest = Some(b);
    Some(a)
}

/// The pixel rays of a camera in f64: for pixel centre (sx, sy) the ray is
/// `origin + dx·a + dy·b` towards `dir + dx·c + dy·e`, with the ray's
/// component along the viewing direction 1 (so `t` is camera-space z).
struct PixelRays {
    eye: DVec3,
    forward: DVec3,
    right: DVec3,
    up: DVec3,
    perspective: bool,
    /// Half extents of the view at distance 1 (perspective) or of the
    /// orthographic box, along right and up.
    half: (f64, f64),
    size: (f64, f64),
    /// A pinhole camera's `[fx, fy, cx, cy, skew]`, whose rays come from
    /// its intrinsics instead of `half`.
    pinhole: Option<[f64; 5]>,
}

impl PixelRays {
    fn new(cam: &Camera) -> Self {
        let eye = cam.eye.as_dvec3();
        let forward = (cam.target.as_dvec3() - eye).normalize();
        let right = forward.cross(cam.up.as_dvec3()).normalize();
        let up = right.cross(forward);
        let aspect = f64::from(cam.width) / f64::from(cam.height);
        let (hh, pinhole) = match cam.projection {
            Projection::Perspective { fov_y_deg } => {
                ((f64::from(fov_y_deg).to_radians() * 0.5).tan(), None)
            }
            Projection::Orthographic { height } => (f64::from(height) * 0.5, None),
            Projection::Pinhole { .. } => (0.0, cam.projection.intrinsics()),
        };
        Self {
            eye,
            forward,
            right,
            up,
            perspective: cam.projection.is_perspective(),
            half: (hh * aspect, hh),
            size: (f64::from(cam.width), f64::from(cam.height)),
            pinhole: pinhole.map(|k| k.map(f64::from)),
        }
    }

    /// The part of a perspective or orthographic ray that depends on the
    /// column only: `right · (nx · half.0)`, nx the pixel centre's x in
    /// normalized device coordinates (what `ray` adds to the row part).
    fn column(&self, x: u32) -> DVec3 {
        let nx = (f64::from(x) + 0.5) / self.size.0 * 2.0 - 1.0;
        self.right * (nx * self.half.0)
    }

    /// The part of a perspective or orthographic ray that depends on the
    /// row only: `up · (ny · half.1)`.
    fn row(&self, y: u32) -> DVec3 {
        let ny = 1.0 - (f64::from(y) + 0.5) / self.size.1 * 2.0;
        self.up * (ny * self.half.1)
    }

    /// The ray of a perspective or orthographic camera from the column
    /// and row parts of its pixel: the same operations in the same order
    /// as `ray`, so the same bits.
    #[inline]
    fn ray_from_parts(&self, column: DVec3, row: DVec3) -> (DVec3, DVec3) {
        let side = column + row;
        if self.perspective {
            (self.eye, self.forward + side)
        } else {
            (self.eye + side, self.forward)
        }
    }

    /// Origin and direction of the ray through the centre of pixel (x, y).
    fn ray(&self, x: u32, y: u32) -> (DVec3, DVec3) {
        if let Some([fx, fy, cx, cy, skew]) = self.pinhole {
            // the inverse of u = fx·a + skew·b + cx, v = fy·b + cy for the
            // point (a, b, 1) of the OpenCV frame (x right, y down, z
            // forward), whose y is the look-at's −up
            let (u, v) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
            let b = (v - cy) / fy;
            let a = (u - cx - skew * b) / fx;
            return (self.eye, self.forward + self.right * a - self.up * b);
        }
        self.ray_from_parts(self.column(x), self.row(y))
    }
}

impl Frame {
    /// A frame of `scene` seen from `camera` whose ID and depth buffers
    /// `fill` writes (global triangle + 1 and window depth per pixel, as a
    /// render would), given the frame, already set up for picks: the
    /// package's ray-cast frames fill them with ray picks of every pixel.
    /// Such a frame has no set-up triangles, so direct picks and x-ray
    /// selections find nothing in it; buffer and ray picks work. `clip`:
    /// the user clip planes its ray picks apply ([`ClipPlanes`]).
    ///
    /// # Errors
    /// [`Error::InvalidCamera`] for an invalid camera or frame size.
    pub fn from_picks(
        scene: &Scene,
        camera: &Camera,
        cull: CullMode,
        clip: Option<ClipPlanes>,
        fill: impl FnOnce(&Frame, &mut [u32], &mut [f32]),
    ) -> Result<Frame, Error> {
        camera.validate()?;
        let mut frame = Frame::new(camera.width, camera.height)
            .ok_or(Error::InvalidSize(camera.width, camera.height))?;
        frame.camera = Some(*camera);
        frame.scene = Some(scene.stamp());
        frame.inv_view_proj = camera.inverse_view_proj();
        frame.cull = cull;
        frame.clip = clip.filter(|c| !c.is_empty()).map(std::sync::Arc::new);
        frame.worlds = scene.world_matrices();
        let mut ids = std::mem::take(&mut frame.ids);
        let mut depth = std::mem::take(&mut frame.depth);
        fill(&frame, &mut ids, &mut depth);
        frame.ids = ids;
        frame.depth = depth;
        Ok(frame)
    }

    /// The rays of the frame's ray picks, one per pixel in row-major order
    /// (origins, then directions, three values per pixel): from the pixel
    /// centre's point on the near plane (t = 0) to its point on the far
    /// plane (t = 1), the very rays the ray picks cast,
    /// so a batch ray cast of them with `far = 1` answers the same. Empty
    /// before the first render.
    #[must_use]
    pub fn pixel_rays(&self) -> (Vec<f32>, Vec<f32>) {
        let Some(view) = self
            .camera
            .as_ref()
            .and_then(|c| ViewRays::new(c, &self.inv_view_proj))
        else {
            return (Vec::new(), Vec::new());
        };
        let n = self.ids.len();
        let (mut origins, mut dirs) = (Vec::with_capacity(3 * n), Vec::with_capacity(3 * n));
        for y in 0..self.height {
            for x in 0..self.width {
                let r = view.ray(x, y);
                origins.extend_from_slice(&r.origin.to_array());
                dirs.extend_from_slice(&r.direction.to_array());
            }
        }
        (origins, dirs)
    }

    /// The requested per-pixel maps ([`PixelMaps`]) of the triangles in the
    /// ID buffer of a frame rendered from `scene` as it is now (see
    /// `Picks::maps`, which checks that).
    pub(crate) fn pixel_maps(&self, scene: &Scene, want: MapRequest) -> PixelMaps {
        self.pixel_maps_on(scene, want, Isa::detect())
    }

    /// [`Frame::pixel_maps`] with the per-pixel arithmetic on `isa`
    /// (the same values on each: the tests compare them).
    fn pixel_maps_on(&self, scene: &Scene, want: MapRequest, isa: Isa) -> PixelMaps {
        let n = self.ids.len();
        let w = self.width as usize;
        let mut maps = PixelMaps {
            mesh: want.mesh.then(|| vec![PixelMaps::NO_MESH; n]),
            barycentric: want.barycentric.then(|| vec![0.0; 3 * n]),
            normal: want.normal.then(|| vec![0.0; 3 * n]),
            distance: want.distance.then(|| vec![f32::INFINITY; n]),
            z: want.z.then(|| vec![f32::INFINITY; n]),
        };
        let Some(cam) = self.camera.as_ref() else {
            return maps;
        };
        let rays = PixelRays::new(cam);
        let mut bands = Vec::new();
        {
            let mut mesh = maps.mesh.as_deref_mut();
            let mut bary = maps.barycentric.as_deref_mut();
            let mut normal = maps.normal.as_deref_mut();
            let mut distance = maps.distance.as_deref_mut();
            let mut z = maps.z.as_deref_mut();
            for _ in 0..self.height.div_ceil(BAND as u32) {
                bands.push(BandOut {
                    mesh: take(&mut mesh, BAND * w),
                    bary: take(&mut bary, 3 * BAND * w),
                    normal: take(&mut normal, 3 * BAND * w),
                    distance: take(&mut distance, BAND * w),
                    z: take(&mut z, BAND * w),
                });
            }
        }
        // The column and row parts of every pixel's ray, computed once (a
        // pinhole camera's rays, whose column part depends on the row
        // through the skew, are made per pixel by `PixelRays::ray`).
        let parts = rays.pinhole.is_none().then(|| {
            let columns: Vec<DVec3> = (0..self.width).map(|x| rays.column(x)).collect();
            let rows: Vec<DVec3> = (0..self.height).map(|y| rays.row(y)).collect();
            (columns, rows)
        });
        let identity: Vec<bool> = self.worlds.iter().map(|m| *m == Mat4::IDENTITY).collect();
        let meshes = Meshes::new(scene);
        let shared = Shared {
            frame: self,
            meshes: &meshes,
            rays: &rays,
            parts: parts.as_ref(),
            identity: &identity,
            want,
            isa,
        };
        bands
            .into_par_iter()
            .enumerate()
            .for_each(|(b, out)| shared.band(b, out));
        maps
    }
}

#[cfg(test)]
mod tests;
