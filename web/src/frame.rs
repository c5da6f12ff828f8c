//! The frame handle: [`RawFrame`], a reused renderer and its frame (ID
//! and depth buffers, pixel picks by the three methods, rectangle and lasso
//! selections), and the fill-rule analysis of a view.

use softpick::{analyze_rules, FillRule, PickMethod, RenderOptions, Renderer, SelectMode};
use wasm_bindgen::prelude::*;

use crate::query::{self, Answer};
use crate::world::World;
use crate::{err, RawCamera, RawScene};

fn rule_of(code: u8) -> Result<FillRule, JsError> {
    Ok(match code {
        0 => FillRule::TopLeft,
        1 => FillRule::Strict,
        2 => FillRule::Inclusive,
        3 => FillRule::AreaGuard,
        _ => {
            return Err(err(format!(
                "fill rule {code} is not 0 (top-left), 1 (> 0), 2 (>= 0) or 3 (>= 0 with the area guard)"
            )))
        }
    })
}

fn method_of(code: u8) -> Result<PickMethod, JsError> {
    Ok(match code {
        0 => PickMethod::Buffer,
        1 => PickMethod::Direct,
        2 => PickMethod::Ray,
        _ => {
            return Err(err(format!(
                "pick method {code} is not 0 (buffer), 1 (direct) or 2 (ray)"
            )))
        }
    })
}

/// A renderer and its frame (buffers reused from render to render).
#[wasm_bindgen]
pub struct RawFrame {
    renderer: Renderer,
    rendered: bool,
}

#[wasm_bindgen]
impl RawFrame {
    /// A renderer with an empty frame.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Result<RawFrame, JsError> {
        Ok(RawFrame {
            renderer: Renderer::new(RenderOptions {
                color: false,
                ..RenderOptions::default()
            })
            .map_err(err)?,
            rendered: false,
        })
    }

    /// Renders the depth and ID buffers of `scene` from `camera` with a
    /// fill rule (0 top-left, 1 `> 0`, 2 `>= 0`, 3 `>= 0` with the area
    /// guard), culling as the scene's material sides ask; `color` also
    /// fills the color buffer (flat shading).
    pub fn render(
        &mut self,
        scene: &mut RawScene,
        camera: &RawCamera,
        rule: u8,
        color: bool,
    ) -> Result<(), JsError> {
        let rule = rule_of(rule)?;
        scene.world.build();
        let cull = scene.world.cull;
        self.renderer.set_options(RenderOptions {
            rule,
            cull,
            color,
            ..self.renderer.options()
        });
        let world = &mut scene.world;
        let clip = world
            .clipping
            .planes(world.meshes.iter().map(|r| (r.object, r.prim)))
            .cloned();
        self.renderer.set_clip_planes(clip);
        self.renderer
            .render(scene.world.core.scene(), &camera.cam)
            .map_err(err)?;
        self.rendered = true;
        Ok(())
    }

    /// The frame's width in pixels.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.renderer.frame().width()
    }

    /// The frame's height in pixels.
    #[must_use]
    pub fn height(&self) -> u32 {
        self.renderer.frame().height()
    }

    /// A copy of the ID buffer: per pixel (rows from the top) the global
    /// triangle + 1, 0 for background.
    #[must_use]
    pub fn ids(&self) -> Vec<u32> {
        self.renderer.frame().ids().to_vec()
    }

    /// A copy of the depth buffer: window depth 0 (near) to 1 (far).
    #[must_use]
    pub fn depth(&self) -> Vec<f32> {
        self.renderer.frame().depth().to_vec()
    }

    /// A copy of the color buffer (0xAARRGGBB per pixel; after a render
    /// with `color`).
    #[must_use]
    pub fn color(&self) -> Vec<u32> {
        self.renderer.frame().color().to_vec()
    }

    /// Per pixel the object under it (−1: none), from the ID buffer.
    #[wasm_bindgen(js_name = objectIds)]
    pub fn object_ids(&self, scene: &mut RawScene) -> Result<Vec<i32>, JsError> {
        let frame = self.renderer.frame();
        scene.world.build();
        let core = scene.world.core.scene();
        frame.picks(core).map_err(err)?;
        let refs = &scene.world.meshes;
        Ok(frame
            .ids()
            .iter()
            .map(|&id| match id.checked_sub(1).and_then(|g| core.locate(g)) {
                Some((m, _)) => refs[m as usize].object as i32,
                None => -1,
            })
            .collect())
    }

    /// The three.js triangle of a global triangle id (the ID buffer's
    /// value − 1): `[object, instance, primitive, j]`, empty when none.
    #[wasm_bindgen(js_name = describe)]
    pub fn describe(&self, scene: &mut RawScene, global: u32) -> Vec<f64> {
        scene.world.build();
        let core = scene.world.core.scene();
        match core.locate(global) {
            Some((m, t)) => {
                let r = scene.world.meshes[m as usize];
                vec![
                    f64::from(r.object),
                    f64::from(r.instance),
                    f64::from(r.prim),
                    f64::from(r.triangle(t).0),
                ]
            }
            None => Vec::new(),
        }
    }

    /// What is under pixel (x, y) (the method: 0 buffer, 1 direct, 2 ray),
    /// packed (empty: nothing). The point is where the pixel's ray meets
    /// the triangle, the distance is along that ray from the camera's eye
    /// (perspective) or from its plane (orthographic).
    pub fn pick(
        &self,
        scene: &mut RawScene,
        x: f64,
        y: f64,
        method: u8,
    ) -> Result<Vec<f64>, JsError> {
        let method = method_of(method)?;
        scene.world.build();
        let core = scene.world.core.scene();
        let frame = self.renderer.frame();
        let mut out = Vec::new();
        if !x.is_finite() || !y.is_finite() {
            return Err(err(format!("pixel ({x}, {y}) is not finite")));
        }
        let (px, py) = (x.floor() as i64, y.floor() as i64);
        let Some(h) = frame.picks(core).map_err(err)?.with(method).at(px, py) else {
            return Ok(out);
        };
        let Some(cam) = frame.camera() else {
            return Ok(out);
        };
        // the pixel centre's ray against the hit triangle's plane (f64)
        let world = frame
            .world_matrices()
            .get(h.mesh as usize)
            .copied()
            .unwrap_or_else(|| core.mesh_world(h.mesh));
        let mesh = &core.meshes()[h.mesh as usize];
        let p = mesh
            .triangle(h.triangle)
            .map(|q| world.transform_point3(q).as_dvec3());
        let b = h.barycentric.as_dvec3();
        let point = p[0] * b.x + p[1] * b.y + p[2] * b.z;
        let fwd = (cam.target - cam.eye).normalize().as_dvec3();
        let eye = cam.eye.as_dvec3();
        let distance = if cam.projection.is_perspective() {
            (point - eye).length()
        } else {
            (point - eye).dot(fwd)
        };
        let a = Answer {
            mesh: h.mesh,
            triangle: h.triangle,
            distance: distance as f32,
            point: point.as_vec3(),
            barycentric: h.barycentric,
            front: h.front_face,
        };
        query::pack(&scene.world.meshes, core, &a, &mut out);
        Ok(out)
    }

    /// The pick of every pixel by a method (0 buffer, 1 direct, 2 ray), as
    /// the ID buffer holds them: per pixel (rows from the top) the global
    /// triangle + 1, 0 for none (the pick test's sweep). One pick per
    /// pixel: the core's rows of picks (`Frame::pick_id_span`) give the
    /// same answers faster, with ray walks of four and eight rays that
    /// would add a quarter to the module's size.
    #[wasm_bindgen(js_name = pickMap)]
    pub fn pick_map(&self, scene: &mut RawScene, method: u8) -> Result<Vec<u32>, JsError> {
        let method = method_of(method)?;
        scene.world.build();
        let core = scene.world.core.scene();
        let frame = self.renderer.frame();
        let picks = frame.picks(core).map_err(err)?.with(method);
        let (w, h) = (i64::from(frame.width()), i64::from(frame.height()));
        let mut out = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let p = picks.id_at(x, y);
                out.push(p.map_or(0, |p| p.global_triangle + 1));
            }
        }
        Ok(out)
    }

    /// The objects and triangles in a pixel rectangle (corners inclusive):
    /// see `select`.
    #[wasm_bindgen(js_name = selectRect)]
    pub fn select_rect(
        &self,
        scene: &mut RawScene,
        x0: f64,
        y0: f64,
        x1: f64,
        y1: f64,
        through: bool,
    ) -> Result<Vec<u32>, JsError> {
        scene.world.build();
        let core = scene.world.core.scene();
        let mode = select_mode(through);
        let s = self.renderer.frame().picks(core).map_err(err)?.rect(
            x0.floor() as i64,
            y0.floor() as i64,
            x1.floor() as i64,
            y1.floor() as i64,
            mode,
        );
        Ok(selection(&scene.world, &s))
    }

    /// The objects and triangles inside a lasso (x, y pairs in pixels; the
    /// even-odd rule on pixel centres): see `select`.
    #[wasm_bindgen(js_name = selectLasso)]
    pub fn select_lasso(
        &self,
        scene: &mut RawScene,
        points: &[f32],
        through: bool,
    ) -> Result<Vec<u32>, JsError> {
        scene.world.build();
        let core = scene.world.core.scene();
        let mode = select_mode(through);
        let poly: Vec<[f32; 2]> = points.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
        let s = self
            .renderer
            .frame()
            .picks(core)
            .map_err(err)?
            .lasso(&poly, mode);
        Ok(selection(&scene.world, &s))
    }
}

/// A selection as `[pixels, n, (object, instance) × n, (object, instance,
/// j) × rest]`: the covered pixel count, the objects' instances, then
/// each selected three.js triangle once.
fn selection(w: &World, s: &softpick::Selection) -> Vec<u32> {
    let mut pairs: Vec<(u32, u32)> = s
        .meshes
        .iter()
        .map(|&m| (w.meshes[m as usize].object, w.meshes[m as usize].instance))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut tris: Vec<(u32, u32, u32)> = s
        .triangles
        .iter()
        .filter_map(|&g| {
            let (m, t) = w.core.scene().locate(g)?;
            let r = w.meshes[m as usize];
            Some((r.object, r.instance, r.triangle(t).0))
        })
        .collect();
    tris.sort_unstable();
    tris.dedup();
    let mut out = vec![s.pixels as u32, pairs.len() as u32];
    out.extend(pairs.iter().flat_map(|&(a, b)| [a, b]));
    out.extend(tris.iter().flat_map(|&(a, b, c)| [a, b, c]));
    out
}

/// The fill-rule experiment of `softpick rules` on a scene and camera:
/// per rule (top-left, `> 0`, `>= 0`, `>= 0` with the area guard) the
/// covered pixels, gap pixels, double-covered pixels and false claims.
#[wasm_bindgen(js_name = analyzeRules)]
pub fn analyze_rules_js(scene: &mut RawScene, camera: &RawCamera) -> Result<Vec<f64>, JsError> {
    scene.world.build();
    let core = scene.world.core.scene();
    let reports = analyze_rules(core, &camera.cam).map_err(err)?;
    let mut out = Vec::new();
    for want in [
        FillRule::TopLeft,
        FillRule::Strict,
        FillRule::Inclusive,
        FillRule::AreaGuard,
    ] {
        if let Some(r) = reports.iter().find(|r| r.rule == want) {
            out.extend([r.covered, r.gaps, r.double, r.false_claims].map(|v| v as f64));
        }
    }
    Ok(out)
}

/// The selection mode of the glue's `through` flag: every triangle under
/// the region, or only those drawn.
fn select_mode(through: bool) -> SelectMode {
    if through {
        SelectMode::Through
    } else {
        SelectMode::Visible
    }
}
