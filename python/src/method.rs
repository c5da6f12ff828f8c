//! Method choice: how a render makes a frame's ID and depth buffers.
//! `"raster"` runs the rasterizer (into a spare frame of the pool),
//! `"ray"` a ray pick through every pixel centre, `"auto"` chooses between
//! them by the scene's triangle count, the image's pixel count and whether
//! the BVHs are built.

use std::sync::Mutex;

use pyo3::prelude::*;
use softpick::{CullMode, PickMethod, RenderOptions, Renderer, Scene};

use crate::errors::value_err;
use crate::spare;

/// Rows of ray picks per parallel task of a ray-cast frame.
const RAY_BAND: usize = 8;

/// Triangles per pixel above which `method="auto"` casts rays (BVHs
/// built): where a ray-cast frame of ids and depth took as long as a
/// raster frame on the project's 2-core machine, 2 threads, with the
/// batched triangle triage of the rasterizer (sphere1m at 400×300, 8.3 per
/// pixel: ray/raster 0.96–1.10; city_san_francisco at 200×150, 8.9: 1.00).
/// Below it the raster frame won (sphere1m 640×480, 3.3 per pixel: rays
/// 1.20× slower; city 320×240, 3.5: 1.62×), above it the rays (city
/// 160×120, 14: 0.77; sphere1m 256×192, 20: 0.29).
const RAY_TRIANGLES_PER_PIXEL: u64 = 8;

/// The method a render with `method` uses, and why (`"asked for"` unless
/// `method="auto"`): `ValueError` for an unknown method or `"ray"` with
/// color.
pub(crate) fn choose(
    method: &str,
    color: bool,
    triangles: u64,
    pixels: u64,
    bvh_ready: bool,
) -> PyResult<(&'static str, String)> {
    match method {
        "raster" => Ok(("raster", "asked for".to_string())),
        "ray" if color => Err(value_err("color needs method=\"raster\"")),
        "ray" => Ok(("ray", "asked for".to_string())),
        "auto" => Ok(auto_method(triangles, pixels, bvh_ready, color)),
        m => Err(value_err(format!(
            "method must be raster, ray or auto (got {m:?})"
        ))),
    }
}

/// What `method="auto"` chooses, and why: rays when every pixel's ray is
/// cheap against drawing every triangle, that is when the BVHs are built
/// already and the scene has more than [`RAY_TRIANGLES_PER_PIXEL`]
/// triangles per pixel; rasterization otherwise (and always for color).
fn auto_method(
    triangles: u64,
    pixels: u64,
    bvh_ready: bool,
    color: bool,
) -> (&'static str, String) {
    if color {
        return ("raster", "color needs rasterization".into());
    }
    if !bvh_ready {
        return (
            "raster",
            "no BVH built yet (building one costs more than a render)".into(),
        );
    }
    let k = RAY_TRIANGLES_PER_PIXEL;
    if triangles > pixels.saturating_mul(k) {
        (
            "ray",
            format!("BVH built and {triangles} triangles > {k} x {pixels} pixels"),
        )
    } else {
        (
            "raster",
            format!("{triangles} triangles <= {k} x {pixels} pixels"),
        )
    }
}

/// A raster frame of `scene`, rendered by the scene's kept renderer (a
/// fresh one when another thread is rendering with it) into the buffers of
/// a spare frame when one was handed back (`spare::spare_frame`).
pub(crate) fn raster_frame(
    renderer: &Mutex<Option<Renderer>>,
    scene: &Scene,
    cam: &softpick::Camera,
    opts: RenderOptions,
    clip: Option<softpick::ClipPlanes>,
) -> Result<softpick::Frame, softpick::Error> {
    let mut frame = spare::spare_frame();
    let mut fresh = None;
    let mut kept = match renderer.try_lock() {
        Ok(g) => Some(g),
        Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    };
    let slot = kept.as_deref_mut().unwrap_or(&mut fresh);
    let r = match slot {
        Some(r) => r,
        None => slot.insert(Renderer::new(opts)?),
    };
    r.set_options(opts);
    r.set_clip_planes(clip);
    r.render_to(scene, cam, &mut frame)?;
    Ok(frame)
}

/// A frame whose ID and depth buffers are the core's ray picks of every
/// pixel (`Picks::block` with the ray method), bands of rows in
/// parallel: each pixel's answer is its own, so any thread count gives the
/// same frame.
pub(crate) fn ray_frame(
    scene: &Scene,
    cam: &softpick::Camera,
    cull: CullMode,
    clip: Option<softpick::ClipPlanes>,
) -> Result<softpick::Frame, softpick::Error> {
    use rayon::prelude::*;
    scene.build_bvhs();
    softpick::Frame::from_picks(scene, cam, cull, clip, |frame, ids, depth| {
        // (the frame was made from this scene just now: never stale)
        let Ok(picks) = frame.picks(scene) else {
            return;
        };
        let rays = picks.with(PickMethod::Ray);
        rays.prepare();
        let w = frame.width() as usize;
        ids.par_chunks_mut(w * RAY_BAND)
            .zip(depth.par_chunks_mut(w * RAY_BAND))
            .enumerate()
            .for_each(|(b, (ids, depth))| {
                let mut picks = vec![None; ids.len()];
                rays.block(0, (b * RAY_BAND) as i64, w, &mut picks);
                for ((id, d), p) in ids.iter_mut().zip(depth.iter_mut()).zip(&picks) {
                    (*id, *d) = p.map_or((softpick::Frame::NO_TRIANGLE, 1.0), |p| {
                        (p.global_triangle + 1, p.depth)
                    });
                }
            });
    })
}
