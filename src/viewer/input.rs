//! The viewer's input as a pure state machine: [`ViewerState`] takes
//! [`Event`]s (pointer polls, wheel, keys, focus, close) and answers with
//! [`Action`]s for the window loop. The picks and selections those actions
//! ask for are in `input_picks`, the driving in `input_drive`, the window
//! title in `title`. No window is needed, so every binding is unit-tested
//! (`tests/`).

use std::collections::HashSet;

use glam::Vec3;
use minifb::{Key, MouseButton};

use crate::camera::Camera;
use crate::geometry::{Aabb, ClipPlanes};
#[cfg(doc)]
use crate::pick::Picks;
use crate::pick::{Hit, PickMethod};
use crate::raster::rules::FillRule;
use crate::scene::MeshId;
use crate::select::{PickCycle, SelectMode};

use super::drive::Drive;
use super::navigation::{move_delta, orbit, zoom, ORBIT_RAD_PER_PX};
use super::section::Section;
use super::sight::CameraView;

/// A left press becomes a box or lasso drag once the pointer is farther
/// than this from where it went down (pixels); a shorter one is a click
/// (the module docs' "beyond 4 pixels").
pub(super) const DRAG_THRESHOLD_PX: f32 = 4.0;
/// Spacing of the lasso's points (pixels): a point is added when the
/// pointer's pixel centre is this far or farther from the last one.
pub(super) const LASSO_STEP_PX: f32 = 3.0;

/// What the window shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(super) enum ViewMode {
    /// The shaded color buffer.
    #[default]
    Shaded,
    /// The pick map live: [`id_color`](crate::export::id_color) of each pixel's mesh id.
    Ids,
    /// The depth buffer, near bright, far dark.
    Depth,
}

impl ViewMode {
    /// Name shown in the title and on stdout.
    #[must_use]
    pub(super) fn name(self) -> &'static str {
        match self {
            ViewMode::Shaded => "shaded",
            ViewMode::Ids => "id",
            ViewMode::Depth => "depth",
        }
    }
}

/// An input to [`ViewerState::handle`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Event {
    /// One poll of the pointer: window position (continuous pixels, may be
    /// outside the frame; `None` when unknown) and the buttons held now.
    Poll {
        /// Pointer position.
        pos: Option<(f32, f32)>,
        /// Left button held.
        left: bool,
        /// Right button held.
        right: bool,
    },
    /// Wheel notches since the last poll (positive = away from the user = zoom in).
    Wheel(f32),
    /// A key went down (also sent again by key repeat) or up.
    Key {
        /// The key.
        key: Key,
        /// Down or up.
        down: bool,
    },
    /// The window lost the keyboard focus: forget held keys and drags.
    FocusLost,
    /// The window was closed.
    Close,
}

/// What the window loop must do after an [`Event`].
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Action {
    /// A click at pixel (x, y): pick it with [`ViewerState::click`] (the
    /// method's answer, or the next mesh under a repeated click), report and
    /// highlight.
    Pick {
        /// Pixel column.
        x: i64,
        /// Pixel row.
        y: i64,
    },
    /// Find the mesh under pixel (x, y) for the hover highlight.
    Hover {
        /// Pixel column.
        x: i64,
        /// Pixel row.
        y: i64,
    },
    /// Set the camera to frame the whole scene (needs the scene's bounds).
    FrameAll,
    /// Select the meshes in a region with [`ViewerState::select_region`].
    Select {
        /// The box or lasso.
        region: SelectRegion,
        /// How it changes the selection.
        op: SelectOp,
    },
    /// Save the color image and pick map.
    Save,
    /// Move the selected mesh by this world-space displacement.
    Move(Vec3),
    /// A click at pixel (x, y) in drive mode: add the mesh under it to the
    /// driving set, or remove it ([`ViewerState::drive_click`]).
    DriveClick {
        /// Pixel column.
        x: i64,
        /// Pixel row.
        y: i64,
    },
    /// `B`: the box/lasso selection becomes the driving set.
    DriveSelection,
    /// `G`: stop every driven mesh.
    StopAll,
    /// Print this line on stdout.
    Say(String),
    /// Leave the viewer.
    Exit,
}

/// The region of a box or lasso selection.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum SelectRegion {
    /// Inclusive pixel rectangle between pixels (x0, y0) and (x1, y1), corners
    /// in any order, possibly reaching outside the frame (clamped by
    /// [`Picks::rect`]).
    Rect([i64; 4]),
    /// Closed polygon in window coordinates (pixel centres at +0.5).
    Lasso(Vec<[f32; 2]>),
}

/// How a box or lasso changes the selection (the modifiers held at release).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(super) enum SelectOp {
    /// No modifier: the region's meshes become the selection.
    #[default]
    Replace,
    /// `Shift`: add the region's meshes.
    Add,
    /// `Ctrl`: remove the region's meshes.
    Remove,
}

#[derive(Clone, Debug, PartialEq)]
enum Drag {
    /// Left press without Shift, at this pointer position (if known): a
    /// click unless the pointer moves beyond [`DRAG_THRESHOLD_PX`]. `lasso`:
    /// Alt was held at the press. `settled`: `start` comes from a poll after
    /// the one that saw the press (see "Short clicks" in the module docs).
    Press {
        start: Option<(f32, f32)>,
        lasso: bool,
        settled: bool,
    },
    /// A box from `start` to `end` (pointer positions).
    Box { start: (f32, f32), end: (f32, f32) },
    /// A lasso through these points (pixel centres).
    Lasso(Vec<[f32; 2]>),
    /// Orbit with the right button, or the left one with Shift.
    Orbit,
}

/// The centre of the pixel under a pointer position.
fn pixel_centre(p: (f32, f32)) -> [f32; 2] {
    [p.0.floor() + 0.5, p.1.floor() + 0.5]
}

/// The viewer's state and input handling, free of any window.
#[derive(Clone, Debug)]
pub(super) struct ViewerState {
    /// The current camera.
    pub(super) camera: Camera,
    /// The camera `R` returns to.
    pub(super) home: Camera,
    /// What the window shows.
    pub(super) mode: ViewMode,
    /// Fill rule of the render.
    pub(super) rule: FillRule,
    /// Pick method of clicks.
    pub(super) method: PickMethod,
    /// Hover highlighting on.
    pub(super) hover: bool,
    /// The last pick's hit (`None`: nothing picked or background).
    pub(super) selected: Option<Hit>,
    /// Mesh under the cursor while hover is on.
    pub(super) hovered: Option<MeshId>,
    /// The box/lasso selection: mesh ids, sorted, unique.
    pub(super) selection: Vec<MeshId>,
    /// X-ray selection ([`SelectMode::Through`]) on; `X` toggles.
    pub(super) through: bool,
    /// Click-cycling through the meshes under the last clicked pixel.
    pub(super) cycle: PickCycle,
    /// World distance of one `W/A/S/D/Q/E` step (and of one `,` / `.`
    /// move of the section plane).
    pub(super) step: f32,
    /// The centre of the scene's framing bounds, where `C` puts the
    /// section plane.
    pub(super) centre: Vec3,
    /// The section plane (`C`), if on.
    pub(super) section: Option<Section>,
    /// The user clip planes given at the start (`--clip`), kept all along.
    pub(super) clip: Option<ClipPlanes>,
    /// The driven meshes and their motion.
    pub(super) drive: Drive,
    /// Drive mode (`V`): a click adds or removes a driven mesh instead of picking.
    pub(super) drive_clicks: bool,
    /// The animation clock (`Space`, `[`, `]`).
    pub(super) player: super::animation::Player,
    /// The last camera check (`None` before the first).
    pub(super) camera_view: Option<CameraView>,
    /// The scene, camera or rule changed: render again.
    pub(super) render_dirty: bool,
    /// The picture changed (mode, highlight): compose and show again.
    pub(super) view_dirty: bool,
    left: bool,
    right: bool,
    drag: Option<(Drag, MouseButton)>,
    last_pos: Option<(f32, f32)>,
    /// The keys held now (from the key events; cleared when the focus is lost).
    pub(super) keys_down: HashSet<Key>,
    /// Pixel of the last click that reached the cycle.
    pub(super) last_click: Option<(i64, i64)>,
}

impl ViewerState {
    /// A state showing `camera`, with moves of 2 % of the framing radius.
    #[must_use]
    pub(super) fn new(camera: Camera, bounds: &Aabb, rule: FillRule, method: PickMethod) -> Self {
        let r = if bounds.min.x <= bounds.max.x {
            (bounds.max - bounds.min).length() * 0.5
        } else {
            1.0
        };
        let step = if r.is_finite() && r > 0.0 {
            r * 0.02
        } else {
            0.02
        };
        Self {
            camera,
            home: camera,
            mode: ViewMode::Shaded,
            rule,
            method,
            hover: false,
            selected: None,
            hovered: None,
            selection: Vec::new(),
            through: false,
            cycle: PickCycle::new(),
            step,
            centre: if bounds.min.x <= bounds.max.x {
                (bounds.min + bounds.max) * 0.5
            } else {
                Vec3::ZERO
            },
            section: None,
            clip: None,
            // speeds scale with the scene; contacts stop a tenth of a step short
            drive: Drive::new(if r.is_finite() && r > 0.0 { r } else { 1.0 }, step * 0.1),
            drive_clicks: false,
            player: super::animation::Player::new(Vec::new(), 0, 0.0, Default::default()),
            camera_view: None,
            render_dirty: true,
            view_dirty: true,
            left: false,
            right: false,
            drag: None,
            last_pos: None,
            keys_down: HashSet::new(),
            last_click: None,
        }
    }

    fn shift(&self) -> bool {
        self.keys_down.contains(&Key::LeftShift) || self.keys_down.contains(&Key::RightShift)
    }

    fn ctrl(&self) -> bool {
        self.keys_down.contains(&Key::LeftCtrl) || self.keys_down.contains(&Key::RightCtrl)
    }

    fn alt(&self) -> bool {
        self.keys_down.contains(&Key::LeftAlt) || self.keys_down.contains(&Key::RightAlt)
    }

    /// The selection mode of boxes and lassos ([`ViewerState::through`]).
    #[must_use]
    pub(super) fn select_mode(&self) -> SelectMode {
        if self.through {
            SelectMode::Through
        } else {
            SelectMode::Visible
        }
    }

    /// The box or lasso being dragged, if any (for the overlay).
    #[must_use]
    pub(super) fn band(&self) -> Option<SelectRegion> {
        match &self.drag {
            Some((Drag::Box { start, end }, _)) => Some(SelectRegion::Rect(rect_of(*start, *end))),
            Some((Drag::Lasso(points), _)) => Some(SelectRegion::Lasso(points.clone())),
            _ => None,
        }
    }

    fn pixel(&self, pos: Option<(f32, f32)>) -> Option<(i64, i64)> {
        let (x, y) = pos?;
        let (px, py) = (x.floor() as i64, y.floor() as i64);
        let inside = x.is_finite()
            && y.is_finite()
            && (0..i64::from(self.camera.width)).contains(&px)
            && (0..i64::from(self.camera.height)).contains(&py);
        inside.then_some((px, py))
    }

    fn set_camera(&mut self, cam: Camera) {
        if cam != self.camera && cam.validate().is_ok() {
            self.camera = cam;
            self.render_dirty = true;
            self.cycle.reset();
        }
    }

    /// The scene changed (a mesh moved): render again and restart click-cycling.
    pub(super) fn scene_changed(&mut self) {
        self.render_dirty = true;
        self.cycle.reset();
    }

    /// Feeds one event; returns what the window loop must do, in order.
    pub(super) fn handle(&mut self, ev: Event) -> Vec<Action> {
        let mut out = Vec::new();
        match ev {
            Event::Poll { pos, left, right } => self.poll(pos, left, right, &mut out),
            Event::Wheel(n) => {
                if n != 0.0 && n.is_finite() {
                    self.set_camera(zoom(&self.camera, n));
                }
            }
            Event::Key { key, down } => self.key(key, down, &mut out),
            Event::FocusLost => {
                self.keys_down.clear();
                if self.band().is_some() {
                    self.view_dirty = true;
                }
                self.drag = None;
            }
            Event::Close => out.push(Action::Exit),
        }
        out
    }

    fn poll(&mut self, pos: Option<(f32, f32)>, left: bool, right: bool, out: &mut Vec<Action>) {
        let pressed_left = left && !self.left;
        let pressed_right = right && !self.right;
        // a pending press, box or lasso follows the pointer (also on the
        // poll that sees the release)
        if let Some(p) = pos.filter(|p| p.0.is_finite() && p.1.is_finite()) {
            self.track(p);
        }
        // end a drag when its button is up
        if let Some((_, b)) = &self.drag {
            let held = match b {
                MouseButton::Left => left,
                _ => right,
            };
            if !held {
                if let Some((d, _)) = self.drag.take() {
                    self.finish(d, pos, out);
                }
            }
        }
        let dragging_before = self.drag.is_some();
        if !dragging_before {
            if pressed_left {
                if self.shift() {
                    self.drag = Some((Drag::Orbit, MouseButton::Left));
                } else {
                    let press = Drag::Press {
                        start: pos.or(self.last_pos),
                        lasso: self.alt(),
                        settled: false,
                    };
                    self.drag = Some((press, MouseButton::Left));
                }
            } else if pressed_right {
                self.drag = Some((Drag::Orbit, MouseButton::Right));
            }
        }
        // a drag moves the camera from the poll after its press on, so a
        // pointer that jumped between polls does not swing the view
        let orbiting = dragging_before && matches!(self.drag, Some((Drag::Orbit, _)));
        if let (true, Some(p), Some(q)) = (orbiting, pos, self.last_pos) {
            let (dx, dy) = (p.0 - q.0, p.1 - q.1);
            if dx != 0.0 || dy != 0.0 {
                self.set_camera(orbit(
                    &self.camera,
                    -dx * ORBIT_RAD_PER_PX,
                    dy * ORBIT_RAD_PER_PX,
                ));
            }
        }
        if self.hover && (pos != self.last_pos || self.render_dirty) {
            match self.pixel(pos) {
                Some((x, y)) => out.push(Action::Hover { x, y }),
                None => self.set_hovered(None),
            }
        }
        self.left = left;
        self.right = right;
        self.last_pos = pos;
    }

    /// Follows the pointer during a left press: past the threshold a press
    /// becomes a box (or, with Alt, a lasso); a box's corner follows; a
    /// lasso gains a point every [`LASSO_STEP_PX`].
    fn track(&mut self, p: (f32, f32)) {
        let alt = self.alt();
        let Some((drag, _)) = self.drag.as_mut() else {
            return;
        };
        match drag {
            Drag::Press {
                start,
                settled: settled @ false,
                ..
            } => {
                // the first position known to postdate the press
                *start = Some(p);
                *settled = true;
            }
            Drag::Press {
                start: Some(s),
                lasso,
                settled: true,
            } => {
                let s = *s;
                if (p.0 - s.0).hypot(p.1 - s.1) > DRAG_THRESHOLD_PX {
                    *drag = if *lasso || alt {
                        Drag::Lasso(vec![pixel_centre(s), pixel_centre(p)])
                    } else {
                        Drag::Box { start: s, end: p }
                    };
                    self.view_dirty = true;
                }
            }
            Drag::Box { end, .. } => {
                if rect_of(*end, *end) != rect_of(p, p) {
                    self.view_dirty = true;
                }
                *end = p;
            }
            Drag::Lasso(points) => {
                let c = pixel_centre(p);
                let far = points
                    .last()
                    .is_none_or(|l| (c[0] - l[0]).hypot(c[1] - l[1]) >= LASSO_STEP_PX);
                if far {
                    points.push(c);
                    self.view_dirty = true;
                }
            }
            Drag::Press { start: None, .. } | Drag::Orbit => {}
        }
    }

    /// A drag's button went up: a press is a click, a box or lasso selects.
    fn finish(&mut self, drag: Drag, pos: Option<(f32, f32)>, out: &mut Vec<Action>) {
        let op = if self.ctrl() {
            SelectOp::Remove
        } else if self.shift() {
            SelectOp::Add
        } else {
            SelectOp::Replace
        };
        match drag {
            Drag::Press { start, .. } => {
                if let Some((x, y)) = self.pixel(start) {
                    out.push(if self.drive_clicks {
                        Action::DriveClick { x, y }
                    } else {
                        Action::Pick { x, y }
                    });
                }
            }
            Drag::Box { start, end } => {
                self.view_dirty = true;
                out.push(Action::Select {
                    region: SelectRegion::Rect(rect_of(start, end)),
                    op,
                });
            }
            Drag::Lasso(mut points) => {
                // close on the pixel of the release
                if let Some(p) = pos.filter(|p| p.0.is_finite() && p.1.is_finite()) {
                    let c = pixel_centre(p);
                    if points.last() != Some(&c) {
                        points.push(c);
                    }
                }
                self.view_dirty = true;
                out.push(Action::Select {
                    region: SelectRegion::Lasso(points),
                    op,
                });
            }
            Drag::Orbit => {}
        }
    }

    fn key(&mut self, key: Key, down: bool, out: &mut Vec<Action>) {
        if !down {
            self.keys_down.remove(&key);
            return;
        }
        // key repeat sends "down" again without an "up": toggles act on the edge only
        let edge = self.keys_down.insert(key);
        match key {
            Key::Escape if edge => out.push(Action::Exit),
            Key::Key1 | Key::NumPad1 if edge => self.set_mode(ViewMode::Shaded, out),
            Key::Key2 | Key::NumPad2 if edge => self.set_mode(ViewMode::Ids, out),
            Key::Key3 | Key::NumPad3 if edge => self.set_mode(ViewMode::Depth, out),
            Key::T if edge => {
                self.rule = next_of(&FillRule::ALL, self.rule);
                self.render_dirty = true;
                self.cycle.reset();
                out.push(Action::Say(format!("set rule={}", self.rule.name())));
            }
            Key::M if edge => {
                self.method = next_of(&PickMethod::ALL, self.method);
                self.view_dirty = true;
                self.cycle.reset();
                out.push(Action::Say(format!("set method={}", self.method.name())));
            }
            Key::H if edge => {
                self.hover = !self.hover;
                if self.hover {
                    if let Some((x, y)) = self.pixel(self.last_pos) {
                        out.push(Action::Hover { x, y });
                    }
                } else {
                    self.set_hovered(None);
                }
                self.view_dirty = true;
                let s = if self.hover { "on" } else { "off" };
                out.push(Action::Say(format!("set hover={s}")));
            }
            Key::F if edge => {
                out.push(Action::FrameAll);
                out.push(Action::Say("camera frame".into()));
            }
            Key::R if edge => {
                self.set_camera(self.home);
                out.push(Action::Say("camera reset".into()));
            }
            Key::P if edge => out.push(Action::Save),
            Key::X if edge => {
                self.through = !self.through;
                self.view_dirty = true;
                let s = if self.through { "on" } else { "off" };
                out.push(Action::Say(format!("set through={s}")));
            }
            Key::Equal | Key::NumPadPlus => self.set_camera(zoom(&self.camera, 1.0)),
            Key::Minus | Key::NumPadMinus => self.set_camera(zoom(&self.camera, -1.0)),
            Key::V if edge => {
                self.drive_clicks = !self.drive_clicks;
                let s = if self.drive_clicks { "on" } else { "off" };
                out.push(Action::Say(format!("set drive={s}")));
            }
            Key::C if edge => self.toggle_section(out),
            Key::Comma => self.move_section(-self.step, out),
            Key::Period => self.move_section(self.step, out),
            Key::B if edge => out.push(Action::DriveSelection),
            Key::G if edge => out.push(Action::StopAll),
            // (with a driving set, Space moves the driven meshes up instead)
            Key::Space if edge && self.drive.movers().is_empty() => {
                out.push(Action::Say(self.player.toggle()));
            }
            Key::LeftBracket if edge => out.push(Action::Say(self.player.step(-1))),
            Key::RightBracket if edge => out.push(Action::Say(self.player.step(1))),
            Key::L if edge => {
                self.drive.lines = !self.drive.lines;
                self.view_dirty = true;
                let s = if self.drive.lines { "on" } else { "off" };
                out.push(Action::Say(format!("set lines={s}")));
            }
            Key::U if edge => {
                self.drive.ground = !self.drive.ground;
                let s = if self.drive.ground { "on" } else { "off" };
                out.push(Action::Say(format!("ground {s}")));
            }
            // with a driving set the move keys step nothing: each tick reads
            // the held keys instead (`drive_input`)
            Key::W | Key::A | Key::S | Key::D | Key::Q | Key::E
                if self.drive.movers().is_empty() =>
            {
                if let Some(d) = move_delta(&self.camera, key, self.step) {
                    out.push(Action::Move(d));
                }
            }
            _ => {}
        }
    }

    fn set_mode(&mut self, mode: ViewMode, out: &mut Vec<Action>) {
        if self.mode != mode {
            self.mode = mode;
            self.view_dirty = true;
        }
        out.push(Action::Say(format!("set view={}", mode.name())));
    }

    /// Frames `bounds` keeping the viewport size (after [`Action::FrameAll`]).
    pub(super) fn frame_all(&mut self, bounds: &Aabb) {
        let (w, h) = (self.camera.width, self.camera.height);
        self.set_camera(Camera::auto_frame(bounds, w, h));
    }
}

pub(super) fn next_of<T: Copy + PartialEq>(all: &[T], cur: T) -> T {
    let i = all.iter().position(|&x| x == cur).unwrap_or(0);
    all[(i + 1) % all.len()]
}

/// The inclusive pixel rectangle between the pixels under two pointer positions.
fn rect_of(a: (f32, f32), b: (f32, f32)) -> [i64; 4] {
    // `as` saturates, so far-away positions stay far away
    [a.0, a.1, b.0, b.1].map(|c| c.floor() as i64)
}
