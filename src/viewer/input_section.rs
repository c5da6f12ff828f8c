//! The section-plane keys of [`ViewerState`]: `C` places one user clip
//! plane through the middle of the scene, facing the camera, and takes it
//! away again; `,` and `.` move it toward the eye and away. The window loop
//! hands [`ViewerState::clip_planes`] to the renderer, which carries them
//! into the frame, so the picture, every pick method, the hover and the box
//! and lasso selections all answer about what the plane keeps: a click on
//! the cut face picks what is drawn there, behind the part cut away.

use crate::geometry::ClipPlanes;

use super::input::{Action, ViewerState};
use super::section::Section;

impl ViewerState {
    /// The clip planes of the render: the planes given at the start and
    /// the section plane, if on.
    #[must_use]
    pub(super) fn clip_planes(&self) -> Option<ClipPlanes> {
        match (&self.clip, &self.section) {
            (clip, None) => clip.clone(),
            (None, Some(s)) => s.clip_planes(),
            (Some(c), Some(s)) => c.clone().with_plane(s.plane()).ok(),
        }
    }

    /// `C`: a section plane through the middle of the scene facing the
    /// camera, or none again. When the planes given at the start leave no
    /// room for it, it stays off and the line says why.
    pub(super) fn toggle_section(&mut self, out: &mut Vec<Action>) {
        let next = match self.section {
            Some(_) => None,
            None => Section::facing(&self.camera, self.centre),
        };
        if let (Some(s), Some(c)) = (&next, &self.clip) {
            if let Err(e) = c.clone().with_plane(s.plane()) {
                out.push(Action::Say(format!("set section=off ({e})")));
                return;
            }
        }
        self.section = next;
        self.section_changed();
        out.push(Action::Say(match &self.section {
            Some(s) => format!("set section=on {}", s.field()),
            None => "set section=off".into(),
        }));
    }

    /// `,` / `.`: the section plane `by` world units farther from the eye
    /// (negative: nearer), one move step per key press or repeat.
    pub(super) fn move_section(&mut self, by: f32, out: &mut Vec<Action>) {
        if let Some(s) = &mut self.section {
            s.offset += by;
            let line = format!("section {}", s.field());
            self.section_changed();
            out.push(Action::Say(line));
        }
    }

    /// What a new section plane invalidates: the render, and the stack of
    /// meshes a repeated click cycles through.
    fn section_changed(&mut self) {
        self.render_dirty = true;
        self.cycle.reset();
    }
}
