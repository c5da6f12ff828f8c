//! STL loading with `stl_io`, binary and ASCII.
//!
//! A file is one mesh: every facet is a triangle, in file order, so the
//! global triangle index is the facet index. Vertices are shared between
//! facets when their coordinates are bit-for-bit equal (as `stl_io`'s
//! indexed meshes do); facet normals and the binary attribute bytes are
//! ignored (softpick shades flat from the winding). The mesh and its root
//! node are named after the file stem; its color is
//! [`Mesh::palette_color(0)`](crate::Mesh::palette_color).
//!
//! Binary or ASCII is decided from the bytes, never the extension: a file
//! whose size is exactly 84 + 50 · the facet count of its header is binary,
//! even when its header starts with `solid` (as many exporters write) —
//! unless its first KiB is text without a NUL byte, which a binary header's
//! facet count below 2^24 never is. Otherwise a file starting with `solid`
//! is ASCII, and any other is binary, checked for size before anything is
//! allocated for its facets: fewer bytes than the count needs is an error
//! (a huge count in a tiny file allocates nothing), more is a warning
//! (the extra bytes are ignored); text that does not start with `solid`
//! (HTML saved as `.stl`, say) is refused as not STL.
//!
//! ASCII files are checked line by line before `stl_io` reads them, so a
//! malformed line is reported with its number, and normalized where
//! `stl_io` is stricter than the files people have: keywords in any case, a
//! bare `solid` first line, blank lines or a byte-order mark before it,
//! lone-CR line ends, bytes that are not UTF-8 in names, several `solid`s in
//! one file (merged into the one mesh) and a missing last `endsolid` (a
//! warning). Numbers are parsed as `stl_io` parses them (Rust's `f32`);
//! `nan`, `inf` or a value beyond `f32` in a vertex keeps its facet for
//! numbering (never drawn or hit: [`LoadReport::invalid_triangles`]), as in
//! binary files; the load fails only when every facet is unusable.
//!
//! Limits: files above [`super::MAX_MODEL_BYTES`] (1 GiB) and more than
//! [`crate::limits::MAX_TRIANGLES`] facets are refused before reading.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::Path;

use glam::Vec3;

use super::{
    model_err, one_line, preview, read_mesh_file, single_mesh_scene, too_large, LoadReport,
    MAX_MODEL_BYTES, MAX_MODEL_TRIANGLES,
};
use crate::error::{Error, ModelErrorKind, ModelFormat};
use crate::scene::{palette_color, Scene};

const STL: ModelFormat = ModelFormat::Stl;

/// Bytes of a binary STL header (80) and facet count (4).
const HEADER: usize = 84;
/// Bytes of a binary STL facet.
const FACET: u64 = 50;

fn err(path: &Path, kind: ModelErrorKind) -> Error {
    model_err(path, STL, kind)
}

/// Loads an STL file (binary or ASCII) into a scene of one mesh. Errors
/// name the file (and the line of an ASCII file when one is to blame).
pub fn load_stl(path: &Path) -> Result<(Scene, LoadReport), Error> {
    let bytes = read_mesh_file(path, STL)?;
    load_stl_bytes(path, &bytes)
}

/// Loads STL bytes held in memory; `path` names the file in messages and
/// its stem names the mesh.
pub fn load_stl_bytes(path: &Path, bytes: &[u8]) -> Result<(Scene, LoadReport), Error> {
    if bytes.len() as u64 > MAX_MODEL_BYTES {
        return Err(too_large(
            path,
            STL,
            "bytes",
            bytes.len() as u64,
            MAX_MODEL_BYTES,
        ));
    }
    let mut report = LoadReport::default();
    let (positions, triangles) = match classify(bytes).map_err(|k| err(path, k))? {
        Kind::Binary { count } => {
            let used = HEADER as u64 + FACET * u64::from(count);
            if (bytes.len() as u64) > used {
                report.warnings.push(format!(
                    "{}: {} bytes after the last of the {count} facets ignored",
                    path.display(),
                    bytes.len() as u64 - used
                ));
            }
            binary(path, &bytes[..used as usize], count)?
        }
        Kind::Ascii => ascii(path, bytes, &mut report)?,
    };
    single_mesh_scene(path, STL, positions, triangles, palette_color(0), report)
}

/// What the bytes of an STL file are.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    /// Binary, `count` facets, the file at least 84 + 50·count bytes long.
    Binary { count: u32 },
    /// Text starting with `solid`.
    Ascii,
}

/// Do the bytes start (after a byte-order mark and blanks) with the word
/// `solid`, in any case?
fn starts_with_solid(bytes: &[u8]) -> bool {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let b = &b[start..];
    b.len() >= 5
        && b[..5].eq_ignore_ascii_case(b"solid")
        && b.get(5).is_none_or(u8::is_ascii_whitespace)
}

/// Binary or ASCII, and whether the size fits the facet count (see the
/// module docs); an error for what is neither.
fn classify(bytes: &[u8]) -> Result<Kind, ModelErrorKind> {
    if bytes.is_empty() {
        return Err(ModelErrorKind::Empty("0 bytes".into()));
    }
    let head = &bytes[..bytes.len().min(1024)];
    let text = !head.contains(&0);
    let solid = starts_with_solid(bytes);
    let len = bytes.len() as u64;
    let count = (bytes.len() >= HEADER)
        .then(|| u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]));
    if let Some(count) = count {
        let needed = HEADER as u64 + FACET * u64::from(count);
        if len == needed && !(solid && text) {
            return check_count(count).map(|()| Kind::Binary { count });
        }
    }
    if solid && text {
        return Ok(Kind::Ascii);
    }
    if text {
        let hint = match head.iter().find(|c| !c.is_ascii_whitespace()) {
            Some(b'<') => ": HTML or XML?",
            _ => "",
        };
        return Err(ModelErrorKind::WrongFormat(
            STL,
            format!(
                "text that does not start with `solid` (it starts with {}{hint})",
                preview(head.trim_ascii_start())
            ),
        ));
    }
    let Some(count) = count else {
        return Err(ModelErrorKind::Truncated(format!(
            "{len} bytes, fewer than the 84 of a binary STL header"
        )));
    };
    let needed = HEADER as u64 + FACET * u64::from(count);
    if len < needed {
        return Err(ModelErrorKind::Truncated(format!(
            "the binary header declares {count} facets ({needed} bytes) but the file has \
             {len} bytes ({} whole facets)",
            (len - HEADER as u64) / FACET
        )));
    }
    check_count(count)?;
    Ok(Kind::Binary { count })
}

fn check_count(count: u32) -> Result<(), ModelErrorKind> {
    if u64::from(count) > MAX_MODEL_TRIANGLES {
        return Err(ModelErrorKind::TooLarge {
            what: "triangles",
            size: count.into(),
            limit: MAX_MODEL_TRIANGLES,
        });
    }
    if count == 0 {
        return Err(ModelErrorKind::Empty(
            "the binary header declares 0 facets".into(),
        ));
    }
    Ok(())
}

/// A binary STL as `stl_io` reads it, with the 80-byte header replaced by
/// line feeds: `stl_io` takes any file whose first line starts with
/// `solid ` for ASCII (many binary headers do), and its probe reads that
/// first line whole.
struct BinaryBytes<'a> {
    bytes: &'a [u8],
    pos: u64,
}

impl Read for BinaryBytes<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let pos = usize::try_from(self.pos).unwrap_or(usize::MAX);
        let Some(rest) = self.bytes.get(pos..) else {
            return Ok(0);
        };
        let n = buf.len().min(rest.len());
        buf[..n].copy_from_slice(&rest[..n]);
        buf[..80usize.saturating_sub(pos).min(n)].fill(b'\n');
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for BinaryBytes<'_> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let new = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            SeekFrom::End(d) => (self.bytes.len() as u64).checked_add_signed(d),
        };
        self.pos = new.ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start")
        })?;
        Ok(self.pos)
    }
}

/// FxHash-style hasher for the vertex map (keys are coordinate bits, not
/// chosen by an attacker in any way that matters: the map only merges).
#[derive(Default)]
struct BitsHasher(u64);

impl Hasher for BitsHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// Positions shared by bit pattern (first occurrence first) and the
/// triangles in facet order.
#[derive(Default)]
struct Indexer {
    map: HashMap<[u32; 3], u32, BuildHasherDefault<BitsHasher>>,
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
}

impl Indexer {
    fn push(&mut self, corners: [[f32; 3]; 3]) {
        let tri = corners.map(|c| {
            let next = self.positions.len() as u32;
            *self.map.entry(c.map(f32::to_bits)).or_insert_with(|| {
                self.positions.push(Vec3::from_array(c));
                next
            })
        });
        self.triangles.push(tri);
    }
}

/// Reads the facets of `stl_io`'s reader over `source` into shared
/// positions and triangles, `patch` adjusting each facet's corners first.
fn read_facets<R: Read + Seek>(
    path: &Path,
    source: &mut R,
    expected: usize,
    mut patch: impl FnMut(usize, &mut [[f32; 3]; 3]),
) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), Error> {
    let io_err = |e: std::io::Error| {
        err(
            path,
            ModelErrorKind::Parse(STL, None, one_line(&e.to_string())),
        )
    };
    let reader = stl_io::create_stl_reader(source).map_err(io_err)?;
    let mut ix = Indexer::default();
    for (i, facet) in reader.enumerate() {
        let facet = facet.map_err(io_err)?;
        let mut corners = facet.vertices.map(|v| v.0);
        patch(i, &mut corners);
        ix.push(corners);
    }
    if ix.triangles.len() != expected {
        // the pre-checks and stl_io disagree: never silently drop facets
        return Err(err(
            path,
            ModelErrorKind::Parse(
                STL,
                None,
                format!(
                    "read {} facets where {expected} were expected",
                    ix.triangles.len()
                ),
            ),
        ));
    }
    Ok((ix.positions, ix.triangles))
}

fn binary(path: &Path, bytes: &[u8], count: u32) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), Error> {
    let mut source = BinaryBytes { bytes, pos: 0 };
    read_facets(path, &mut source, count as usize, |_, _| ())
}

/// An ASCII keyword: the word `stl_io` expects and whether a line's
/// word was it in another case.
fn keyword(word: &str, expected: &str, rewrite: &mut bool) -> bool {
    if word == expected {
        return true;
    }
    if word.eq_ignore_ascii_case(expected) {
        *rewrite = true;
        return true;
    }
    false
}

/// A non-finite vertex coordinate `stl_io` would refuse: facet, corner, axis.
struct Patch {
    facet: usize,
    corner: usize,
    axis: usize,
    value: f32,
}

/// What the line check of an ASCII file found.
#[derive(Default)]
struct AsciiScan {
    facets: usize,
    patches: Vec<Patch>,
    /// Must `stl_io` read a normalized copy (see the module docs)?
    rewrite: bool,
    missing_endsolid: bool,
    solids: usize,
    ignored_lines: usize,
}

/// Where the line check is in the grammar.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before `solid`.
    Start,
    /// Between facets: `facet normal` or `endsolid`.
    Facet,
    /// `outer loop`.
    Outer,
    /// The `n`th `vertex`.
    Vertex(usize),
    EndLoop,
    EndFacet,
    /// After `endsolid`: another `solid`, or lines to ignore.
    AfterSolid,
}

/// The lines of `text` (LF line ends) with 1-based numbers, as `stl_io`
/// splits them (a CR before the LF dropped).
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .enumerate()
        .map(|(i, l)| (i + 1, l))
}

/// Checks every line of an ASCII STL the way `stl_io` parses it; with
/// `out`, writes the normalized text `stl_io` is to read instead.
fn scan_ascii(path: &Path, text: &str, mut out: Option<&mut String>) -> Result<AsciiScan, Error> {
    let mut scan = AsciiScan::default();
    let mut state = State::Start;
    let mut words: Vec<&str> = Vec::with_capacity(8);
    let mut last_line = 0;
    let parse_err =
        |line: usize, msg: String| err(path, ModelErrorKind::Parse(STL, Some(line), msg));
    for (ln, line) in lines(text) {
        words.clear();
        words.extend(line.split_whitespace());
        if words.is_empty() {
            continue;
        }
        last_line = ln;
        let shown = || {
            let mut s: String = line.trim().chars().take(60).collect();
            if line.trim().chars().count() > 60 {
                s.push('…');
            }
            format!("`{s}`")
        };
        let emit = |out: &mut Option<&mut String>, s: &str| {
            if let Some(o) = out.as_deref_mut() {
                o.push_str(s);
                o.push('\n');
            }
        };
        match state {
            State::Start | State::AfterSolid => {
                if keyword(words[0], "solid", &mut scan.rewrite) {
                    if state == State::Start {
                        // stl_io wants the very first line to start with "solid "
                        if ln != 1 || !line.starts_with("solid ") {
                            scan.rewrite = true;
                        }
                        emit(&mut out, &format!("solid {}", words[1..].join(" ")));
                    } else {
                        // a further solid: merged into the one mesh
                        scan.rewrite = true;
                    }
                    scan.solids += 1;
                    state = State::Facet;
                } else if state == State::Start {
                    return Err(parse_err(
                        ln,
                        format!("expected `solid`, found {}", shown()),
                    ));
                } else {
                    scan.ignored_lines += 1;
                }
            }
            State::Facet => {
                if keyword(words[0], "endsolid", &mut scan.rewrite) {
                    state = State::AfterSolid;
                } else if keyword(words[0], "facet", &mut scan.rewrite)
                    && words.len() == 5
                    && keyword(words[1], "normal", &mut scan.rewrite)
                {
                    let mut normal = [0.0f32; 3];
                    for (k, w) in words[2..].iter().enumerate() {
                        let v: f32 = w.parse().map_err(|_| {
                            parse_err(ln, format!("`{w}` in the facet normal is not a number"))
                        })?;
                        if v.is_finite() {
                            normal[k] = v;
                        } else {
                            // unused by softpick; stl_io refuses it
                            scan.rewrite = true;
                        }
                    }
                    emit(
                        &mut out,
                        &format!("facet normal {} {} {}", normal[0], normal[1], normal[2]),
                    );
                    state = State::Outer;
                } else {
                    return Err(parse_err(
                        ln,
                        format!(
                            "expected `facet normal nx ny nz` or `endsolid`, found {}",
                            shown()
                        ),
                    ));
                }
            }
            State::Outer => {
                if words.len() == 2
                    && keyword(words[0], "outer", &mut scan.rewrite)
                    && keyword(words[1], "loop", &mut scan.rewrite)
                {
                    emit(&mut out, "outer loop");
                    state = State::Vertex(0);
                } else {
                    return Err(parse_err(
                        ln,
                        format!("expected `outer loop`, found {}", shown()),
                    ));
                }
            }
            State::Vertex(corner) => {
                if words.len() != 4 || !keyword(words[0], "vertex", &mut scan.rewrite) {
                    return Err(parse_err(
                        ln,
                        format!(
                            "expected `vertex x y z` (corner {} of facet {}), found {}",
                            corner + 1,
                            scan.facets,
                            shown()
                        ),
                    ));
                }
                let mut p = [0.0f32; 3];
                for (axis, w) in words[1..].iter().enumerate() {
                    let v: f32 = w
                        .parse()
                        .map_err(|_| parse_err(ln, format!("`{w}` in a vertex is not a number")))?;
                    if v.is_finite() {
                        p[axis] = v;
                    } else {
                        scan.rewrite = true;
                        scan.patches.push(Patch {
                            facet: scan.facets,
                            corner,
                            axis,
                            value: v,
                        });
                    }
                }
                emit(&mut out, &format!("vertex {} {} {}", p[0], p[1], p[2]));
                state = if corner == 2 {
                    State::EndLoop
                } else {
                    State::Vertex(corner + 1)
                };
            }
            State::EndLoop => {
                if words.len() != 1 || !keyword(words[0], "endloop", &mut scan.rewrite) {
                    return Err(parse_err(
                        ln,
                        format!(
                            "expected `endloop` after 3 vertices (a facet is a triangle), found {}",
                            shown()
                        ),
                    ));
                }
                emit(&mut out, "endloop");
                state = State::EndFacet;
            }
            State::EndFacet => {
                if words.len() != 1 || !keyword(words[0], "endfacet", &mut scan.rewrite) {
                    return Err(parse_err(
                        ln,
                        format!("expected `endfacet`, found {}", shown()),
                    ));
                }
                emit(&mut out, "endfacet");
                scan.facets += 1;
                if scan.facets as u64 > MAX_MODEL_TRIANGLES {
                    return Err(too_large(
                        path,
                        STL,
                        "triangles",
                        scan.facets as u64,
                        MAX_MODEL_TRIANGLES,
                    ));
                }
                state = State::Facet;
            }
        }
    }
    match state {
        State::Start => return Err(err(path, ModelErrorKind::Empty("only blank lines".into()))),
        State::Facet => {
            scan.missing_endsolid = true;
            scan.rewrite = true;
        }
        State::AfterSolid => {}
        _ => {
            return Err(err(
                path,
                ModelErrorKind::Truncated(format!(
                    "the file ends inside facet {} (last line {last_line})",
                    scan.facets
                )),
            ))
        }
    }
    if let Some(o) = out {
        o.push_str("endsolid\n");
    }
    Ok(scan)
}

fn ascii(
    path: &Path,
    bytes: &[u8],
    report: &mut LoadReport,
) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), Error> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut text = String::from_utf8_lossy(bytes);
    if text.contains('\r') {
        text = Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"));
    }
    let mut scan = scan_ascii(path, &text, None)?;
    if scan.facets == 0 {
        return Err(err(
            path,
            ModelErrorKind::Empty("no facets between `solid` and `endsolid`".into()),
        ));
    }
    let normalized = if scan.rewrite {
        let mut o = String::with_capacity(text.len().min(1 << 20));
        scan = scan_ascii(path, &text, Some(&mut o))?;
        Some(o)
    } else {
        None
    };
    if scan.missing_endsolid {
        report.warnings.push(format!(
            "{}: the last `endsolid` is missing (the file may be cut short)",
            path.display()
        ));
    }
    if scan.ignored_lines > 0 {
        report.warnings.push(format!(
            "{}: {} lines after the last `endsolid` ignored",
            path.display(),
            scan.ignored_lines
        ));
    }
    let source = normalized.as_deref().unwrap_or(&text);
    let mut patches = scan.patches.iter().peekable();
    read_facets(
        path,
        &mut Cursor::new(source.as_bytes()),
        scan.facets,
        |i, corners| {
            while let Some(p) = patches.next_if(|p| p.facet == i) {
                corners[p.corner][p.axis] = p.value;
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary_stl(header: &[u8; 80], facets: &[[[f32; 3]; 3]]) -> Vec<u8> {
        let mut b = header.to_vec();
        b.extend((facets.len() as u32).to_le_bytes());
        for f in facets {
            b.extend([0u8; 12]);
            for c in f {
                for v in c {
                    b.extend(v.to_le_bytes());
                }
            }
            b.extend([0, 0]);
        }
        b
    }

    #[test]
    fn a_binary_header_starting_with_solid_is_still_binary() {
        let mut header = [b' '; 80];
        header[..11].copy_from_slice(b"solid thing");
        let b = binary_stl(&header, &[[[0., 0., 0.], [1., 0., 0.], [0., 1., 0.]]]);
        assert_eq!(classify(&b), Ok(Kind::Binary { count: 1 }));
        let (scene, report) = load_stl_bytes(Path::new("x.stl"), &b).unwrap();
        assert_eq!(report.triangles, 1);
        assert_eq!(scene.meshes()[0].positions().len(), 3);
    }

    #[test]
    fn facet_order_is_kept_and_vertices_are_shared() {
        let tris = [
            [[0., 0., 0.], [1., 0., 0.], [0., 1., 0.]],
            [[5., 5., 5.], [6., 5., 5.], [5., 6., 5.]],
            [[1., 0., 0.], [1., 1., 0.], [0., 1., 0.]],
        ];
        let (scene, _) = load_stl_bytes(Path::new("x.stl"), &binary_stl(&[0; 80], &tris)).unwrap();
        let m = &scene.meshes()[0];
        assert_eq!(m.positions().len(), 7);
        for (i, t) in tris.iter().enumerate() {
            assert_eq!(m.triangle(i as u32).map(|p| p.to_array()), *t);
        }
    }

    #[test]
    fn the_probe_reader_serves_the_file_with_a_blank_header() {
        let data: Vec<u8> = (0..200u8).collect();
        let mut r = BinaryBytes {
            bytes: &data,
            pos: 0,
        };
        let mut got = Vec::new();
        r.read_to_end(&mut got).unwrap();
        assert!(got[..80].iter().all(|&b| b == b'\n'));
        assert_eq!(got[80..], data[80..]);
        r.seek(SeekFrom::Start(78)).unwrap();
        let mut two = [0u8; 4];
        r.read_exact(&mut two).unwrap();
        assert_eq!(two, [b'\n', b'\n', 80, 81]);
    }
}
