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
//! | left click | pick (edge-detected: one press = one pick) |
//! | right drag, or Shift + left drag | orbit around the target |
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
//! saved output/view_color.png output/view_pickmap.png
//! ```
//!
//! plus `set rule=…`, `set method=…`, `set view=…`, `set hover=…`,
//! `camera reset|frame` and `move …` lines ([`move_line`]; moves go through
//! [`crate::sweep_move`], so a move stops at a collision and says so).
//!
//! `P` saves the plain shaded render and the per-mesh pick map
//! ([`id_color`] of the mesh id, background black) of the current camera,
//! fill rule and scene, without the highlight or outline overlays and
//! whatever the view mode, so the files equal what the library renders.
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
use crate::frame::{Frame, BACKGROUND, NO_TRIANGLE};
use crate::pick::{Hit, PickMethod};
use crate::raster::rules::{CullMode, FillRule, MAX_FRAME_SIDE};
use crate::raster::{RenderOptions, Renderer};
use crate::scene::{Aabb, MeshId, Scene};

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
    /// Pick pixel (x, y) with [`ViewerState::method`], report and select.
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
    /// Save the color image and pick map.
    Save,
    /// Move the selected mesh by this world-space displacement.
    Move(Vec3),
    /// Print this line on stdout.
    Say(String),
    /// Leave the viewer.
    Exit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Drag {
    /// Left press without Shift: a pick was made; nothing happens until release.
    Click,
    /// Orbit with the right button, or the left one with Shift.
    Orbit,
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
            step,
            render_dirty: true,
            view_dirty: true,
            left: false,
            right: false,
            drag: None,
            last_pos: None,
            keys_down: HashSet::new(),
        }
    }

    fn shift(&self) -> bool {
        self.keys_down.contains(&Key::LeftShift) || self.keys_down.contains(&Key::RightShift)
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
        }
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
                self.drag = None;
            }
            Event::Close => out.push(Action::Exit),
        }
        out
    }

    fn poll(&mut self, pos: Option<(f32, f32)>, left: bool, right: bool, out: &mut Vec<Action>) {
        let pressed_left = left && !self.left;
        let pressed_right = right && !self.right;
        // end a drag when its button is up
        if let Some((_, b)) = self.drag {
            let held = match b {
                MouseButton::Left => left,
                _ => right,
            };
            if !held {
                self.drag = None;
            }
        }
        let dragging_before = self.drag.is_some();
        if !dragging_before {
            if pressed_left {
                if self.shift() {
                    self.drag = Some((Drag::Orbit, MouseButton::Left));
                } else {
                    self.drag = Some((Drag::Click, MouseButton::Left));
                    if let Some((x, y)) = self.pixel(pos) {
                        out.push(Action::Pick { x, y });
                    }
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
                out.push(Action::Say(format!("set rule={}", self.rule.name())));
            }
            Key::M if edge => {
                self.method = next_of(&PickMethod::ALL, self.method);
                self.view_dirty = true;
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

    /// Records a pick's result (the loop calls this after [`Action::Pick`]).
    pub fn select(&mut self, hit: Option<Hit>) {
        self.selected = hit;
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
        format!(
            "softpick view | {} | rule {} | pick {} | hover {} | {}",
            self.mode.name(),
            self.rule.name(),
            self.method.name(),
            if self.hover { "on" } else { "off" },
            sel
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
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Overlay {
    /// View mode (base image).
    pub mode: ViewMode,
    /// Picked mesh and its mesh-local triangle: tinted with [`HIGHLIGHT`], triangle outlined.
    pub selected: Option<(MeshId, u32)>,
    /// Hovered mesh: tinted with [`HOVER`] (unless it is the selected one).
    pub hovered: Option<MeshId>,
}

/// Builds the window image of `frame`: the base image of the view mode, the
/// hover and pick tints, and the picked triangle's outline.
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
    if sel.is_some() || ov.hovered.is_some() {
        for (px, &id) in out.iter_mut().zip(frame.ids()) {
            let m = mesh_at(id, mesh_of);
            if m.is_none() {
                continue;
            }
            if m == sel {
                *px = highlight(*px);
            } else if m == ov.hovered {
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
            no_display(&format!("{e}{on}"))
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
                    let frame = renderer.frame();
                    let hit = do_pick(frame, &scene, state.method, x, y);
                    say(&pick_line(state.method, x, y, hit.as_ref()));
                    state.select(hit);
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
                        state.render_dirty = true;
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

    #[test]
    fn one_press_is_one_pick() {
        let mut s = state();
        assert_eq!(picks(&poll(&mut s, 10.5, 20.5, false, false)), 0);
        let a = poll(&mut s, 10.5, 20.5, true, false);
        assert_eq!(a, vec![Action::Pick { x: 10, y: 20 }]);
        // held for many polls, even while moving: no more picks
        for i in 0..10 {
            assert_eq!(picks(&poll(&mut s, 11.0 + i as f32, 20.5, true, false)), 0);
        }
        assert_eq!(picks(&poll(&mut s, 30.0, 20.0, false, false)), 0);
        assert_eq!(picks(&poll(&mut s, 30.0, 20.0, true, false)), 1);
        // a press outside the frame picks nothing
        poll(&mut s, 30.0, 20.0, false, false);
        assert_eq!(picks(&poll(&mut s, -3.0, 20.0, true, false)), 0);
        assert_eq!(picks(&poll(&mut s, 320.0, 20.0, false, false)), 0);
        assert_eq!(picks(&poll(&mut s, 320.0, 20.0, true, false)), 0);
        // the camera never moved
        assert_eq!(s.camera, cam());
        assert!(!s.render_dirty);
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
        let frame = crate::raster::render(&scene, &camera, RenderOptions::default()).unwrap();
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
