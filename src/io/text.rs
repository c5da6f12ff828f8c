//! Text as tools write it, made into the UTF-8 with `\n` line ends that the
//! OBJ and MTL parsers read: a UTF-8 byte-order mark is dropped, UTF-16
//! with a byte-order mark is decoded, CRLF and lone CR line ends become LF,
//! and bytes that are not UTF-8 inside names and comments are decoded
//! lossily (each invalid sequence becomes U+FFFD), so a file whose material
//! is called `Terraindæk` in Latin-1 still loads its geometry.
//!
//! What is not text stays an error: a NUL byte anywhere, or bytes that are
//! not UTF-8 in any other statement than a name or a comment (a vertex, a
//! face, …), give [`Found::Binary`] with the line to blame. Line numbers
//! count LF, CRLF and lone CR line ends alike, so they are the lines an
//! editor shows.

use std::borrow::Cow;

/// What a file's bytes turned out to be.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Found<'a> {
    /// Text, with `\n` line ends.
    Text(Cow<'a, str>),
    /// Not text: the first line (1-based) holding a NUL byte or bytes that
    /// are not UTF-8 outside a name or comment.
    Binary(usize),
}

/// Statements whose rest of line is a name, where any bytes may stand.
const NAME_STATEMENTS: [&[u8]; 6] = [b"o", b"g", b"usemtl", b"mtllib", b"newmtl", b"s"];

/// Decodes the bytes of an OBJ or MTL file (see the module docs).
pub(crate) fn decode(bytes: &[u8]) -> Found<'_> {
    if let Some(units) = utf16(bytes) {
        let text: String = char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect();
        if let Some(line) = check(text.as_bytes(), true) {
            return Found::Binary(line);
        }
        return Found::Text(Cow::Owned(match unify_line_ends(&text) {
            Cow::Borrowed(_) => text,
            Cow::Owned(unified) => unified,
        }));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Some(line) = check(bytes, false) {
        return Found::Binary(line);
    }
    let text = String::from_utf8_lossy(bytes);
    match unify_line_ends(&text) {
        Cow::Borrowed(_) => Found::Text(text),
        Cow::Owned(s) => Found::Text(Cow::Owned(s)),
    }
}

/// The UTF-16 code units of a file that starts with a UTF-16 byte-order
/// mark (either byte order), without the mark; an odd last byte is dropped.
fn utf16(bytes: &[u8]) -> Option<impl Iterator<Item = u16> + '_> {
    let little = match bytes {
        [0xFF, 0xFE, ..] => true,
        [0xFE, 0xFF, ..] => false,
        _ => return None,
    };
    Some(bytes[2..].chunks_exact(2).map(move |p| {
        if little {
            u16::from_le_bytes([p[0], p[1]])
        } else {
            u16::from_be_bytes([p[0], p[1]])
        }
    }))
}

/// The first line that is not text, if any (see [`Found::Binary`]). From
/// UTF-16 (`decoded`), where any two bytes make some character, a line is
/// text only when its statement is ASCII: anything else outside a name or
/// comment means the mark did not start UTF-16 text.
fn check(bytes: &[u8], decoded: bool) -> Option<usize> {
    if bytes.is_ascii() && !bytes.contains(&0) {
        return None;
    }
    for (i, line) in lines(bytes).enumerate() {
        if line.contains(&0) {
            return Some(i + 1);
        }
        let foreign = if decoded {
            !line.is_ascii()
        } else {
            std::str::from_utf8(line).is_err()
        };
        if foreign && !is_name_or_comment(line) {
            return Some(i + 1);
        }
    }
    None
}

/// The lines of `bytes`, split at LF, CRLF and lone CR.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .unwrap_or(rest.len());
        let line = &rest[..end];
        let skip = match rest.get(end..end + 2) {
            Some(b"\r\n") => 2,
            _ => usize::from(end < rest.len()),
        };
        rest = &rest[end + skip..];
        Some(line)
    })
}

/// Does every byte that is not UTF-8 in `line` stand in a name (the rest of
/// an `o`, `g`, `usemtl`, … statement) or in a comment (after `#`)?
fn is_name_or_comment(line: &[u8]) -> bool {
    let start = line
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(line.len());
    let word_end = line[start..]
        .iter()
        .position(u8::is_ascii_whitespace)
        .map_or(line.len(), |n| start + n);
    if NAME_STATEMENTS.contains(&&line[start..word_end]) {
        return true;
    }
    // a comment: the statement before `#` must be ASCII text on its own
    match line.iter().position(|&b| b == b'#') {
        Some(hash) => line[..hash].is_ascii(),
        None => false,
    }
}

/// `text` with CRLF and lone CR line ends made LF.
fn unify_line_ends(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &[u8]) -> String {
        match decode(bytes) {
            Found::Text(t) => t.into_owned(),
            Found::Binary(l) => panic!("binary at line {l}"),
        }
    }

    #[test]
    fn byte_order_marks_and_line_ends_are_undone() {
        assert_eq!(
            text(b"\xEF\xBB\xBFv 0 0 0\r\nv 1 0 0\r\n"),
            "v 0 0 0\nv 1 0 0\n"
        );
        assert_eq!(text(b"v 0 0 0\rv 1 0 0\r"), "v 0 0 0\nv 1 0 0\n");
        let utf16le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("o æ\r\nv 1 2 3\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(text(&utf16le), "o æ\nv 1 2 3\n");
        let utf16be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain("v 1 2 3\n".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(text(&utf16be), "v 1 2 3\n");
        // a UTF-16 mark before bytes that are not UTF-16 text
        assert_eq!(decode(b"\xff\xfe\x00\x01newmtl"), Found::Binary(1));
        // plain text is not copied
        assert!(matches!(
            decode(b"v 0 0 0\n"),
            Found::Text(Cow::Borrowed(_))
        ));
    }

    #[test]
    fn latin1_names_and_comments_decode_lossily_geometry_does_not() {
        assert_eq!(
            text(b"usemtl Terraind\xe6k\n# caf\xe9\nv 0 0 0 # \xff\n"),
            "usemtl Terraind\u{FFFD}k\n# caf\u{FFFD}\nv 0 0 0 # \u{FFFD}\n"
        );
        assert_eq!(decode(b"v 0 0 0\r\nv 1 \xff 0\n"), Found::Binary(2));
        assert_eq!(decode(b"v 0 0 0\rv 1\x000 0\r"), Found::Binary(2));
        assert_eq!(decode(b"\x89PNG\r\n\x1a\n"), Found::Binary(1));
        // a NUL is binary even in a name
        assert_eq!(decode(b"o a\x00b\n"), Found::Binary(1));
    }
}
