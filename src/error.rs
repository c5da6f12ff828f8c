//! The crate's error type. Every error that concerns a file names the file.

use std::path::PathBuf;

fn at_line(line: Option<usize>) -> String {
    line.map(|l| format!(" at line {l}")).unwrap_or_default()
}

/// A model file format softpick reads (`load_model` chooses one by
/// the file's extension, then by its first bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelFormat {
    /// Wavefront OBJ (`.obj`), cargo feature `obj`.
    Obj,
    /// STL, binary or ASCII (`.stl`), cargo feature `stl`.
    Stl,
    /// PLY, ASCII or binary (`.ply`), cargo feature `ply`.
    Ply,
    /// glTF 2.0 (`.gltf`, `.glb`), cargo feature `gltf`.
    Gltf,
}

impl ModelFormat {
    /// Every format, in the order of the docs.
    pub const ALL: [ModelFormat; 4] = [
        ModelFormat::Obj,
        ModelFormat::Stl,
        ModelFormat::Ply,
        ModelFormat::Gltf,
    ];

    /// The format's name as the docs write it: `"OBJ"`, `"STL"`, `"PLY"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ModelFormat::Obj => "OBJ",
            ModelFormat::Stl => "STL",
            ModelFormat::Ply => "PLY",
            ModelFormat::Gltf => "glTF",
        }
    }

    /// The cargo feature that reads the format: `"obj"`, `"stl"`, `"ply"`, `"gltf"`.
    #[must_use]
    pub fn feature(self) -> &'static str {
        match self {
            ModelFormat::Obj => "obj",
            ModelFormat::Stl => "stl",
            ModelFormat::Ply => "ply",
            ModelFormat::Gltf => "gltf",
        }
    }

    /// The format a file extension names (`obj`, `stl`, `ply`, `gltf`,
    /// `glb`, any case, without the dot); `None` for any other.
    #[must_use]
    pub fn from_extension(ext: &str) -> Option<ModelFormat> {
        if ext.eq_ignore_ascii_case("glb") {
            return Some(ModelFormat::Gltf);
        }
        ModelFormat::ALL
            .into_iter()
            .find(|f| ext.eq_ignore_ascii_case(f.feature()))
    }

    /// Is this build able to read the format (its cargo feature on)?
    #[must_use]
    pub fn enabled(self) -> bool {
        match self {
            ModelFormat::Obj => cfg!(feature = "obj"),
            ModelFormat::Stl => cfg!(feature = "stl"),
            ModelFormat::Ply => cfg!(feature = "ply"),
            ModelFormat::Gltf => cfg!(feature = "gltf"),
        }
    }
}

impl std::fmt::Display for ModelFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What was wrong with a model file: the one kind of every loader (OBJ,
/// STL, PLY and glTF), carried by [`Error::Model`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelErrorKind {
    /// The file does not exist.
    #[error("file not found")]
    NotFound,
    /// The path is a directory or otherwise not a regular file.
    #[error("not a regular file")]
    NotAFile,
    /// The file has no bytes, no vertices or faces, or no facets.
    #[error("empty model: {0}")]
    Empty(String),
    /// A text format's bytes are not text (OBJ): invalid UTF-8 or binary
    /// data, at this line when known.
    #[error("not a text file (invalid UTF-8 or binary data{line})", line = at_line(*.0))]
    Binary(Option<usize>),
    /// The bytes are not this format at all (another format, HTML, text).
    #[error("not a{n} {fmt} file: {msg}", n = an(*.0), fmt = .0, msg = .1)]
    WrongFormat(ModelFormat, String),
    /// The file ends before the data its header declares.
    #[error("truncated: {0}")]
    Truncated(String),
    /// A header, line or record the reader rejected.
    #[error("malformed {fmt}{line}: {msg}", fmt = .0, line = at_line(*.1), msg = .2)]
    Parse(ModelFormat, Option<usize>, String),
    /// A face refers to a vertex that does not exist.
    #[error("face index out of range{line}: {msg}", line = at_line(*.0), msg = .1)]
    IndexOutOfRange(Option<usize>, String),
    /// Triangles exist but none is usable (every one touches a non-finite vertex).
    #[error("no usable triangles ({0} dropped: non-finite vertices or fewer than 3 vertices)")]
    NoTriangles(usize),
    /// A problem at a place in a glTF file, e.g.
    /// `meshes[0].primitives[1].indices`.
    #[error("{0}: {1}")]
    At(String, String),
    /// A glTF file requires an extension softpick does not read (the
    /// extension, and where the file names it).
    #[error("{1}: requires the extension `{0}`, which softpick does not read")]
    UnsupportedExtension(String, String),
    /// The file is above a size limit (checked before allocating for it).
    #[error("too large: {size} {what} (the limit is {limit})")]
    TooLarge {
        /// What was counted: `"bytes"`, `"vertices"` or `"triangles"`.
        what: &'static str,
        /// How many there are.
        size: u64,
        /// The limit.
        limit: u64,
    },
}

fn an(f: ModelFormat) -> &'static str {
    match f {
        ModelFormat::Obj | ModelFormat::Stl => "n",
        ModelFormat::Ply | ModelFormat::Gltf => "",
    }
}

/// The values a pinhole intrinsic may take, for [`CameraError::Intrinsic`].
fn intrinsic_range(name: &str) -> &'static str {
    match name {
        "fx" | "fy" => "finite and > 0",
        _ => "finite",
    }
}

/// What was wrong with a camera.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CameraError {
    /// The JSON did not parse.
    #[error("invalid camera JSON: {0}")]
    Json(String),
    /// A required field is missing.
    #[error("missing field `{0}`")]
    Missing(&'static str),
    /// `projection` is neither perspective, orthographic nor pinhole.
    #[error("unknown projection `{0}` (use \"perspective\", \"orthographic\" or \"pinhole\")")]
    UnknownProjection(String),
    /// A coordinate is NaN or infinite.
    #[error("camera values must be finite")]
    NonFinite,
    /// `near <= 0`.
    #[error("near must be > 0 (got {0})")]
    Near(f32),
    /// `near >= far`.
    #[error("near must be < far (got near {0}, far {1})")]
    NearFar(f32, f32),
    /// Field of view outside (0, 180).
    #[error("fov_y_deg must be in (0, 180) (got {0})")]
    Fov(f32),
    /// Orthographic height not positive.
    #[error("ortho_height must be > 0 (got {0})")]
    OrthoHeight(f32),
    /// A pinhole intrinsic out of range: `fx` or `fy` not finite and
    /// positive, or `cx`, `cy` or `skew` not finite.
    #[error(
        "pinhole intrinsic {name} must be {} (got {value})",
        intrinsic_range(name)
    )]
    Intrinsic {
        /// Which one: `fx`, `fy`, `cx`, `cy` or `skew`.
        name: &'static str,
        /// Its value.
        value: f32,
    },
    /// Eye and target coincide.
    #[error("eye and target are the same point")]
    EyeIsTarget,
    /// Up is zero or parallel to the view direction.
    #[error("up is zero or parallel to the view direction")]
    UpParallel,
    /// Width or height is 0 or above the limit.
    #[error("frame size {0}x{1} is invalid (each side must be 1..=16384)")]
    Size(u32, u32),
}

/// softpick's error type.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A model file (OBJ, STL, PLY or glTF) could not be loaded.
    #[error("{}: {kind}", path.display())]
    Model {
        /// The file.
        path: PathBuf,
        /// Its format (as chosen by extension or content).
        format: ModelFormat,
        /// What was wrong.
        kind: ModelErrorKind,
    },
    /// A model file is in a format whose cargo feature is off in this build
    /// (or in no format softpick reads).
    #[error("{}: {format} files need softpick's cargo feature `{feature}`, which this build lacks{why}", path.display(), feature = format.feature())]
    FormatDisabled {
        /// The file.
        path: PathBuf,
        /// The format it is (or would be read as).
        format: ModelFormat,
        /// How the format was chosen, e.g. " (chosen by the extension `.stl`)".
        why: String,
    },
    /// An option does not apply to the file (e.g. a glTF scene choice for an OBJ file).
    #[error("{}: {message}", path.display())]
    Option {
        /// The file.
        path: PathBuf,
        /// What does not apply, and why.
        message: String,
    },
    /// A camera file was invalid.
    #[error("{}: {source}", path.display())]
    Camera {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        source: CameraError,
    },
    /// An image could not be encoded or written.
    #[error("{}: cannot write image: {message}", path.display())]
    Image {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A mesh could not be made or changed: a triangle naming a vertex the
    /// mesh does not have, new positions of another count than its
    /// vertices, a mesh id the scene does not have.
    #[error("invalid mesh: {0}")]
    InvalidMesh(String),
    /// A skin, deformer, animation or pose that does not fit the scene: a
    /// joint or channel naming a node the scene does not have, a deformer
    /// of another vertex count than its mesh, channel keys that cannot be
    /// sampled, an animation, skin or instance index out of range.
    #[error("invalid scene: {0}")]
    InvalidScene(String),
    /// User clip planes that cannot be used: a non-finite value, a zero
    /// normal, or more planes for a mesh than
    /// [`MAX_CLIP_PLANES`](crate::limits::MAX_CLIP_PLANES).
    #[error("invalid clip planes: {0}")]
    InvalidClipPlanes(String),
    /// A camera given in code was invalid.
    #[error("invalid camera: {0}")]
    InvalidCamera(CameraError),
    /// A frame size of zero or above the limit.
    #[error("frame size {0}x{1} is invalid (each side must be 1..=16384)")]
    InvalidSize(u32, u32),
    /// No window could be opened.
    #[error("{0}")]
    Window(String),
    /// A frame was picked with a scene it was not rendered from, or with its
    /// scene after that scene changed (render again first).
    #[error("the frame was rendered from {0}; render it again from this scene before picking")]
    StaleFrame(&'static str),
}

impl Error {
    /// The message of an [`Error::InvalidMesh`] or [`Error::InvalidScene`]
    /// without its prefix (for a loader that names the place in the file
    /// itself), else the whole message.
    #[cfg(any(feature = "obj", feature = "stl", feature = "ply", feature = "gltf"))]
    pub(crate) fn detail(self) -> String {
        match self {
            Error::InvalidMesh(m) | Error::InvalidScene(m) => m,
            e => e.to_string(),
        }
    }

    /// What was wrong with a model file, if this is a model error
    /// ([`Error::Model`], every format).
    #[must_use]
    pub fn model_kind(&self) -> Option<&ModelErrorKind> {
        match self {
            Error::Model { kind, .. } => Some(kind),
            _ => None,
        }
    }
}

/// `Result` with softpick's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
