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
//! | `W A S D` / `Q E` | with no driven mesh: move the picked mesh (camera-relative; `Q` down, `E` up); with driven meshes `Q` and `E` do nothing |
//! | `V` | toggle drive mode: a left click adds the mesh under it to the driving set, or removes it when driven (no pick, no cycling) |
//! | `B` | the box/lasso selection becomes the driving set |
//! | `W` / `S`, `A` / `D`, `Space` / `Ctrl` (held) | with driven meshes: build each one's speed forward / back, left / right, up / down, relative to its own forward direction |
//! | `Left` / `Right` (held) | turn the driven meshes' forward directions left / right about world +Y |
//! | `G` | stop every driven mesh |
//! | `L` | show / hide the driven meshes' three lines |
//! | `U` | toggle ground following for the driven meshes |
//! | `C` | toggle a section plane through the middle of the scene, facing the camera: the half nearer the eye is cut away, and the picture, picks, hover and selections all honour it ([`crate::ClipPlanes`]) |
//! | `,` / `.` | move the section plane toward the eye / away, one move step |
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
//! `set through=…`, `set section=on plane=(a,b,c,d)` / `set section=off`
//! and `section plane=(a,b,c,d)` (the plane as [`crate::ClipPlanes`] takes
//! it, each value printed so that it reads back exactly), `camera
//! reset|frame` and `move …` lines (moves go
//! through [`crate::collision::sweep_move`], so a move stops at a collision and says
//! so), and the driving lines:
//!
//! ```text
//! set drive=on
//! drive add mesh=4 name=sphere_a forward=(1.000000,0.000000,0.000000)
//! drive remove mesh=4 name=sphere_a
//! drive none x=5 y=5
//! velocity mesh=4 name=sphere_a v=(2.243709,0.000000,0.000000) speed=2.243709 centre=(-6.147353,1.050000,2.000000) ahead=3:wall distance=4.137353
//! collide mesh=4 name=sphere_a with=3 with_name=wall at=(-2.010000,1.050000,2.000000)
//! stop all
//! set lines=off
//! ground on
//! camera blocked mesh=3 name=wall
//! camera clear
//! ```
//!
//! `drive unchanged` answers a `B` that changes nothing. A `velocity` line
//! comes when a driven mesh's velocity changed, at most every 0.25 s per
//! mesh (a stop is printed at the next chance), and `G` prints the zero
//! line of every mesh that was moving at once; `ahead` is the first other
//! mesh along the motion (along forward when still) and its distance from
//! the centre. A `collide` line names the contact's other mesh and point.
//! `camera …` comes after the first render and whenever the answer changes;
//! ` inside=yes` is added when the camera is inside the mesh.
//!
//! `P` saves the plain shaded render and the per-mesh pick map
//! (the palette color, [`id_color`], of the mesh id, background black) of the current camera,
//! fill rule and scene, without the highlight or outline overlays and
//! whatever the view mode, so the files equal what the library renders.
//!
//! # Selection
//!
//! Picking and selecting are separate: a click picks one mesh (tinted, its
//! triangle outlined; the mesh `W A S D Q E` move), a box or lasso selects a
//! set of meshes (tinted, listed on stdout). A box selects the inclusive
//! pixel rectangle between the pixels under the press and under the release
//! ([`Picks::rect`]); a lasso is the polygon through the centres of
//! the pixels the pointer passed, a point whenever the pointer is 3 pixels
//! or more from the last one, closed at the pixel of the release
//! ([`Picks::lasso`]). A replacing box over empty background clears
//! the selection. The cycle of repeated clicks restarts when the pointer
//! moves to another pixel, and whenever the view changes (camera, fill rule,
//! pick method, a moved mesh).
//!
//! # Driving
//!
//! The three.js collision post's interactions. Driven meshes are tinted
//! (see "Colors"). Each has a forward direction: its node's +Z in world
//! space, flattened onto the ground plane (world +Y is up; world +Z when the
//! node's +Z is vertical), turned by `Left` / `Right`. Turning turns the
//! heading, its lines and the frame its speed is in, not the geometry, so a
//! turn never pushes a mesh into another. While a move key is held, the
//! speed along it grows by 0.2 × the scene's framing radius per second, up
//! to 0.2 × that radius per second in all; released keys leave the
//! velocity as it is. Every frame each driven mesh, in id order, moves by
//! velocity × elapsed time (at most 0.1 s per frame, so a stalled window
//! does not make a jump) through [`crate::collision::sweep_move`]: a move cut short by
//! a contact stops that mesh, and the other mesh too when it is driven;
//! held keys push a stopped mesh again only after every key was released.
//! Since each move is checked against the scene as the meshes before it
//! left it, no driven mesh ends up inside another.
//!
//! With ground following on (`U`) a driven mesh keeps its lowest point just
//! above the highest surface under its box (sampled at the box's centre and
//! corners where the move takes it): it walks up ramps and falls down
//! steps; a step higher than 0.4 of its height stops it like a wall, and
//! `Space` / `Ctrl` do nothing.
//!
//! Each driven mesh shows three lines, drawn on top of the image (not
//! depth-tested, so they stay visible through the mesh they start in):
//! **forward** in blue (`0x0000ff`), 1.5 × its radius long; **motion** in
//! green (`0x00ff00`) along its velocity, as long as one second of travel
//! (none when still); **collision ray** in red (`0xff0000`) from its centre
//! to the first other mesh along its motion (along forward when still),
//! whose name and distance the title shows. Longer lines are drawn first,
//! so where they overlap the shorter one is on top.
//!
//! The title also flags the camera check of the Papervision post, for what
//! the camera follows (the driven meshes): `CAMERA BLOCKED by NAME` when
//! another mesh lies between a driven mesh and the eye, `CAMERA INSIDE
//! NAME` when the eye is inside a mesh. Without driven meshes the view is
//! clear (a model's orbit target sits inside it: it is not checked).
//!
//! `softpick view --builtin collide` opens the post's setup
//! ([`collide_scene`]): two spheres of radius 1, a floor with a ramp and a
//! step, a thin wall and the pick test's scene.
//!
//! # Colors
//!
//! A tint moves each 8-bit channel `c` of a pixel toward the channel `t` of
//! the tint color: `round(c + (t - c) · amount)` in `f32`. The picked
//! mesh's pixels take `0xffc830` at 0.5, the driven meshes' `0xe060ff` at
//! 0.45, the selected meshes' `0x40e070` at 0.45 and the hovered mesh's
//! (`H`) `0x30d0ff` at 0.35; a pixel takes one tint only, picked before
//! driven before selected before hovered. The picked triangle's
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
//! [`id_color`]: crate::Mesh::palette_color
//! [`Picks::rect`]: crate::pick::Picks::rect
//! [`Picks::lasso`]: crate::pick::Picks::lasso
//! [`BACKGROUND`]: crate::Frame::BACKGROUND

// The parts, each importing only the ones listed before it:
// `navigation` (orbit, zoom, camera-relative moves), `report` (the stdout
// lines), `playground` (the collide scene) and `sight` (the camera check)
// stand alone; `drive` (the driving set and its motion) uses `report`;
// `lines` (the three lines) reads `drive`; `input` (the state machine) uses
// them, and `input_drive` adds its driving part; `overlay` (the window image) draws what `input` and `lines`
// describe; `window` is the minifb loop over all of them.
mod animation;
mod drive;
mod input;
mod input_drive;
mod input_picks;
mod input_section;
mod lines;
mod navigation;
mod overlay;
pub(crate) mod playground;
mod report;
mod section;
mod sight;
mod title;
mod window;

use playground::{collide_scene, COLLIDE_VIEW_PITCH_DEG};

use std::path::PathBuf;

use crate::camera::Camera;
use crate::error::Error;
use crate::frame::render::{RenderOptions, Renderer};
use crate::geometry::{ClipPlanes, CullMode};
use crate::pick::PickMethod;
use crate::raster::rules::{FillRule, MAX_FRAME_SIDE};
use crate::scene::LoopMode;

use input::ViewerState;

/// Default window width.
pub const DEFAULT_WIDTH: u32 = 800;
/// Default window height.
pub const DEFAULT_HEIGHT: u32 = 600;

/// What the error of a viewer without a display says after the reason.
const HEADLESS_HINT: &str = "`softpick view` needs a display (DISPLAY or WAYLAND_DISPLAY); \
     without one use the headless commands: `render`, `pickmap`, `pick`, `sweep`";

/// The built-in scenes `softpick view --builtin NAME` opens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BuiltinScene {
    /// The pick test's 362-triangle scene (`default`).
    #[default]
    Default,
    /// The collision playground ([`collide_scene`], `collide`).
    Collide,
}

impl BuiltinScene {
    /// Every built-in scene, in the order of their names.
    pub const ALL: [BuiltinScene; 2] = [BuiltinScene::Default, BuiltinScene::Collide];

    /// The name on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            BuiltinScene::Default => "default",
            BuiltinScene::Collide => "collide",
        }
    }

    /// The scene of a name ([`BuiltinScene::name`]).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    /// The scene itself.
    #[must_use]
    pub fn scene(self) -> crate::scene::Scene {
        match self {
            BuiltinScene::Default => crate::builtin::builtin_scene(),
            BuiltinScene::Collide => collide_scene(),
        }
    }

    /// The camera the viewer opens on without `--camera`, for a `w` × `h`
    /// window: automatic framing, and for the collide scene that framing
    /// orbited up by 30° (`COLLIDE_VIEW_PITCH_DEG`), so the lanes are seen from
    /// above rather than edge-on.
    #[must_use]
    pub fn camera(self, scene: &crate::scene::Scene, w: u32, h: u32) -> Camera {
        let auto = Camera::auto_frame(&scene.framing_bounds(), w, h);
        match self {
            BuiltinScene::Default => auto,
            BuiltinScene::Collide => {
                navigation::orbit(&auto, 0.0, COLLIDE_VIEW_PITCH_DEG.to_radians())
            }
        }
    }
}

/// Options of [`run`].
#[derive(Clone, Debug, PartialEq)]
pub struct ViewerOptions {
    /// Model file (OBJ, STL, PLY or glTF); `None` is the built-in scene `builtin`.
    pub model: Option<PathBuf>,
    /// The glTF scene to load, by index or name (`None`: the default).
    pub scene: Option<String>,
    /// The animation shown and played (index or name; `None`: the first).
    pub animation: Option<String>,
    /// The time the animation starts at, in seconds (`None`: 0).
    pub time: Option<f32>,
    /// What a time past the animation's end means, for `time` and while
    /// playing (default `Repeat`: the animation loops).
    pub loop_mode: LoopMode,
    /// The built-in scene shown without a model.
    pub builtin: BuiltinScene,
    /// Camera JSON, or `gltf:N` / `gltf:NAME` for a camera of the glTF
    /// file; `None` is automatic framing. Its size is replaced by
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
    /// User clip planes that cut the scene all along, besides the section
    /// plane `C` toggles (which then takes one more place of
    /// [`MAX_CLIP_PLANES`](crate::limits::MAX_CLIP_PLANES)).
    pub clip: Option<ClipPlanes>,
}

impl Default for ViewerOptions {
    fn default() -> Self {
        Self {
            model: None,
            scene: None,
            animation: None,
            time: None,
            loop_mode: LoopMode::Repeat,
            builtin: BuiltinScene::Default,
            camera: None,
            width: DEFAULT_WIDTH,
            height: DEFAULT_HEIGHT,
            rule: FillRule::default(),
            cull: CullMode::default(),
            method: PickMethod::default(),
            threads: None,
            output_dir: PathBuf::from("output"),
            clip: None,
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
    let load = crate::io::LoadOptions {
        scene: opts.scene.clone(),
    };
    let (mut scene, report) = match &opts.model {
        Some(p) => crate::io::load_model_with(p, &load)?,
        None => (opts.builtin.scene(), crate::io::LoadReport::default()),
    };
    let anim = match &opts.animation {
        Some(k) => Some(scene.find_animation(k).ok_or_else(|| {
            Error::Option {
                path: opts
                    .model
                    .clone()
                    .unwrap_or_else(|| PathBuf::from("built-in scene")),
                message: format!(
                    "--animation {k}: no such animation (the scene has {})",
                    scene.animations().len()
                ),
            }
        })?),
        None => (!scene.animations().is_empty()).then_some(0),
    };
    let time = opts.time.unwrap_or(0.0);
    if let Some(a) = anim {
        scene
            .pose(time, Some(a), opts.loop_mode)
            .map_err(|e| Error::Window(format!("cannot pose the scene: {e}")))?;
    }
    let gltf_key = opts
        .camera
        .as_deref()
        .and_then(|p| p.to_str())
        .and_then(|s| s.strip_prefix("gltf:"));
    let camera = match &opts.camera {
        Some(_) if gltf_key.is_some() => {
            let key = gltf_key.unwrap_or_default();
            let c = crate::camera::file::FileCamera::find(&report.cameras, key, |n| {
                scene.nodes().get(n as usize).map(|n| n.name.clone())
            })
            .ok_or_else(|| Error::Option {
                path: opts
                    .model
                    .clone()
                    .unwrap_or_else(|| PathBuf::from("built-in scene")),
                message: format!("--camera gltf:{key}: no such camera in the file"),
            })?;
            c.camera(
                scene.world_matrix(c.node),
                h,
                Some((w, h)),
                &scene.framing_bounds(),
            )?
        }
        Some(p) => Camera::load(p, &scene.framing_bounds())?
            .try_with_size(w, h)
            .map_err(|e| match e {
                Error::InvalidCamera(source) => Error::Camera {
                    path: p.clone(),
                    source,
                },
                e => e,
            })?,
        None if opts.model.is_some() => Camera::auto_frame(&scene.framing_bounds(), w, h),
        None => opts.builtin.camera(&scene, w, h),
    };
    let renderer = Renderer::new(RenderOptions {
        rule: opts.rule,
        cull: opts.cull,
        threads: opts.threads,
        ..RenderOptions::default()
    })?;
    let mut state = ViewerState::new(camera, &scene.framing_bounds(), opts.rule, opts.method);
    state.clip = opts.clip.clone();
    let clips = scene
        .animations()
        .iter()
        .map(|a| (a.name.clone(), a.duration()))
        .collect();
    state.player = animation::Player::new(clips, anim.unwrap_or(0), time, opts.loop_mode);
    window::show(scene, renderer, state, (w, h), &opts.output_dir)
}

#[cfg(test)]
mod tests;
