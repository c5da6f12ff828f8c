//! The desktop viewer behind `softpick view`: a minifb window showing the
//! software render, where a left click picks.
//!
//! The input handling is a pure state machine, [`ViewerState`], fed with
//! [`Event`]s and answering with [`Action`]s; it needs no display, so its
//! edge detection, key bindings and camera math are unit-tested. [`run`] is
//! the thin minifb loop around it.
//!
//! # Controls
//!
//! | input | effect |
//! | --- | --- |
//! | left click | pick (one press and release = one pick); clicking the same pixel again steps to the next mesh under it, near to far, then wraps ([`PickCycle`]) |
//! | left drag (beyond [`DRAG_THRESHOLD_PX`]) | box selection, on release |
//! | `Alt` + left drag | lasso selection (free-form), on release |
//! | `Shift` / `Ctrl` held at the release | the box or lasso adds to / removes from the selection (neither: replaces it) |
//! | `X` | toggle x-ray selection: also select occluded meshes ([`SelectMode::Through`]) |
//! | right drag, or Shift + left drag | orbit around the target (Shift held when the button goes down) |
//! | wheel, `+` / `-` | zoom |
//! | `F` / `R` | frame everything / reset the camera |
//! | `1` / `2` / `3` | shaded / ID false-color (pick map) / depth view |
//! | `T` | cycle the fill rule ([`FillRule::ALL`]) |
//! | `M` | cycle the pick method ([`PickMethod::ALL`]) |
//! | `H` | toggle hover highlighting |
//! | `W A S D` / `Q E` | move the picked mesh (camera-relative; `Q` down, `E` up) |
//! | `P` | save `output/view_color.png` and `output/view_pickmap.png` |
//! | `Esc`, window close | exit |
//!
//! # Output on stdout
//!
//! One line per event, flushed at once, stable for scripts:
//!
//! ```text
//! pick method=buffer x=123 y=45 mesh=3 name=crate_1 triangle=7 global=120 depth=0.812345 position=(0.100000,0.200000,0.300000)
//! pick method=ray x=5 y=5 none
//! pick method=buffer x=123 y=45 mesh=0 name=floor triangle=43 global=43 depth=0.996279 position=(0.006337,-0.000034,0.368874) cycle=2/3
//! select mode=visible meshes=[1:pillar_1,5:pyramid_1] count=2
//! saved output/view_color.png output/view_pickmap.png
//! ```
//!
//! A repeated click at the same pixel, when more than one mesh is under it,
//! appends `cycle=k/n` (the k-th of the n meshes there); the first click
//! answers with the pick method and prints no `cycle` field ([`pick_line`]).
//! After every box or lasso the whole selection is listed ([`select_line`];
//! `mode` is the mode that box or lasso used).
//!
//! plus `set rule=…`, `set method=…`, `set view=…`, `set hover=…`,
//! `set through=…`, `camera reset|frame` and `move …` lines ([`move_line`]; moves go through
//! [`crate::sweep_move`], so a move stops at a collision and says so).
//!
//! `P` saves the plain shaded render and the per-mesh pick map
//! ([`id_color`] of the mesh id, background black) of the current camera,
//! fill rule and scene, without the highlight or outline overlays and
//! whatever the view mode, so the files equal what the library renders.
//!
//! # Selection
//!
//! Picking and selecting are separate: a click picks one mesh (tinted with
//! [`HIGHLIGHT`], its triangle outlined; the mesh `W A S D Q E` move), a box
//! or lasso selects a set of meshes (tinted with [`SELECTION`], listed on
//! stdout). A box selects the inclusive pixel rectangle between the pixels
//! under the press and under the release ([`Frame::select_rect`]); a lasso
//! is the polygon through the centres of the pixels the pointer passed, a
//! point every [`LASSO_STEP_PX`] ([`Frame::select_lasso`]). A replacing box
//! over empty background clears the selection. The cycle of repeated clicks
//! restarts when the pointer moves to another pixel, and whenever the view
//! changes (camera, fill rule, pick method, a moved mesh).
//!
//! # Short clicks
//!
//! minifb reports mouse buttons only as a state sampled when the window is
//! updated (there is no button callback), so a press and release that both
//! fall between two updates is invisible. The loop therefore polls at
//! [`POLL_HZ`] (every 4 ms) and only blits the image when it changed, so
//! only presses shorter than one poll (or than a render, while one runs)
//! can be lost. Keys do not have this limit: they come through minifb's
//! input callback, every press and release in order.
//!
//! minifb also reads the pointer position *before* it processes the queued
//! button events of an update, so the position of the poll that sees a
//! press can be from just before it (the pointer may have jumped to the
//! click since). A press therefore takes its position (the pixel a click
//! picks, the corner a box starts from) from the next poll, the first one
//! known to come after it; and an orbit starts moving the camera only then.

use std::cell::RefCell;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use glam::{Quat, Vec2, Vec3, Vec4};
use minifb::{InputCallback, Key, MouseButton, MouseMode, Window, WindowOptions};

use crate::camera::{clip_to_window, Camera, Projection};
use crate::collide::{sweep_move, SweepResult};
use crate::error::Error;
use crate::export::{id_color, write_png};
use crate::frame::render::{RenderOptions, Renderer};
use crate::frame::{Frame, BACKGROUND, NO_TRIANGLE};
use crate::geometry::{Aabb, CullMode};
use crate::pick::{Hit, PickMethod};
use crate::raster::rules::{FillRule, MAX_FRAME_SIDE};
use crate::scene::{MeshId, Scene};
use crate::select::{PickCycle, SelectMode};

/// Default window width.
pub const DEFAULT_WIDTH: u32 = 800;
/// Default window height.
pub const DEFAULT_HEIGHT: u32 = 600;
/// Input polling rate (updates per second) of the window loop.
pub const POLL_HZ: usize = 250;
/// Tint of the picked mesh (0x00RRGGBB).
pub const HIGHLIGHT: u32 = 0x00ff_c830;
/// How far the picked mesh's pixels move toward [`HIGHLIGHT`] (0..1).
pub const HIGHLIGHT_AMOUNT: f32 = 0.5;
/// Tint of the hovered mesh.
pub const HOVER: u32 = 0x0030_d0ff;
/// How far the hovered mesh's pixels move toward [`HOVER`].
pub const HOVER_AMOUNT: f32 = 0.35;
/// Color of the picked triangle's outline.
pub const OUTLINE: u32 = 0x00ff_ffff;
/// Tint of the selected meshes (box and lasso selection).
pub const SELECTION: u32 = 0x0040_e070;
/// How far the selected meshes' pixels move toward [`SELECTION`].
pub const SELECTION_AMOUNT: f32 = 0.45;
/// Color of the box or lasso being dragged.
pub const BAND: u32 = 0x0060_ff90;
/// A left press becomes a box or lasso drag once the pointer is farther
/// than this from where it went down (pixels); a shorter one is a click.
pub const DRAG_THRESHOLD_PX: f32 = 4.0;
/// Spacing of the lasso's points (pixels).
pub const LASSO_STEP_PX: f32 = 3.0;
/// Orbit speed, radians per pixel dragged.
pub const ORBIT_RAD_PER_PX: f32 = 0.01;
/// Zoom factor per wheel notch or `+` press.
pub const ZOOM_STEP: f32 = 0.9;
/// The highest/lowest elevation of an orbit, degrees.
pub const MAX_PITCH_DEG: f32 = 89.0;

/// What the error of a viewer without a display says after the reason.
pub const HEADLESS_HINT: &str = "`softpick view` needs a display (DISPLAY or WAYLAND_DISPLAY); \
     without one use the headless commands: `render`, `pickmap`, `pick`, `sweep`";

/// Options of [`run`].
#[derive(Clone, Debug, PartialEq)]
pub struct ViewerOptions {
    /// OBJ model; `None` is the built-in scene.
    pub model: Option<PathBuf>,
    /// Camera JSON; `None` is automatic framing. Its size is replaced by
    /// `width` × `height`.
    pub camera: Option<PathBuf>,
    /// Window and frame width.
    pub width: u32,
    /// Window and frame height.
    pub height: u32,
    /// Initial fill rule (`T` cycles).
    pub rule: FillRule,
    /// Face culling.
    pub cull: CullMode,
    /// Initial pick method (`M` cycles).
    pub method: PickMethod,
    /// Render threads; `None` is rayon's global pool.
    pub threads: Option<usize>,
    /// Where `P` saves (relative to the working directory).
    pub output_dir: PathBuf,
}

impl Default for ViewerOptions {
    fn default() -> Self {
        Self {
            model: None,
            camera: None,
            width: DEFAULT_WIDTH,
            height: DEFAULT_HEIGHT,
            rule: FillRule::default(),
            cull: CullMode::default(),
            method: PickMethod::default(),
            threads: None,
            output_dir: PathBuf::from("output"),
        }
    }
}

/// What the window shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ViewMode {
    /// The shaded color buffer.
    #[default]
    Shaded,
    /// The pick map live: [`id_color`] of each pixel's mesh id.
    Ids,
    /// The depth buffer, near bright, far dark.
    Depth,
}

impl ViewMode {
    /// Name shown in the title and on stdout.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ViewMode::Shaded => "shaded",
            ViewMode::Ids => "id",
            ViewMode::Depth => "depth",
        }
    }
}

/// An input to [`ViewerState::handle`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
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
pub enum Action {
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
    /// Print this line on stdout.
    Say(String),
    /// Leave the viewer.
    Exit,
}

/// The region of a box or lasso selection.
#[derive(Clone, Debug, PartialEq)]
pub enum SelectRegion {
    /// Inclusive pixel rectangle between pixels (x0, y0) and (x1, y1), corners
    /// in any order, possibly reaching outside the frame (clamped by
    /// [`Frame::select_rect`]).
    Rect([i64; 4]),
    /// Closed polygon in window coordinates (pixel centres at +0.5).
    Lasso(Vec<[f32; 2]>),
}

/// How a box or lasso changes the selection (the modifiers held at release).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SelectOp {
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
pub struct ViewerState {
    /// The current camera.
    pub camera: Camera,
    /// The camera `R` returns to.
    pub home: Camera,
    /// What the window shows.
    pub mode: ViewMode,
    /// Fill rule of the render.
    pub rule: FillRule,
    /// Pick method of clicks.
    pub method: PickMethod,
    /// Hover highlighting on.
    pub hover: bool,
    /// The last pick's hit (`None`: nothing picked or background).
    pub selected: Option<Hit>,
    /// Mesh under the cursor while hover is on.
    pub hovered: Option<MeshId>,
    /// The box/lasso selection: mesh ids, sorted, unique.
    pub selection: Vec<MeshId>,
    /// X-ray selection ([`SelectMode::Through`]) on; `X` toggles.
    pub through: bool,
    /// Click-cycling through the meshes under the last clicked pixel.
    pub cycle: PickCycle,
    /// World distance of one `W/A/S/D/Q/E` step.
    pub step: f32,
    /// The scene, camera or rule changed: render again.
    pub render_dirty: bool,
    /// The picture changed (mode, highlight): compose and show again.
    pub view_dirty: bool,
    left: bool,
    right: bool,
    drag: Option<(Drag, MouseButton)>,
    last_pos: Option<(f32, f32)>,
    keys_down: HashSet<Key>,
    /// Pixel of the last click that reached the cycle.
    last_click: Option<(i64, i64)>,
}

impl ViewerState {
    /// A state showing `camera`, with moves of 2 % of the framing radius.
    #[must_use]
    pub fn new(camera: Camera, bounds: &Aabb, rule: FillRule, method: PickMethod) -> Self {
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
    pub fn select_mode(&self) -> SelectMode {
        if self.through {
            SelectMode::Through
        } else {
            SelectMode::Visible
        }
    }

    /// The box or lasso being dragged, if any (for the overlay).
    #[must_use]
    pub fn band(&self) -> Option<SelectRegion> {
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
    pub fn scene_changed(&mut self) {
        self.render_dirty = true;
        self.cycle.reset();
    }

    /// Feeds one event; returns what the window loop must do, in order.
    pub fn handle(&mut self, ev: Event) -> Vec<Action> {
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
                    out.push(Action::Pick { x, y });
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
            Key::W | Key::A | Key::S | Key::D | Key::Q | Key::E => {
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

    /// Records a pick's result ([`ViewerState::click`] calls this).
    pub fn select(&mut self, hit: Option<Hit>) {
        self.selected = hit;
        self.view_dirty = true;
    }

    /// A click at pixel (x, y) of `frame` (after [`Action::Pick`]): picks,
    /// records the hit and returns the stdout line.
    ///
    /// The first click at a pixel answers with [`ViewerState::method`];
    /// each further click at the same pixel steps to the next mesh of
    /// [`Frame::pick_stack`] (near to far, wrapping, via [`PickCycle`]) and,
    /// when there is more than one, appends `cycle=k/n` to the line. Back at the nearest mesh the method
    /// answers again.
    pub fn click(&mut self, frame: &Frame, scene: &Scene, x: i64, y: i64) -> String {
        let before = self.cycle.position();
        let stacked = self.cycle.click(frame, scene, x, y);
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
            _ => do_pick(frame, scene, self.method, x, y),
        };
        let mut line = pick_line(self.method, x, y, hit.as_ref());
        if let (true, Some((k, n))) = (repeat, now) {
            line += &format!(" cycle={}/{n}", k + 1);
        }
        self.select(hit);
        line
    }

    /// Selects the meshes of `region` in `frame` with
    /// [`ViewerState::select_mode`] and combines them with the selection by
    /// `op` (after [`Action::Select`]); returns the stdout line
    /// ([`select_line`]).
    pub fn select_region(
        &mut self,
        frame: &Frame,
        scene: &Scene,
        region: &SelectRegion,
        op: SelectOp,
    ) -> String {
        let mode = self.select_mode();
        let sel = match region {
            SelectRegion::Rect(r) => frame.select_rect(scene, r[0], r[1], r[2], r[3], mode),
            SelectRegion::Lasso(p) => frame.select_lasso(scene, p, mode),
        };
        self.apply_selection(op, &sel.meshes);
        select_line(mode, &self.selection, scene)
    }

    /// Combines the selection with `meshes` by `op`.
    pub fn apply_selection(&mut self, op: SelectOp, meshes: &[MeshId]) {
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
    pub fn set_hovered(&mut self, mesh: Option<MeshId>) {
        if self.hovered != mesh {
            self.hovered = mesh;
            self.view_dirty = true;
        }
    }

    /// Frames `bounds` keeping the viewport size (after [`Action::FrameAll`]).
    pub fn frame_all(&mut self, bounds: &Aabb) {
        let (w, h) = (self.camera.width, self.camera.height);
        self.set_camera(Camera::auto_frame(bounds, w, h));
    }

    /// The window title.
    #[must_use]
    pub fn title(&self) -> String {
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
            "softpick view | {} | rule {} | pick {} | hover {} | select {} ({}) | {}{}{}",
            self.mode.name(),
            self.rule.name(),
            self.method.name(),
            if self.hover { "on" } else { "off" },
            select_mode_name(self.select_mode()),
            self.selection.len(),
            sel,
            cycle,
            band
        )
    }
}

fn next_of<T: Copy + PartialEq>(all: &[T], cur: T) -> T {
    let i = all.iter().position(|&x| x == cur).unwrap_or(0);
    all[(i + 1) % all.len()]
}

/// Orbits `cam` around its target: `yaw` radians about the up axis, then
/// `pitch` radians of elevation, clamped to ±[`MAX_PITCH_DEG`]. Distance to
/// the target, the target and the up vector are kept.
#[must_use]
pub fn orbit(cam: &Camera, yaw: f32, pitch: f32) -> Camera {
    let up = cam.up.normalize_or_zero();
    let offset = cam.eye - cam.target;
    let r = offset.length();
    let usable = r > 0.0 && yaw.is_finite() && pitch.is_finite();
    if up == Vec3::ZERO || !usable {
        return *cam;
    }
    let turned = Quat::from_axis_angle(up, yaw) * offset;
    let dir = turned / r;
    let elev = dir.dot(up).clamp(-1.0, 1.0).asin();
    let lim = MAX_PITCH_DEG.to_radians();
    let new_elev = (elev + pitch).clamp(-lim, lim);
    let mut horiz = (dir - up * dir.dot(up)).normalize_or_zero();
    if horiz == Vec3::ZERO {
        // looking straight along up: any horizontal direction will do
        horiz = up.any_orthonormal_vector();
    }
    let new_dir = horiz * new_elev.cos() + up * new_elev.sin();
    Camera {
        eye: cam.target + new_dir * r,
        ..*cam
    }
}

/// Zooms by `notches` (positive = closer): the eye distance (or the
/// orthographic height) is multiplied by [`ZOOM_STEP`]`^notches`, keeping the
/// eye between 2 × near and far / 2 from the target.
#[must_use]
pub fn zoom(cam: &Camera, notches: f32) -> Camera {
    let k = ZOOM_STEP.powf(notches);
    if !(k.is_finite() && k > 0.0) {
        return *cam;
    }
    match cam.projection {
        Projection::Orthographic { height } => Camera {
            projection: Projection::Orthographic {
                height: (height * k).max(f32::MIN_POSITIVE),
            },
            ..*cam
        },
        Projection::Perspective { .. } => {
            let offset = cam.eye - cam.target;
            let r = offset.length();
            if r.is_nan() || r <= 0.0 {
                return *cam;
            }
            let lo = cam.near * 2.0;
            let hi = (cam.far * 0.5).max(lo);
            // never push the eye past a limit, nor jump back inside one
            let nr = if k < 1.0 {
                (r * k).max(lo).min(r)
            } else {
                (r * k).min(hi).max(r)
            };
            Camera {
                eye: cam.target + offset * (nr / r),
                ..*cam
            }
        }
    }
}

/// World displacement of one camera-relative move key: `W`/`S` forward and
/// back along the view direction flattened onto the ground plane (the plane
/// normal to the camera's up), `A`/`D` left and right, `Q`/`E` down and up.
#[must_use]
pub fn move_delta(cam: &Camera, key: Key, step: f32) -> Option<Vec3> {
    let up = cam.up.normalize_or_zero();
    let view = cam.target - cam.eye;
    let mut fwd = (view - up * view.dot(up)).normalize_or_zero();
    if fwd == Vec3::ZERO {
        fwd = up.any_orthonormal_vector();
    }
    let right = fwd.cross(up).normalize_or_zero();
    let d = match key {
        Key::W => fwd,
        Key::S => -fwd,
        Key::D => right,
        Key::A => -right,
        Key::E => up,
        Key::Q => -up,
        _ => return None,
    };
    Some(d * step)
}

/// The stdout line of a pick (see the module docs).
#[must_use]
pub fn pick_line(method: PickMethod, x: i64, y: i64, hit: Option<&Hit>) -> String {
    match hit {
        None => format!("pick method={} x={x} y={y} none", method.name()),
        Some(h) => format!(
            "pick method={} x={x} y={y} mesh={} name={} triangle={} global={} depth={:.6} position={}",
            method.name(),
            h.mesh,
            h.mesh_name,
            h.triangle,
            h.global_triangle,
            h.depth,
            fmt_vec(h.position)
        ),
    }
}

/// The inclusive pixel rectangle between the pixels under two pointer positions.
fn rect_of(a: (f32, f32), b: (f32, f32)) -> [i64; 4] {
    // `as` saturates, so far-away positions stay far away
    [a.0, a.1, b.0, b.1].map(|c| c.floor() as i64)
}

/// `visible` or `through`.
#[must_use]
pub fn select_mode_name(mode: SelectMode) -> &'static str {
    match mode {
        SelectMode::Visible => "visible",
        SelectMode::Through => "through",
    }
}

/// The stdout line of a selection: the mode of the box or lasso that made
/// it and every selected mesh as `id:name` (see the module docs).
#[must_use]
pub fn select_line(mode: SelectMode, selection: &[MeshId], scene: &Scene) -> String {
    let list: Vec<String> = selection
        .iter()
        .map(|&m| format!("{m}:{}", scene.mesh(m).map_or("?", |m| m.name())))
        .collect();
    format!(
        "select mode={} meshes=[{}] count={}",
        select_mode_name(mode),
        list.join(","),
        selection.len()
    )
}

/// Moves every channel of `c` toward `to` by `amount` (0..1), rounding.
#[must_use]
pub fn tint(c: u32, to: u32, amount: f32) -> u32 {
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
pub fn highlight(c: u32) -> u32 {
    tint(c, HIGHLIGHT, HIGHLIGHT_AMOUNT)
}

/// A selected mesh's color of a pixel whose plain color is `c`.
#[must_use]
pub fn selection_tint(c: u32) -> u32 {
    tint(c, SELECTION, SELECTION_AMOUNT)
}

/// Mesh id of every global triangle of `scene`.
#[must_use]
pub fn mesh_of_triangles(scene: &Scene) -> Vec<MeshId> {
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

fn mesh_at(id: u32, mesh_of: &[MeshId]) -> Option<MeshId> {
    (id != NO_TRIANGLE)
        .then(|| mesh_of.get((id - 1) as usize).copied())
        .flatten()
}

/// The per-mesh pick map of a frame: [`id_color`] of each pixel's mesh id,
/// black background (what `P` saves).
#[must_use]
pub fn pick_map(frame: &Frame, mesh_of: &[MeshId]) -> Vec<u32> {
    frame
        .ids()
        .iter()
        .map(|&id| id_color(mesh_at(id, mesh_of)))
        .collect()
}

/// What [`compose`] draws over the base image.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overlay {
    /// View mode (base image).
    pub mode: ViewMode,
    /// Picked mesh and its mesh-local triangle: tinted with [`HIGHLIGHT`], triangle outlined.
    pub selected: Option<(MeshId, u32)>,
    /// Hovered mesh: tinted with [`HOVER`] (unless it is picked or selected).
    pub hovered: Option<MeshId>,
    /// Box/lasso-selected meshes (sorted): tinted with [`SELECTION`] (unless picked).
    pub selection: Vec<MeshId>,
    /// The box or lasso being dragged: drawn in [`BAND`].
    pub band: Option<SelectRegion>,
}

/// Builds the window image of `frame`: the base image of the view mode, the
/// hover, selection and pick tints, the picked triangle's outline and the
/// box or lasso being dragged.
pub fn compose(frame: &Frame, scene: &Scene, mesh_of: &[MeshId], ov: &Overlay, out: &mut Vec<u32>) {
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
    // selected meshes by id (only ids the scene has)
    let mut chosen = vec![false; scene.meshes().len()];
    for &m in &ov.selection {
        if let Some(c) = chosen.get_mut(m as usize) {
            *c = true;
        }
    }
    if sel.is_some() || ov.hovered.is_some() || !ov.selection.is_empty() {
        for (px, &id) in out.iter_mut().zip(frame.ids()) {
            let Some(m) = mesh_at(id, mesh_of) else {
                continue;
            };
            if Some(m) == sel {
                *px = highlight(*px);
            } else if chosen.get(m as usize) == Some(&true) {
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
pub fn draw_clip_segment(img: &mut [u32], w: u32, h: u32, a: Vec4, b: Vec4, color: u32) {
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
pub fn draw_segment(img: &mut [u32], w: u32, h: u32, p: Vec2, q: Vec2, color: u32) {
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

/// Whether the environment names a display at all.
#[must_use]
pub fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

fn no_display(reason: &str) -> Error {
    Error::Window(format!("cannot open a window: {reason}; {HEADLESS_HINT}"))
}

/// Every key event minifb reports, in order (press and release even within one update).
struct KeyQueue(Rc<RefCell<Vec<(Key, bool)>>>);

impl InputCallback for KeyQueue {
    fn add_char(&mut self, _uni_char: u32) {}

    fn set_key_state(&mut self, key: Key, state: bool) {
        self.0.borrow_mut().push((key, state));
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    // a closed stdout must not stop the viewer
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// `(x,y,z)` with 6 decimals; `+ 0.0` turns a negative zero into a plain one.
fn fmt_vec(v: Vec3) -> String {
    let v = v + Vec3::ZERO;
    format!("({:.6},{:.6},{:.6})", v.x, v.y, v.z)
}

/// The stdout line of a move: what was asked, what was applied, and the
/// contact that stopped it, if any.
#[must_use]
pub fn move_line(mesh: MeshId, name: &str, requested: Vec3, result: &SweepResult) -> String {
    let mut line = format!(
        "move mesh={mesh} name={name} requested={} delta={} stopped={}",
        fmt_vec(requested),
        fmt_vec(result.allowed),
        if result.blocked { "yes" } else { "no" }
    );
    if let Some(h) = result.hit.as_ref().filter(|_| result.blocked) {
        line += &format!(
            " contact_mesh={} contact_name={} contact_triangle={} contact_position={}{}",
            h.mesh,
            h.mesh_name,
            h.triangle,
            fmt_vec(h.position),
            if result.by_other_vertex {
                " reverse=yes"
            } else {
                ""
            }
        );
    }
    line
}

/// Moves mesh `mesh` by the world displacement `delta` with the ray-based
/// [`sweep_move`] (stopping `skin` short of other meshes) and returns the
/// stdout line.
fn move_mesh(scene: &mut Scene, mesh: MeshId, delta: Vec3, skin: f32) -> String {
    let name = scene.mesh(mesh).map_or("?", |m| m.name()).to_string();
    match sweep_move(scene, mesh, delta, skin) {
        Some(r) => move_line(mesh, &name, delta, &r),
        None => format!("move mesh={mesh} name={name} none"),
    }
}

fn save(dir: &Path, frame: &Frame, mesh_of: &[MeshId]) -> Result<(PathBuf, PathBuf), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    let (w, h) = (frame.width(), frame.height());
    let color = dir.join("view_color.png");
    let map = dir.join("view_pickmap.png");
    write_png(&color, w, h, frame.color())?;
    write_png(&map, w, h, &pick_map(frame, mesh_of))?;
    Ok((color, map))
}

fn do_pick(frame: &Frame, scene: &Scene, method: PickMethod, x: i64, y: i64) -> Option<Hit> {
    match method {
        PickMethod::Buffer => frame.pick(scene, x, y),
        PickMethod::Direct => frame.pick_direct(scene, x, y),
        PickMethod::Ray => frame.pick_ray(scene, x, y),
    }
}

/// Opens the viewer window and runs it until `Esc` or the window is closed.
///
/// Fails with [`Error::Window`] (naming the headless commands) when there is
/// no display or the window cannot be created, and with the usual errors for
/// a bad model, camera file or size.
pub fn run(opts: ViewerOptions) -> Result<(), Error> {
    let (w, h) = (opts.width, opts.height);
    if w == 0 || h == 0 || w > MAX_FRAME_SIDE || h > MAX_FRAME_SIDE {
        return Err(Error::InvalidSize(w, h));
    }
    if !display_available() {
        return Err(no_display("neither DISPLAY nor WAYLAND_DISPLAY is set"));
    }
    let mut scene = match &opts.model {
        Some(p) => crate::io::obj::load_obj(p)?.0,
        None => crate::builtin::builtin_scene(),
    };
    let camera = match &opts.camera {
        Some(p) => Camera::load(p, &scene.framing_bounds())?
            .try_with_size(w, h)
            .map_err(|e| Error::Camera {
                path: p.clone(),
                source: e,
            })?,
        None => Camera::auto_frame(&scene.framing_bounds(), w, h),
    };
    let mut renderer = Renderer::new(RenderOptions {
        rule: opts.rule,
        cull: opts.cull,
        threads: opts.threads,
        ..RenderOptions::default()
    })?;
    let mesh_of = mesh_of_triangles(&scene);
    let mut state = ViewerState::new(camera, &scene.framing_bounds(), opts.rule, opts.method);

    let mut title = state.title();
    let mut window = Window::new(&title, w as usize, h as usize, WindowOptions::default())
        .map_err(|e| {
            let on = std::env::var("DISPLAY")
                .map_or_else(|_| String::new(), |d| format!(" on DISPLAY={d}"));
            // minifb's Display form drops the reason (XOpenDisplay,
            // XOpenIM, ...); its payload says which step failed
            let why = match &e {
                minifb::Error::WindowCreate(r) if !r.is_empty() => format!("{e} ({r})"),
                _ => e.to_string(),
            };
            no_display(&format!("{why}{on}"))
        })?;
    window.set_target_fps(POLL_HZ);
    let keys = Rc::new(RefCell::new(Vec::new()));
    window.set_input_callback(Box::new(KeyQueue(keys.clone())));

    let mut image: Vec<u32> = Vec::with_capacity(w as usize * h as usize);
    let mut blit = true;
    let mut last_blit = Instant::now();
    let mut active = window.is_active();
    loop {
        if state.render_dirty {
            renderer.set_options(RenderOptions {
                rule: state.rule,
                ..renderer.options()
            });
            renderer.render(&scene, &state.camera)?;
            state.render_dirty = false;
            state.view_dirty = true;
        }
        if state.view_dirty {
            let ov = Overlay {
                mode: state.mode,
                selected: state.selected.as_ref().map(|s| (s.mesh, s.triangle)),
                hovered: if state.hover { state.hovered } else { None },
                selection: state.selection.clone(),
                band: state.band(),
            };
            compose(renderer.frame(), &scene, &mesh_of, &ov, &mut image);
            state.view_dirty = false;
            blit = true;
        }
        let t = state.title();
        if t != title {
            window.set_title(&t);
            title = t;
        }
        // re-show the picture now and then in case the server lost it (expose)
        if blit || last_blit.elapsed() > Duration::from_millis(200) {
            window
                .update_with_buffer(&image, w as usize, h as usize)
                .map_err(|e| Error::Window(format!("cannot show the image: {e}")))?;
            blit = false;
            last_blit = Instant::now();
        } else {
            window.update();
        }
        if !window.is_open() {
            break;
        }

        let mut actions = Vec::new();
        let now_active = window.is_active();
        if active && !now_active {
            actions.extend(state.handle(Event::FocusLost));
        }
        active = now_active;
        let events: Vec<(Key, bool)> = keys.borrow_mut().drain(..).collect();
        for (key, down) in events {
            actions.extend(state.handle(Event::Key { key, down }));
        }
        if let Some((_, dy)) = window.get_scroll_wheel() {
            actions.extend(state.handle(Event::Wheel(dy)));
        }
        actions.extend(state.handle(Event::Poll {
            pos: window.get_mouse_pos(MouseMode::Pass),
            left: window.get_mouse_down(MouseButton::Left),
            right: window.get_mouse_down(MouseButton::Right),
        }));

        for a in actions {
            match a {
                Action::Exit => return Ok(()),
                Action::Say(s) => say(&s),
                Action::Pick { x, y } => {
                    let line = state.click(renderer.frame(), &scene, x, y);
                    say(&line);
                }
                Action::Select { region, op } => {
                    let line = state.select_region(renderer.frame(), &scene, &region, op);
                    say(&line);
                }
                Action::Hover { x, y } => {
                    let m = renderer
                        .frame()
                        .triangle_at(x as u32, y as u32)
                        .and_then(|g| mesh_of.get(g as usize).copied());
                    state.set_hovered(m);
                }
                Action::FrameAll => state.frame_all(&scene.bounds()),
                Action::Save => match save(&opts.output_dir, renderer.frame(), &mesh_of) {
                    Ok((c, m)) => say(&format!("saved {} {}", c.display(), m.display())),
                    Err(e) => eprintln!("error: {e}"),
                },
                Action::Move(delta) => match &state.selected {
                    None => say("move none (pick a mesh first)"),
                    Some(hit) => {
                        let line = move_mesh(&mut scene, hit.mesh, delta, state.step * 0.1);
                        say(&line);
                        state.scene_changed();
                    }
                },
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cam() -> Camera {
        Camera {
            eye: Vec3::new(0.0, 1.0, 5.0),
            target: Vec3::new(0.0, 0.5, 0.0),
            up: Vec3::Y,
            projection: Projection::Perspective { fov_y_deg: 45.0 },
            near: 0.05,
            far: 50.0,
            width: 320,
            height: 240,
        }
    }

    fn state() -> ViewerState {
        let b = Aabb {
            min: Vec3::splat(-1.0),
            max: Vec3::splat(1.0),
        };
        let mut s = ViewerState::new(cam(), &b, FillRule::TopLeft, PickMethod::Buffer);
        s.render_dirty = false;
        s.view_dirty = false;
        s
    }

    fn poll(s: &mut ViewerState, x: f32, y: f32, left: bool, right: bool) -> Vec<Action> {
        s.handle(Event::Poll {
            pos: Some((x, y)),
            left,
            right,
        })
    }

    fn key(s: &mut ViewerState, k: Key) -> Vec<Action> {
        let mut a = s.handle(Event::Key { key: k, down: true });
        a.extend(s.handle(Event::Key {
            key: k,
            down: false,
        }));
        a
    }

    fn picks(a: &[Action]) -> usize {
        a.iter()
            .filter(|a| matches!(a, Action::Pick { .. }))
            .count()
    }

    /// A left press at (x, y), and the next poll, which settles its position.
    fn press(s: &mut ViewerState, x: f32, y: f32) -> Vec<Action> {
        let mut a = poll(s, x, y, true, false);
        a.extend(poll(s, x, y, true, false));
        a
    }

    fn hold(s: &mut ViewerState, k: Key, down: bool) {
        s.handle(Event::Key { key: k, down });
    }

    fn selects(a: &[Action]) -> Vec<(SelectRegion, SelectOp)> {
        a.iter()
            .filter_map(|a| match a {
                Action::Select { region, op } => Some((region.clone(), *op)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn one_click_is_one_pick_on_release() {
        let mut s = state();
        assert!(poll(&mut s, 10.5, 20.5, false, false).is_empty());
        // the press alone does nothing yet
        assert!(press(&mut s, 10.5, 20.5).is_empty());
        assert_eq!(
            poll(&mut s, 10.5, 20.5, false, false),
            vec![Action::Pick { x: 10, y: 20 }]
        );
        // held for many polls, wandering within the threshold: one pick, at
        // the pixel of the press
        press(&mut s, 30.0, 20.0);
        let mut n = 0;
        for i in 0..10 {
            let a = poll(
                &mut s,
                30.0 + (i % 3) as f32,
                20.0 + (i % 2) as f32,
                true,
                false,
            );
            n += picks(&a) + selects(&a).len();
        }
        assert_eq!(n, 0);
        assert_eq!(
            poll(&mut s, 32.0, 22.0, false, false),
            vec![Action::Pick { x: 30, y: 20 }]
        );
        assert!(poll(&mut s, 32.0, 22.0, false, false).is_empty());
        // a press outside the frame picks nothing
        press(&mut s, -3.0, 20.0);
        assert_eq!(picks(&poll(&mut s, -3.0, 20.0, false, false)), 0);
        press(&mut s, 320.0, 20.0);
        assert_eq!(picks(&poll(&mut s, 320.0, 20.0, false, false)), 0);
        // a short click seen by two polls only
        poll(&mut s, 50.0, 60.0, true, false);
        assert_eq!(
            poll(&mut s, 50.0, 60.0, false, false),
            vec![Action::Pick { x: 50, y: 60 }]
        );
        // the camera never moved
        assert_eq!(s.camera, cam());
        assert!(!s.render_dirty);
    }

    #[test]
    fn a_press_takes_its_position_from_the_next_poll() {
        // minifb reads the pointer before the button events: the poll that
        // sees the press may still report where the pointer was before it
        // jumped to the click
        let mut s = state();
        poll(&mut s, 200.0, 150.0, false, false);
        assert!(poll(&mut s, 200.0, 150.0, true, false).is_empty());
        assert!(poll(&mut s, 12.0, 34.0, true, false).is_empty());
        assert_eq!(s.band(), None, "no drag from the stale position");
        assert_eq!(
            poll(&mut s, 12.0, 34.0, false, false),
            vec![Action::Pick { x: 12, y: 34 }]
        );
        // a box starts there too
        poll(&mut s, 12.0, 34.0, true, false);
        poll(&mut s, 60.0, 70.0, true, false);
        poll(&mut s, 80.0, 90.0, true, false);
        assert_eq!(s.band(), Some(SelectRegion::Rect([60, 70, 80, 90])));
    }

    #[test]
    fn drag_beyond_the_threshold_is_a_box() {
        let mut s = state();
        press(&mut s, 10.5, 20.5);
        // exactly at the threshold: still a click
        poll(&mut s, 10.5 + DRAG_THRESHOLD_PX, 20.5, true, false);
        assert_eq!(s.band(), None);
        // beyond it: a box from the press to the pointer, drawn while dragging
        s.view_dirty = false;
        assert!(poll(&mut s, 60.2, 5.9, true, false).is_empty());
        assert!(s.view_dirty);
        assert_eq!(s.band(), Some(SelectRegion::Rect([10, 20, 60, 5])));
        assert!(
            s.title().ends_with(" | box (10, 20)-(60, 5)"),
            "{}",
            s.title()
        );
        // back near the start: still a box (a drag never turns back into a click)
        poll(&mut s, 11.0, 21.0, true, false);
        assert_eq!(s.band(), Some(SelectRegion::Rect([10, 20, 11, 21])));
        // the release selects the box up to the release pixel; no pick
        let a = poll(&mut s, 40.7, 90.0, false, false);
        assert_eq!(
            a,
            vec![Action::Select {
                region: SelectRegion::Rect([10, 20, 40, 90]),
                op: SelectOp::Replace
            }]
        );
        assert_eq!(s.band(), None);
        // a box may reach outside the frame (the library clamps it)
        press(&mut s, 300.0, 200.0);
        poll(&mut s, 400.0, 300.0, true, false);
        let a = poll(&mut s, 400.0, 300.0, false, false);
        assert_eq!(
            selects(&a),
            vec![(SelectRegion::Rect([300, 200, 400, 300]), SelectOp::Replace)]
        );
        // moving and releasing within one poll still selects
        press(&mut s, 5.0, 5.0);
        let a = poll(&mut s, 25.0, 5.0, false, false);
        assert_eq!(
            selects(&a),
            vec![(SelectRegion::Rect([5, 5, 25, 5]), SelectOp::Replace)]
        );
        // but a press seen together with the move is a click where the pointer went
        poll(&mut s, 5.0, 5.0, true, false);
        let a = poll(&mut s, 25.0, 5.0, false, false);
        assert_eq!(a, vec![Action::Pick { x: 25, y: 5 }]);
        press(&mut s, 5.0, 5.0);
        let a = poll(&mut s, 25.0, 5.0, false, false);
        assert_eq!(
            selects(&a),
            vec![(SelectRegion::Rect([5, 5, 25, 5]), SelectOp::Replace)]
        );
        // losing the focus cancels a box
        press(&mut s, 5.0, 5.0);
        poll(&mut s, 50.0, 50.0, true, false);
        s.handle(Event::FocusLost);
        assert_eq!(s.band(), None);
        assert!(poll(&mut s, 50.0, 50.0, false, false).is_empty());
        assert_eq!(s.camera, cam());
    }

    #[test]
    fn modifiers_at_release_add_or_remove() {
        let mut s = state();
        let drag = |s: &mut ViewerState, at_press: &[Key], at_release: &[Key]| {
            for &k in at_press {
                hold(s, k, true);
            }
            press(s, 10.0, 10.0);
            poll(s, 30.0, 30.0, true, false);
            for &k in at_press {
                hold(s, k, false);
            }
            for &k in at_release {
                hold(s, k, true);
            }
            let a = poll(s, 30.0, 30.0, false, false);
            for &k in at_release {
                hold(s, k, false);
            }
            selects(&a).into_iter().map(|x| x.1).collect::<Vec<_>>()
        };
        assert_eq!(drag(&mut s, &[], &[]), [SelectOp::Replace]);
        assert_eq!(drag(&mut s, &[], &[Key::LeftShift]), [SelectOp::Add]);
        assert_eq!(drag(&mut s, &[], &[Key::RightShift]), [SelectOp::Add]);
        assert_eq!(drag(&mut s, &[], &[Key::LeftCtrl]), [SelectOp::Remove]);
        assert_eq!(drag(&mut s, &[], &[Key::RightCtrl]), [SelectOp::Remove]);
        // Ctrl wins over Shift; Ctrl at the press is a box too (Shift at the press orbits)
        assert_eq!(
            drag(&mut s, &[], &[Key::LeftShift, Key::LeftCtrl]),
            [SelectOp::Remove]
        );
        assert_eq!(
            drag(&mut s, &[Key::LeftCtrl], &[Key::LeftCtrl]),
            [SelectOp::Remove]
        );
        assert_eq!(drag(&mut s, &[Key::LeftCtrl], &[]), [SelectOp::Replace]);
        assert!(drag(&mut s, &[Key::LeftShift], &[]).is_empty());
        assert_ne!(s.camera, cam(), "the Shift drag orbited");
        // a Ctrl or Shift click is still a click
        hold(&mut s, Key::LeftCtrl, true);
        poll(&mut s, 7.0, 8.0, true, false);
        assert_eq!(
            poll(&mut s, 7.0, 8.0, false, false),
            vec![Action::Pick { x: 7, y: 8 }]
        );
    }

    #[test]
    fn alt_drag_is_a_lasso_through_pixel_centres() {
        let mut s = state();
        hold(&mut s, Key::LeftAlt, true);
        press(&mut s, 100.2, 100.7);
        // Alt may be let go once the drag has begun
        hold(&mut s, Key::LeftAlt, false);
        let path: Vec<(f32, f32)> = (1..=40)
            .map(|i| {
                let t = i as f32 / 40.0 * std::f32::consts::TAU;
                (100.0 + 30.0 * t.sin(), 100.0 + 20.0 * (1.0 - t.cos()))
            })
            .collect();
        for &(x, y) in &path {
            poll(&mut s, x, y, true, false);
        }
        let Some(SelectRegion::Lasso(band)) = s.band() else {
            panic!("no lasso: {:?}", s.band())
        };
        assert!(band.len() > 10);
        let t = s.title();
        assert!(
            t.ends_with(&format!(" | lasso of {} points", band.len())),
            "{t}"
        );
        let (ex, ey) = (100.0 + 12.0, 100.0 + 3.0);
        let a = poll(&mut s, ex, ey, false, false);
        let sel = selects(&a);
        assert_eq!(sel.len(), 1, "{a:?}");
        let (SelectRegion::Lasso(p), SelectOp::Replace) = &sel[0] else {
            panic!("{sel:?}")
        };
        assert_eq!(p[0], [100.5, 100.5]);
        assert_eq!(*p.last().unwrap(), [112.5, 103.5]);
        assert!(p.len() >= band.len());
        for q in p {
            assert_eq!(q.map(f32::fract), [0.5, 0.5], "pixel centres: {q:?}");
        }
        // points at least LASSO_STEP_PX apart (but the release point)
        for w in p[..p.len() - 1].windows(2) {
            let d = (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]);
            assert!(d >= LASSO_STEP_PX, "{w:?}");
        }
        assert_eq!(s.band(), None);
        // Alt pressed after the press but before the threshold: a lasso too
        press(&mut s, 10.0, 10.0);
        hold(&mut s, Key::RightAlt, true);
        poll(&mut s, 20.0, 10.0, true, false);
        assert!(matches!(s.band(), Some(SelectRegion::Lasso(_))));
        poll(&mut s, 20.0, 20.0, true, false);
        let a = poll(&mut s, 20.0, 20.0, false, false);
        assert!(matches!(
            selects(&a)[..],
            [(SelectRegion::Lasso(_), SelectOp::Replace)]
        ));
        // an Alt click is a click
        press(&mut s, 50.0, 60.0);
        assert_eq!(
            poll(&mut s, 50.0, 60.0, false, false),
            vec![Action::Pick { x: 50, y: 60 }]
        );
    }

    #[test]
    fn x_toggles_through_selection() {
        let mut s = state();
        assert!(!s.through);
        assert_eq!(s.select_mode(), SelectMode::Visible);
        assert!(s.title().contains("select visible (0)"), "{}", s.title());
        let a = key(&mut s, Key::X);
        assert_eq!(a, vec![Action::Say("set through=on".into())]);
        assert!(s.through && s.view_dirty && !s.render_dirty);
        assert_eq!(s.select_mode(), SelectMode::Through);
        assert!(s.title().contains("select through"), "{}", s.title());
        // key repeat is one toggle
        for _ in 0..3 {
            hold(&mut s, Key::X, true);
        }
        hold(&mut s, Key::X, false);
        assert!(!s.through);
    }

    #[test]
    fn selection_ops() {
        let mut s = state();
        s.apply_selection(SelectOp::Replace, &[5, 1, 3, 3]);
        assert_eq!(s.selection, [1, 3, 5]);
        s.apply_selection(SelectOp::Add, &[4, 1]);
        assert_eq!(s.selection, [1, 3, 4, 5]);
        s.apply_selection(SelectOp::Remove, &[3, 9, 5]);
        assert_eq!(s.selection, [1, 4]);
        s.apply_selection(SelectOp::Add, &[]);
        assert_eq!(s.selection, [1, 4]);
        assert!(s.title().contains("(2)"));
        s.apply_selection(SelectOp::Replace, &[]);
        assert!(s.selection.is_empty());
    }

    /// The built-in scene rendered with the test camera, in a fresh state.
    fn scene_state() -> (Scene, Frame, ViewerState) {
        let scene = crate::builtin::builtin_scene();
        let camera = Camera::auto_frame(&scene.framing_bounds(), 320, 240);
        let frame =
            crate::frame::render::render(&scene, &camera, RenderOptions::default()).unwrap();
        let s = ViewerState::new(
            camera,
            &scene.framing_bounds(),
            FillRule::TopLeft,
            PickMethod::Buffer,
        );
        (scene, frame, s)
    }

    #[test]
    fn select_region_equals_the_library() {
        let (scene, frame, mut s) = scene_state();
        let region = SelectRegion::Rect([0, 0, 319, 239]);
        let vis = frame.select_rect(&scene, 0, 0, 319, 239, SelectMode::Visible);
        let thr = frame.select_rect(&scene, 0, 0, 319, 239, SelectMode::Through);
        assert_ne!(vis.meshes, thr.meshes, "x-ray finds hidden meshes");
        let line = s.select_region(&frame, &scene, &region, SelectOp::Replace);
        assert_eq!(line, select_line(SelectMode::Visible, &vis.meshes, &scene));
        assert_eq!(s.selection, vis.meshes);
        key(&mut s, Key::X);
        let line = s.select_region(&frame, &scene, &region, SelectOp::Replace);
        assert_eq!(line, select_line(SelectMode::Through, &thr.meshes, &scene));
        assert!(
            line.starts_with("select mode=through meshes=[0:floor,"),
            "{line}"
        );
        assert!(
            line.ends_with(&format!("] count={}", thr.meshes.len())),
            "{line}"
        );
        // lasso: the library's select_lasso; Ctrl removes exactly those meshes
        let poly = vec![[40.5, 30.5], [280.5, 60.5], [160.5, 220.5]];
        let las = frame.select_lasso(&scene, &poly, SelectMode::Through);
        assert!(!las.meshes.is_empty());
        s.select_region(&frame, &scene, &SelectRegion::Lasso(poly), SelectOp::Remove);
        let want: Vec<MeshId> = thr
            .meshes
            .iter()
            .copied()
            .filter(|m| !las.contains_mesh(*m))
            .collect();
        assert_eq!(s.selection, want);
        // empty background replaces the selection with nothing
        let line = s.select_region(
            &frame,
            &scene,
            &SelectRegion::Rect([1000, 1000, 2000, 2000]),
            SelectOp::Replace,
        );
        assert_eq!(line, "select mode=through meshes=[] count=0");
    }

    #[test]
    fn repeated_clicks_cycle_through_the_stack() {
        let (scene, frame, mut s) = scene_state();
        // a pixel with at least two meshes under it
        let (x, y, stack) = (0..320 * 240)
            .map(|i| (i % 320, i / 320))
            .find_map(|(x, y)| {
                let st = frame.pick_stack(&scene, x, y);
                (st.len() >= 2).then_some((x, y, st))
            })
            .expect("overlapping meshes in the built-in scene");
        let n = stack.len();
        let first = pick_line(PickMethod::Buffer, x, y, frame.pick(&scene, x, y).as_ref());
        assert_eq!(s.click(&frame, &scene, x, y), first);
        assert!(!first.contains("cycle="));
        assert!(s.title().contains(&format!("1 of {n} under the cursor")));
        for (k, h) in stack.iter().enumerate().skip(1) {
            let line = s.click(&frame, &scene, x, y);
            assert_eq!(
                line,
                format!(
                    "{} cycle={}/{n}",
                    pick_line(PickMethod::Buffer, x, y, Some(h)),
                    k + 1
                )
            );
            assert_eq!(s.selected.as_ref().map(|h| h.mesh), Some(h.mesh));
        }
        // wraps to the nearest, answered by the method again
        assert_eq!(
            s.click(&frame, &scene, x, y),
            format!("{first} cycle=1/{n}")
        );
        assert_eq!(s.click(&frame, &scene, x, y), {
            let h = &stack[1];
            format!(
                "{} cycle=2/{n}",
                pick_line(PickMethod::Buffer, x, y, Some(h))
            )
        });
        // a single mesh under the pixel: nothing to cycle, no field
        let single = (0..320 * 240)
            .map(|i| (i % 320, i / 320))
            .find(|&(a, b)| frame.pick_stack(&scene, a, b).len() == 1)
            .unwrap();
        for _ in 0..3 {
            assert!(!s
                .click(&frame, &scene, single.0, single.1)
                .contains("cycle="));
        }
        // another pixel restarts the cycle; so does background
        let other = (0..320 * 240)
            .map(|i| (i % 320, i / 320))
            .find(|&(a, b)| (a, b) != (x, y) && frame.pick(&scene, a, b).is_some())
            .unwrap();
        assert!(!s.click(&frame, &scene, other.0, other.1).contains("cycle="));
        assert_eq!(s.click(&frame, &scene, x, y), first);
        assert!(s
            .click(&frame, &scene, x, y)
            .ends_with(&format!(" cycle=2/{n}")));
        // M restarts it, and the new method answers the first click
        key(&mut s, Key::M);
        let direct = pick_line(
            PickMethod::Direct,
            x,
            y,
            frame.pick_direct(&scene, x, y).as_ref(),
        );
        assert_eq!(s.click(&frame, &scene, x, y), direct);
        assert!(s
            .click(&frame, &scene, x, y)
            .ends_with(&format!(" cycle=2/{n}")));
        // so do camera changes, rule changes and moves
        s.handle(Event::Wheel(1.0));
        assert_eq!(s.cycle.position(), None);
        assert_eq!(s.click(&frame, &scene, x, y), direct);
        key(&mut s, Key::T);
        assert_eq!(s.click(&frame, &scene, x, y), direct);
        s.scene_changed();
        assert_eq!(s.click(&frame, &scene, x, y), direct);
        assert!(s.render_dirty);
    }

    #[test]
    fn shift_left_and_right_drag_orbit_without_picking() {
        let mut s = state();
        s.handle(Event::Key {
            key: Key::LeftShift,
            down: true,
        });
        poll(&mut s, 100.0, 100.0, false, false);
        assert_eq!(picks(&poll(&mut s, 100.0, 100.0, true, false)), 0);
        assert_eq!(picks(&poll(&mut s, 120.0, 100.0, true, false)), 0);
        assert!(s.render_dirty);
        let moved = s.camera;
        assert_ne!(moved, cam());
        assert!(
            ((moved.eye - moved.target).length() - (cam().eye - cam().target).length()).abs()
                < 1e-4
        );
        // Shift released mid-drag: still the same orbit drag, still no pick
        s.handle(Event::Key {
            key: Key::LeftShift,
            down: false,
        });
        assert_eq!(picks(&poll(&mut s, 130.0, 100.0, true, false)), 0);
        poll(&mut s, 130.0, 100.0, false, false);
        // right drag orbits too
        s.render_dirty = false;
        let before = s.camera;
        assert_eq!(picks(&poll(&mut s, 130.0, 100.0, false, true)), 0);
        poll(&mut s, 130.0, 90.0, false, true);
        assert!(s.render_dirty);
        assert_ne!(s.camera, before);
        // the poll that sees the press does not orbit, even if the pointer jumped
        poll(&mut s, 130.0, 90.0, false, false);
        s.render_dirty = false;
        let c = s.camera;
        poll(&mut s, 10.0, 200.0, false, true);
        assert_eq!(s.camera, c);
        poll(&mut s, 10.0, 200.0, false, true);
        assert_eq!(s.camera, c);
        assert!(!s.render_dirty);
        // motion without a button does nothing
        poll(&mut s, 130.0, 90.0, false, false);
        s.render_dirty = false;
        let c = s.camera;
        poll(&mut s, 10.0, 10.0, false, false);
        assert_eq!(s.camera, c);
        assert!(!s.render_dirty);
    }

    #[test]
    fn t_cycles_rules_and_m_cycles_methods() {
        let mut s = state();
        let start = s.rule;
        let mut seen = Vec::new();
        for _ in 0..FillRule::ALL.len() {
            s.render_dirty = false;
            let a = key(&mut s, Key::T);
            assert!(s.render_dirty);
            assert_eq!(a, vec![Action::Say(format!("set rule={}", s.rule.name()))]);
            seen.push(s.rule);
        }
        assert_eq!(s.rule, start);
        let mut all = FillRule::ALL.to_vec();
        all.sort_by_key(|r| r.name());
        seen.sort_by_key(|r| r.name());
        assert_eq!(seen, all);
        assert!(s.title().contains(&format!("rule {}", start.name())));
        // key repeat (down, down, down, up) is one press
        for _ in 0..3 {
            s.handle(Event::Key {
                key: Key::T,
                down: true,
            });
        }
        s.handle(Event::Key {
            key: Key::T,
            down: false,
        });
        assert_eq!(s.rule, next_of(&FillRule::ALL, start));

        assert_eq!(s.method, PickMethod::Buffer);
        key(&mut s, Key::M);
        assert_eq!(s.method, PickMethod::Direct);
        key(&mut s, Key::M);
        assert_eq!(s.method, PickMethod::Ray);
        assert!(s.title().contains("pick ray"));
        key(&mut s, Key::M);
        assert_eq!(s.method, PickMethod::Buffer);
    }

    #[test]
    fn view_modes_hover_save_exit() {
        let mut s = state();
        key(&mut s, Key::Key2);
        assert_eq!(s.mode, ViewMode::Ids);
        assert!(s.view_dirty && !s.render_dirty);
        key(&mut s, Key::Key3);
        assert_eq!(s.mode, ViewMode::Depth);
        key(&mut s, Key::Key1);
        assert_eq!(s.mode, ViewMode::Shaded);
        assert!(key(&mut s, Key::P).contains(&Action::Save));
        assert!(key(&mut s, Key::Escape).contains(&Action::Exit));
        assert_eq!(s.handle(Event::Close), vec![Action::Exit]);
        // hover: off by default; on, moves ask for hover picks
        assert!(poll(&mut s, 5.0, 5.0, false, false).is_empty());
        let a = key(&mut s, Key::H);
        assert!(s.hover);
        assert!(a.contains(&Action::Hover { x: 5, y: 5 }));
        assert_eq!(
            poll(&mut s, 6.0, 5.0, false, false),
            vec![Action::Hover { x: 6, y: 5 }]
        );
        assert!(poll(&mut s, 6.0, 5.0, false, false).is_empty());
        s.set_hovered(Some(2));
        poll(&mut s, -1.0, 5.0, false, false);
        assert_eq!(s.hovered, None);
        key(&mut s, Key::H);
        assert!(!s.hover);
    }

    #[test]
    fn zoom_reset_and_frame() {
        let mut s = state();
        let d0 = (s.camera.eye - s.camera.target).length();
        s.handle(Event::Wheel(1.0));
        let d1 = (s.camera.eye - s.camera.target).length();
        assert!((d1 - d0 * ZOOM_STEP).abs() < 1e-4);
        key(&mut s, Key::Minus);
        assert!(((s.camera.eye - s.camera.target).length() - d0).abs() < 1e-4);
        // zooming far in stops at 2 x near, far out at far / 2
        for _ in 0..500 {
            s.handle(Event::Wheel(1.0));
        }
        let d = (s.camera.eye - s.camera.target).length();
        assert!(d >= 2.0 * s.camera.near * 0.999 && d < d0);
        for _ in 0..500 {
            s.handle(Event::Wheel(-1.0));
        }
        let d = (s.camera.eye - s.camera.target).length();
        assert!(d <= s.camera.far * 0.5 * 1.001 && d > d0);
        key(&mut s, Key::R);
        assert_eq!(s.camera, cam());
        assert!(key(&mut s, Key::F).contains(&Action::FrameAll));
    }

    #[test]
    fn orbit_math() {
        let c = cam();
        let r = (c.eye - c.target).length();
        // a full turn returns to the start
        let full = orbit(&c, std::f32::consts::TAU, 0.0);
        assert!((full.eye - c.eye).length() < 1e-4);
        // a quarter turn about +Y moves the eye from +Z to +X (right-handed)
        let q = orbit(&c, std::f32::consts::FRAC_PI_2, 0.0);
        assert!(((q.eye - q.target).length() - r).abs() < 1e-4);
        assert!(q.eye.x > 4.9 && q.eye.z.abs() < 1e-3, "{}", q.eye);
        assert!((q.eye.y - c.eye.y).abs() < 1e-4);
        assert_eq!(q.target, c.target);
        // pitch clamps below the pole, and the camera stays valid
        let top = orbit(&c, 0.0, 10.0);
        let elev = ((top.eye - top.target) / r).y.asin().to_degrees();
        assert!((elev - MAX_PITCH_DEG).abs() < 1e-2, "{elev}");
        assert!(top.validate().is_ok());
        let bottom = orbit(&c, 0.0, -10.0);
        let elev = ((bottom.eye - bottom.target) / r).y.asin().to_degrees();
        assert!((elev + MAX_PITCH_DEG).abs() < 1e-2, "{elev}");
        // up and down again is the identity
        let back = orbit(&orbit(&c, 0.3, 0.2), -0.3, -0.2);
        assert!((back.eye - c.eye).length() < 1e-4);
    }

    #[test]
    fn moves_are_camera_relative() {
        let mut s = state();
        let a = key(&mut s, Key::W);
        let Some(Action::Move(d)) = a.first() else {
            panic!("{a:?}")
        };
        // camera looks toward -Z: forward is -Z on the ground plane
        assert!(d.z < 0.0 && d.x.abs() < 1e-6 && d.y.abs() < 1e-6);
        assert!((d.length() - s.step).abs() < 1e-6);
        let right = move_delta(&s.camera, Key::D, 1.0).unwrap();
        assert!((right - Vec3::X).length() < 1e-5);
        assert!((move_delta(&s.camera, Key::E, 1.0).unwrap() - Vec3::Y).length() < 1e-6);
        // key repeat keeps moving
        let mut n = 0;
        for _ in 0..3 {
            n += s
                .handle(Event::Key {
                    key: Key::A,
                    down: true,
                })
                .len();
        }
        assert_eq!(n, 3);
    }

    #[test]
    fn tint_and_segments() {
        assert_eq!(tint(0x0000_0000, 0x00ff_ffff, 0.5), 0x0080_8080);
        assert_eq!(highlight(HIGHLIGHT), HIGHLIGHT);
        let mut img = vec![0u32; 10 * 10];
        draw_segment(
            &mut img,
            10,
            10,
            Vec2::new(-5.0, 2.5),
            Vec2::new(50.0, 2.5),
            7,
        );
        assert_eq!(img[2 * 10..3 * 10], [7; 10]);
        assert_eq!(img.iter().filter(|&&p| p == 7).count(), 10);
        let mut img = vec![0u32; 10 * 10];
        draw_segment(
            &mut img,
            10,
            10,
            Vec2::new(20.0, 2.5),
            Vec2::new(50.0, 2.5),
            7,
        );
        assert!(img.iter().all(|&p| p == 0));
        // a segment crossing the near plane is clipped, not mirrored
        let c = cam();
        let vp = c.view_proj();
        let front = vp * Vec4::new(0.0, 0.5, 0.0, 1.0);
        let behind = vp * Vec4::new(0.0, 0.5, 10.0, 1.0);
        let mut img = vec![0u32; 320 * 240];
        draw_clip_segment(&mut img, 320, 240, front, behind, 7);
        assert!(img.contains(&7));
    }

    #[test]
    fn pick_line_format() {
        let hit = Hit {
            mesh: 3,
            mesh_name: "crate_1".into(),
            triangle: 7,
            global_triangle: 120,
            depth: 0.812_345,
            distance: 1.0,
            position: Vec3::new(0.1, -0.2, 0.3),
            barycentric: Vec3::ONE / 3.0,
            normal: Vec3::Z,
            front_face: true,
        };
        assert_eq!(
            pick_line(PickMethod::Buffer, 123, 45, Some(&hit)),
            "pick method=buffer x=123 y=45 mesh=3 name=crate_1 triangle=7 global=120 \
             depth=0.812345 position=(0.100000,-0.200000,0.300000)"
        );
        assert_eq!(
            pick_line(PickMethod::Ray, 1, 2, None),
            "pick method=ray x=1 y=2 none"
        );
    }

    #[test]
    fn compose_tints_the_selected_mesh_and_outlines_its_triangle() {
        let scene = crate::builtin::builtin_scene();
        let camera = Camera::auto_frame(&scene.framing_bounds(), 160, 120);
        let frame =
            crate::frame::render::render(&scene, &camera, RenderOptions::default()).unwrap();
        let mesh_of = mesh_of_triangles(&scene);
        assert_eq!(mesh_of.len(), scene.triangle_count() as usize);
        let g = (0..frame.ids().len())
            .find_map(|i| frame.triangle_at((i % 160) as u32, (i / 160) as u32))
            .unwrap();
        let (mesh, local) = scene.locate(g).unwrap();
        let mut plain = Vec::new();
        compose(&frame, &scene, &mesh_of, &Overlay::default(), &mut plain);
        assert_eq!(plain, frame.color());
        let mut lit = Vec::new();
        let ov = Overlay {
            selected: Some((mesh, local)),
            ..Overlay::default()
        };
        compose(&frame, &scene, &mesh_of, &ov, &mut lit);
        let mut outlined = 0;
        for (i, (&p, &l)) in plain.iter().zip(&lit).enumerate() {
            let m = mesh_at(frame.ids()[i], &mesh_of);
            if l == OUTLINE && p != OUTLINE {
                outlined += 1;
            } else if m == Some(mesh) {
                assert_eq!(l, highlight(p));
            } else {
                assert_eq!(l, p);
            }
        }
        assert!(outlined > 0);
        let mut ids = Vec::new();
        compose(
            &frame,
            &scene,
            &mesh_of,
            &Overlay {
                mode: ViewMode::Ids,
                ..Overlay::default()
            },
            &mut ids,
        );
        assert_eq!(ids, pick_map(&frame, &mesh_of));
    }

    #[test]
    fn compose_tints_the_selection_and_draws_the_band() {
        let (scene, frame, _) = scene_state();
        let mesh_of = mesh_of_triangles(&scene);
        let mut plain = Vec::new();
        compose(&frame, &scene, &mesh_of, &Overlay::default(), &mut plain);
        let sel = frame.select_rect(&scene, 0, 0, 319, 239, SelectMode::Visible);
        let (picked, chosen) = (sel.meshes[0], sel.meshes[1..].to_vec());
        let ov = Overlay {
            selection: sel.meshes.clone(),
            selected: Some((picked, u32::MAX)), // no outline: no such triangle
            hovered: Some(chosen[0]),
            ..Overlay::default()
        };
        let mut lit = Vec::new();
        compose(&frame, &scene, &mesh_of, &ov, &mut lit);
        let mut tinted = 0;
        for (i, (&p, &l)) in plain.iter().zip(&lit).enumerate() {
            match mesh_at(frame.ids()[i], &mesh_of) {
                Some(m) if m == picked => assert_eq!(l, highlight(p)),
                Some(m) if chosen.contains(&m) => {
                    assert_eq!(l, selection_tint(p));
                    tinted += 1;
                }
                _ => assert_eq!(l, p),
            }
        }
        assert!(tinted > 0);
        assert_ne!(selection_tint(0x0080_8080), highlight(0x0080_8080));
        // the band: a box outline along its pixel centres, a closed lasso
        let band = Overlay {
            band: Some(SelectRegion::Rect([10, 20, 30, 40])),
            ..Overlay::default()
        };
        let mut img = Vec::new();
        compose(&frame, &scene, &mesh_of, &band, &mut img);
        for (i, (&p, &b)) in plain.iter().zip(&img).enumerate() {
            let (x, y) = ((i % 320) as i64, (i / 320) as i64);
            let edge = ((x == 10 || x == 30) && (20..=40).contains(&y))
                || ((y == 20 || y == 40) && (10..=30).contains(&x));
            assert_eq!(b, if edge { BAND } else { p }, "({x}, {y})");
        }
        let lasso = Overlay {
            band: Some(SelectRegion::Lasso(vec![
                [5.5, 5.5],
                [50.5, 5.5],
                [5.5, 50.5],
            ])),
            ..Overlay::default()
        };
        compose(&frame, &scene, &mesh_of, &lasso, &mut img);
        for (x, y) in [(5, 5), (50, 5), (5, 50), (27, 28), (5, 30), (30, 5)] {
            assert_eq!(img[y * 320 + x], BAND, "({x}, {y})");
        }
    }

    #[test]
    fn select_line_format() {
        let scene = crate::builtin::builtin_scene();
        assert_eq!(
            select_line(SelectMode::Visible, &[1, 5], &scene),
            "select mode=visible meshes=[1:pillar_1,5:pyramid_1] count=2"
        );
        assert_eq!(
            select_line(SelectMode::Through, &[], &scene),
            "select mode=through meshes=[] count=0"
        );
    }

    #[test]
    fn move_lines_report_stops() {
        let free = SweepResult {
            allowed: Vec3::X,
            blocked: false,
            hit: None,
            by_other_vertex: false,
        };
        assert_eq!(
            move_line(2, "box", Vec3::X, &free),
            "move mesh=2 name=box requested=(1.000000,0.000000,0.000000) \
             delta=(1.000000,0.000000,0.000000) stopped=no"
        );
        // a lone triangle moves freely, by exactly the displacement
        let mut scene = Scene::new();
        let tri = crate::scene::Mesh::new(
            "tri",
            vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            vec![[0, 1, 2]],
            [200, 100, 50],
        )
        .unwrap();
        scene.add_mesh(tri, crate::scene::Transform::IDENTITY, None);
        let line = move_mesh(&mut scene, 0, Vec3::new(0.0, 0.0, 0.5), 0.01);
        assert!(line.ends_with(" stopped=no"), "{line}");
        assert!((scene.mesh_world(0).w_axis.z - 0.5).abs() < 1e-6, "{line}");
        assert!(move_mesh(&mut scene, 9999, Vec3::X, 0.0).ends_with(" none"));
    }

    #[test]
    fn headless_error_names_the_commands() {
        let e = no_display("x").to_string();
        for c in ["render", "pickmap", "pick", "sweep"] {
            assert!(e.contains(&format!("`{c}`")), "{e}");
        }
    }
}
