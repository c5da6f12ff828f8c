//! softpick in the browser: the wasm-bindgen layer under the npm package
//! `softpick` (its JavaScript API is in `js/`, over these handles).
//!
//! - [`RawScene`]: geometries and the objects placing them (what the
//!   three.js adapter mirrors), or a scene softpick made whole (a model
//!   file, the built-in scene); ray queries, posing, collision sweeps.
//! - [`RawCamera`]: a softpick camera, from three.js's matrices or made
//!   by softpick (auto framing, look-at).
//! - [`RawFrame`]: a reused renderer and its frame: ID and depth buffers,
//!   pixel picks by the three methods, rectangle and lasso selections.
//!
//! Every fallible call returns a `JsError`, which JavaScript receives as a
//! thrown `Error` carrying the message; nothing panics on bad input, and a
//! failed call leaves the handle as it was.

// `!(a > b)` is deliberate throughout: it is true for NaN, which must be rejected.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod camera;
mod cast;
mod clip;
mod frame;
mod geometry;
mod io;
mod lazy;
mod place;
mod pose;
mod query;
mod world;

use std::path::Path;

use glam::{DMat4, Vec3};
use softpick::collision::sweep_move;
use softpick::{builtin_scene, load_model_bytes, Camera, Projection};
use wasm_bindgen::prelude::*;

pub use frame::{analyze_rules_js, RawFrame};
use geometry::Geometry;
use query::{Answer, HIT_STRIDE};
use world::World;

/// The crate's errors as JavaScript `Error`s, each message starting with
/// "softpick: " as the package's own JavaScript checks' do (so a console
/// says where an error came from; softpick/three puts the three.js
/// object's name after the prefix).
fn err(e: impl std::fmt::Display) -> JsError {
    // (`to_string` of a `String` or `&str` is a copy, not a formatting
    // call: `format!` here, in each of `err`'s instances, added 5 KB)
    prefixed(e.to_string())
}

fn prefixed(mut message: String) -> JsError {
    message.insert_str(0, "softpick: ");
    JsError::new(&message)
}

/// A 4×4 column-major matrix from 16 numbers.
fn mat(what: &str, m: &[f64]) -> Result<DMat4, JsError> {
    if m.len() != 16 {
        return Err(err(format!(
            "{what}: a 4×4 matrix has 16 values, not {}",
            m.len()
        )));
    }
    Ok(DMat4::from_cols_slice(m))
}

/// Poses object `id` of `world` (see `RawScene::poseObject`).
fn pose_in(
    world: &mut World,
    id: u32,
    bones: &[f32],
    bind: &[f64],
    bind_inverse: &[f64],
    influences: &[f32],
) -> Result<u32, JsError> {
    let o = world.object(id).map_err(err)?;
    let (mut b, mut bi) = o.bind;
    if !bind.is_empty() || !bind_inverse.is_empty() {
        b = mat("bind matrix", bind)?;
        bi = mat("bind matrix inverse", bind_inverse)?;
        if let Some(i) = b
            .to_cols_array()
            .iter()
            .chain(&bi.to_cols_array())
            .position(|v| !v.is_finite())
        {
            return Err(err(format!("bind matrix value {i} is not finite")));
        }
    }
    let g = world.geometry_mut(o.geometry).map_err(err)?;
    let p = pose::Pose::new(g, bones, &b, &bi, influences).map_err(err)?;
    let rebuilt = world.pose_with(id, p).map_err(err)?;
    world.object_mut(id).map_err(err)?.bind = (b, bi);
    Ok(rebuilt)
}

/// Instance matrices: 16 values (column-major) per instance.
fn instances(m: &[f32]) -> Result<Vec<DMat4>, JsError> {
    if !m.len().is_multiple_of(16) {
        return Err(err(format!(
            "{} instance matrix values is not a whole number of 4×4 matrices",
            m.len()
        )));
    }
    Ok(m.chunks_exact(16)
        .map(|c| glam::Mat4::from_cols_slice(c).as_dmat4())
        .collect())
}

/// The numbers per packed hit (see `query::HIT_STRIDE`).
#[wasm_bindgen(js_name = hitStride)]
#[must_use]
pub fn hit_stride() -> u32 {
    HIT_STRIDE as u32
}

/// The version of the softpick crate inside.
#[wasm_bindgen]
#[must_use]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// A scene (see the crate docs).
#[wasm_bindgen]
pub struct RawScene {
    world: World,
    /// The packed hits of the last `raycastInto` (kept: no allocation per query).
    packed: Vec<f64>,
    /// The buffers JavaScript fills and reads in place (`io`).
    io: Box<io::Io>,
}

impl RawScene {
    /// A scene over `world`, with empty query buffers.
    fn of(world: World) -> RawScene {
        RawScene {
            world,
            packed: Vec::new(),
            io: io::Io::new(),
        }
    }

    /// The hits of a ray (`all`: every hit, nearest first; else the
    /// nearest), packed into a new array: `raycast` and `raycastAll`.
    fn cast_packed(
        &mut self,
        origin: &[f64],
        direction: &[f64],
        near: f64,
        far: f64,
        mask: Option<&[u8]>,
        all: bool,
    ) -> Result<Vec<f64>, JsError> {
        let ray = query::ray(origin, direction).map_err(err)?;
        let mut out = Vec::with_capacity(HIT_STRIDE);
        query::cast(&mut self.world, &ray, near, far, mask, all, &mut out).map_err(err)?;
        Ok(out)
    }
}

#[wasm_bindgen]
impl RawScene {
    /// An empty scene to add geometries and objects to.
    #[wasm_bindgen(constructor)]
    #[must_use]
    #[allow(clippy::new_without_default)]
    pub fn new() -> RawScene {
        RawScene::of(World::new())
    }

    /// The built-in pick-test scene (362 triangles).
    #[must_use]
    pub fn builtin() -> RawScene {
        RawScene::of(World::from_core(builtin_scene()))
    }

    /// A model file's scene (OBJ or glTF: `.glb`, or `.gltf` with its
    /// buffers as data URIs), its format chosen by `name`'s extension, else
    /// by the bytes.
    pub fn load(bytes: &[u8], name: &str) -> Result<RawScene, JsError> {
        let (scene, _) = load_model_bytes(Path::new(name), bytes).map_err(|e| match e {
            // (the core names the cargo feature the format needs, which
            // means nothing to a page: say what this build reads)
            softpick::Error::FormatDisabled { format, why, .. } => err(format!(
                "{name}: {format} files are not read by softpick's browser build, \
                 which reads OBJ and glTF (.gltf, .glb){why}"
            )),
            e => err(e),
        })?;
        Ok(RawScene::of(World::from_core(scene)))
    }

    /// Adds a geometry: positions (x, y, z per vertex), indices (none:
    /// vertices in threes) and primitive ranges (pairs of index positions
    /// `[start, end)`; none: one primitive over everything). Its id.
    #[wasm_bindgen(js_name = addGeometry)]
    pub fn add_geometry(
        &mut self,
        positions: &[f32],
        indices: Option<Vec<u32>>,
        ranges: Option<Vec<u32>>,
    ) -> Result<u32, JsError> {
        let g = Geometry::new(positions, indices.as_deref(), ranges.as_deref()).map_err(err)?;
        self.world.add_geometry(g).map_err(err)
    }

    /// New positions for a geometry (as many vertices as before).
    #[wasm_bindgen(js_name = setGeometryPositions)]
    pub fn set_geometry_positions(&mut self, id: u32, positions: &[f32]) -> Result<(), JsError> {
        self.world
            .set_geometry_positions(id, positions)
            .map_err(err)
    }

    /// A geometry's joint influences: four joint indices and four weights
    /// per vertex.
    #[wasm_bindgen(js_name = setSkin)]
    pub fn set_skin(&mut self, id: u32, joints: &[u16], weights: &[f32]) -> Result<(), JsError> {
        // (a waiting pose is of the influences it came with)
        self.world.settle_all();
        let g = self.world.geometry_mut(id).map_err(err)?;
        let n = g.vertex_count();
        if joints.len() != 4 * n || weights.len() != 4 * n {
            return Err(err(format!(
                "a skin of {n} vertices needs {} joint indices and weights, not {} and {}",
                4 * n,
                joints.len(),
                weights.len()
            )));
        }
        if let Some(i) = weights.iter().position(|w| !w.is_finite()) {
            return Err(err(format!("skin weight {i} is {}", weights[i])));
        }
        g.deform.joints = joints
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        g.deform.weights = weights
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        g.deform_changed();
        Ok(())
    }

    /// A geometry's morph targets: `count` targets of x, y, z per vertex,
    /// one after the other; `relative`: deltas (three.js's
    /// `morphTargetsRelative`), else absolute positions.
    #[wasm_bindgen(js_name = setMorphTargets)]
    pub fn set_morph_targets(
        &mut self,
        id: u32,
        targets: &[f32],
        count: u32,
        relative: bool,
    ) -> Result<(), JsError> {
        self.world.settle_all();
        let g = self.world.geometry_mut(id).map_err(err)?;
        let n = g.vertex_count();
        if targets.len() != count as usize * n * 3 {
            return Err(err(format!(
                "{count} morph targets of {n} vertices need {} values, not {}",
                count as usize * n * 3,
                targets.len()
            )));
        }
        if let Some(i) = targets.iter().position(|v| !v.is_finite()) {
            return Err(err(format!("morph target value {i} is {}", targets[i])));
        }
        g.deform.targets = targets
            .chunks_exact(3 * n.max(1))
            .map(|t| {
                t.chunks_exact(3)
                    .zip(&g.positions)
                    .map(|(v, &rest)| {
                        let v = Vec3::new(v[0], v[1], v[2]);
                        if relative {
                            v
                        } else {
                            v - rest
                        }
                    })
                    .collect()
            })
            .collect();
        g.deform_changed();
        Ok(())
    }

    /// Removes a geometry no object uses.
    #[wasm_bindgen(js_name = removeGeometry)]
    pub fn remove_geometry(&mut self, id: u32) -> Result<(), JsError> {
        self.world.remove_geometry(id).map_err(err)
    }

    /// Adds an object: `geometry` placed by `matrix` (16 values,
    /// column-major), for an instanced mesh each of `instances` (16 values
    /// per instance) after it; `sides`: one material side (0 front, 1 back,
    /// 2 double) per primitive, or one for all, or none (front). Its id.
    #[wasm_bindgen(js_name = addObject)]
    pub fn add_object(
        &mut self,
        geometry: u32,
        matrix: &[f64],
        instances: Option<Vec<f32>>,
        sides: &[u8],
    ) -> Result<u32, JsError> {
        let base = mat("object matrix", matrix)?;
        let inst = instances.as_deref().map(self::instances).transpose()?;
        self.world
            .add_object(geometry, base, inst, sides)
            .map_err(err)
    }

    /// Places an object again (and, for an instanced mesh, its instances:
    /// their number may change).
    #[wasm_bindgen(js_name = setMatrix)]
    pub fn set_matrix(
        &mut self,
        id: u32,
        matrix: &[f64],
        instances: Option<Vec<f32>>,
    ) -> Result<(), JsError> {
        let base = mat("object matrix", matrix)?;
        let inst = instances.as_deref().map(self::instances).transpose()?;
        self.world.set_matrix(id, base, inst).map_err(err)
    }

    /// An object's material sides (as for `addObject`).
    #[wasm_bindgen(js_name = setSides)]
    pub fn set_sides(&mut self, id: u32, sides: &[u8]) -> Result<(), JsError> {
        self.world.set_sides(id, sides).map_err(err)
    }

    /// Shows or hides an object (hidden objects are neither drawn nor hit).
    #[wasm_bindgen(js_name = setVisible)]
    pub fn set_visible(&mut self, id: u32, visible: bool) -> Result<(), JsError> {
        self.world.set_visible(id, visible).map_err(err)
    }

    /// Removes an object.
    #[wasm_bindgen(js_name = removeObject)]
    pub fn remove_object(&mut self, id: u32) -> Result<(), JsError> {
        self.world.remove_object(id).map_err(err)
    }

    /// Poses an object as three.js draws it (morph targets, then skinning):
    /// `bones`, 16 values per bone (three.js's `skeleton.boneMatrices`;
    /// empty: no skinning), the bind matrix and its inverse (empty: those
    /// of the last pose that gave them, at first the identity), the morph
    /// influences. Its BVHs are refit (returns how many were built again
    /// instead, a refit whose boxes grew too much), or, for an object
    /// already built, when a query first needs them: a ray asks the pose
    /// lazily, posing only the vertices it can reach (returns 0).
    #[wasm_bindgen(js_name = poseObject)]
    pub fn pose_object(
        &mut self,
        id: u32,
        bones: &[f32],
        bind: &[f64],
        bind_inverse: &[f64],
        influences: &[f32],
    ) -> Result<u32, JsError> {
        pose_in(&mut self.world, id, bones, bind, bind_inverse, influences)
    }

    /// User clip planes for every object (three.js's
    /// `renderer.clippingPlanes`): four values per plane (normal x, y, z,
    /// constant), keeping the points with `normal · p + constant >= 0`.
    /// Every render and ray query then honours them.
    #[wasm_bindgen(js_name = setClipPlanes)]
    pub fn set_clip_planes(&mut self, planes: &[f32]) -> Result<(), JsError> {
        let p = clip::planes(planes).map_err(err)?;
        self.world.clipping.set_all(p).map_err(err)
    }

    /// An object's own clip planes (its materials' `clippingPlanes`): four
    /// values per plane, `counts` the planes of each primitive in turn
    /// (empty: all of them for every primitive).
    #[wasm_bindgen(js_name = setObjectClipPlanes)]
    pub fn set_object_clip_planes(
        &mut self,
        object: u32,
        planes: &[f32],
        counts: &[u32],
    ) -> Result<(), JsError> {
        self.world.object(object).map_err(err)?;
        let prims = self.world.prim_count(object) as usize;
        let p = clip::planes(planes).map_err(err)?;
        self.world
            .clipping
            .set_object(object, p, counts, prims)
            .map_err(err)
    }

    /// The names of the scene's animations (a model file's).
    #[must_use]
    pub fn animations(&self) -> Vec<String> {
        self.world
            .core
            .scene()
            .animations()
            .iter()
            .map(|a| a.name.clone())
            .collect()
    }

    /// The duration of animation `index`, seconds.
    pub fn duration(&self, index: u32) -> Result<f32, JsError> {
        self.world
            .core
            .scene()
            .animations()
            .get(index as usize)
            .map(softpick::animation::Animation::duration)
            .ok_or_else(|| err(format!("animation {index} does not exist")))
    }

    /// Poses a model file's scene at `time` seconds of animation
    /// `animation` (none: the rest pose with the current morph weights).
    #[wasm_bindgen(js_name = poseAnimation)]
    pub fn pose_animation(&mut self, time: f32, animation: Option<u32>) -> Result<(), JsError> {
        if !time.is_finite() {
            return Err(err(format!("time {time} is not finite")));
        }
        self.world
            .core
            .scene_mut()
            .pose(
                time,
                animation.map(|a| a as usize),
                softpick::animation::LoopMode::Once,
            )
            .map(|_| ())
            .map_err(err)
    }

    /// The number of objects (ids run from 0; removed ones leave gaps).
    #[wasm_bindgen(js_name = objectCount)]
    #[must_use]
    pub fn object_count(&self) -> u32 {
        self.world.object_count() as u32
    }

    /// The number of triangles softpick holds (after the last change).
    #[wasm_bindgen(js_name = triangleCount)]
    pub fn triangle_count(&mut self) -> u32 {
        self.world.build();
        self.world.core.scene().triangle_count()
    }

    /// The box around every object, `[min x, y, z, max x, y, z]` (empty
    /// scene: infinities).
    pub fn bounds(&mut self) -> Vec<f64> {
        self.world.build();
        let b = self.world.core.scene().bounds();
        [b.min, b.max]
            .iter()
            .flat_map(|v| v.to_array())
            .map(f64::from)
            .collect()
    }

    /// The nearest hit of a ray (origin, direction; distances along it in
    /// units of the direction's length within `[near, far]`), packed
    /// (`hitStride` numbers; empty: none). `mask`: one byte per object
    /// (nonzero: tested); none: every object.
    pub fn raycast(
        &mut self,
        origin: &[f64],
        direction: &[f64],
        near: f64,
        far: f64,
        mask: Option<Vec<u8>>,
    ) -> Result<Vec<f64>, JsError> {
        self.cast_packed(origin, direction, near, far, mask.as_deref(), false)
    }

    /// The hits of a ray (`all`: every hit, nearest first, as
    /// `raycastAll`; else the nearest, as `raycast`), packed into `out`
    /// (as many as fit, `hitStride` numbers each); the number of hits.
    /// When it exceeds what `out` holds, ask again with a larger `out`.
    /// (The same answers as `raycast` and `raycastAll`, written into the
    /// caller's array: a query allocates nothing on the JavaScript side.)
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = raycastInto)]
    pub fn raycast_into(
        &mut self,
        origin: &[f64],
        direction: &[f64],
        near: f64,
        far: f64,
        mask: Option<Vec<u8>>,
        all: bool,
        out: &mut [f64],
    ) -> Result<u32, JsError> {
        let ray = query::ray(origin, direction).map_err(err)?;
        let packed = &mut self.packed;
        packed.clear();
        query::cast(
            &mut self.world,
            &ray,
            near,
            far,
            mask.as_deref(),
            all,
            packed,
        )
        .map_err(err)?;
        let n = packed.len().min(out.len() / HIT_STRIDE * HIT_STRIDE);
        out[..n].copy_from_slice(&packed[..n]);
        Ok((packed.len() / HIT_STRIDE) as u32)
    }

    /// Every hit of a ray, nearest first, packed (as `raycast`).
    #[wasm_bindgen(js_name = raycastAll)]
    pub fn raycast_all(
        &mut self,
        origin: &[f64],
        direction: &[f64],
        near: f64,
        far: f64,
        mask: Option<Vec<u8>>,
    ) -> Result<Vec<f64>, JsError> {
        self.cast_packed(origin, direction, near, far, mask.as_deref(), true)
    }

    /// The nearest hits of many rays (origins and directions, x, y, z
    /// each), compactly: per ray its object (−1: none), instance, index
    /// position `j` and distance, written into the four arrays.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = firstHits)]
    pub fn first_hits(
        &mut self,
        origins: &[f32],
        directions: &[f32],
        near: f64,
        far: f64,
        mask: Option<Vec<u8>>,
        object: &mut [i32],
        instance: &mut [u32],
        index: &mut [u32],
        distance: &mut [f32],
    ) -> Result<(), JsError> {
        let n = origins.len() / 3;
        if origins.len() != 3 * n || directions.len() != 3 * n {
            return Err(err(format!(
                "{} origin and {} direction values: need 3 per ray, as many of each",
                origins.len(),
                directions.len()
            )));
        }
        if [object.len(), instance.len(), index.len(), distance.len()]
            .iter()
            .any(|&l| l < n)
        {
            return Err(err(format!("the output arrays need room for {n} rays")));
        }
        query::batch(
            &mut self.world,
            origins,
            directions,
            near,
            far,
            mask.as_deref(),
            query::BatchOut {
                object,
                instance,
                index,
                distance,
            },
        )
        .map_err(err)
    }

    /// Moves an object by `displacement` (world x, y, z), stopping `skin`
    /// units before it would touch another object (softpick's
    /// `sweep_move`): `[allowed x, y, z, blocked (1/0), other object (−1:
    /// none)]` followed by the contact hit, packed, if any.
    #[wasm_bindgen(js_name = sweepMove)]
    pub fn sweep_move(
        &mut self,
        object: u32,
        displacement: &[f64],
        skin: f64,
    ) -> Result<Vec<f64>, JsError> {
        if displacement.len() != 3 {
            return Err(err("a displacement has 3 values"));
        }
        let d = glam::DVec3::from_slice(displacement).as_vec3();
        let mesh = self.world.first_mesh(object).map_err(err)?;
        let r = sweep_move(self.world.core.scene_mut(), mesh, d, skin as f32)
            .ok_or_else(|| err("the displacement or skin is not finite"))?;
        self.world.moved(object, r.allowed);
        let other = r
            .other
            .and_then(|m| self.world.meshes.get(m as usize))
            .map_or(-1.0, |m| f64::from(m.object));
        let mut out = vec![
            f64::from(r.allowed.x),
            f64::from(r.allowed.y),
            f64::from(r.allowed.z),
            if r.blocked { 1.0 } else { 0.0 },
            other,
        ];
        if let Some(h) = &r.hit {
            query::pack(
                &self.world.meshes,
                self.world.core.scene(),
                &Answer::from(h),
                &mut out,
            );
        }
        Ok(out)
    }
}

/// A softpick camera.
#[wasm_bindgen]
pub struct RawCamera {
    cam: Camera,
}

impl RawCamera {
    /// A checked camera whose frame the browser build can hold
    /// (`limits::MAX_WASM_FRAME_PIXELS`: a larger one would abort the
    /// module on allocation when rendered).
    fn of(cam: Camera) -> Result<RawCamera, JsError> {
        let px = u64::from(cam.width) * u64::from(cam.height);
        if px > softpick::limits::MAX_WASM_FRAME_PIXELS {
            return Err(err(format!(
                "a {} × {} view is more than {} pixels",
                cam.width,
                cam.height,
                softpick::limits::MAX_WASM_FRAME_PIXELS
            )));
        }
        Ok(RawCamera { cam })
    }
}

#[wasm_bindgen]
impl RawCamera {
    /// The camera of a three.js view matrix (`matrixWorldInverse`) and
    /// projection matrix for a `width × height` view.
    #[wasm_bindgen(js_name = fromMatrices)]
    pub fn from_matrices(
        view: &[f64],
        projection: &[f64],
        width: u32,
        height: u32,
    ) -> Result<RawCamera, JsError> {
        let cam = camera::from_matrices(
            &mat("view matrix", view)?,
            &mat("projection matrix", projection)?,
            width,
            height,
        )
        .map_err(err)?;
        RawCamera::of(cam)
    }

    /// softpick's automatic framing of a scene (the CLI's default camera).
    pub fn auto(scene: &mut RawScene, width: u32, height: u32) -> Result<RawCamera, JsError> {
        scene.world.build();
        let b = scene.world.core.scene().framing_bounds();
        let cam = Camera::auto_frame(&b, width, height);
        cam.validate().map_err(err)?;
        RawCamera::of(cam)
    }

    /// A look-at camera: eye, target, up (3 values each), a vertical field
    /// of view in degrees (perspective) or a view height in world units
    /// (`orthographic`), near and far distances.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = lookAt)]
    pub fn look_at(
        eye: &[f32],
        target: &[f32],
        up: &[f32],
        fov_or_height: f32,
        orthographic: bool,
        near: f32,
        far: f32,
        width: u32,
        height: u32,
    ) -> Result<RawCamera, JsError> {
        if eye.len() != 3 || target.len() != 3 || up.len() != 3 {
            return Err(err("eye, target and up have 3 values each"));
        }
        let cam = Camera {
            eye: Vec3::from_slice(eye),
            target: Vec3::from_slice(target),
            up: Vec3::from_slice(up),
            projection: if orthographic {
                Projection::Orthographic {
                    height: fov_or_height,
                }
            } else {
                Projection::Perspective {
                    fov_y_deg: fov_or_height,
                }
            },
            near,
            far,
            width,
            height,
        };
        cam.validate().map_err(err)?;
        RawCamera::of(cam)
    }

    /// The view matrix then the projection matrix (16 values each,
    /// column-major), as three.js's `matrixWorldInverse` and
    /// `projectionMatrix`.
    #[must_use]
    pub fn matrices(&self) -> Vec<f64> {
        camera::matrices(&self.cam)
    }

    /// The eye position.
    #[must_use]
    pub fn eye(&self) -> Vec<f64> {
        self.cam.eye.as_dvec3().to_array().to_vec()
    }

    /// The view width in pixels.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.cam.width
    }

    /// The view height in pixels.
    #[must_use]
    pub fn height(&self) -> u32 {
        self.cam.height
    }

    /// The world ray through a window point (pixels, y down; a pixel's
    /// centre is at +0.5): origin then unit direction.
    #[wasm_bindgen(js_name = rayThrough)]
    #[must_use]
    pub fn ray_through(&self, x: f32, y: f32) -> Vec<f64> {
        let r = self.cam.ray_through(x, y);
        let d = r.direction.normalize_or_zero();
        [r.origin, d]
            .iter()
            .flat_map(|v| v.to_array())
            .map(f64::from)
            .collect()
    }
}
