//! The chunks of a GLB: its JSON and its BIN, each checked against the
//! lengths the header and chunk headers declare.

use super::Fail;
use crate::error::ModelErrorKind;

/// The JSON chunk and the BIN chunk of a GLB (checked lengths), or the
/// whole input as JSON when it does not start with the GLB magic.
pub(super) fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), Fail> {
    if !bytes.starts_with(b"glTF") {
        return Ok((bytes, None));
    }
    let word = |at: usize| -> Option<u32> {
        let b = bytes.get(at..at + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let truncated = |what: &str| Fail(ModelErrorKind::Truncated(format!("GLB {what}")));
    let version = word(4).ok_or_else(|| truncated("header"))?;
    if version != 2 {
        return Err(Fail::at("GLB header", format!("version {version}, not 2")));
    }
    let length = word(8).ok_or_else(|| truncated("header"))? as usize;
    if length > bytes.len() {
        return Err(truncated(&format!(
            "of {length} bytes declared, {} present",
            bytes.len()
        )));
    }
    let mut at = 12;
    let (mut json, mut bin) = (None, None);
    while at + 8 <= length {
        let len = word(at).ok_or_else(|| truncated("chunk header"))? as usize;
        let kind = word(at + 4).ok_or_else(|| truncated("chunk header"))?;
        let start = at + 8;
        let end = start
            .checked_add(len)
            .filter(|&e| e <= length)
            .ok_or_else(|| truncated(&format!("chunk at byte {at}: {len} bytes declared")))?;
        match kind {
            0x4E4F_534A if json.is_none() => json = Some(&bytes[start..end]),
            0x004E_4942 if bin.is_none() => bin = Some(&bytes[start..end]),
            _ => {}
        }
        at = end;
    }
    let json = json.ok_or_else(|| Fail::at("GLB", "no JSON chunk"))?;
    Ok((json, bin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glb_chunks_are_checked_against_the_lengths() {
        assert!(split_glb(b"glTF").is_err());
        let mut glb = b"glTF".to_vec();
        glb.extend(2u32.to_le_bytes());
        glb.extend(8u32.to_le_bytes()); // less than the header
        assert!(split_glb(&glb).is_err());
        let mut glb = b"glTF".to_vec();
        glb.extend(2u32.to_le_bytes());
        glb.extend(1000u32.to_le_bytes()); // more than present
        assert!(split_glb(&glb).is_err());
    }
}
