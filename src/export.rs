//! Pictures and raw buffers out: PNG (color, pick maps), raw little-endian
//! `.u32` ID buffers and `.f32` depth buffers in the peers' format.
//!
//! Every writer writes to a temporary file next to the target and renames
//! it into place, so a failed write never leaves a partial file behind.

use std::io::Write;
use std::path::Path;

use crate::error::Error;
use crate::scene::palette_color;

fn io_err(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

/// Writes `bytes` to `path` atomically (temporary file + rename).
///
/// # Errors
/// [`Error::Io`] naming the file when it cannot be written.
pub fn write_atomic(path: impl AsRef<Path>, bytes: &[u8]) -> Result<(), Error> {
    let path = path.as_ref();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io_err(path, std::io::Error::other("not a file name")))?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let res = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = res {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_err(path, e));
    }
    Ok(())
}

#[cfg(feature = "png")]
/// Encodes 0x00RRGGBB pixels as an RGB PNG in memory.
pub fn encode_png(width: u32, height: u32, pixels: &[u32]) -> Result<Vec<u8>, String> {
    let rgb: Vec<u8> = pixels
        .iter()
        .flat_map(|&p| [(p >> 16) as u8, (p >> 8) as u8, p as u8])
        .collect();
    let img = image::RgbImage::from_raw(width, height, rgb).ok_or("buffer size does not match")?;
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(feature = "png")]
/// Writes 0x00RRGGBB pixels as a PNG file.
///
/// # Errors
/// [`Error::Image`] when the pixels are not `width · height`, or
/// [`Error::Io`] when the file cannot be written; both name the file.
pub fn write_png(
    path: impl AsRef<Path>,
    width: u32,
    height: u32,
    pixels: &[u32],
) -> Result<(), Error> {
    let path = path.as_ref();
    let bytes = encode_png(width, height, pixels).map_err(|message| Error::Image {
        path: path.to_path_buf(),
        message,
    })?;
    write_atomic(path, &bytes)
}

#[cfg(feature = "png")]
/// Reads a PNG as 0x00RRGGBB pixels (width, height, pixels).
///
/// # Errors
/// [`Error::Image`] naming the file when it cannot be read or decoded.
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn read_png(path: impl AsRef<Path>) -> Result<(u32, u32, Vec<u32>), Error> {
    let path = path.as_ref();
    let img = image::open(path)
        .map_err(|e| Error::Image {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?
        .to_rgb8();
    let px = img
        .pixels()
        .map(|p| (u32::from(p[0]) << 16) | (u32::from(p[1]) << 8) | u32::from(p[2]))
        .collect();
    Ok((img.width(), img.height(), px))
}

/// Writes u32 values as raw little-endian (the peers' `.u32` format).
///
/// # Errors
/// [`Error::Io`] naming the file when it cannot be written.
pub fn write_raw_u32(path: impl AsRef<Path>, values: &[u32]) -> Result<(), Error> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    write_atomic(path, &bytes)
}

/// Writes f32 values as raw little-endian (the peers' `.f32` format).
///
/// # Errors
/// [`Error::Io`] naming the file when it cannot be written.
pub fn write_raw_f32(path: impl AsRef<Path>, values: &[f32]) -> Result<(), Error> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    write_atomic(path, &bytes)
}

/// Reads a raw little-endian `.u32` file.
///
/// # Errors
/// [`Error::Io`] naming the file when it cannot be read.
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn read_raw_u32(path: impl AsRef<Path>) -> Result<Vec<u32>, Error> {
    let path = path.as_ref();
    let b = std::fs::read(path).map_err(|e| io_err(path, e))?;
    Ok(b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The pick-map color of an id: black for `None`, a fixed distinct palette otherwise.
#[must_use]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn id_color(id: Option<u32>) -> u32 {
    match id {
        None => 0,
        Some(i) => {
            let [r, g, b] = palette_color(i);
            (u32::from(r) << 16) | (u32::from(g) << 8) | u32::from(b)
        }
    }
}
