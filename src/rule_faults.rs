//! The pick test's experiment: what each fill rule does to a scene.
//!
//! For every rule the scene is rendered and, per pixel centre, the list of
//! triangles whose coverage contains it (depth ignored) is collected. Then:
//!
//! - **gap**: a pixel no triangle covers although it lies *inside the
//!   silhouette*: strictly inside a triangle (all edge functions > 0), or on
//!   an edge shared by two triangles of one mesh that lie on opposite sides
//!   of it on screen and both contain the centre (closed coverage);
//! - **double cover**: a pixel covered by two triangles of one mesh that
//!   share an edge (two vertex indices) and lie on opposite sides of it on
//!   screen (so the pixel centre is on the shared edge);
//! - **false claim**: a pixel covered by a triangle whose snapped area is zero.

use crate::camera::Camera;
use crate::error::Error;
use crate::frame::render::{render, RenderOptions};
use crate::frame::Frame;
use crate::raster::rules::{snap, snapped_area, FillRule};
use crate::scene::Scene;

/// Counts (and masks) for one fill rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleReport {
    /// The rule.
    pub rule: FillRule,
    /// Pixels with a triangle in the ID buffer.
    pub covered: usize,
    /// Gap pixels.
    pub gaps: usize,
    /// Double-covered pixels.
    pub double: usize,
    /// Pixels claimed by zero-area triangles.
    pub false_claims: usize,
    /// Per pixel, row-major: the bits [`RuleReport::GAP`],
    /// [`RuleReport::DOUBLE`] and [`RuleReport::CLAIM`] of what the pixel is.
    pub mask: Vec<u8>,
    /// The ID buffer of the rule's render.
    pub ids: Vec<u32>,
}

impl RuleReport {
    /// [`RuleReport::mask`] bit of a gap pixel.
    pub const GAP: u8 = 1;
    /// [`RuleReport::mask`] bit of a double-covered pixel.
    pub const DOUBLE: u8 = 2;
    /// [`RuleReport::mask`] bit of a pixel a zero-area triangle claims.
    pub const CLAIM: u8 = 4;
}

impl Frame {
    /// Calls `f(pixel index, global triangle)` for every pixel centre every
    /// set-up triangle covers (depth ignored), in draw order per tile.
    pub(crate) fn for_each_coverage(&self, mut f: impl FnMut(usize, u32)) {
        let w = self.width as usize;
        // (the rule experiment's frames are small: never occlusion culled)
        debug_assert_eq!(self.stats.occluded, 0);
        for chunk in &self.chunks {
            for t in chunk.iter() {
                let b = t.bbox();
                for j in b[1]..=b[3] {
                    let (lo, hi) = t.span(j, b[0], b[2]);
                    if lo > hi {
                        continue;
                    }
                    for i in lo..=hi {
                        f(j as usize * w + i as usize, t.id());
                    }
                }
            }
        }
    }
}

/// Per pixel, the global triangles whose coverage contains its centre.
fn coverage_lists(frame: &Frame) -> Vec<Vec<u32>> {
    let mut lists = vec![Vec::new(); frame.ids.len()];
    frame.for_each_coverage(|p, id| lists[p].push(id));
    lists
}

/// Do triangles `a` and `b` (global indices) tile across a shared edge in
/// this frame: same mesh, two common vertices, and their third vertices on
/// opposite sides of the shared edge in snapped screen space? Then a pixel
/// centre covered by both lies on the shared edge (a fill-rule double
/// cover), not in an overlap of folded surfaces (e.g. a box's front and back).
fn tile_across_edge(scene: &Scene, frame: &Frame, a: u32, b: u32) -> bool {
    let (Some((ma, ta)), Some((mb, tb))) = (scene.locate(a), scene.locate(b)) else {
        return false;
    };
    if ma != mb || a == b {
        return false;
    }
    let m = &scene.meshes()[ma as usize];
    let (x, y) = (m.triangles()[ta as usize], m.triangles()[tb as usize]);
    let shared: Vec<u32> = x.iter().copied().filter(|v| y.contains(v)).collect();
    if shared.len() != 2 {
        return false;
    }
    let (Some(oa), Some(ob)) = (
        x.iter().copied().find(|v| !shared.contains(v)),
        y.iter().copied().find(|v| !shared.contains(v)),
    ) else {
        return false;
    };
    let s = |v: u32| {
        frame
            .screen_vertex(ma, v)
            .filter(|s| s.w > 0.0 && s.x.is_finite() && s.y.is_finite())
            .map(|s| [snap(s.x), snap(s.y)])
    };
    let (Some(p), Some(q), Some(u), Some(w)) = (s(shared[0]), s(shared[1]), s(oa), s(ob)) else {
        return false;
    };
    let side = |r: [i64; 2]| snapped_area([p, q, r]).signum();
    side(u) * side(w) < 0
}

/// Do any two of `ids` tile across a shared edge ([`tile_across_edge`])?
fn pairs_tile(scene: &Scene, frame: &Frame, ids: &[u32]) -> bool {
    ids.iter().enumerate().any(|(k, &a)| {
        ids[k + 1..]
            .iter()
            .any(|&b| tile_across_edge(scene, frame, a, b))
    })
}

/// Global indices of the triangles whose snapped window area is zero in `frame`
/// (only triangles with all vertices in front of the near plane).
#[must_use]
fn zero_area_triangles(scene: &Scene, frame: &Frame) -> Vec<u32> {
    let mut out = Vec::new();
    for (mi, m) in scene.meshes().iter().enumerate() {
        for (t, tri) in m.triangles().iter().enumerate() {
            let v = tri.map(|i| frame.screen_vertex(mi as u32, i));
            if v.iter()
                .any(|s| !s.is_some_and(|s| s.w > 0.0 && s.x.is_finite() && s.y.is_finite()))
            {
                continue;
            }
            let p = v.map(|s| s.map_or([0, 0], |s| [snap(s.x), snap(s.y)]));
            if snapped_area(p) == 0 {
                out.push(scene.global_triangle(mi as u32, t as u32));
            }
        }
    }
    out
}

/// Renders `scene` with every rule and counts gaps, double cover and false
/// claims (the experiment behind `softpick rules`; the definitions are
/// those of docs/cli.md, `softpick rules`).
///
/// # Errors
/// As [`render`] (an invalid camera).
pub fn analyze_rules(scene: &Scene, camera: &Camera) -> Result<Vec<RuleReport>, Error> {
    analyze_rules_with(scene, camera, RenderOptions::default())
}

/// [`analyze_rules`] with other options (cull mode, depth test, threads);
/// the rule and the color flag of `base` are ignored.
fn analyze_rules_with(
    scene: &Scene,
    camera: &Camera,
    base: RenderOptions,
) -> Result<Vec<RuleReport>, Error> {
    let opts = |rule| RenderOptions {
        rule,
        color: false,
        ..base
    };
    // inside-the-silhouette reference: strict interior or a shared edge under closed coverage
    let strict = coverage_lists(&render(scene, camera, opts(FillRule::Strict))?);
    let closed_frame = render(scene, camera, opts(FillRule::AreaGuard))?;
    let closed = coverage_lists(&closed_frame);
    let inside: Vec<bool> = strict
        .iter()
        .zip(&closed)
        .map(|(s, c)| !s.is_empty() || pairs_tile(scene, &closed_frame, c))
        .collect();
    let zero = zero_area_triangles(scene, &closed_frame);
    let mut out = Vec::new();
    for rule in FillRule::ALL {
        let frame = render(scene, camera, opts(rule))?;
        let lists = coverage_lists(&frame);
        let mut mask = vec![0u8; lists.len()];
        for (p, l) in lists.iter().enumerate() {
            if l.is_empty() && inside[p] {
                mask[p] |= RuleReport::GAP;
            }
            if pairs_tile(scene, &frame, l) {
                mask[p] |= RuleReport::DOUBLE;
            }
            if l.iter().any(|id| zero.contains(id)) {
                mask[p] |= RuleReport::CLAIM;
            }
        }
        let count = |bit| mask.iter().filter(|&&m| m & bit != 0).count();
        out.push(RuleReport {
            rule,
            covered: frame.ids.iter().filter(|&&i| i != 0).count(),
            gaps: count(RuleReport::GAP),
            double: count(RuleReport::DOUBLE),
            false_claims: count(RuleReport::CLAIM),
            mask,
            ids: frame.ids.clone(),
        });
    }
    Ok(out)
}
