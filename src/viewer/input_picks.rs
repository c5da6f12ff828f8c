//! The picking part of [`ViewerState`]: what a click, a box or lasso and
//! the hover ask of the frame on screen (after [`Action::Pick`],
//! [`Action::Select`] and [`Action::Hover`]), through its pick view.

use crate::pick::{Hit, Picks};
use crate::scene::MeshId;
#[cfg(doc)]
use crate::select::PickCycle;

#[cfg(doc)]
use super::input::Action;
use super::input::{SelectOp, SelectRegion, ViewerState};
use super::report::{pick_line, select_line};

impl ViewerState {
    /// Records a pick's result ([`ViewerState::click`] calls this).
    pub(super) fn select(&mut self, hit: Option<Hit>) {
        self.selected = hit;
        self.view_dirty = true;
    }

    /// A click at pixel (x, y) of the view's frame (after
    /// [`Action::Pick`]): picks, records the hit and returns the stdout line.
    ///
    /// The first click at a pixel answers with [`ViewerState::method`];
    /// each further click at the same pixel steps to the next mesh of
    /// [`Picks::stack`] with that method (near to far, wrapping, via
    /// [`PickCycle`]) and, when there is more than one, appends `cycle=k/n`
    /// to the line. Back at the nearest mesh the method answers again.
    pub(super) fn click(&mut self, picks: Picks<'_>, x: i64, y: i64) -> String {
        let picks = picks.with(self.method);
        let before = self.cycle.position();
        let stacked = self.cycle.click(picks, x, y);
        let now = self.cycle.position();
        let repeat = match (before, now) {
            (Some((k, n)), Some((k2, n2))) => {
                self.last_click == Some((x, y)) && n == n2 && n > 1 && (k + 1) % n == k2
            }
            _ => false,
        };
        self.last_click = Some((x, y));
        let hit = match now {
            Some((k, _)) if k > 0 => stacked,
            _ => picks.at(x, y),
        };
        let mut line = pick_line(self.method, x, y, hit.as_ref());
        if let (true, Some((k, n))) = (repeat, now) {
            line += &format!(" cycle={}/{n}", k + 1);
        }
        self.select(hit);
        line
    }

    /// Selects the meshes of `region` in the view's frame with
    /// [`ViewerState::select_mode`] and combines them with the selection by
    /// `op` (after [`Action::Select`]); returns the stdout line
    /// ([`select_line`]).
    pub(super) fn select_region(
        &mut self,
        picks: Picks<'_>,
        region: &SelectRegion,
        op: SelectOp,
    ) -> String {
        let mode = self.select_mode();
        let sel = match region {
            SelectRegion::Rect(r) => picks.rect(r[0], r[1], r[2], r[3], mode),
            SelectRegion::Lasso(p) => picks.lasso(p, mode),
        };
        self.apply_selection(op, &sel.meshes);
        select_line(mode, &self.selection, picks.scene())
    }

    /// Combines the selection with `meshes` by `op`.
    pub(super) fn apply_selection(&mut self, op: SelectOp, meshes: &[MeshId]) {
        let mut meshes = meshes.to_vec();
        meshes.sort_unstable();
        meshes.dedup();
        match op {
            SelectOp::Replace => self.selection = meshes,
            SelectOp::Add => {
                self.selection.extend(meshes);
                self.selection.sort_unstable();
                self.selection.dedup();
            }
            SelectOp::Remove => self.selection.retain(|m| meshes.binary_search(m).is_err()),
        }
        self.view_dirty = true;
    }

    /// Records the mesh under the cursor (after [`Action::Hover`]).
    pub(super) fn set_hovered(&mut self, mesh: Option<MeshId>) {
        if self.hovered != mesh {
            self.hovered = mesh;
            self.view_dirty = true;
        }
    }
}
