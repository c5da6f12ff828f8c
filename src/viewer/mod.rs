//! The desktop viewer behind `softpick view`: a minifb window showing the
//! software render, where a left click picks.
//!
//! Inside, the input handling is a pure state machine (window events in,
//! actions out) that needs no display, so its edge detection, key bindings
//! and camera math are unit-tested; [`run`] is the thin minifb loop around
//! it.
//!
//! # Controls
//!
//! | input | effect |
//! | --- | --- |
//! | left click | pick (one press and release = one pick); clicking the same pixel again steps to the next mesh under it, near to far, then wraps ([`PickCycle`]) |
//! | left drag (beyond 4 pixels) | box selection, on release |
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
//! A pick line gives the [`Hit`]: mesh id and name, mesh-local and global
//! triangle, depth with 6 decimals and the world position as `(x,y,z)` with
//! 6 decimals (a negative zero printed as `0.000000`); a click on background
//! ends in `none`. A repeated click at the same pixel, when more than one
//! mesh is under it, appends `cycle=k/n` (the k-th of the n meshes there);
//! the first click answers with the pick method and prints no `cycle` field.
//! After every box or lasso the whole selection is listed as `id:name`,
//! ascending (`mode` is the mode that box or lasso used).
//!
//! plus `set rule=…`, `set method=…`, `set view=…`, `set hover=…`,
//! `set through=…`, `camera reset|frame` and `move …` lines (moves go
//! through [`crate::sweep_move`], so a move stops at a collision and says
//! so).
//!
//! `P` saves the plain shaded render and the per-mesh pick map
//! ([`id_color`] of the mesh id, background black) of the current camera,
//! fill rule and scene, without the highlight or outline overlays and
//! whatever the view mode, so the files equal what the library renders.
//!
//! # Selection
//!
//! Picking and selecting are separate: a click picks one mesh (tinted, its
//! triangle outlined; the mesh `W A S D Q E` move), a box or lasso selects a
//! set of meshes (tinted, listed on stdout). A box selects the inclusive
//! pixel rectangle between the pixels under the press and under the release
//! ([`Frame::select_rect`]); a lasso is the polygon through the centres of
//! the pixels the pointer passed, a point whenever the pointer is 3 pixels
//! or more from the last one, closed at the pixel of the release
//! ([`Frame::select_lasso`]). A replacing box over empty background clears
//! the selection. The cycle of repeated clicks restarts when the pointer
//! moves to another pixel, and whenever the view changes (camera, fill rule,
//! pick method, a moved mesh).
//!
//! # Colors
//!
//! A tint moves each 8-bit channel `c` of a pixel toward the channel `t` of
//! the tint color: `round(c + (t - c) · amount)` in `f32`. The picked
//! mesh's pixels take `0xffc830` at 0.5, the selected meshes' `0x40e070` at
//! 0.45 and the hovered mesh's (`H`) `0x30d0ff` at 0.35; a pixel takes one
//! tint only, picked before selected before hovered. The picked triangle's
//! outline is white (`0xffffff`), the box or lasso being dragged
//! `0x60ff90`; background stays [`BACKGROUND`].
//!
//! # Short clicks
//!
//! minifb reports mouse buttons only as a state sampled when the window is
//! updated (there is no button callback), so a press and release that both
//! fall between two updates is invisible. The loop therefore polls 250 times
//! a second (every 4 ms) and only blits the image when it changed, so only
//! presses shorter than one poll (or than a render, while one runs) can be
//! lost. Keys do not have this limit: they come through minifb's input
//! callback, every press and release in order.
//!
//! minifb also reads the pointer position *before* it processes the queued
//! button events of an update, so the position of the poll that sees a
//! press can be from just before it (the pointer may have jumped to the
//! click since). A press therefore takes its position (the pixel a click
//! picks, the corner a box starts from) from the next poll, the first one
//! known to come after it; and an orbit starts moving the camera only then.
//!
//! [`PickCycle`]: crate::select::PickCycle
//! [`SelectMode::Through`]: crate::select::SelectMode::Through
//! [`FillRule::ALL`]: crate::raster::rules::FillRule::ALL
//! [`PickMethod::ALL`]: crate::pick::PickMethod::ALL
//! [`Hit`]: crate::pick::Hit
//! [`id_color`]: crate::export::id_color
//! [`Frame::select_rect`]: crate::frame::Frame::select_rect
//! [`Frame::select_lasso`]: crate::frame::Frame::select_lasso
//! [`BACKGROUND`]: crate::frame::BACKGROUND

// The parts, each importing only the ones listed before it:
// `navigation` (orbit, zoom, camera-relative moves) and `report` (the
// stdout lines) stand alone; `input` (the state machine) uses both;
// `overlay` (the window image) draws what `input` describes; `window` is
// the minifb loop over all of them.
mod input;
mod navigation;
mod overlay;
mod report;
mod window;

use std::path::PathBuf;

use crate::camera::Camera;
use crate::error::Error;
use crate::frame::render::{RenderOptions, Renderer};
use crate::geometry::CullMode;
use crate::pick::PickMethod;
use crate::raster::rules::{FillRule, MAX_FRAME_SIDE};

use input::ViewerState;

/// Default window width.
pub const DEFAULT_WIDTH: u32 = 800;
/// Default window height.
pub const DEFAULT_HEIGHT: u32 = 600;

/// What the error of a viewer without a display says after the reason.
const HEADLESS_HINT: &str = "`softpick view` needs a display (DISPLAY or WAYLAND_DISPLAY); \
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

/// Whether the environment names a display at all.
fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// The error of a window that cannot be opened, naming the headless commands.
fn no_display(reason: &str) -> Error {
    Error::Window(format!("cannot open a window: {reason}; {HEADLESS_HINT}"))
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
    let scene = match &opts.model {
        Some(p) => crate::io::load_model(p)?.0,
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
    let renderer = Renderer::new(RenderOptions {
        rule: opts.rule,
        cull: opts.cull,
        threads: opts.threads,
        ..RenderOptions::default()
    })?;
    let state = ViewerState::new(camera, &scene.framing_bounds(), opts.rule, opts.method);
    window::show(scene, renderer, state, (w, h), &opts.output_dir)
}

#[cfg(test)]
mod tests;
