//! The library's modules depend one way (docs/architecture.md): every file
//! under `src/` (but the crate root and the binary) imports only from its own
//! layer or lower, and no files import each other around a circle.
//!
//! The test reads the source as text: each `crate::…` and `super::…` path
//! outside comments and before the file's unit tests (an inline
//! `#[cfg(test)] mod tests` or a sibling `tests.rs`), resolved to the file
//! that defines it. A path through the crate root's re-exports
//! (`crate::Frame`) hides its layer, so it is refused too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Layers, lowest first: a module path → its layer. The longest entry a
/// module's path starts with decides (`pick_cache`, the pick caches a
/// frame owns, built from plain inputs, sits in the frame's layer, below
/// `pick`).
const LAYERS: &[(&str, u32)] = &[
    ("limits", 1),
    ("error", 1),
    ("geometry", 1),
    ("cpu", 1),
    ("par", 1),
    ("accel", 2),
    ("scene", 3),
    ("camera", 3),
    ("raster", 4),
    ("frame", 5),
    ("pick_cache", 5),
    ("pick", 6),
    ("select", 7),
    ("collide", 7),
    ("rule_faults", 7),
    ("io", 8),
    ("export", 8),
    ("builtin", 8),
    ("viewer", 9),
    ("internals", 10),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every library source file as its module path (`["raster", "setup"]`).
fn modules(dir: &Path, prefix: &[String], out: &mut BTreeMap<Vec<String>, PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            if prefix.is_empty() && name == "bin" {
                continue;
            }
            let mut next = prefix.to_vec();
            next.push(name);
            modules(&p, &next, out);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            let mut m = prefix.to_vec();
            if stem != "mod" {
                m.push(stem.to_string());
            }
            // the crate root re-exports everything; unit tests (a `tests.rs`
            // or `tests/` folder beside the code, declared
            // `#[cfg(test)] mod tests;`) and the test helpers may use any
            // layer
            if m.is_empty() || m == ["lib"] || m == ["test_util"] || m.iter().any(|c| c == "tests")
            {
                continue;
            }
            out.insert(m, p);
        }
    }
}

/// The code of a file that counts: no comments, nothing from its
/// `#[cfg(test)]` unit-test module on.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let next = lines.get(i + 1).map_or("", |l| l.trim_start());
        if t.starts_with("#[cfg(test)]") && (next.starts_with("mod ") || t.contains("mod ")) {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        let line = match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The module paths a file names: `crate::a::b::{c, d::e}` gives `a::b::c`
/// and `a::b::d::e`; `super::x` is made absolute from `here`.
fn paths_in(code: &str, here: &[String], is_mod_rs: bool) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    for key in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(key) {
            let at = from + i;
            from = at + key.len();
            let before = if at == 0 { b' ' } else { bytes[at - 1] };
            if before.is_ascii_alphanumeric() || before == b'_' || before == b':' {
                continue;
            }
            let mut base: Vec<String> = if key == "crate::" {
                Vec::new()
            } else {
                // `super` of a `mod.rs` file is its folder's parent module
                let mut b = here.to_vec();
                if !is_mod_rs || !b.is_empty() {
                    b.pop();
                }
                b
            };
            let rest = &code[from..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            base.extend(
                rest[..end]
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
            // a braced group after the path: each of its leading names
            if rest[end..].starts_with('{') {
                let close = rest[end..].find('}').map_or(rest.len(), |c| end + c);
                for item in rest[end + 1..close].split(',') {
                    let item = item.trim();
                    let head: String = item
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                        .collect();
                    if head.is_empty() || head == "self" {
                        found.push(base.clone());
                        continue;
                    }
                    let mut p = base.clone();
                    p.extend(
                        head.split("::")
                            .filter(|s| !s.is_empty())
                            .map(str::to_string),
                    );
                    found.push(p);
                }
            } else {
                found.push(base);
            }
        }
    }
    found
}

/// The longest module of `mods` that `path` starts with.
fn resolve<'a>(path: &[String], mods: &'a BTreeMap<Vec<String>, PathBuf>) -> Option<&'a [String]> {
    (1..=path.len())
        .rev()
        .find_map(|n| mods.get_key_value(&path[..n]).map(|(k, _)| k.as_slice()))
}

fn layer_of(m: &[String]) -> Option<u32> {
    LAYERS
        .iter()
        .filter(|(name, _)| {
            let parts: Vec<&str> = name.split("::").collect();
            m.len() >= parts.len() && m.iter().zip(&parts).all(|(a, b)| a == b)
        })
        .max_by_key(|(name, _)| name.split("::").count())
        .map(|&(_, l)| l)
}

/// File module → the other file modules it names.
type Graph = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

/// The import graph, and the paths that could not be placed.
fn graph() -> (Graph, Vec<String>) {
    let mut mods = BTreeMap::new();
    modules(&src(), &[], &mut mods);
    let mut problems = Vec::new();
    let mut edges = BTreeMap::new();
    for (m, file) in &mods {
        let text = std::fs::read_to_string(file).expect("source file is readable");
        let is_mod_rs = file.file_name().is_some_and(|n| n == "mod.rs");
        let mut to = BTreeSet::new();
        for p in paths_in(&code_of(&text), m, is_mod_rs) {
            if p.first()
                .is_some_and(|f| f.starts_with(|c: char| c.is_uppercase()))
            {
                problems.push(format!(
                    "{}: `crate::{}` goes through the crate root; name its module",
                    file.display(),
                    p.join("::")
                ));
                continue;
            }
            if let Some(target) = resolve(&p, &mods) {
                if target != m.as_slice() && !target.starts_with(m) {
                    to.insert(target.to_vec());
                }
            }
        }
        edges.insert(m.clone(), to);
    }
    for m in mods.keys() {
        if layer_of(m).is_none() {
            problems.push(format!(
                "src module `{}` has no layer in tests/integration/layers.rs",
                m.join("::")
            ));
        }
    }
    (edges, problems)
}

#[test]
fn no_module_imports_from_a_higher_layer() {
    let (edges, mut problems) = graph();
    for (from, tos) in &edges {
        for to in tos {
            if let (Some(a), Some(b)) = (layer_of(from), layer_of(to)) {
                if b > a {
                    problems.push(format!(
                        "{} (layer {a}) imports {} (layer {b})",
                        from.join("::"),
                        to.join("::")
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn no_files_import_each_other_around_a_circle() {
    let (edges, _) = graph();
    // depth-first search with colors: 1 on the stack, 2 done
    fn visit(
        m: &Vec<String>,
        edges: &Graph,
        color: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
        circles: &mut Vec<String>,
    ) {
        color.insert(m.clone(), 1);
        stack.push(m.clone());
        for to in edges.get(m).into_iter().flatten() {
            match color.get(to).copied().unwrap_or(0) {
                0 => visit(to, edges, color, stack, circles),
                1 => {
                    let start = stack.iter().position(|s| s == to).unwrap_or(0);
                    let mut names: Vec<String> =
                        stack[start..].iter().map(|s| s.join("::")).collect();
                    names.push(to.join("::"));
                    circles.push(names.join(" -> "));
                }
                _ => {}
            }
        }
        stack.pop();
        color.insert(m.clone(), 2);
    }
    let mut color = BTreeMap::new();
    let mut circles = Vec::new();
    for m in edges.keys() {
        if color.get(m).copied().unwrap_or(0) == 0 {
            visit(m, &edges, &mut color, &mut Vec::new(), &mut circles);
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_layer_reader_sees_imports_and_upward_ones() {
    // the reader itself: a braced group, a `super` path, a root re-export
    let here = vec!["raster".to_string(), "setup".to_string()];
    let code = code_of(
        "use crate::frame::{Frame, direct_index::DirectCache};\nuse super::rules::snap;\n// use crate::viewer::x;\n#[cfg(test)]\nfn only_in_tests() {}\n#[cfg(test)]\nmod tests {\nuse crate::pick::Hit;\n}\n",
    );
    let p = paths_in(&code, &here, false);
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(p.contains(&s(&["frame", "Frame"])));
    assert!(p.contains(&s(&["frame", "direct_index", "DirectCache"])));
    assert!(p.contains(&s(&["raster", "rules", "snap"])));
    assert!(!p.iter().any(|x| x[0] == "viewer" || x[0] == "pick"));
    assert!(layer_of(&s(&["frame"])) > layer_of(&s(&["raster"])));
    // the pick caches below the picks, with the frame
    assert_eq!(
        layer_of(&s(&["pick_cache", "direct_index"])),
        layer_of(&s(&["frame"]))
    );
    assert!(layer_of(&s(&["pick", "direct"])) > layer_of(&s(&["pick_cache"])));
}
