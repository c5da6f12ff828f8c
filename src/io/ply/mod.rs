//! PLY loading with `ply-rs-bw`: ASCII, binary little- and big-endian.
//!
//! A file is one mesh named after the file stem, on a root node of the
//! same name. Its vertices are the `vertex` element's `x`, `y`, `z`
//! (any scalar type: float, double or integer; doubles are rounded to
//! `f32`); its faces are the `face` element's `vertex_indices` (or
//! `vertex_index`) list, of any integer type. A face with n > 3 vertices is
//! fan-triangulated (v0,v1,v2),(v0,v2,v3)… like an OBJ face, faces with 1–2
//! vertices are skipped (counted in [`LoadReport::skipped_faces`]), and the
//! global triangle index counts the triangles in file order. Other elements
//! and properties are read past and ignored (`tristrips` with a warning).
//!
//! Color: when the vertices have `red`, `green` and `blue` (or
//! `diffuse_red`, …) properties, the mesh color is the average vertex
//! color (softpick draws one flat color per mesh; integer channels are
//! 0–255, float channels 0–1); otherwise [`Mesh::palette_color(0)`](crate::Mesh::palette_color).
//! Framing bounds: the box of every finite vertex.
//!
//! Bad input is refused with the file named, before `ply-rs-bw` is given
//! anything it would misread or spend unbounded time on: a first line that
//! is not `ply`, a header without `end_header`, without vertices or faces,
//! with a repeated element or property name (the crate would keep one and
//! misread the rest), element counts that the bytes after the header cannot
//! hold (each binary element has a least size; each ASCII element takes a
//! line), face indices out of range or negative. The crate's own messages
//! are made one line. In ASCII files, numbers the crate's grammar refuses
//! but Rust reads (`1.`, `.5`, `nan`, `inf`) are accepted: `nan`/`inf` in a
//! vertex position keep the vertex (its triangles are never drawn nor hit:
//! [`LoadReport::invalid_triangles`], as with NaN in a binary file);
//! elsewhere they read as 0. The load fails only when every triangle is
//! unusable.
//!
//! Headers as other readers (assimp, Open3D) take them: a line that does
//! not start with a keyword (Blender 2.47 writes a bare line
//! `Created by Blender3D 247 - www.blender.org, source file: …`) and a
//! blank line are ignored with a warning naming the line; `obj_info` lines
//! are read like comments; lines may end with `\n`, `\r\n` or a lone `\r`
//! (classic Mac OS; a warning), in the header and in an ASCII body alike.
//!
//! Limits: files above [`super::MAX_MODEL_BYTES`] (1 GiB), more than
//! [`crate::limits::MAX_TRIANGLES`] vertices or triangles.

use std::path::Path;

use ply_rs_bw::parser::{ParseError, Parser, Reader};
use ply_rs_bw::ply::{ElementDef, Encoding, Header, PropertyType, ScalarType};

use super::{
    model_err, one_line, preview, read_mesh_file, single_mesh_scene, too_large, LoadReport,
    MAX_MODEL_BYTES, MAX_MODEL_TRIANGLES,
};
use crate::error::{Error, ModelErrorKind, ModelFormat};
use crate::scene::Scene;

mod elements;

#[cfg(test)]
use elements::grammar_number;
use elements::{ElementReader, Face, MeshBuilder, Skip, Vertex};

const PLY: ModelFormat = ModelFormat::Ply;

/// The names of the face index list, in order of preference.
const INDEX_NAMES: [&str; 2] = ["vertex_indices", "vertex_index"];
/// The names of the vertex color channels.
const COLOR_NAMES: [[&str; 3]; 2] = [
    ["red", "green", "blue"],
    ["diffuse_red", "diffuse_green", "diffuse_blue"],
];

fn err(path: &Path, kind: ModelErrorKind) -> Error {
    model_err(path, PLY, kind)
}

fn parse_err(path: &Path, line: Option<usize>, msg: String) -> Error {
    err(path, ModelErrorKind::Parse(PLY, line, msg))
}

/// What a message of the crate says, one line, without the line number
/// and the quoted input it adds (the caller quotes the line itself): the
/// innermost `Error:` part of a nested message, else its first line.
fn crate_msg(e: &ParseError) -> String {
    let s = e.to_string();
    let s = match e.line() {
        Some(l) => s
            .strip_prefix(&format!("Line {l}: "))
            .map_or_else(|| s.clone(), str::to_string),
        None => s,
    };
    let parts: Vec<&str> = s.split('\n').map(str::trim).collect();
    let detail = parts
        .iter()
        .rev()
        .find_map(|p| p.strip_prefix("Error:"))
        .unwrap_or(parts[0]);
    one_line(detail)
}

/// A line of text for a message: trimmed, at most 60 characters, in
/// backquotes.
fn quote(line: &str) -> String {
    let t = line.trim();
    let mut s: String = t.chars().take(60).collect();
    if t.chars().count() > 60 {
        s.push('…');
    }
    format!("`{s}`")
}

/// Loads a PLY file (ASCII or binary) into a scene of one mesh. Errors name
/// the file (and the line of a header or ASCII file when one is to blame).
pub fn load_ply(path: &Path) -> Result<(Scene, LoadReport), Error> {
    let bytes = read_mesh_file(path, PLY)?;
    load_ply_bytes(path, &bytes)
}

/// Loads PLY bytes held in memory; `path` names the file in messages and
/// its stem names the mesh.
pub fn load_ply_bytes(path: &Path, bytes: &[u8]) -> Result<(Scene, LoadReport), Error> {
    if bytes.len() as u64 > MAX_MODEL_BYTES {
        return Err(too_large(
            path,
            PLY,
            "bytes",
            bytes.len() as u64,
            MAX_MODEL_BYTES,
        ));
    }
    if bytes.is_empty() {
        return Err(err(path, ModelErrorKind::Empty("0 bytes".into())));
    }
    let first = bytes
        .split(|&b| b == b'\n' || b == b'\r')
        .next()
        .unwrap_or_default();
    if first.trim_ascii_end() != b"ply" {
        let hint = match bytes.iter().find(|c| !c.is_ascii_whitespace()) {
            Some(b'<') => ": HTML or XML?",
            _ => "",
        };
        return Err(err(
            path,
            ModelErrorKind::WrongFormat(
                PLY,
                format!(
                    "the first line is not `ply` (it starts with {}{hint})",
                    preview(bytes.trim_ascii_start())
                ),
            ),
        ));
    }
    let read = read_header(path, bytes)?;
    let (header, header_lines) = (read.header, read.lines);
    let data = &bytes[read.len..];
    // (an ASCII body whose lines end with a lone CR, like its header's:
    // read with LF line ends; a binary body is never touched)
    let lf_body: Vec<u8>;
    let data = if read.lone_cr && header.encoding == Encoding::Ascii {
        lf_body = data
            .iter()
            .map(|&b| if b == b'\r' { b'\n' } else { b })
            .collect();
        &lf_body[..]
    } else {
        data
    };
    let plan = plan(path, &header)?;
    let mut report = LoadReport::default();
    report.warnings.extend(
        read.warnings
            .iter()
            .map(|w| format!("{}: {w}", path.display())),
    );
    for e in header.elements.values() {
        if e.name == "tristrips" && e.count > 0 {
            report.warnings.push(format!(
                "{}: element `tristrips` ({} strips) ignored: only `face` lists are read",
                path.display(),
                e.count
            ));
        }
    }
    let mut reader = ElementReader::new(path, &header, data, header_lines)?;
    let mut mesh = MeshBuilder::new(&plan);
    for e in header.elements.values() {
        if e.name == "vertex" {
            reader.each::<Vertex>(e, |v, line| {
                mesh.vertex(v);
                let _ = line;
                Ok(())
            })?;
        } else if e.name == "face" {
            reader.each::<Face>(e, |f, line| mesh.face(path, f, line))?;
        } else {
            reader.each::<Skip>(e, |_, _| Ok(()))?;
        }
    }
    report.skipped_faces = mesh.skipped;
    let color = mesh.color();
    single_mesh_scene(path, PLY, mesh.positions, mesh.triangles, color, report)
}

/// The header's lines, each without its line end (`\n`, `\r\n`, or a lone
/// `\r` as classic Mac OS writers end lines), up to the `end_header` line;
/// `None` when there is no such line.
struct HeaderLines<'a> {
    lines: Vec<&'a [u8]>,
    /// The byte after the `end_header` line's end.
    len: usize,
    /// The 1-based number of the first line that ends with a lone `\r`.
    lone_cr: Option<usize>,
}

fn header_lines(bytes: &[u8]) -> Option<HeaderLines<'_>> {
    let mut lines = Vec::new();
    let mut lone_cr = None;
    let mut start = 0;
    while start < bytes.len() {
        let rest = &bytes[start..];
        let (line, end) = match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            None => (rest, bytes.len()),
            Some(n) if rest[n] == b'\n' => (&rest[..n], start + n + 1),
            Some(n) => {
                let last = rest[..n].trim_ascii() == b"end_header";
                // `\r\n` is one line end, but after lone-`\r` lines the
                // header's last `\r` is its end, whatever byte follows
                if rest.get(n + 1) == Some(&b'\n') && !(last && lone_cr.is_some()) {
                    (&rest[..n], start + n + 2)
                } else {
                    lone_cr.get_or_insert(lines.len() + 1);
                    (&rest[..n], start + n + 1)
                }
            }
        };
        lines.push(line);
        if line.trim_ascii() == b"end_header" {
            return Some(HeaderLines {
                lines,
                len: end,
                lone_cr,
            });
        }
        start = end;
    }
    None
}

/// The header's end: the byte after the `end_header` line, and the number
/// of lines up to it; `None` when there is no such line.
#[cfg(test)]
fn header_end(bytes: &[u8]) -> Option<(usize, usize)> {
    header_lines(bytes).map(|h| (h.len, h.lines.len()))
}

/// The words a header line may start with.
const KEYWORDS: [&str; 7] = [
    "ply",
    "format",
    "comment",
    "obj_info",
    "element",
    "property",
    "end_header",
];

/// A header as read: the crate's, its length in bytes and lines, whether
/// its lines end with a lone `\r`, and the warnings for the lines that were
/// not read (without the file's name).
struct ReadHeader {
    header: Header,
    len: usize,
    lines: usize,
    lone_cr: bool,
    warnings: Vec<String>,
}

/// Reads the header with the crate (only the header's bytes: never a
/// line-read over the binary data), after checking for what it would
/// misread (repeated element or property names) and setting aside what
/// it would refuse though other readers (assimp, Open3D) take it: a line
/// that does not start with a keyword (Blender 2.47 writes a bare
/// `Created by Blender3D 247 - www.blender.org, source file: …` line) and
/// a blank line are read as empty comments, with a warning naming the
/// line; lines ending with a lone `\r` are read as lines (one warning).
/// The crate is given the lines trimmed, with `\n` ends, so its line
/// numbers are the file's.
fn read_header(path: &Path, bytes: &[u8]) -> Result<ReadHeader, Error> {
    let Some(found) = header_lines(bytes) else {
        return Err(parse_err(
            path,
            None,
            "the header has no `end_header` line".into(),
        ));
    };
    let mut warnings = Vec::new();
    if let Some(n) = found.lone_cr {
        warnings.push(format!(
            "header line {n} ends with a lone CR (classic Mac OS line ends): read as a line end"
        ));
    }
    let mut text = String::new();
    for (i, raw) in found.lines.iter().enumerate() {
        let line = String::from_utf8_lossy(raw);
        let line = line.trim();
        let word = line.split_ascii_whitespace().next().unwrap_or("");
        if KEYWORDS.contains(&word) {
            text.push_str(line);
        } else {
            warnings.push(if line.is_empty() {
                format!("header line {} is blank: ignored", i + 1)
            } else {
                format!(
                    "header line {} {} does not start with a PLY keyword: ignored",
                    i + 1,
                    quote(line)
                )
            });
            text.push_str("comment");
        }
        text.push('\n');
    }
    let mut elements: Vec<&str> = Vec::new();
    let mut props: Vec<&str> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        match words.as_slice() {
            ["element", name, ..] => {
                if elements.contains(name) {
                    return Err(parse_err(
                        path,
                        Some(i + 1),
                        format!("element `{name}` is declared twice"),
                    ));
                }
                elements.push(name);
                props.clear();
            }
            ["property", .., name] => {
                if props.contains(name) {
                    return Err(parse_err(
                        path,
                        Some(i + 1),
                        format!(
                            "property `{name}` of element `{}` is declared twice",
                            elements.last().unwrap_or(&"?")
                        ),
                    ));
                }
                props.push(name);
            }
            _ => {}
        }
    }
    let mut reader = Reader::new(text.as_bytes());
    let header = Parser::<Skip>::new()
        .read_header(&mut reader)
        .map_err(|e| {
            let at = e
                .line()
                .and_then(|l| text.lines().nth(l.checked_sub(1)?))
                .map(|l| format!(" {}", quote(l)))
                .unwrap_or_default();
            let summary = e.to_string();
            let summary = summary.split('\n').next().unwrap_or_default();
            let summary = e
                .line()
                .and_then(|l| summary.strip_prefix(&format!("Line {l}: ")))
                .unwrap_or(summary);
            parse_err(
                path,
                e.line(),
                format!("header line{at}: {}", one_line(summary)),
            )
        })?;
    Ok(ReadHeader {
        header,
        len: found.len,
        lines: found.lines.len(),
        lone_cr: found.lone_cr.is_some(),
        warnings,
    })
}

/// What to take from the elements, as the header declares them.
struct Plan {
    vertices: usize,
    faces: usize,
    /// The vertices have color channels (float channels are 0–1).
    color: Option<bool>,
}

fn scalar(def: &ElementDef, name: &str) -> Option<Result<ScalarType, ()>> {
    def.properties.get(name).map(|p| match &p.data_type {
        PropertyType::Scalar(s) => Ok(s.clone()),
        PropertyType::List(..) => Err(()),
    })
}

fn is_float(s: &ScalarType) -> bool {
    matches!(s, ScalarType::Float | ScalarType::Double)
}

/// Checks that the header has vertices with positions and faces with an
/// index list, within the limits.
fn plan(path: &Path, header: &Header) -> Result<Plan, Error> {
    let Some(v) = header.elements.get("vertex") else {
        return Err(err(
            path,
            ModelErrorKind::Empty("the header declares no `element vertex`".into()),
        ));
    };
    for axis in ["x", "y", "z"] {
        match scalar(v, axis) {
            Some(Ok(_)) => {}
            Some(Err(())) => {
                return Err(parse_err(
                    path,
                    None,
                    format!("vertex property `{axis}` is a list, not a number"),
                ))
            }
            None => {
                return Err(parse_err(
                    path,
                    None,
                    format!("the vertex element has no property `{axis}`"),
                ))
            }
        }
    }
    if v.count as u64 > MAX_MODEL_TRIANGLES {
        return Err(too_large(
            path,
            PLY,
            "vertices",
            v.count as u64,
            MAX_MODEL_TRIANGLES,
        ));
    }
    let Some(f) = header.elements.get("face") else {
        return Err(err(
            path,
            ModelErrorKind::Empty(
                "the header declares no `element face` (a point cloud has nothing to draw)".into(),
            ),
        ));
    };
    let lists: Vec<&str> = INDEX_NAMES
        .into_iter()
        .filter(|n| f.properties.contains_key(*n))
        .collect();
    match lists.as_slice() {
        [name] => match &f.properties[*name].data_type {
            PropertyType::List(_, t) if !is_float(t) => {}
            other => {
                return Err(parse_err(
                    path,
                    None,
                    format!("face property `{name}` must be a list of integers (it is {other:?})"),
                ))
            }
        },
        [] => {
            return Err(parse_err(
                path,
                None,
                "the face element has no `vertex_indices` (or `vertex_index`) list".into(),
            ))
        }
        _ => {
            return Err(parse_err(
                path,
                None,
                "the face element has both `vertex_indices` and `vertex_index`".into(),
            ))
        }
    }
    if v.count == 0 {
        return Err(err(
            path,
            ModelErrorKind::Empty("the header declares 0 vertices".into()),
        ));
    }
    if f.count == 0 {
        return Err(err(
            path,
            ModelErrorKind::Empty("the header declares 0 faces".into()),
        ));
    }
    let color = COLOR_NAMES.iter().find_map(|names| {
        let types: Vec<_> = names.iter().filter_map(|n| scalar(v, n)?.ok()).collect();
        (types.len() == 3).then(|| types.iter().all(is_float))
    });
    Ok(Plan {
        vertices: v.count,
        faces: f.count,
        color,
    })
}

/// Bytes an element takes at least in a binary file (lists may be empty).
fn min_bytes(def: &ElementDef) -> u64 {
    fn size(s: &ScalarType) -> u64 {
        match s {
            ScalarType::Char | ScalarType::UChar => 1,
            ScalarType::Short | ScalarType::UShort => 2,
            ScalarType::Int | ScalarType::UInt | ScalarType::Float => 4,
            ScalarType::Double => 8,
        }
    }
    def.properties
        .values()
        .map(|p| match &p.data_type {
            PropertyType::Scalar(s) | PropertyType::List(s, _) => size(s),
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar_numbers_are_the_crates() {
        for ok in ["0", "-1", "+2.5", "1e5", "1.25E-3", "007"] {
            assert!(grammar_number(ok), "{ok}");
        }
        for bad in [
            "", "1.", ".5", "-", "1e", "nan", "inf", "1.5.2", "0x10", "1e+",
        ] {
            assert!(!grammar_number(bad), "{bad}");
        }
    }

    #[test]
    fn the_header_end_is_the_end_header_line() {
        let b = b"ply\r\nformat ascii 1.0\r\nend_header\r\n1 2 3\n";
        assert_eq!(header_end(b), Some((b.len() - 6, 3)));
        assert_eq!(header_end(b"ply\nformat ascii 1.0\n"), None);
        // lone CRs end lines; after them the last `\r` ends the header
        // even when the binary data starts with a `\n` byte
        let b = b"ply\rformat binary_little_endian 1.0\rend_header\r\n\x01";
        assert_eq!(header_end(b), Some((b.len() - 2, 3)));
        assert_eq!(header_lines(b).unwrap().lone_cr, Some(1));
        assert_eq!(
            header_lines(b"ply\r\nend_header\r\n").unwrap().lone_cr,
            None
        );
    }
}
