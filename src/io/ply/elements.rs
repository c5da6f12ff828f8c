//! The PLY payload after the header, element by element: binary records or
//! ASCII lines read into vertices and faces (with the numbers Rust reads
//! but the crate's grammar refuses), and the mesh built from them.

use std::path::Path;

use glam::Vec3;
use ply_rs_bw::parser::Parser;
use ply_rs_bw::ply::{
    ElementDef, Encoding, Header, Property, PropertyAccess, PropertyAccessResult, PropertyType,
};

use super::{
    crate_msg, err, min_bytes, parse_err, quote, Plan, INDEX_NAMES, MAX_MODEL_TRIANGLES, PLY,
};
use crate::error::{Error, ModelErrorKind};
use crate::io::too_large;
use crate::scene::palette_color;

/// The payload after the header, read one element at a time.
pub(super) enum Payload<'a> {
    Binary {
        data: &'a [u8],
        big: bool,
    },
    Ascii {
        lines: std::iter::Enumerate<std::str::Split<'a, char>>,
        first: usize,
    },
}

pub(super) struct ElementReader<'a> {
    path: &'a Path,
    payload: Payload<'a>,
}

/// The lines of an ASCII payload that hold data.
pub(super) fn data_lines(text: &str) -> usize {
    text.split('\n')
        .filter(|l| !l.trim_ascii().is_empty())
        .count()
}

impl<'a> ElementReader<'a> {
    /// Checks that the bytes after the header can hold the elements the
    /// header declares (before anything is allocated for them).
    pub(super) fn new(
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
    pub(super) fn each<E: PropertyAccess + Patchable>(
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
pub(super) fn grammar_number(s: &str) -> bool {
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
pub(super) trait Patchable {
    fn patch(&mut self, _property: &str, _value: f32) {}
}

/// Reads an ASCII line the crate refused when Rust reads its numbers: each
/// token outside the crate's grammar that Rust parses as a number is
/// rewritten (`1.` → `1e0`), a non-finite one as `0` and then patched
/// into the element. `Err(Some(token))` for a token that is no number,
/// `Err(None)` when the rewriting does not help.
pub(super) fn read_lenient<E: PropertyAccess + Patchable>(
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
pub(super) struct Vertex {
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
pub(super) struct Face {
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
pub(super) struct Skip;

impl PropertyAccess for Skip {
    fn new() -> Self {
        Skip
    }
}

impl Patchable for Skip {}

/// The mesh as the elements arrive.
pub(super) struct MeshBuilder {
    vertices: usize,
    pub(super) positions: Vec<Vec3>,
    pub(super) triangles: Vec<[u32; 3]>,
    faces_read: usize,
    pub(super) skipped: usize,
    color: Option<bool>,
    color_sum: [f64; 3],
}

impl MeshBuilder {
    pub(super) fn new(plan: &Plan) -> Self {
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

    pub(super) fn vertex(&mut self, v: Vertex) {
        self.positions.push(Vec3::from_array(v.p));
        for k in 0..3 {
            self.color_sum[k] += f64::from(v.c[k]);
        }
    }

    pub(super) fn face(&mut self, path: &Path, f: Face, line: Option<usize>) -> Result<(), Error> {
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
    pub(super) fn color(&self) -> [u8; 3] {
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
