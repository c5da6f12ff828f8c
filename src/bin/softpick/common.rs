//! What every command shares: loading the scene and camera (options in
//! `args`), the error
//! type, stdout lines and all-or-nothing output files.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use softpick::animation::LoopMode;
use softpick::{
    builtin_scene, load_model_with, Camera, ClipPlanes, CullMode, FileCamera, FillRule,
    LoadOptions, LoadReport, RenderOptions, Renderer, Scene,
};

use crate::args::{ClipArgs, RasterArgs, SceneArgs, CULL_MODES, CULL_NAMES};

/// The default frame size.
pub const DEFAULT_SIZE: (u32, u32) = (360, 360);

/// Directory of the default output files.
pub const OUTPUT_DIR: &str = "output";

/// An error for the user: printed as `softpick: <message>`, exit code 2.
#[derive(Debug)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<softpick::Error> for CliError {
    fn from(e: softpick::Error) -> Self {
        CliError(e.to_string())
    }
}

/// Result of the commands.
pub type Res<T> = Result<T, CliError>;

/// Prints one JSON line per item on stdout.
pub fn say_json_lines<T: serde::Serialize>(items: &[T]) -> Res<()> {
    for r in items {
        let line = serde_json::to_string(r).unwrap_or_default();
        say(format_args!("{line}"))?;
    }
    Ok(())
}

/// Prints one line on stdout. A closed pipe (`softpick sweep | head -1`)
/// ends the program quietly.
pub fn say(args: fmt::Arguments<'_>) -> Res<()> {
    let mut out = std::io::stdout().lock();
    match out
        .write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(CliError(format!("stdout: {e}"))),
    }
}

/// A loaded scene, its camera and the render options.
pub struct Setup {
    pub scene: Scene,
    pub camera: Camera,
    pub opts: RenderOptions,
    /// The user clip planes (`--clip`).
    pub clip: Option<ClipPlanes>,
    /// How to name the scene in messages.
    pub label: String,
}

impl Setup {
    /// The pick-only pass (depth + ID, no color) of the scene from the
    /// camera, cut by the clip planes; its picks honour them too.
    pub fn render_ids(&self) -> Res<softpick::Frame> {
        let mut r = self.renderer(RenderOptions {
            color: false,
            ..self.opts
        })?;
        r.render(&self.scene, &self.camera)?;
        Ok(r.into_frame())
    }

    /// A renderer with `opts` and the clip planes.
    pub fn renderer(&self, opts: RenderOptions) -> Res<Renderer> {
        let mut r = Renderer::new(opts)?;
        r.set_clip_planes(self.clip.clone());
        Ok(r)
    }

    /// The same setup cut by the planes of `--clip`.
    pub fn with_clip(mut self, a: &ClipArgs) -> Res<Setup> {
        self.clip = clip_planes(a)?;
        Ok(self)
    }

    /// Loads the model (or the built-in scene), the camera and the options.
    pub fn new(args: &SceneArgs, raster: Option<&RasterArgs>) -> Res<Setup> {
        // parse cheap options first, so a bad --size fails before any loading
        let size = args.size.as_deref().map(parse_size).transpose()?;
        init_threads(args.threads)?;
        let load = LoadOptions {
            scene: args.scene.clone(),
        };
        let (scene, report, label) = match &args.model {
            None if args.scene.is_some() => {
                return Err(CliError(
                    "--scene chooses a scene of a glTF file; no model file was given".into(),
                ))
            }
            None => (
                builtin_scene(),
                LoadReport::default(),
                "built-in scene".to_string(),
            ),
            Some(path) => {
                // OBJ, STL, PLY or glTF: by extension, else by the first bytes
                let (scene, report) = load_model_with(path, &load)?;
                // each warning names the file (skipped faces and non-finite
                // triangles included)
                for w in &report.warnings {
                    eprintln!("softpick: warning: {w}");
                }
                let name = path.display();
                (scene, report, name.to_string())
            }
        };
        let mut scene = scene;
        if args.time.is_some() || args.animation.is_some() {
            pose(
                &mut scene,
                args.time.unwrap_or(0.0),
                args.animation.as_deref(),
                args.loop_mode(LoopMode::Once),
                &label,
            )?;
        }
        let camera = scene_camera(args.camera.as_deref(), size, &scene, &report, &label)?;
        let mut opts = RenderOptions {
            threads: args.threads.map(|n| n as usize),
            ..RenderOptions::default()
        };
        if let Some(r) = raster {
            opts.rule = parse_rule(&r.rule)?;
            opts.cull = parse_cull(&r.cull)?;
        }
        Ok(Setup {
            scene,
            camera,
            opts,
            clip: None,
            label,
        })
    }
}

/// Poses `scene` at `--time t` of `--animation key` (default: the first
/// animation; a scene without animations stays as it is, the same at
/// every time), a time past the end as `--loop` says.
pub fn pose(scene: &mut Scene, t: f32, key: Option<&str>, mode: LoopMode, label: &str) -> Res<()> {
    if !t.is_finite() {
        return Err(CliError(format!(
            "--time {t}: must be a finite number of seconds"
        )));
    }
    let anim = match key {
        Some(k) => Some(scene.find_animation(k).ok_or_else(|| {
            let names: Vec<String> = scene
                .animations()
                .iter()
                .enumerate()
                .map(|(i, a)| format!("{i} ({})", a.name))
                .collect();
            CliError(format!(
                "--animation {k}: {label} has no such animation (it has {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
        })?),
        None => (!scene.animations().is_empty()).then_some(0),
    };
    scene
        .pose(t, anim, mode)
        .map_err(|e| CliError(format!("{label}: cannot pose at {t} s: {e}")))?;
    Ok(())
}

/// What is wrong with a camera, without the library's "invalid camera"
/// prefix (the option it came from is named instead).
fn camera_problem(e: softpick::Error) -> String {
    match e {
        softpick::Error::InvalidCamera(c) => c.to_string(),
        e => e.to_string(),
    }
}

/// The camera of `--camera`: a camera JSON file, `gltf:N` / `gltf:NAME`
/// (a camera of the loaded glTF file, see [`FileCamera::find`]), or
/// automatic framing; `size` (`--size`) overrides the size.
pub fn scene_camera(
    given: Option<&Path>,
    size: Option<(u32, u32)>,
    scene: &Scene,
    report: &LoadReport,
    label: &str,
) -> Res<Camera> {
    let bounds = scene.framing_bounds();
    let key = given
        .and_then(Path::to_str)
        .and_then(|s| s.strip_prefix("gltf:"));
    let camera = match (given, key) {
        (_, Some(key)) => {
            let names = |c: &FileCamera| format!("{} ({})", c.index, c.name);
            let cam = FileCamera::find(&report.cameras, key, |n| {
                scene.nodes().get(n as usize).map(|n| n.name.clone())
            })
            .ok_or_else(|| {
                let list: Vec<String> = report.cameras.iter().map(names).collect();
                CliError(format!(
                    "--camera gltf:{key}: {label} has no such camera (it has {})",
                    if list.is_empty() {
                        "none".to_string()
                    } else {
                        list.join(", ")
                    }
                ))
            })?;
            return cam
                .camera(scene.world_matrix(cam.node), DEFAULT_SIZE.1, size, &bounds)
                .map_err(|e| CliError(format!("--camera gltf:{key}: {}", camera_problem(e))));
        }
        (Some(path), None) => Camera::load(path, &bounds)?,
        (None, _) => Camera::auto_frame(&bounds, DEFAULT_SIZE.0, DEFAULT_SIZE.1),
    };
    match size {
        Some((w, h)) => camera
            .try_with_size(w, h)
            .map_err(|e| CliError(format!("--size {w}x{h}: {}", camera_problem(e)))),
        None => Ok(camera),
    }
}

/// Sets the size of rayon's global pool (picks and sweeps run on it).
pub fn init_threads(n: Option<u32>) -> Res<()> {
    if let Some(n) = n {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n as usize)
            .build_global()
            .map_err(|e| CliError(format!("--threads {n}: cannot start the threads: {e}")))?;
    }
    Ok(())
}

/// Parses `WxH` (e.g. `360x360`); the camera checks the limits.
pub fn parse_size(s: &str) -> Res<(u32, u32)> {
    let bad = || {
        CliError(format!(
            "--size {s:?}: expected WIDTHxHEIGHT in pixels, e.g. 360x360"
        ))
    };
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    Ok((w, h))
}

/// The planes of `--clip` (`None`: none given).
pub fn clip_planes(a: &ClipArgs) -> Res<Option<ClipPlanes>> {
    if a.clip.is_empty() {
        return Ok(None);
    }
    let planes = a
        .clip
        .iter()
        .map(|s| parse_plane(s))
        .collect::<Res<Vec<[f32; 4]>>>()?;
    let clip = ClipPlanes::new(&planes).map_err(|e| CliError(format!("--clip: {e}")))?;
    Ok(Some(clip))
}

/// `A,B,C,D`: four finite numbers, the plane `A·x + B·y + C·z + D ≥ 0`.
pub fn parse_plane(s: &str) -> Res<[f32; 4]> {
    let bad = || {
        CliError(format!(
            "--clip {s}: expected a plane as four numbers A,B,C,D"
        ))
    };
    let v = s
        .split(',')
        .map(|x| x.trim().parse::<f32>().map_err(|_| bad()))
        .collect::<Res<Vec<f32>>>()?;
    <[f32; 4]>::try_from(v).map_err(|_| bad())
}

pub fn parse_rule(s: &str) -> Res<FillRule> {
    FillRule::from_name(s).ok_or_else(|| CliError(format!("--rule {s:?}: unknown fill rule")))
}

pub fn parse_cull(s: &str) -> Res<CullMode> {
    CULL_NAMES
        .iter()
        .position(|n| *n == s)
        .map(|i| CULL_MODES[i])
        .ok_or_else(|| CliError(format!("--cull {s:?}: unknown cull mode")))
}

/// The given output path, or `output/<name>` (creating `output/` if needed).
pub fn default_output(given: Option<&Path>, name: &str) -> Res<PathBuf> {
    match given {
        Some(p) => Ok(p.to_path_buf()),
        None => {
            let dir = Path::new(OUTPUT_DIR);
            std::fs::create_dir_all(dir).map_err(|e| {
                CliError(format!("{}: cannot create directory: {e}", dir.display()))
            })?;
            Ok(dir.join(name))
        }
    }
}

/// The output files of one command, written all or nothing: everything is
/// encoded first, every path is checked, then each file is written
/// atomically (temporary file + rename); if a write still fails, the files
/// this command already wrote are removed again.
#[derive(Default)]
pub struct Outputs {
    files: Vec<(PathBuf, Vec<u8>)>,
    written: Vec<PathBuf>,
}

impl Outputs {
    /// Adds a PNG of 0x00RRGGBB pixels.
    pub fn png(&mut self, path: &Path, w: u32, h: u32, px: &[u32]) -> Res<()> {
        let bytes = softpick::internals::encode_png(w, h, px)
            .map_err(|e| CliError(format!("{}: cannot encode PNG: {e}", path.display())))?;
        self.files.push((path.to_path_buf(), bytes));
        Ok(())
    }

    /// Adds a raw little-endian u32 file.
    pub fn raw_u32(&mut self, path: &Path, v: &[u32]) {
        let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.files.push((path.to_path_buf(), bytes));
    }

    /// Adds a raw little-endian f32 file.
    pub fn raw_f32(&mut self, path: &Path, v: &[f32]) {
        let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.files.push((path.to_path_buf(), bytes));
    }

    /// Checks every path, then writes every file.
    pub fn commit(&mut self) -> Res<()> {
        for (k, (p, _)) in self.files.iter().enumerate() {
            check_writable(p)?;
            if self.files[..k].iter().any(|(q, _)| q == p) {
                return Err(CliError(format!(
                    "{}: given for two different outputs",
                    p.display()
                )));
            }
        }
        for (p, bytes) in &self.files {
            if let Err(e) = softpick::internals::write_atomic(p, bytes) {
                for q in &self.written {
                    let _ = std::fs::remove_file(q);
                }
                self.written.clear();
                return Err(e.into());
            }
            self.written.push(p.clone());
        }
        Ok(())
    }

    /// The files written by [`Outputs::commit`].
    pub fn written(&self) -> &[PathBuf] {
        &self.written
    }
}

/// Fails early, with a clear message, for an output path that cannot be a file.
fn check_writable(p: &Path) -> Res<()> {
    let name = p.display();
    if p.file_name().is_none() {
        return Err(CliError(format!("{name}: not a file name")));
    }
    if p.is_dir() {
        return Err(CliError(format!("{name}: cannot write: is a directory")));
    }
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        let why = if parent.exists() {
            "is not a directory"
        } else {
            "does not exist"
        };
        return Err(CliError(format!(
            "{name}: cannot write: directory {} {why}",
            parent.display()
        )));
    }
    Ok(())
}

/// `--min-time` must be a number of seconds in [0, 3600].
pub fn check_min_time(t: f64) -> Res<()> {
    if t.is_finite() && (0.0..=3600.0).contains(&t) {
        return Ok(());
    }
    Err(CliError(format!(
        "--min-time {t}: expected seconds between 0 and 3600"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("360x360").unwrap(), (360, 360));
        assert_eq!(parse_size("64X32").unwrap(), (64, 32));
        for bad in ["", "360", "x", "axb", "-1x5", "3.5x2", "360x"] {
            let e = parse_size(bad).unwrap_err().0;
            assert!(e.starts_with("--size"), "{e}");
        }
    }

    #[test]
    fn rule_and_cull_names() {
        for r in FillRule::ALL {
            assert_eq!(parse_rule(r.name()).unwrap(), r);
        }
        for m in CULL_MODES {
            assert_eq!(parse_cull(m.name()).unwrap(), m);
        }
        assert!(parse_cull("sideways").is_err());
    }
}
