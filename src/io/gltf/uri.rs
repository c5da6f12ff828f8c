//! The bytes of a file's buffers: a GLB's BIN chunk, base64 data URIs, or
//! files beside the model (their `%XX`-escaped names decoded), each checked
//! against its declared byteLength and all of them against the size limit.

use std::path::Path;

use super::FORMAT;
use crate::error::{Error, ModelErrorKind};
use crate::io::{model_err, read_model_file, too_large, Unreadable, MAX_MODEL_BYTES};

/// The bytes of every buffer: the GLB's BIN chunk, a data URI, or a file
/// beside the model (only when `read_files`).
pub(super) fn load_buffers(
    path: &Path,
    doc: &gltf::Document,
    bin: Option<&[u8]>,
    read_files: bool,
) -> Result<Vec<Vec<u8>>, Error> {
    let fail = |place: String, msg: String| model_err(path, FORMAT, ModelErrorKind::At(place, msg));
    let mut out = Vec::new();
    let mut total = 0u64;
    for b in doc.buffers() {
        let place = format!("buffers[{}]", b.index());
        let data = match b.source() {
            gltf::buffer::Source::Bin => bin
                .ok_or_else(|| {
                    fail(
                        place.clone(),
                        "refers to the GLB's BIN chunk, which this file lacks".into(),
                    )
                })?
                .to_vec(),
            gltf::buffer::Source::Uri(uri) => {
                if let Some(rest) = uri.strip_prefix("data:") {
                    decode_data_uri(rest).map_err(|m| fail(format!("{place}.uri"), m))?
                } else if !read_files {
                    return Err(fail(
                        format!("{place}.uri"),
                        format!(
                            "the external file `{uri}` cannot be read when loading from memory"
                        ),
                    ));
                } else {
                    let name = percent_decode(uri);
                    let file = path.parent().unwrap_or(Path::new(".")).join(&name);
                    read_model_file(&file, MAX_MODEL_BYTES, |why| {
                        let msg = match why {
                            Unreadable::NotFound => {
                                format!("`{name}` was not found beside the file")
                            }
                            Unreadable::NotAFile => {
                                format!("`{name}` is not a regular file")
                            }
                            Unreadable::TooLarge(n) => {
                                format!(
                                    "`{name}` has {n} bytes, above the limit of {MAX_MODEL_BYTES}"
                                )
                            }
                        };
                        fail(format!("{place}.uri"), msg)
                    })?
                }
            }
        };
        if data.len() < b.length() {
            return Err(fail(
                place,
                format!(
                    "byteLength is {} but the data has {} bytes",
                    b.length(),
                    data.len()
                ),
            ));
        }
        total += data.len() as u64;
        if total > MAX_MODEL_BYTES {
            return Err(too_large(
                path,
                FORMAT,
                "buffer bytes",
                total,
                MAX_MODEL_BYTES,
            ));
        }
        out.push(data);
    }
    Ok(out)
}

/// The bytes of a data URI after `data:` (base64 only, as glTF requires).
fn decode_data_uri(rest: &str) -> Result<Vec<u8>, String> {
    use base64::Engine;
    let (_, payload) = rest
        .split_once(";base64,")
        .ok_or_else(|| "a data URI must be base64 (`data:...;base64,...`)".to_string())?;
    if payload.len() as u64 / 4 * 3 > MAX_MODEL_BYTES {
        return Err(format!(
            "the data URI is above the limit of {MAX_MODEL_BYTES} bytes"
        ));
    }
    base64::engine::general_purpose::STANDARD
        .decode(payload.trim_end())
        .map_err(|e| format!("invalid base64: {e}"))
}

/// `%XX` escapes of a relative URI decoded (file names with spaces are
/// written `%20` in glTF files); anything malformed is kept as written.
fn percent_decode(uri: &str) -> String {
    let b = uri.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_decode_and_malformed_ones_stay() {
        assert_eq!(percent_decode("my%20model.bin"), "my model.bin");
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz.bin"), "%zz.bin");
    }
}
