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
//! 0–255, float channels 0–1); otherwise [`palette_color(0)`](crate::palette_color).
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
//! Limits: files above [`super::MAX_MODEL_BYTES`] (1 GiB), more than
//! [`crate::limits::MAX_TRIANGLES`] vertices or triangles.

use std::path::Path;

use glam::Vec3;
use ply_rs_bw::parser::{ParseError, Parser, Reader};
use ply_rs_bw::ply::{
    ElementDef, Encoding, Header, Property, PropertyAccess, PropertyAccessResult, PropertyType,
    ScalarType,
};

use super::{
    model_err, one_line, preview, read_model_file, single_mesh_scene, too_large, LoadReport,
    MAX_MODEL_BYTES, MAX_MODEL_TRIANGLES,
};
use crate::error::{Error, ModelErrorKind, ModelFormat};
use crate::scene::{palette_color, Scene};

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
    let bytes = read_model_file(path, PLY)?;
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
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    if first.strip_suffix(b"\r").unwrap_or(first).trim_ascii_end() != b"ply" {
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
    let (header, header_len, header_lines) = read_header(path, bytes)?;
    let data = &bytes[header_len..];
    let plan = plan(path, &header)?;
    let mut report = LoadReport::default();
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

/// The header's end: the byte after the `end_header` line, and the number
/// of lines up to it; `None` when there is no such line.
fn header_end(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut start = 0;
    let mut lines = 0;
    while start < bytes.len() {
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |n| start + n + 1);
        lines += 1;
        let line = &bytes[start..end];
        if line.trim_ascii() == b"end_header" {
            return Some((end, lines));
        }
        start = end;
    }
    None
}

/// Reads the header with the crate (only the header's bytes: never a
/// line-read over the binary data), after checking for what it would
/// misread: repeated element or property names.
fn read_header(path: &Path, bytes: &[u8]) -> Result<(Header, usize, usize), Error> {
    let Some((len, lines)) = header_end(bytes) else {
        return Err(parse_err(
            path,
            None,
            "the header has no `end_header` line".into(),
        ));
    };
    let text = String::from_utf8_lossy(&bytes[..len]);
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
    let mut reader = Reader::new(&bytes[..len]);
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
    Ok((header, len, lines))
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

/// The payload after the header, read one element at a time.
enum Payload<'a> {
    Binary {
        data: &'a [u8],
        big: bool,
    },
    Ascii {
        lines: std::iter::Enumerate<std::str::Split<'a, char>>,
        first: usize,
    },
}

struct ElementReader<'a> {
    path: &'a Path,
    payload: Payload<'a>,
}

/// The lines of an ASCII payload that hold data.
fn data_lines(text: &str) -> usize {
    text.split('\n')
        .filter(|l| !l.trim_ascii().is_empty())
        .count()
}

impl<'a> ElementReader<'a> {
    /// Checks that the bytes after the header can hold the elements the
    /// header declares (before anything is allocated for them).
    fn new(
        path: &'a Path,
        header: &Header,
        data: &'a [u8],
        header_lines: usize,
    ) -> Result<Self, Error> {
        let truncated = |need: String, have: String| {
            err(
                path,
                ModelErrorKind::Truncated(format!("the header declares {need}, but {have}")),
            )
        };
        let declared = || {
            header
                .elements
                .values()
                .filter(|e| !e.properties.is_empty())
                .map(|e| {
                    let each = match header.encoding {
                        Encoding::Ascii => "a line".to_string(),
                        _ => format!("at least {} bytes", min_bytes(e)),
                    };
                    format!("{} `{}` ({each} each)", e.count, e.name)
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let payload = match header.encoding {
            Encoding::Ascii => {
                let text = std::str::from_utf8(data).map_err(|e| {
                    parse_err(
                        path,
                        Some(
                            header_lines
                                + 1
                                + data[..e.valid_up_to()]
                                    .iter()
                                    .filter(|&&b| b == b'\n')
                                    .count(),
                        ),
                        "an ASCII PLY holds bytes that are not text".into(),
                    )
                })?;
                let need: u64 = header
                    .elements
                    .values()
                    .filter(|e| !e.properties.is_empty())
                    .map(|e| e.count as u64)
                    .sum();
                let have = data_lines(text) as u64;
                if need > have {
                    return Err(truncated(
                        declared(),
                        format!("only {have} data lines follow it"),
                    ));
                }
                Payload::Ascii {
                    lines: text.split('\n').enumerate(),
                    first: header_lines + 1,
                }
            }
            Encoding::BinaryLittleEndian | Encoding::BinaryBigEndian => {
                let need = header.elements.values().try_fold(0u64, |acc, e| {
                    (e.count as u64)
                        .checked_mul(min_bytes(e))
                        .and_then(|n| n.checked_add(acc))
                });
                if need.is_none_or(|n| n > data.len() as u64) {
                    return Err(truncated(
                        declared(),
                        format!("{} bytes follow it", data.len()),
                    ));
                }
                Payload::Binary {
                    data,
                    big: header.encoding == Encoding::BinaryBigEndian,
                }
            }
        };
        Ok(Self { path, payload })
    }

    /// Reads the `count` elements of `def`, handing each to `f` with its
    /// line (ASCII files).
    fn each<E: PropertyAccess + Patchable>(
        &mut self,
        def: &ElementDef,
        mut f: impl FnMut(E, Option<usize>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if def.properties.is_empty() {
            // nothing in the file: never loop over a count for nothing
            return Ok(());
        }
        let parser = Parser::<E>::new();
        let path = self.path;
        for i in 0..def.count {
            let what = || format!("{} {i} of {}", def.name, def.count);
            match &mut self.payload {
                Payload::Binary { data, big } => {
                    let r = if *big {
                        parser.read_big_endian_element(data, def)
                    } else {
                        parser.read_little_endian_element(data, def)
                    };
                    let e = r.map_err(|e| {
                        if e.kind() == std::io::ErrorKind::UnexpectedEof {
                            err(
                                path,
                                ModelErrorKind::Truncated(format!("the file ends in {}", what())),
                            )
                        } else {
                            parse_err(path, None, format!("{}: {}", what(), crate_msg(&e)))
                        }
                    })?;
                    f(e, None)?;
                }
                Payload::Ascii { lines, first } => {
                    let (n, line) = loop {
                        match lines.next() {
                            Some((n, l)) if !l.trim_ascii().is_empty() => break (n + *first, l),
                            Some(_) => {}
                            None => {
                                return Err(err(
                                    path,
                                    ModelErrorKind::Truncated(format!(
                                        "the file ends before {}",
                                        what()
                                    )),
                                ))
                            }
                        }
                    };
                    let line = line.strip_suffix('\r').unwrap_or(line);
                    let e = match parser.read_ascii_element(line, def) {
                        Ok(e) => e,
                        Err(first_err) => read_lenient(&parser, line, def).map_err(|bad| {
                            let why = match bad {
                                Some(token) => format!("`{token}` is not a number"),
                                None => crate_msg(&first_err),
                            };
                            parse_err(path, Some(n), format!("{} {}: {why}", what(), quote(line)))
                        })?,
                    };
                    f(e, Some(n))?;
                }
            }
        }
        Ok(())
    }
}

/// Is `s` a number of the crate's ASCII grammar
/// (`[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`)?
fn grammar_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > s
    };
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    if !digits(&mut i) {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

/// An element whose scalar properties can take a non-finite value after
/// the crate read a finite stand-in.
trait Patchable {
    fn patch(&mut self, _property: &str, _value: f32) {}
}

/// Reads an ASCII line the crate refused when Rust reads its numbers: each
/// token outside the crate's grammar that Rust parses as a number is
/// rewritten (`1.` → `1e0`), a non-finite one as `0` and then patched
/// into the element. `Err(Some(token))` for a token that is no number,
/// `Err(None)` when the rewriting does not help.
fn read_lenient<E: PropertyAccess + Patchable>(
    parser: &Parser<E>,
    line: &str,
    def: &ElementDef,
) -> Result<E, Option<String>> {
    let mut tokens: Vec<String> = Vec::new();
    let mut special: Vec<(usize, f32)> = Vec::new();
    let mut changed = false;
    for (i, t) in line.split_ascii_whitespace().enumerate() {
        if grammar_number(t) {
            tokens.push(t.to_string());
            continue;
        }
        let v: f64 = t.parse().map_err(|_| Some(t.to_string()))?;
        changed = true;
        if v.is_finite() {
            tokens.push(format!("{v:e}"));
        } else {
            tokens.push("0".into());
            special.push((i, v as f32));
        }
    }
    if !changed {
        return Err(None);
    }
    let mut e = parser
        .read_ascii_element(&tokens.join(" "), def)
        .map_err(|_| None)?;
    if !special.is_empty() {
        // which property each token is: a scalar takes one, a list 1 + n
        let mut at = 0usize;
        for (name, p) in &def.properties {
            match &p.data_type {
                PropertyType::Scalar(_) => {
                    if let Some(&(_, v)) = special.iter().find(|(t, _)| *t == at) {
                        e.patch(name, v);
                    }
                    at += 1;
                }
                PropertyType::List(..) => {
                    let n: usize = tokens.get(at).and_then(|t| t.parse().ok()).ok_or(None)?;
                    at = at
                        .checked_add(1)
                        .and_then(|a| a.checked_add(n))
                        .ok_or(None)?;
                }
            }
        }
    }
    Ok(e)
}

/// A vertex: the position and the color channels (0–1 or 0–255 as typed).
#[derive(Default)]
struct Vertex {
    p: [f32; 3],
    c: [f32; 3],
}

impl PropertyAccess for Vertex {
    fn new() -> Self {
        Self::default()
    }
    fn set_property(&mut self, name: &str, value: Property) -> PropertyAccessResult {
        let slot = match name {
            "x" => &mut self.p[0],
            "y" => &mut self.p[1],
            "z" => &mut self.p[2],
            "red" | "diffuse_red" => &mut self.c[0],
            "green" | "diffuse_green" => &mut self.c[1],
            "blue" | "diffuse_blue" => &mut self.c[2],
            _ => return PropertyAccessResult::Ignored,
        };
        match value.to_f32_lossy() {
            Some(v) => {
                *slot = v;
                PropertyAccessResult::Set
            }
            None => PropertyAccessResult::Ignored,
        }
    }
}

impl Patchable for Vertex {
    fn patch(&mut self, name: &str, value: f32) {
        match name {
            "x" => self.p[0] = value,
            "y" => self.p[1] = value,
            "z" => self.p[2] = value,
            _ => {}
        }
    }
}

/// A face: its vertex indices, `None` for a negative one.
#[derive(Default)]
struct Face {
    indices: Vec<Option<u32>>,
}

impl PropertyAccess for Face {
    fn new() -> Self {
        Self::default()
    }
    fn set_property(&mut self, name: &str, value: Property) -> PropertyAccessResult {
        if !INDEX_NAMES.contains(&name) {
            return PropertyAccessResult::Ignored;
        }
        fn signed<T: Copy + TryInto<u32>>(v: &[T]) -> Vec<Option<u32>> {
            v.iter().map(|&i| i.try_into().ok()).collect()
        }
        self.indices = match value {
            Property::ListChar(v) => signed(&v),
            Property::ListUChar(v) => signed(&v),
            Property::ListShort(v) => signed(&v),
            Property::ListUShort(v) => signed(&v),
            Property::ListInt(v) => signed(&v),
            Property::ListUInt(v) => v.into_iter().map(Some).collect(),
            _ => return PropertyAccessResult::UnsupportedType,
        };
        PropertyAccessResult::Set
    }
}

impl Patchable for Face {}

/// Any other element, read past.
struct Skip;

impl PropertyAccess for Skip {
    fn new() -> Self {
        Skip
    }
}

impl Patchable for Skip {}

/// The mesh as the elements arrive.
struct MeshBuilder {
    vertices: usize,
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    faces_read: usize,
    skipped: usize,
    color: Option<bool>,
    color_sum: [f64; 3],
}

impl MeshBuilder {
    fn new(plan: &Plan) -> Self {
        // counts are checked against the file's size; reserve no more than
        // a million up front all the same
        Self {
            vertices: plan.vertices,
            positions: Vec::with_capacity(plan.vertices.min(1 << 20)),
            triangles: Vec::with_capacity(plan.faces.min(1 << 20)),
            faces_read: 0,
            skipped: 0,
            color: plan.color,
            color_sum: [0.0; 3],
        }
    }

    fn vertex(&mut self, v: Vertex) {
        self.positions.push(Vec3::from_array(v.p));
        for k in 0..3 {
            self.color_sum[k] += f64::from(v.c[k]);
        }
    }

    fn face(&mut self, path: &Path, f: Face, line: Option<usize>) -> Result<(), Error> {
        let face = self.faces_read;
        self.faces_read += 1;
        let mut idx = Vec::with_capacity(f.indices.len());
        for i in &f.indices {
            match *i {
                Some(v) if (v as usize) < self.vertices => idx.push(v),
                other => {
                    let shown = other
                        .map_or_else(|| "a negative index".to_string(), |v| format!("vertex {v}"));
                    return Err(err(
                        path,
                        ModelErrorKind::IndexOutOfRange(
                            line,
                            format!(
                                "face {face} refers to {shown}, but the file has {} vertices (0..{})",
                                self.vertices, self.vertices
                            ),
                        ),
                    ));
                }
            }
        }
        if idx.len() < 3 {
            self.skipped += 1;
            return Ok(());
        }
        if (self.triangles.len() + idx.len() - 2) as u64 > MAX_MODEL_TRIANGLES {
            return Err(too_large(
                path,
                PLY,
                "triangles",
                (self.triangles.len() + idx.len() - 2) as u64,
                MAX_MODEL_TRIANGLES,
            ));
        }
        for k in 1..idx.len() - 1 {
            self.triangles.push([idx[0], idx[k], idx[k + 1]]);
        }
        Ok(())
    }

    /// The average vertex color, or the palette's first.
    fn color(&self) -> [u8; 3] {
        match self.color {
            Some(float) if !self.positions.is_empty() => {
                let scale = if float { 255.0 } else { 1.0 };
                self.color_sum.map(|s| {
                    let v = s / self.positions.len() as f64 * scale;
                    if v.is_finite() {
                        v.round().clamp(0.0, 255.0) as u8
                    } else {
                        0
                    }
                })
            }
            _ => palette_color(0),
        }
    }
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
    }
}
