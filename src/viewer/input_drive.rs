//! The driving part of [`ViewerState`]: the held keys as a [`DriveInput`],
//! drive-mode clicks, `B` and the title's drive part (see "Driving" in the
//! module docs).

use crate::pick::Picks;
use crate::scene::Scene;

use super::drive::DriveInput;
use super::input::ViewerState;
use super::sight::camera_view;

impl ViewerState {
    /// The camera check after a render, for what the camera follows (the
    /// driven meshes, [`camera_view`]): the `camera …` line when the answer
    /// changed (the first check always answers), kept for the title.
    pub(super) fn check_camera(&mut self, scene: &Scene) -> Option<String> {
        let followed: Vec<_> = self.drive.movers().iter().map(|m| m.mesh).collect();
        let view = camera_view(scene, &self.camera, &followed);
        if self.camera_view.as_ref() == Some(&view) {
            return None;
        }
        let line = view.line();
        self.camera_view = Some(view);
        Some(line)
    }

    /// What the held keys ask of the driven meshes.
    #[must_use]
    pub(super) fn drive_input(&self) -> DriveInput {
        DriveInput::from_keys(|k| self.keys_down.contains(&k))
    }

    /// A drive-mode click at pixel (x, y) of the view's frame (after
    /// [`Action::DriveClick`](super::input::Action::DriveClick)): the mesh the pick method finds there joins
    /// the driving set, or leaves it when driven; returns the stdout line
    /// (`drive none x=X y=Y` on background).
    pub(super) fn drive_click(&mut self, picks: Picks<'_>, x: i64, y: i64) -> String {
        let hit = picks.with(self.method).at(x, y);
        let line = hit.and_then(|h| self.drive.toggle(picks.scene(), h.mesh));
        self.view_dirty = true;
        line.unwrap_or_else(|| format!("drive none x={x} y={y}"))
    }

    /// `B` (after [`Action::DriveSelection`](super::input::Action::DriveSelection)): the box/lasso selection
    /// becomes the driving set; returns the `drive` lines of the change, or
    /// `drive unchanged` when there is none.
    pub(super) fn drive_selection(&mut self, scene: &Scene) -> Vec<String> {
        let lines = self.drive.set(scene, &self.selection);
        self.view_dirty = true;
        if lines.is_empty() {
            vec!["drive unchanged".to_string()]
        } else {
            lines
        }
    }

    /// The title's drive part: the driven meshes with what lies ahead of
    /// each and its distance, the click mode and ground following.
    pub(super) fn drive_title(&self) -> String {
        let movers = self.drive.movers();
        if movers.is_empty() && !self.drive_clicks {
            return String::new();
        }
        let each: Vec<String> = movers
            .iter()
            .map(|m| match m.look.as_ref().and_then(|l| l.ahead.as_ref()) {
                Some(a) => format!("{} -> {} {:.2}", m.name, a.name, a.distance),
                None => m.name.clone(),
            })
            .collect();
        format!(
            " | drive{} {}: {}{}",
            if self.drive_clicks { " (clicks)" } else { "" },
            movers.len(),
            each.join(", "),
            if self.drive.ground {
                " | ground on"
            } else {
                ""
            }
        )
    }
}
