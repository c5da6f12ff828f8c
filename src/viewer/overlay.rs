//! The window image: the base image of the view mode (shaded, pick map,
//! depth), the pick, selection and hover tints, the picked triangle's
//! outline and the box or lasso being dragged (see "Colors" in the module
//! docs).

use glam::{Vec2, Vec4};

use crate::camera::clip_to_window;
use crate::export::id_color;
use crate::frame::{Frame, BACKGROUND, NO_TRIANGLE};
use crate::scene::{MeshId, Scene};

use super::input::{SelectRegion, ViewMode};
use super::lines::Guide;

// These colors and amounts are the values "Colors" in the module docs
// promises (the end-to-end test checks the window against them there).

/// Tint of the picked mesh (0x00RRGGBB).
pub(super) const HIGHLIGHT: u32 = 0x00ff_c830;
/// How far the picked mesh's pixels move toward [`HIGHLIGHT`] (0..1).
pub(super) const HIGHLIGHT_AMOUNT: f32 = 0.5;
/// Tint of the hovered mesh.
pub(super) const HOVER: u32 = 0x0030_d0ff;
/// How far the hovered mesh's pixels move toward [`HOVER`].
pub(super) const HOVER_AMOUNT: f32 = 0.35;
/// Color of the picked triangle's outline.
pub(super) const OUTLINE: u32 = 0x00ff_ffff;
/// Tint of the selected meshes (box and lasso selection).
pub(super) const SELECTION: u32 = 0x0040_e070;
/// How far the selected meshes' pixels move toward [`SELECTION`].
pub(super) const SELECTION_AMOUNT: f32 = 0.45;
/// Color of the box or lasso being dragged.
pub(super) const BAND: u32 = 0x0060_ff90;
/// Tint of the driven meshes.
pub(super) const DRIVEN: u32 = 0x00e0_60ff;
/// How far the driven meshes' pixels move toward [`DRIVEN`].
pub(super) const DRIVEN_AMOUNT: f32 = 0.45;

/// Moves every channel of `c` toward `to` by `amount` (0..1), rounding.
#[must_use]
pub(super) fn tint(c: u32, to: u32, amount: f32) -> u32 {
    let mut out = 0;
    for shift in [16, 8, 0] {
        let a = ((c >> shift) & 0xff) as f32;
        let b = ((to >> shift) & 0xff) as f32;
        let v = (a + (b - a) * amount).round().clamp(0.0, 255.0) as u32;
        out |= v << shift;
    }
    out
}

/// The picked mesh's color of a pixel whose plain color is `c`.
#[must_use]
pub(super) fn highlight(c: u32) -> u32 {
    tint(c, HIGHLIGHT, HIGHLIGHT_AMOUNT)
}

/// A selected mesh's color of a pixel whose plain color is `c`.
#[must_use]
pub(super) fn selection_tint(c: u32) -> u32 {
    tint(c, SELECTION, SELECTION_AMOUNT)
}

/// Mesh id of every global triangle of `scene`.
#[must_use]
pub(super) fn mesh_of_triangles(scene: &Scene) -> Vec<MeshId> {
    let offs = scene.triangle_offsets();
    let mut v = Vec::with_capacity(scene.triangle_count() as usize);
    for m in 0..offs.len().saturating_sub(1) {
        v.extend(std::iter::repeat_n(
            m as MeshId,
            (offs[m + 1] - offs[m]) as usize,
        ));
    }
    v
}

pub(super) fn mesh_at(id: u32, mesh_of: &[MeshId]) -> Option<MeshId> {
    (id != NO_TRIANGLE)
        .then(|| mesh_of.get((id - 1) as usize).copied())
        .flatten()
}

/// The per-mesh pick map of a frame: [`id_color`] of each pixel's mesh id,
/// black background (what `P` saves).
#[must_use]
pub(super) fn pick_map(frame: &Frame, mesh_of: &[MeshId]) -> Vec<u32> {
    frame
        .ids()
        .iter()
        .map(|&id| id_color(mesh_at(id, mesh_of)))
        .collect()
}

/// What [`compose`] draws over the base image.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Overlay {
    /// View mode (base image).
    pub(super) mode: ViewMode,
    /// Picked mesh and its mesh-local triangle: tinted with [`HIGHLIGHT`], triangle outlined.
    pub(super) selected: Option<(MeshId, u32)>,
    /// Hovered mesh: tinted with [`HOVER`] (unless it is picked or selected).
    pub(super) hovered: Option<MeshId>,
    /// Box/lasso-selected meshes (sorted): tinted with [`SELECTION`] (unless picked).
    pub(super) selection: Vec<MeshId>,
    /// The box or lasso being dragged: drawn in [`BAND`].
    pub(super) band: Option<SelectRegion>,
    /// Driven meshes: tinted with [`DRIVEN`] (unless picked).
    pub(super) driven: Vec<MeshId>,
    /// The driven meshes' lines, in drawing order, on top of everything
    /// but the band.
    pub(super) guides: Vec<Guide>,
}

/// Builds the window image of `frame`: the base image of the view mode, the
/// hover, selection and pick tints, the picked triangle's outline and the
/// box or lasso being dragged.
pub(super) fn compose(
    frame: &Frame,
    scene: &Scene,
    mesh_of: &[MeshId],
    ov: &Overlay,
    out: &mut Vec<u32>,
) {
    out.clear();
    match ov.mode {
        ViewMode::Shaded => out.extend_from_slice(frame.color()),
        ViewMode::Ids => out.extend(frame.ids().iter().map(|&id| id_color(mesh_at(id, mesh_of)))),
        ViewMode::Depth => {
            let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
            for (&id, &d) in frame.ids().iter().zip(frame.depth()) {
                if id != NO_TRIANGLE && d.is_finite() {
                    lo = lo.min(d);
                    hi = hi.max(d);
                }
            }
            let span = if hi > lo { hi - lo } else { 1.0 };
            out.extend(frame.ids().iter().zip(frame.depth()).map(|(&id, &d)| {
                if id == NO_TRIANGLE {
                    BACKGROUND
                } else {
                    let t = ((d - lo) / span).clamp(0.0, 1.0);
                    let g = (255.0 - 215.0 * t).round() as u32;
                    (g << 16) | (g << 8) | g
                }
            }));
        }
    }
    let sel = ov.selected.map(|s| s.0);
    // selected (1) and driven (2) meshes by id (only ids the scene has)
    let mut chosen = vec![0u8; scene.meshes().len()];
    for (list, mark) in [(&ov.selection, 1), (&ov.driven, 2)] {
        for &m in list {
            if let Some(c) = chosen.get_mut(m as usize) {
                *c = mark;
            }
        }
    }
    let marked = !ov.selection.is_empty() || !ov.driven.is_empty();
    if sel.is_some() || ov.hovered.is_some() || marked {
        for (px, &id) in out.iter_mut().zip(frame.ids()) {
            let Some(m) = mesh_at(id, mesh_of) else {
                continue;
            };
            if Some(m) == sel {
                *px = highlight(*px);
            } else if chosen.get(m as usize) == Some(&2) {
                *px = tint(*px, DRIVEN, DRIVEN_AMOUNT);
            } else if chosen.get(m as usize) == Some(&1) {
                *px = selection_tint(*px);
            } else if Some(m) == ov.hovered {
                *px = tint(*px, HOVER, HOVER_AMOUNT);
            }
        }
    }
    if let (Some((mesh, tri)), Some(cam)) = (ov.selected, frame.camera()) {
        let world = frame
            .world_matrices()
            .get(mesh as usize)
            .copied()
            .unwrap_or_else(|| scene.mesh_world(mesh));
        if let Some(m) = scene.mesh(mesh) {
            if (tri as usize) < m.triangles().len() {
                let corners = m.triangle(tri);
                let mvp = cam.view_proj() * world;
                let clip = corners.map(|p| mvp * p.extend(1.0));
                for k in 0..3 {
                    draw_clip_segment(
                        out,
                        frame.width(),
                        frame.height(),
                        clip[k],
                        clip[(k + 1) % 3],
                        OUTLINE,
                    );
                }
            }
        }
    }
    if let (false, Some(cam)) = (ov.guides.is_empty(), frame.camera()) {
        let vp = cam.view_proj();
        for g in &ov.guides {
            let (a, b) = (vp * g.from.extend(1.0), vp * g.to.extend(1.0));
            draw_clip_segment(out, frame.width(), frame.height(), a, b, g.color);
        }
    }
    if let Some(band) = &ov.band {
        draw_band(out, frame.width(), frame.height(), band);
    }
}

/// Draws the outline of a box (along its pixel centres) or a closed lasso.
fn draw_band(img: &mut [u32], w: u32, h: u32, band: &SelectRegion) {
    let points: Vec<Vec2> = match band {
        SelectRegion::Rect(r) => {
            let [x0, y0, x1, y1] = r.map(|c| c as f32 + 0.5);
            vec![
                Vec2::new(x0, y0),
                Vec2::new(x1, y0),
                Vec2::new(x1, y1),
                Vec2::new(x0, y1),
            ]
        }
        SelectRegion::Lasso(p) => p.iter().map(|&[x, y]| Vec2::new(x, y)).collect(),
    };
    for k in 0..points.len() {
        let next = points[(k + 1) % points.len()];
        draw_segment(img, w, h, points[k], next, BAND);
    }
}

/// Draws the segment between two clip-space points (clipped to the near
/// plane, then to the image) into a row-major 0x00RRGGBB image.
pub(super) fn draw_clip_segment(img: &mut [u32], w: u32, h: u32, a: Vec4, b: Vec4, color: u32) {
    // near plane of GL clip space: z >= -w; keep a margin so w stays > 0
    let (da, db) = (a.z + a.w, b.z + b.w);
    if !(da >= 0.0 || db >= 0.0) {
        return;
    }
    let (a, b) = if da < 0.0 {
        (a + (b - a) * (da / (da - db)), b)
    } else if db < 0.0 {
        (a, a + (b - a) * (da / (da - db)))
    } else {
        (a, b)
    };
    if !(a.w > 0.0 && b.w > 0.0) {
        return;
    }
    let (wf, hf) = (w as f32, h as f32);
    let p = clip_to_window(a, wf, hf);
    let q = clip_to_window(b, wf, hf);
    draw_segment(img, w, h, Vec2::new(p.x, p.y), Vec2::new(q.x, q.y), color);
}

/// Draws a window-space segment (continuous coordinates, pixel centres at
/// +0.5) into a row-major image, clipped to it.
pub(super) fn draw_segment(img: &mut [u32], w: u32, h: u32, p: Vec2, q: Vec2, color: u32) {
    if !(p.is_finite() && q.is_finite()) || img.len() < w as usize * h as usize {
        return;
    }
    // Liang-Barsky against the image rectangle
    let d = q - p;
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (pp, qq) in [
        (-d.x, p.x),
        (d.x, w as f32 - p.x),
        (-d.y, p.y),
        (d.y, h as f32 - p.y),
    ] {
        if pp == 0.0 {
            if qq < 0.0 {
                return;
            }
        } else {
            let r = qq / pp;
            if pp < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
        }
    }
    if t0 > t1 {
        return;
    }
    let (a, b) = (p + d * t0, p + d * t1);
    let steps = (b - a).abs().max_element().ceil().max(1.0) as u32;
    for i in 0..=steps {
        let s = a + (b - a) * (i as f32 / steps as f32);
        let (x, y) = (s.x.floor() as i64, s.y.floor() as i64);
        if (0..i64::from(w)).contains(&x) && (0..i64::from(h)).contains(&y) {
            img[y as usize * w as usize + x as usize] = color;
        }
    }
}
