//! The command line's arguments: every command and option, as clap parses
//! them (`softpick <command> --help` prints these docs).

use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use softpick::animation::LoopMode;
use softpick::{CullMode, FillRule, PickMethod};

/// The command-line names of the cull modes, in [`CULL_MODES`] order.
pub const CULL_NAMES: [&str; 3] = ["none", "back", "front"];
/// The cull modes.
pub const CULL_MODES: [CullMode; 3] = [CullMode::None, CullMode::Back, CullMode::Front];

/// The model, camera and thread options shared by the commands.
#[derive(Args, Debug, Clone)]
pub struct SceneArgs {
    /// Model file: OBJ, STL, PLY, glTF or GLB, by extension (else by content) [default: the built-in 362-triangle scene]
    #[arg(value_name = "MODEL")]
    pub model: Option<PathBuf>,
    /// The glTF scene to load, by index or name [default: the file's default scene]
    #[arg(long, value_name = "N|NAME")]
    pub scene: Option<String>,
    /// Pose the scene at this time, in seconds, of its animation (glTF; times outside the keys clamp)
    #[arg(long, value_name = "T")]
    pub time: Option<f32>,
    /// The animation to pose, by index or name [default: the first; with --time 0 when --time is not given]
    #[arg(long, value_name = "N|NAME")]
    pub animation: Option<String>,
    /// What a --time past the animation's end means: `once` (the first or
    /// last key holds), `repeat` (wrap around) or `pingpong` (mirror)
    /// [default: once; the viewer plays with repeat]
    #[arg(long = "loop", value_name = "MODE", value_parser = LoopMode::ALL.map(LoopMode::name))]
    pub loop_mode: Option<String>,
    /// Camera JSON (see README, "Conventions"), or `gltf:N` / `gltf:NAME` for a camera of the glTF file [default: automatic framing]
    #[arg(long, value_name = "CAM.json|gltf:N")]
    pub camera: Option<PathBuf>,
    /// Frame size; overrides the camera file's size [default: 360x360]
    #[arg(long, value_name = "WxH")]
    pub size: Option<String>,
    /// Worker threads [default: all cores]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
}

impl SceneArgs {
    /// `--loop`, else `default`.
    pub fn loop_mode(&self, default: LoopMode) -> LoopMode {
        self.loop_mode
            .as_deref()
            .and_then(LoopMode::from_name)
            .unwrap_or(default)
    }
}

/// A CPU rasterizer with a pick buffer: renders, pick maps, picks and pick timings.
#[derive(Parser, Debug)]
#[command(name = "softpick", version, about, propagate_version = true)]
#[command(
    after_help = "Without MODEL every command uses the built-in 362-triangle scene.\n\
Errors print one line on stderr and exit with code 2."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Render the built-in scene, write output/render.png, output/pickmap.png
    /// and output/rules.png, and time every pick method at 360x360
    Demo(DemoArgs),
    /// Render a model to a PNG (and optionally the raw ID and depth buffers)
    Render(RenderCmd),
    /// Call a pick method at every pixel and color each pixel by what it returned
    Pickmap(PickmapCmd),
    /// The four fill rules side by side, with gaps, double cover and false claims marked and counted
    Rules(RulesCmd),
    /// What is under one pixel
    Pick(PickCmd),
    /// The meshes (and triangles) in a rectangle or a lasso, visible only or x-ray
    Select(SelectCmd),
    /// Time W x H picks covering every pixel, per method, and their agreement with the buffer
    Sweep(SweepCmd),
    /// Open the desktop viewer
    View(ViewCmd),
    /// Time the renderer alone: depth + ID pass and color pass, best/median of N frames
    BenchRender(BenchRenderCmd),
    /// Picking a moving scene, per frame: pose + BVH refit, render and a
    /// buffer sweep of every pixel; a ray sweep on the refit BVHs; refit
    /// against rebuild. A scene without animations is deformed by a wave
    /// through Scene::set_positions
    BenchPose(BenchPoseCmd),
    /// How much faster N threads are than one on this machine, for pure
    /// computation and for memory traffic: the ceilings of any parallel
    /// speed-up here
    BenchThreads(BenchThreadsCmd),
}

/// Fill rule and face culling of the render.
#[derive(Args, Debug, Clone)]
pub struct RasterArgs {
    /// Fill rule deciding pixel centres exactly on an edge
    #[arg(long, default_value = "top-left", value_name = "RULE",
          value_parser = PossibleValuesParser::new(FillRule::ALL.map(FillRule::name)))]
    pub rule: String,
    /// Faces to drop
    #[arg(long, default_value = "none", value_name = "MODE",
          value_parser = PossibleValuesParser::new(CULL_NAMES))]
    pub cull: String,
}

/// The user clip planes of the commands that render and pick.
#[derive(Args, Debug, Clone, Default)]
pub struct ClipArgs {
    /// A clip plane A,B,C,D in world space: keep the points with
    /// A·x + B·y + C·z + D ≥ 0. Repeat for more (at most 8; what is kept is
    /// their intersection). The render and every pick method honour them:
    /// what a plane cuts away is neither drawn nor picked (in `view`, besides
    /// the section plane of `C`)
    #[arg(long = "clip", value_name = "A,B,C,D", allow_hyphen_values = true)]
    pub clip: Vec<String>,
}

/// A pick method.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodArg {
    /// ID-buffer lookup
    Buffer,
    /// Point-in-triangle on the screen-space triangles
    Direct,
    /// 3D ray cast through the pixel centre
    Ray,
}

impl MethodArg {
    /// The library's method.
    pub fn method(self) -> PickMethod {
        match self {
            MethodArg::Buffer => PickMethod::Buffer,
            MethodArg::Direct => PickMethod::Direct,
            MethodArg::Ray => PickMethod::Ray,
        }
    }
}

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Worker threads (default: all cores)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
}

#[derive(Args, Debug)]
pub struct RenderCmd {
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub raster: RasterArgs,
    #[command(flatten)]
    pub clip: ClipArgs,
    /// Color image (PNG) [default: output/render.png]
    #[arg(short, long, value_name = "FILE.png", conflicts_with = "no_color")]
    pub output: Option<PathBuf>,
    /// Also write the ID buffer: raw little-endian u32, row 0 on top,
    /// global triangle index + 1, 0 = background
    #[arg(long, value_name = "FILE.u32")]
    pub ids_raw: Option<PathBuf>,
    /// Also write the depth buffer: raw little-endian f32 window depth 0..1, row 0 on top
    #[arg(long, value_name = "FILE.f32")]
    pub depth_raw: Option<PathBuf>,
    /// Pick-only pass: depth and IDs, no color (no PNG is written)
    #[arg(long)]
    pub no_color: bool,
}

/// What a pick map colors by.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByArg {
    /// One color per mesh
    Mesh,
    /// One color per triangle (global index)
    Triangle,
}

#[derive(Args, Debug)]
pub struct PickmapCmd {
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub raster: RasterArgs,
    #[command(flatten)]
    pub clip: ClipArgs,
    /// Color by mesh or by triangle
    #[arg(long, value_enum, default_value_t = ByArg::Mesh)]
    pub by: ByArg,
    /// Pick method called at every pixel
    #[arg(long, value_enum, default_value_t = MethodArg::Buffer)]
    pub method: MethodArg,
    /// Pick map (PNG, background black) [default: output/pickmap.png]
    #[arg(short, long, value_name = "FILE.png")]
    pub output: Option<PathBuf>,
    /// Also write what the picks returned: raw little-endian u32, global triangle index + 1, 0 = nothing
    #[arg(long, value_name = "FILE.u32")]
    pub ids_raw: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct RulesCmd {
    #[command(flatten)]
    pub scene: SceneArgs,
    /// The composed picture (PNG) [default: output/rules.png]
    #[arg(short, long, value_name = "FILE.png")]
    pub output: Option<PathBuf>,
    /// Print one JSON line per rule instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct PickCmd {
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub raster: RasterArgs,
    #[command(flatten)]
    pub clip: ClipArgs,
    /// Pixel to pick: column X (0 = left), row Y (0 = top); decimals pick the pixel containing the point
    #[arg(long, value_name = "X,Y", allow_hyphen_values = true)]
    pub at: String,
    /// Pick method
    #[arg(long, value_enum, default_value_t = MethodArg::Buffer)]
    pub method: MethodArg,
    /// List every triangle under the pixel, near to far
    #[arg(long)]
    pub all: bool,
    /// If nothing is under the pixel, pick the nearest covered pixel within
    /// N pixels (between pixel centres; ties: smaller y, then smaller x)
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub radius: Option<String>,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct SelectCmd {
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub raster: RasterArgs,
    #[command(flatten)]
    pub clip: ClipArgs,
    /// Pixel rectangle, corners inclusive and in any order, clamped to the frame
    #[arg(long, value_name = "X0,Y0,X1,Y1", allow_hyphen_values = true)]
    pub rect: Option<String>,
    /// Lasso polygon of at least 3 points in window coordinates (pixel
    /// centres at +0.5); a pixel is inside when its centre is (even-odd)
    #[arg(long, value_name = "X,Y,X,Y,...", allow_hyphen_values = true)]
    pub lasso: Option<String>,
    /// X-ray: also select occluded and sub-pixel triangles in the region
    #[arg(long)]
    pub through: bool,
    /// Also list the selected triangles (global indices)
    #[arg(long)]
    pub triangles: bool,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

/// Which methods a sweep times.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepMethodArg {
    /// ID-buffer lookup
    Buffer,
    /// Point-in-triangle on the screen-space triangles
    Direct,
    /// 3D ray cast
    Ray,
    /// All three
    All,
}

#[derive(Args, Debug)]
pub struct SweepCmd {
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub raster: RasterArgs,
    #[command(flatten)]
    pub clip: ClipArgs,
    /// Method(s) to time
    #[arg(long, value_enum, default_value_t = SweepMethodArg::All)]
    pub method: SweepMethodArg,
    /// Repetitions (at least; see --min-time); the best setup and sweep
    /// times are reported
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub reps: u32,
    /// Keep repeating each method for at least this many seconds (up to
    /// 1000 repetitions)
    #[arg(long, value_name = "S", default_value_t = 0.0)]
    pub min_time: f64,
    /// One JSON line per method
    #[arg(long)]
    pub json: bool,
}

/// Which passes `bench-render` times.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassArg {
    /// Pick-only pass: depth + ID
    Ids,
    /// Depth + ID + shaded color
    Color,
    /// Both
    Both,
}

#[derive(Args, Debug)]
pub struct BenchPoseCmd {
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub raster: RasterArgs,
    /// Timed frames (after 2 warm-up frames), from --time (default 0) on
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub frames: u32,
    /// Seconds of animation between frames
    #[arg(long, value_name = "S", default_value_t = 1.0 / 30.0)]
    pub step: f32,
    /// One JSON line instead of text
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct BenchRenderCmd {
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub raster: RasterArgs,
    #[command(flatten)]
    pub clip: ClipArgs,
    /// Pass(es) to time
    #[arg(long, value_enum, default_value_t = PassArg::Both)]
    pub pass: PassArg,
    /// Timed frames per pass (at least; see --min-time), after 3 warm-up frames
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub frames: u32,
    /// Keep timing each pass for at least this many seconds
    #[arg(long, value_name = "S", default_value_t = 0.0)]
    pub min_time: f64,
    /// Also time each pass on one thread, its frames alternating with the
    /// N-thread ones, and print N threads vs 1 (the JSON lines: N threads,
    /// then 1, both marked "interleaved")
    #[arg(long)]
    pub against_one_thread: bool,
    /// One JSON line per pass
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct BenchThreadsCmd {
    /// Threads to compare with one (default: the machine's cores)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Rounds of one thread alone and N threads at once, of computation and
    /// of memory traffic (about 120 ms each on 2 cores)
    #[arg(long, value_name = "N", default_value_t = 15,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub rounds: u32,
    /// One JSON line
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ViewCmd {
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub raster: RasterArgs,
    #[command(flatten)]
    pub clip: ClipArgs,
    /// Built-in scene to open without a model: `default` (the pick test) or
    /// `collide` (the collision playground: two spheres, a ramp, a step, a
    /// thin wall and the pick test)
    #[arg(long, value_name = "NAME", conflicts_with = "model",
          value_parser = ["default", "collide"])]
    pub builtin: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn cull_names_match_the_library() {
        for (name, mode) in CULL_NAMES.iter().zip(CULL_MODES) {
            assert_eq!(*name, mode.name());
        }
    }
}
