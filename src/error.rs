//! The crate's error type. Every error that concerns a file names the file.

use std::path::PathBuf;

/// What was wrong with an OBJ file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ObjErrorKind {
    /// The file does not exist.
    #[error("file not found")]
    NotFound,
    /// The path is a directory or otherwise not a regular file.
    #[error("not a regular file")]
    NotAFile,
    /// The file has no geometry at all.
    #[error("empty file (no vertices or faces)")]
    Empty,
    /// The bytes are not text.
    #[error("not a text file (invalid UTF-8 or binary data{line})", line = at_line(*.0))]
    Binary(Option<usize>),
    /// A line the OBJ parser rejected.
    #[error("malformed OBJ{line}: {msg}", line = at_line(*.0), msg = .1)]
    Parse(Option<usize>, String),
    /// A face refers to a vertex that does not exist (or index 0).
    #[error("face index out of range{line}: {msg}", line = at_line(*.0), msg = .1)]
    IndexOutOfRange(Option<usize>, String),
    /// Faces exist but every triangle was dropped (degenerate or non-finite).
    #[error("no usable triangles ({0} dropped: non-finite vertices or fewer than 3 vertices)")]
    NoTriangles(usize),
    /// The file is above a size limit (checked before allocating for it).
    #[error("too large: {size} {what} (the limit is {limit})")]
    TooLarge {
        /// What was counted: `"bytes"` or `"triangles"`.
        what: &'static str,
        /// How many there are.
        size: u64,
        /// The limit.
        limit: u64,
    },
}

fn at_line(line: Option<usize>) -> String {
    line.map(|l| format!(" at line {l}")).unwrap_or_default()
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
    /// `projection` is neither perspective nor orthographic.
    #[error("unknown projection `{0}` (use \"perspective\" or \"orthographic\")")]
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
    /// An OBJ file could not be loaded.
    #[error("{}: {kind}", path.display())]
    Obj {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        kind: ObjErrorKind,
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
    /// The OBJ error kind, if this is an OBJ error.
    #[must_use]
    pub fn obj_kind(&self) -> Option<&ObjErrorKind> {
        match self {
            Error::Obj { kind, .. } => Some(kind),
            _ => None,
        }
    }
}

/// `Result` with softpick's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
