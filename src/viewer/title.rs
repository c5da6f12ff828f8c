//! The window title of [`ViewerState`]: the view mode, fill rule, pick
//! method, hover and selection state, the last pick, the box or lasso being
//! dragged, the section plane, the driven meshes, the animation and the
//! camera check.

use super::input::{SelectRegion, ViewerState};
use super::report::select_mode_name;
use super::sight::CameraView;

impl ViewerState {
    /// The window title.
    #[must_use]
    pub(super) fn title(&self) -> String {
        let sel = match &self.selected {
            None => "click to pick".to_string(),
            Some(h) => format!(
                "{} (mesh {}) tri {} (global {}) depth {:.4} at ({:.3}, {:.3}, {:.3})",
                h.mesh_name,
                h.mesh,
                h.triangle,
                h.global_triangle,
                h.depth,
                h.position.x,
                h.position.y,
                h.position.z
            ),
        };
        let cycle = match self.cycle.position() {
            Some((k, n)) if n > 1 && self.selected.is_some() => {
                format!(" | {} of {n} under the cursor (click again: next)", k + 1)
            }
            _ => String::new(),
        };
        let band = match self.band() {
            Some(SelectRegion::Rect(r)) => {
                format!(" | box ({}, {})-({}, {})", r[0], r[1], r[2], r[3])
            }
            Some(SelectRegion::Lasso(p)) => format!(" | lasso of {} points", p.len()),
            None => String::new(),
        };
        format!(
            "softpick view | {} | rule {} | pick {} | hover {} | select {} ({}){} | {}{}{}{}{}{}",
            self.mode.name(),
            self.rule.name(),
            self.method.name(),
            if self.hover { "on" } else { "off" },
            select_mode_name(self.select_mode()),
            self.selection.len(),
            if self.section.is_some() {
                " | section"
            } else {
                ""
            },
            sel,
            cycle,
            band,
            self.drive_title(),
            self.player
                .title()
                .map(|t| format!(" | {t}"))
                .unwrap_or_default(),
            self.camera_view
                .as_ref()
                .map(CameraView::flag)
                .unwrap_or_default()
        )
    }
}
