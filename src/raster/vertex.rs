//! The vertex stage's output: the screen-space vertex buffer.

/// One vertex of the screen-space vertex buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ScreenVertex {
    /// Window x in pixels (right).
    pub x: f32,
    /// Window y in pixels (down).
    pub y: f32,
    /// Window depth 0..1.
    pub z: f32,
    /// Clip-space w (≤ 0 means behind the eye; such a vertex has no window position).
    pub w: f32,
}
