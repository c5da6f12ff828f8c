//! The three lines of the collision post, per driven mesh, as 3D segments
//! for the window image: **forward** (blue) from the centre along its
//! forward direction, [`FORWARD_LINE`] radii long; **motion** (green) from
//! the centre along its velocity, as long as the distance it covers in
//! [`MOTION_LINE_SECONDS`] (so proportional to its speed, absent when it is
//! still); **collision ray** (red) from the centre to the first other mesh
//! along its motion (along forward when it is still).
//!
//! They are drawn on top of the render, not depth-tested, so a line stays
//! visible through the mesh it starts inside of and through what it points
//! at. Longer lines are drawn first: where lines overlap (forward, motion
//! and ray all run along one direction while a mesh drives straight on),
//! the shorter one is on top and the far end of each is still seen.

use glam::Vec3;

use super::drive::{Drive, FORWARD_LINE, MOTION_LINE_SECONDS};

/// Color of the forward line (0x00RRGGBB).
pub(super) const FORWARD_COLOR: u32 = 0x0000_00ff;
/// Color of the motion line.
pub(super) const MOTION_COLOR: u32 = 0x0000_ff00;
/// Color of the collision ray.
pub(super) const RAY_COLOR: u32 = 0x00ff_0000;

/// A world-space segment and its color.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Guide {
    /// Start (world).
    pub(super) from: Vec3,
    /// End (world).
    pub(super) to: Vec3,
    /// Color, 0x00RRGGBB.
    pub(super) color: u32,
}

/// The lines of every driven mesh, in drawing order: longest first (ties
/// keep mesh order, then forward, motion, ray). Empty when the lines are
/// hidden.
#[must_use]
pub(super) fn guides(drive: &Drive) -> Vec<Guide> {
    if !drive.lines {
        return Vec::new();
    }
    let mut out = Vec::new();
    for look in drive.movers().iter().filter_map(|m| m.look.as_ref()) {
        let c = look.centre;
        out.push(Guide {
            from: c,
            to: c + look.forward * (look.radius * FORWARD_LINE),
            color: FORWARD_COLOR,
        });
        if look.velocity != Vec3::ZERO {
            out.push(Guide {
                from: c,
                to: c + look.velocity * MOTION_LINE_SECONDS,
                color: MOTION_COLOR,
            });
        }
        if let Some(a) = &look.ahead {
            out.push(Guide {
                from: c,
                to: a.point,
                color: RAY_COLOR,
            });
        }
    }
    out.retain(|g| g.from.is_finite() && g.to.is_finite());
    // a stable sort: equal lengths keep the order above
    out.sort_by(|a, b| {
        let (la, lb) = ((a.to - a.from).length(), (b.to - b.from).length());
        lb.total_cmp(&la)
    });
    out
}
