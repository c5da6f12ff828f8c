//! `softpick`: the command line of the softpick library.
//!
//! Every subcommand takes an optional OBJ model (default: the built-in
//! 362-triangle scene) and the common options of [`SceneArgs`]. Errors are
//! one line on stderr, `softpick: <file or option>: <problem>`, exit code 2.

mod bench;
mod bench_pose;
mod common;
mod font;
mod pick;
mod rules;
mod select;
mod sweep;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use softpick::internals::id_color;
use softpick::{builtin_scene, FillRule, PickMethod, RenderOptions, Renderer};

use common::{default_output, say, CliError, Outputs, Res, SceneArgs, Setup};

/// A CPU rasterizer with a pick buffer: renders, pick maps, picks and pick timings.
#[derive(Parser, Debug)]
#[command(name = "softpick", version, about, propagate_version = true)]
#[command(
    after_help = "Without MODEL every command uses the built-in 362-triangle scene.\n\
Errors print one line on stderr and exit with code 2."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
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
          value_parser = PossibleValuesParser::new(common::CULL_NAMES))]
    pub cull: String,
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
struct DemoArgs {
    /// Worker threads (default: all cores)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
}

#[derive(Args, Debug)]
struct RenderCmd {
    #[command(flatten)]
    scene: SceneArgs,
    #[command(flatten)]
    raster: RasterArgs,
    /// Color image (PNG) [default: output/render.png]
    #[arg(short, long, value_name = "FILE.png", conflicts_with = "no_color")]
    output: Option<PathBuf>,
    /// Also write the ID buffer: raw little-endian u32, row 0 on top,
    /// global triangle index + 1, 0 = background
    #[arg(long, value_name = "FILE.u32")]
    ids_raw: Option<PathBuf>,
    /// Also write the depth buffer: raw little-endian f32 window depth 0..1, row 0 on top
    #[arg(long, value_name = "FILE.f32")]
    depth_raw: Option<PathBuf>,
    /// Pick-only pass: depth and IDs, no color (no PNG is written)
    #[arg(long)]
    no_color: bool,
}

/// What a pick map colors by.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ByArg {
    /// One color per mesh
    Mesh,
    /// One color per triangle (global index)
    Triangle,
}

#[derive(Args, Debug)]
struct PickmapCmd {
    #[command(flatten)]
    scene: SceneArgs,
    #[command(flatten)]
    raster: RasterArgs,
    /// Color by mesh or by triangle
    #[arg(long, value_enum, default_value_t = ByArg::Mesh)]
    by: ByArg,
    /// Pick method called at every pixel
    #[arg(long, value_enum, default_value_t = MethodArg::Buffer)]
    method: MethodArg,
    /// Pick map (PNG, background black) [default: output/pickmap.png]
    #[arg(short, long, value_name = "FILE.png")]
    output: Option<PathBuf>,
    /// Also write what the picks returned: raw little-endian u32, global triangle index + 1, 0 = nothing
    #[arg(long, value_name = "FILE.u32")]
    ids_raw: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct RulesCmd {
    #[command(flatten)]
    scene: SceneArgs,
    /// The composed picture (PNG) [default: output/rules.png]
    #[arg(short, long, value_name = "FILE.png")]
    output: Option<PathBuf>,
    /// Print one JSON line per rule instead of a table
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct PickCmd {
    #[command(flatten)]
    scene: SceneArgs,
    #[command(flatten)]
    raster: RasterArgs,
    /// Pixel to pick: column X (0 = left), row Y (0 = top); decimals pick the pixel containing the point
    #[arg(long, value_name = "X,Y", allow_hyphen_values = true)]
    at: String,
    /// Pick method
    #[arg(long, value_enum, default_value_t = MethodArg::Buffer)]
    method: MethodArg,
    /// List every triangle under the pixel, near to far
    #[arg(long)]
    all: bool,
    /// If nothing is under the pixel, pick the nearest covered pixel within
    /// N pixels (between pixel centres; ties: smaller y, then smaller x)
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    radius: Option<String>,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct SelectCmd {
    #[command(flatten)]
    scene: SceneArgs,
    #[command(flatten)]
    raster: RasterArgs,
    /// Pixel rectangle, corners inclusive and in any order, clamped to the frame
    #[arg(long, value_name = "X0,Y0,X1,Y1", allow_hyphen_values = true)]
    rect: Option<String>,
    /// Lasso polygon of at least 3 points in window coordinates (pixel
    /// centres at +0.5); a pixel is inside when its centre is (even-odd)
    #[arg(long, value_name = "X,Y,X,Y,...", allow_hyphen_values = true)]
    lasso: Option<String>,
    /// X-ray: also select occluded and sub-pixel triangles in the region
    #[arg(long)]
    through: bool,
    /// Also list the selected triangles (global indices)
    #[arg(long)]
    triangles: bool,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
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
struct SweepCmd {
    #[command(flatten)]
    scene: SceneArgs,
    #[command(flatten)]
    raster: RasterArgs,
    /// Method(s) to time
    #[arg(long, value_enum, default_value_t = SweepMethodArg::All)]
    method: SweepMethodArg,
    /// Repetitions (at least; see --min-time); the best setup and sweep
    /// times are reported
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    reps: u32,
    /// Keep repeating each method for at least this many seconds (up to
    /// 1000 repetitions)
    #[arg(long, value_name = "S", default_value_t = 0.0)]
    min_time: f64,
    /// One JSON line per method
    #[arg(long)]
    json: bool,
}

/// Which passes `bench-render` times.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum PassArg {
    /// Pick-only pass: depth + ID
    Ids,
    /// Depth + ID + shaded color
    Color,
    /// Both
    Both,
}

#[derive(Args, Debug)]
struct BenchPoseCmd {
    #[command(flatten)]
    scene: SceneArgs,
    #[command(flatten)]
    raster: RasterArgs,
    /// Timed frames (after 2 warm-up frames), from --time (default 0) on
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    frames: u32,
    /// Seconds of animation between frames
    #[arg(long, value_name = "S", default_value_t = 1.0 / 30.0)]
    step: f32,
    /// One JSON line instead of text
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct BenchRenderCmd {
    #[command(flatten)]
    scene: SceneArgs,
    #[command(flatten)]
    raster: RasterArgs,
    /// Pass(es) to time
    #[arg(long, value_enum, default_value_t = PassArg::Both)]
    pass: PassArg,
    /// Timed frames per pass (at least; see --min-time), after 3 warm-up frames
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    frames: u32,
    /// Keep timing each pass for at least this many seconds
    #[arg(long, value_name = "S", default_value_t = 0.0)]
    min_time: f64,
    /// Also time each pass on one thread, its frames alternating with the
    /// N-thread ones, and print N threads vs 1 (the JSON lines: N threads,
    /// then 1, both marked "interleaved")
    #[arg(long)]
    against_one_thread: bool,
    /// One JSON line per pass
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct BenchThreadsCmd {
    /// Threads to compare with one (default: the machine's cores)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Rounds of one thread alone and N threads at once, of computation and
    /// of memory traffic (about 120 ms each on 2 cores)
    #[arg(long, value_name = "N", default_value_t = 15,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    rounds: u32,
    /// One JSON line
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct ViewCmd {
    #[command(flatten)]
    scene: SceneArgs,
    #[command(flatten)]
    raster: RasterArgs,
    /// Built-in scene to open without a model: `default` (the pick test) or
    /// `collide` (the collision playground: two spheres, a ramp, a step, a
    /// thin wall and the pick test)
    #[arg(long, value_name = "NAME", conflicts_with = "model",
          value_parser = ["default", "collide"])]
    builtin: Option<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("softpick: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cmd: Command) -> Res<ExitCode> {
    match cmd {
        Command::Demo(a) => demo(&a)?,
        Command::Render(a) => render_cmd(&a)?,
        Command::Pickmap(a) => pickmap_cmd(&a)?,
        Command::Rules(a) => rules_cmd(&a)?,
        Command::Pick(a) => pick::pick_cmd(
            &a.scene,
            &a.raster,
            &a.at,
            a.method,
            a.all,
            a.radius.as_deref(),
            a.json,
        )?,
        Command::Select(a) => select::select_cmd(
            &a.scene,
            &a.raster,
            a.rect.as_deref(),
            a.lasso.as_deref(),
            a.through,
            a.triangles,
            a.json,
        )?,
        Command::Sweep(a) => sweep_cmd(&a)?,
        Command::View(a) => return view_cmd(&a),
        Command::BenchRender(a) => bench_render_cmd(&a)?,
        Command::BenchPose(a) => {
            let s = Setup::new(&a.scene, Some(&a.raster))?;
            let start = a.scene.time.unwrap_or(0.0);
            bench_pose::run(
                s,
                a.frames,
                start,
                a.step,
                a.scene.animation.as_deref(),
                a.json,
            )?
        }
        Command::BenchThreads(a) => {
            let n = a
                .threads
                .map_or_else(rayon::current_num_threads, |n| n as usize);
            bench::print_ceiling(&bench::thread_ceiling(n, a.rounds)?, a.json)?
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn render_cmd(a: &RenderCmd) -> Res<()> {
    let s = Setup::new(&a.scene, Some(&a.raster))?;
    let opts = RenderOptions {
        color: !a.no_color,
        ..s.opts
    };
    let mut renderer = Renderer::new(opts)?;
    let t0 = Instant::now();
    let frame = renderer.render(&s.scene, &s.camera)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let (w, h) = (frame.width(), frame.height());
    let mut out = Outputs::default();
    if !a.no_color {
        let path = default_output(a.output.as_deref(), "render.png")?;
        out.png(&path, w, h, frame.color())?;
    }
    if let Some(p) = &a.ids_raw {
        out.raw_u32(p, frame.ids());
    }
    if let Some(p) = &a.depth_raw {
        out.raw_f32(p, frame.depth());
    }
    out.commit()?;
    let st = frame.stats();
    let covered = frame.ids().iter().filter(|&&i| i != 0).count();
    say(format_args!(
        "{}: {w}x{h}, {} instances, {} triangles ({} drawn, {} zero-area, {} culled, {} clipped), {covered} pixels covered, rule {}, {ms:.2} ms",
        s.label,
        s.scene.instances().len(),
        st.triangles,
        st.setups,
        st.zero_area,
        st.face_culled,
        st.clipped,
        frame.rule().name(),
    ))?;
    for p in out.written() {
        say(format_args!("wrote {}", p.display()))?;
    }
    Ok(())
}

/// Pick-map pixels and raw pick results (global triangle + 1) for one method.
fn pickmap_pixels(
    s: &Setup,
    frame: &softpick::Frame,
    method: PickMethod,
    by: ByArg,
) -> Res<(Vec<u32>, Vec<u32>)> {
    let hits = sweep::pick_grid(frame.picks(&s.scene)?.with(method), &|_| {});
    let pixels = hits
        .iter()
        .map(|h| {
            id_color(h.map(|(mesh, g)| match by {
                ByArg::Mesh => mesh,
                ByArg::Triangle => g,
            }))
        })
        .collect();
    let ids = hits.iter().map(|h| h.map_or(0, |(_, g)| g + 1)).collect();
    Ok((pixels, ids))
}

fn pickmap_cmd(a: &PickmapCmd) -> Res<()> {
    let s = Setup::new(&a.scene, Some(&a.raster))?;
    let frame = s.render_ids()?;
    let (pixels, ids) = pickmap_pixels(&s, &frame, a.method.method(), a.by)?;
    let mut out = Outputs::default();
    let path = default_output(a.output.as_deref(), "pickmap.png")?;
    out.png(&path, frame.width(), frame.height(), &pixels)?;
    if let Some(p) = &a.ids_raw {
        out.raw_u32(p, &ids);
    }
    out.commit()?;
    let picked = ids.iter().filter(|&&i| i != 0).count();
    say(format_args!(
        "{}: {}x{} pick map by {}, method {}, {picked} pixels hit",
        s.label,
        frame.width(),
        frame.height(),
        match a.by {
            ByArg::Mesh => "mesh",
            ByArg::Triangle => "triangle",
        },
        a.method.method().name()
    ))?;
    for p in out.written() {
        say(format_args!("wrote {}", p.display()))?;
    }
    Ok(())
}

fn rules_cmd(a: &RulesCmd) -> Res<()> {
    let s = Setup::new(&a.scene, None)?;
    let reports = softpick::analyze_rules(&s.scene, &s.camera)?;
    let (w, h, px) = rules::compose(&s.scene, &reports, s.camera.width, s.camera.height);
    let mut out = Outputs::default();
    let path = default_output(a.output.as_deref(), "rules.png")?;
    out.png(&path, w, h, &px)?;
    out.commit()?;
    rules::print_table(&reports, a.json)?;
    if !a.json {
        say(format_args!("wrote {}", path.display()))?;
    }
    Ok(())
}

fn sweep_cmd(a: &SweepCmd) -> Res<()> {
    check_min_time(a.min_time)?;
    let s = Setup::new(&a.scene, Some(&a.raster))?;
    let methods: Vec<PickMethod> = match a.method {
        SweepMethodArg::All => PickMethod::ALL.to_vec(),
        SweepMethodArg::Buffer => vec![PickMethod::Buffer],
        SweepMethodArg::Direct => vec![PickMethod::Direct],
        SweepMethodArg::Ray => vec![PickMethod::Ray],
    };
    let results = sweep::run(&s.scene, &s.camera, s.opts, &methods, a.reps, a.min_time)?;
    sweep::print(&results, a.json)
}

/// `--min-time` must be a number of seconds in [0, 3600].
fn check_min_time(t: f64) -> Res<()> {
    if t.is_finite() && (0.0..=3600.0).contains(&t) {
        return Ok(());
    }
    Err(CliError(format!(
        "--min-time {t}: expected seconds between 0 and 3600"
    )))
}

fn bench_render_cmd(a: &BenchRenderCmd) -> Res<()> {
    check_min_time(a.min_time)?;
    let s = Setup::new(&a.scene, Some(&a.raster))?;
    let passes = match a.pass {
        PassArg::Ids => bench::Passes::Ids,
        PassArg::Color => bench::Passes::Color,
        PassArg::Both => bench::Passes::Both,
    };
    let results = bench::run(
        &s.scene,
        &s.camera,
        s.opts,
        passes,
        a.frames,
        a.min_time,
        a.against_one_thread,
    )?;
    bench::print(&results, a.json)
}

fn demo(a: &DemoArgs) -> Res<()> {
    let t_all = Instant::now();
    common::init_threads(a.threads)?;
    let dir = PathBuf::from("output");
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError(format!("{}: cannot create directory: {e}", dir.display())))?;
    let scene = builtin_scene();
    let camera = softpick::Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let s = Setup {
        scene,
        camera,
        opts: RenderOptions {
            threads: a.threads.map(|n| n as usize),
            ..RenderOptions::default()
        },
        label: "built-in scene".into(),
    };
    let frame = softpick::render(&s.scene, &s.camera, s.opts)?;
    let (pick_px, _) = pickmap_pixels(&s, &frame, PickMethod::Buffer, ByArg::Mesh)?;
    let reports = softpick::analyze_rules(&s.scene, &s.camera)?;
    let (rw, rh, rules_px) = rules::compose(&s.scene, &reports, 360, 360);
    let mut out = Outputs::default();
    out.png(&dir.join("render.png"), 360, 360, frame.color())?;
    out.png(&dir.join("pickmap.png"), 360, 360, &pick_px)?;
    out.png(&dir.join("rules.png"), rw, rh, &rules_px)?;
    out.commit()?;
    say(format_args!(
        "softpick demo: built-in scene, {} meshes, {} triangles, 360x360, rule top-left",
        s.scene.meshes().len(),
        s.scene.triangle_count()
    ))?;
    for p in out.written() {
        say(format_args!("wrote {}", p.display()))?;
    }
    say(format_args!(""))?;
    rules::print_table(&reports, false)?;
    say(format_args!(""))?;
    let results = sweep::run(&s.scene, &s.camera, s.opts, &PickMethod::ALL, 3, 0.0)?;
    sweep::print(&results, false)?;
    say(format_args!(
        "\ndone in {:.1} s",
        t_all.elapsed().as_secs_f64()
    ))?;
    Ok(())
}

/// `softpick view`: the desktop viewer (`softpick::viewer`); its default
/// size is 800x600. No display: exit 2 naming the headless commands.
fn view_cmd(a: &ViewCmd) -> Res<ExitCode> {
    use softpick::viewer::{run, BuiltinScene, ViewerOptions, DEFAULT_HEIGHT, DEFAULT_WIDTH};
    let (width, height) = match a.scene.size.as_deref() {
        Some(s) => common::parse_size(s)?,
        None => (DEFAULT_WIDTH, DEFAULT_HEIGHT),
    };
    let rule = FillRule::from_name(&a.raster.rule)
        .ok_or_else(|| CliError(format!("--rule {:?}: unknown fill rule", a.raster.rule)))?;
    let cull = common::CULL_NAMES
        .iter()
        .position(|n| *n == a.raster.cull)
        .map(|i| common::CULL_MODES[i])
        .ok_or_else(|| CliError(format!("--cull {:?}: unknown cull mode", a.raster.cull)))?;
    let builtin = match a.builtin.as_deref() {
        None => BuiltinScene::default(),
        Some(n) => BuiltinScene::from_name(n)
            .ok_or_else(|| CliError(format!("--builtin {n:?}: unknown built-in scene")))?,
    };
    run(ViewerOptions {
        model: a.scene.model.clone(),
        scene: a.scene.scene.clone(),
        animation: a.scene.animation.clone(),
        time: a.scene.time,
        builtin,
        camera: a.scene.camera.clone(),
        width,
        height,
        rule,
        cull,
        threads: a.scene.threads.map(|n| n as usize),
        ..ViewerOptions::default()
    })?;
    Ok(ExitCode::SUCCESS)
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
        for (name, mode) in common::CULL_NAMES.iter().zip(common::CULL_MODES) {
            assert_eq!(*name, mode.name());
        }
    }
}
