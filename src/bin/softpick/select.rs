//! `softpick select`: the meshes (and triangles) in a rectangle or a lasso,
//! visible only or x-ray (`Picks::rect`, `Picks::lasso`).

use serde::Serialize;
use softpick::{Scene, SelectMode, Selection};

use crate::args::SelectCmd;
use crate::common::{say, CliError, Res, Setup};

/// The region of a selection, as given on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum Region {
    /// Inclusive pixel rectangle: corners (x0, y0) and (x1, y1), any order.
    Rect([i64; 4]),
    /// Closed polygon in window coordinates (pixel centres at +0.5).
    Lasso(Vec<[f32; 2]>),
}

/// The command-line name of a selection mode.
pub fn mode_name(mode: SelectMode) -> &'static str {
    match mode {
        SelectMode::Visible => "visible",
        SelectMode::Through => "through",
    }
}

/// Comma-separated finite numbers; `what` explains the expected form.
fn numbers(opt: &str, s: &str, what: &str) -> Res<Vec<f64>> {
    let mut v = Vec::new();
    for part in s.split(',') {
        let n: f64 = part
            .trim()
            .parse()
            .map_err(|_| CliError(format!("{opt} {s:?}: {part:?} is not a number; {what}")))?;
        if !n.is_finite() {
            return Err(CliError(format!(
                "{opt} {s:?}: coordinates must be finite numbers; {what}"
            )));
        }
        v.push(n);
    }
    Ok(v)
}

/// Parses `--rect X0,Y0,X1,Y1`: four numbers; decimals mean the pixel
/// containing the point (as `pick --at`). Corners may lie outside the frame
/// (the rectangle is clamped to it).
pub fn parse_rect(s: &str) -> Res<[i64; 4]> {
    const WHAT: &str = "expected X0,Y0,X1,Y1 (two pixel corners, inclusive), e.g. 10,20,200,150";
    let v = numbers("--rect", s, WHAT)?;
    if v.len() != 4 {
        return Err(CliError(format!(
            "--rect {s:?}: {} numbers; {WHAT}",
            v.len()
        )));
    }
    // `as` saturates: a corner far outside stays outside
    Ok([0, 1, 2, 3].map(|k| v[k].floor() as i64))
}

/// Parses `--lasso X,Y,X,Y,...`: at least three points in window
/// coordinates (pixel (i, j) has its centre at (i + 0.5, j + 0.5)).
pub fn parse_lasso(s: &str) -> Res<Vec<[f32; 2]>> {
    const WHAT: &str =
        "expected X,Y pairs of at least 3 points in window coordinates, e.g. 10,10,200,10,100,150";
    let v = numbers("--lasso", s, WHAT)?;
    if v.len() % 2 != 0 {
        return Err(CliError(format!(
            "--lasso {s:?}: odd number of coordinates ({}); {WHAT}",
            v.len()
        )));
    }
    if v.len() < 6 {
        return Err(CliError(format!(
            "--lasso {s:?}: {} point{}, a lasso needs at least 3; {WHAT}",
            v.len() / 2,
            if v.len() == 2 { "" } else { "s" }
        )));
    }
    let too_big = v.iter().any(|c| c.abs() > f64::from(f32::MAX));
    if too_big {
        return Err(CliError(format!(
            "--lasso {s:?}: a coordinate is too large; {WHAT}"
        )));
    }
    Ok(v.chunks_exact(2)
        .map(|p| [p[0] as f32, p[1] as f32])
        .collect())
}

/// Exactly one of `--rect` and `--lasso`, parsed.
pub fn parse_region(rect: Option<&str>, lasso: Option<&str>) -> Res<Region> {
    match (rect, lasso) {
        (Some(r), None) => Ok(Region::Rect(parse_rect(r)?)),
        (None, Some(l)) => Ok(Region::Lasso(parse_lasso(l)?)),
        (Some(_), Some(_)) => Err(CliError(
            "--rect and --lasso: give only one region, a rectangle or a lasso".into(),
        )),
        (None, None) => Err(CliError(
            "--rect or --lasso: give a region, --rect X0,Y0,X1,Y1 or --lasso X,Y,X,Y,X,Y,..."
                .into(),
        )),
    }
}

#[derive(Serialize)]
struct MeshJson<'a> {
    id: u32,
    name: &'a str,
}

/// `select --json`.
#[derive(Serialize)]
struct SelectJson<'a> {
    mode: &'static str,
    meshes: Vec<MeshJson<'a>>,
    mesh_count: usize,
    triangle_count: usize,
    pixels: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    triangles: Option<&'a [u32]>,
}

/// The selected triangles of each selected mesh (global indices), in mesh order.
fn per_mesh<'a>(scene: &Scene, sel: &'a Selection) -> Vec<(u32, &'a [u32])> {
    let offs = scene.triangle_offsets();
    let mut out = Vec::with_capacity(sel.meshes.len());
    let mut rest = &sel.triangles[..];
    for &m in &sel.meshes {
        let (start, end) = (offs[m as usize], offs[m as usize + 1]);
        let skip = rest.partition_point(|&t| t < start);
        rest = &rest[skip..];
        let n = rest.partition_point(|&t| t < end);
        out.push((m, &rest[..n]));
        rest = &rest[n..];
    }
    out
}

fn describe(region: &Region) -> String {
    match region {
        Region::Rect(r) => format!("rect ({}, {})-({}, {})", r[0], r[1], r[2], r[3]),
        Region::Lasso(p) => format!("lasso of {} points", p.len()),
    }
}

/// `softpick select`.
#[allow(clippy::too_many_arguments)]
pub fn select_cmd(a: &SelectCmd) -> Res<()> {
    let (rect, lasso) = (a.rect.as_deref(), a.lasso.as_deref());
    let (through, triangles, json_out) = (a.through, a.triangles, a.json);
    let region = parse_region(rect, lasso)?;
    let s = Setup::new(&a.scene, Some(&a.raster))?.with_clip(&a.clip)?;
    let mode = if through {
        SelectMode::Through
    } else {
        SelectMode::Visible
    };
    let frame = s.render_ids()?;
    let sel = match &region {
        Region::Rect(r) => frame.picks(&s.scene)?.rect(r[0], r[1], r[2], r[3], mode),
        Region::Lasso(p) => frame.picks(&s.scene)?.lasso(p, mode),
    };
    let name = |m: u32| s.scene.mesh(m).map_or("?", |m| m.name());
    if json_out {
        let j = SelectJson {
            mode: mode_name(mode),
            meshes: sel
                .meshes
                .iter()
                .map(|&id| MeshJson { id, name: name(id) })
                .collect(),
            mesh_count: sel.meshes.len(),
            triangle_count: sel.triangles.len(),
            pixels: sel.pixels,
            triangles: triangles.then_some(&sel.triangles[..]),
        };
        return say(format_args!(
            "{}",
            serde_json::to_string(&j).unwrap_or_default()
        ));
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    say(format_args!(
        "{}: {}, {}: {}, {}, {} covered",
        s.label,
        describe(&region),
        mode_name(mode),
        plural(sel.meshes.len(), "mesh", "meshes"),
        plural(sel.triangles.len(), "triangle", "triangles"),
        plural(sel.pixels, "pixel", "pixels"),
    ))?;
    for (m, tris) in per_mesh(&s.scene, &sel) {
        let mut line = format!(
            "  mesh {m} \"{}\": {}",
            name(m),
            plural(tris.len(), "triangle", "triangles")
        );
        if triangles {
            line += " (global";
            for t in tris {
                line += &format!(" {t}");
            }
            line += ")";
        }
        say(format_args!("{line}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_parsing() {
        assert_eq!(parse_rect("10,20,200,150").unwrap(), [10, 20, 200, 150]);
        assert_eq!(
            parse_rect(" -3.5 , 2.9,1e9,0").unwrap(),
            [-4, 2, 1_000_000_000, 0]
        );
        for bad in ["", "1,2,3", "1,2,3,4,5", "a,b,c,d", "1,2,nan,4", "1,,2,3"] {
            let e = parse_rect(bad).unwrap_err().0;
            assert!(e.starts_with("--rect"), "{e}");
        }
    }

    #[test]
    fn lasso_parsing() {
        assert_eq!(
            parse_lasso("0,0,10,0,5.5,8").unwrap(),
            vec![[0.0, 0.0], [10.0, 0.0], [5.5, 8.0]]
        );
        for (bad, why) in [
            ("0,0,10,0,5", "odd number"),
            ("0,0,10,0", "2 points"),
            ("0,0", "1 point,"),
            ("0,0,1,x,2,2", "not a number"),
            ("0,0,1,inf,2,2", "finite"),
            ("0,0,1,1e300,2,2", "too large"),
        ] {
            let e = parse_lasso(bad).unwrap_err().0;
            assert!(e.starts_with("--lasso") && e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn exactly_one_region() {
        assert!(parse_region(Some("0,0,1,1"), Some("0,0,1,0,0,1")).is_err());
        assert!(parse_region(None, None).is_err());
        assert_eq!(
            parse_region(Some("0,0,1,1"), None).unwrap(),
            Region::Rect([0, 0, 1, 1])
        );
    }
}
