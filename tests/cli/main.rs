//! Integration tests of the `softpick` command line: the real binary, run
//! with `std::process::Command`, checked against the library.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use softpick::{builtin_scene, render, Camera, FillRule, RenderOptions};

const BIN: &str = env!("CARGO_BIN_EXE_softpick");

/// Layout of `rules.png` (see src/bin/softpick/rules.rs): four panels, 4-pixel
/// separators, a caption strip of 92 pixels under 360-pixel-wide panels.
const RULES_SEPARATOR: u32 = 4;
const RULES_CAPTION_360: u32 = 92;
const GAP_COLOR: u32 = 0x00FF_00FF;
const DOUBLE_COLOR: u32 = 0x0000_FFFF;
const CLAIM_COLOR: u32 = 0x00FF_FF00;

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("softpick-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create scratch dir");
    d
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("run softpick")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn assert_ok(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what} failed ({:?})\nstdout:\n{}\nstderr:\n{}",
        o.status,
        text(&o.stdout),
        text(&o.stderr)
    );
}

fn read_u32(p: &Path) -> Vec<u32> {
    let b = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert_eq!(b.len() % 4, 0);
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn library_ids(w: u32, h: u32, rule: FillRule) -> Vec<u32> {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let opts = RenderOptions {
        rule,
        ..RenderOptions::default()
    };
    render(&scene, &cam, opts).unwrap().ids().to_vec()
}

#[test]
fn demo_writes_three_pngs_of_the_right_sizes() {
    let dir = scratch("demo");
    let o = run_in(&dir, &["demo"]);
    assert_ok(&o, "demo");
    let out = text(&o.stdout);
    for m in ["buffer", "direct", "ray", "agreement"] {
        assert!(out.contains(m), "demo output lacks {m:?}:\n{out}");
    }
    for name in ["render.png", "pickmap.png"] {
        let (w, h, _) = softpick::internals::read_png(dir.join("output").join(name)).unwrap();
        assert_eq!((w, h), (360, 360), "{name}");
    }
    let (w, h, px) = softpick::internals::read_png(dir.join("output/rules.png")).unwrap();
    assert_eq!(w, 4 * 360 + 3 * RULES_SEPARATOR);
    assert_eq!(h, 360 + RULES_CAPTION_360);

    // the marks in the picture are the counts: strict has gaps (magenta),
    // inclusive has false claims (yellow), top-left has no marks at all
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let reports = softpick::analyze_rules(&scene, &cam).unwrap();
    let panel_count = |k: u32, color: u32| {
        let x0 = k * (360 + RULES_SEPARATOR);
        (0..360)
            .flat_map(|y| (x0..x0 + 360).map(move |x| (x, y)))
            .filter(|&(x, y)| px[(y * w + x) as usize] == color)
            .count()
    };
    for (k, r) in reports.iter().enumerate() {
        let k = k as u32;
        match r.rule {
            FillRule::Strict => {
                assert!(r.gaps > 0, "the built-in scene shows strict's gaps");
                assert_eq!(panel_count(k, GAP_COLOR), r.gaps);
            }
            FillRule::Inclusive => {
                assert!(r.false_claims > 0);
                assert_eq!(panel_count(k, CLAIM_COLOR), r.false_claims);
            }
            FillRule::TopLeft => {
                for c in [GAP_COLOR, DOUBLE_COLOR, CLAIM_COLOR] {
                    assert_eq!(panel_count(k, c), 0, "top-left panel has marks {c:06x}");
                }
            }
            FillRule::AreaGuard => {
                assert_eq!(panel_count(k, GAP_COLOR) + panel_count(k, CLAIM_COLOR), 0);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn render_ids_raw_matches_the_library() {
    let dir = scratch("render");
    for (w, h) in [(360u32, 360u32), (200, 120)] {
        let size = format!("{w}x{h}");
        let o = run_in(
            &dir,
            &[
                "render",
                "--size",
                &size,
                "-o",
                "r.png",
                "--ids-raw",
                "r.u32",
                "--depth-raw",
                "r.f32",
            ],
        );
        assert_ok(&o, "render");
        let bytes = std::fs::metadata(dir.join("r.u32")).unwrap().len();
        assert_eq!(bytes, u64::from(w * h * 4));
        assert_eq!(std::fs::metadata(dir.join("r.f32")).unwrap().len(), bytes);
        assert_eq!(
            read_u32(&dir.join("r.u32")),
            library_ids(w, h, FillRule::TopLeft)
        );
        let (pw, ph, _) = softpick::internals::read_png(dir.join("r.png")).unwrap();
        assert_eq!((pw, ph), (w, h));
    }
    // another rule, pick-only pass: no PNG, same IDs as the library
    let o = run_in(
        &dir,
        &[
            "render",
            "--no-color",
            "--rule",
            "strict",
            "--ids-raw",
            "s.u32",
        ],
    );
    assert_ok(&o, "render --no-color");
    assert_eq!(
        read_u32(&dir.join("s.u32")),
        library_ids(360, 360, FillRule::Strict)
    );
    assert!(!dir.join("output").exists(), "--no-color writes no PNG");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pickmap_ids_are_the_id_buffer_for_buffer_and_direct() {
    let dir = scratch("pickmap");
    let want = library_ids(360, 360, FillRule::TopLeft);
    for method in ["buffer", "direct"] {
        let o = run_in(
            &dir,
            &[
                "pickmap",
                "--method",
                method,
                "-o",
                "p.png",
                "--ids-raw",
                "p.u32",
            ],
        );
        assert_ok(&o, "pickmap");
        assert_eq!(read_u32(&dir.join("p.u32")), want, "{method}");
        let (w, h, px) = softpick::internals::read_png(dir.join("p.png")).unwrap();
        assert_eq!((w, h), (360, 360));
        // background black exactly where the ID buffer is empty
        for (c, id) in px.iter().zip(&want) {
            assert_eq!(*c == 0, *id == 0);
        }
    }
    // the ray method exists and writes a map of the same size
    let o = run_in(
        &dir,
        &[
            "pickmap", "--method", "ray", "--by", "triangle", "-o", "q.png",
        ],
    );
    assert_ok(&o, "pickmap --method ray");
    let (w, h, _) = softpick::internals::read_png(dir.join("q.png")).unwrap();
    assert_eq!((w, h), (360, 360));
    let _ = std::fs::remove_dir_all(&dir);
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&o.stdout)))
}

#[test]
fn pick_json_matches_the_library() {
    let dir = scratch("pick");
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let frame = render(&scene, &cam, RenderOptions::default()).unwrap();
    let picks = frame.picks(&scene).unwrap();
    // a few covered pixels spread over the frame, and the background corner
    let mut pixels: Vec<(u32, u32)> = (0..360 * 360)
        .step_by(9973)
        .map(|i| (i % 360, i / 360))
        .filter(|&(x, y)| frame.triangle_at(i64::from(x), i64::from(y)).is_some())
        .take(4)
        .collect();
    assert!(pixels.len() >= 2, "the built-in scene covers the frame");
    pixels.push((0, 0));
    for (x, y) in pixels {
        let at = format!("{x},{y}");
        for method in ["buffer", "direct"] {
            let o = run_in(&dir, &["pick", "--at", &at, "--method", method, "--json"]);
            assert_ok(&o, "pick");
            let j = json(&o);
            assert_eq!(j["x"], x);
            assert_eq!(j["y"], y);
            assert_eq!(j["method"], method);
            let lib = picks.at(i64::from(x), i64::from(y));
            let Some(h) = lib else {
                assert!(j["mesh"].is_null() && j["global_triangle"].is_null(), "{j}");
                continue;
            };
            assert_eq!(j["mesh"], h.mesh);
            assert_eq!(j["mesh_name"], &*h.mesh_name);
            assert_eq!(j["triangle"], h.triangle);
            assert_eq!(j["global_triangle"], h.global_triangle);
            assert_eq!(j["front_face"], h.front_face);
            assert_eq!(j["depth"].as_f64().unwrap() as f32, h.depth);
            for (k, v) in h.position.to_array().iter().enumerate() {
                assert!((j["position"][k].as_f64().unwrap() as f32 - v).abs() < 1e-4);
            }
            let b: f64 = (0..3).map(|k| j["barycentric"][k].as_f64().unwrap()).sum();
            assert!((b - 1.0).abs() < 1e-3, "barycentrics sum to 1: {j}");
        }
        // --all: a JSON array of hits, nearest first = the buffer pick
        let o = run_in(&dir, &["pick", "--at", &at, "--all", "--json"]);
        assert_ok(&o, "pick --all");
        let j = json(&o);
        let hits = j["hits"].as_array().expect("hits array");
        match picks.at(i64::from(x), i64::from(y)) {
            Some(h) => assert_eq!(hits[0]["global_triangle"], h.global_triangle),
            None => assert!(hits.is_empty()),
        }
        // the ray method answers with the same JSON shape
        let o = run_in(&dir, &["pick", "--at", &at, "--method", "ray", "--json"]);
        assert_ok(&o, "pick --method ray");
        assert_eq!(json(&o)["method"], "ray");
    }
    // readable line
    let o = run_in(&dir, &["pick", "--at", "0,0"]);
    assert_ok(&o, "pick");
    assert!(text(&o.stdout).contains("background"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ids of `select --json`'s meshes, checking each name against the scene.
fn json_meshes(j: &serde_json::Value, scene: &softpick::Scene) -> Vec<u32> {
    let meshes = j["meshes"].as_array().expect("meshes array");
    assert_eq!(j["mesh_count"], meshes.len(), "{j}");
    meshes
        .iter()
        .map(|m| {
            let id = m["id"].as_u64().expect("mesh id") as u32;
            assert_eq!(m["name"], scene.mesh(id).unwrap().name(), "{j}");
            id
        })
        .collect()
}

#[test]
fn select_json_matches_the_library() {
    use softpick::{SelectMode, Selection};
    let dir = scratch("select");
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let frame = render(&scene, &cam, RenderOptions::default()).unwrap();
    let picks = frame.picks(&scene).unwrap();
    let rects: [[i64; 4]; 5] = [
        [0, 0, 359, 359],
        // pillar_1 has triangles here, all hidden behind nearer meshes
        [100, 250, 200, 330],
        [250, 250, 100, 100], // corners in any order
        [300, -40, 500, 60],  // clamped to the frame
        [400, 400, 500, 500], // entirely outside: nothing
    ];
    let lassos: [&[[f32; 2]]; 3] = [
        &[[100.0, 100.0], [250.5, 100.0], [180.25, 250.0]],
        // a self-intersecting bow tie
        &[[60.0, 200.0], [300.0, 340.0], [300.0, 200.0], [60.0, 340.0]],
        // partly outside the frame
        &[[-50.0, 150.0], [200.0, 280.0], [-20.0, 420.0]],
    ];
    let mut cases: Vec<(Vec<String>, [Selection; 2])> = Vec::new();
    for r in rects {
        let arg = format!("{},{},{},{}", r[0], r[1], r[2], r[3]);
        let lib = [SelectMode::Visible, SelectMode::Through]
            .map(|m| picks.rect(r[0], r[1], r[2], r[3], m));
        cases.push((vec!["--rect".into(), arg], lib));
    }
    for l in lassos {
        let arg: Vec<String> = l.iter().flatten().map(|c| c.to_string()).collect();
        let lib = [SelectMode::Visible, SelectMode::Through].map(|m| picks.lasso(l, m));
        cases.push((vec!["--lasso".into(), arg.join(",")], lib));
    }
    let mut differ = 0;
    for (region, [vis, thr]) in &cases {
        // x-ray selects a superset of what is visible
        assert!(
            vis.meshes.iter().all(|m| thr.contains_mesh(*m)),
            "{region:?}"
        );
        assert!(
            vis.triangles.iter().all(|t| thr.contains_triangle(*t)),
            "{region:?}"
        );
        assert_eq!(vis.pixels, thr.pixels);
        if vis.meshes != thr.meshes {
            differ += 1;
        }
        for (through, lib) in [(false, vis), (true, thr)] {
            let mut args = vec!["select", region[0].as_str(), region[1].as_str(), "--json"];
            if through {
                args.push("--through");
            }
            let o = run_in(&dir, &args);
            assert_ok(&o, "select");
            let j = json(&o);
            assert_eq!(j["mode"], if through { "through" } else { "visible" });
            assert_eq!(json_meshes(&j, &scene), lib.meshes, "{args:?}");
            assert_eq!(j["triangle_count"], lib.triangles.len(), "{args:?}");
            assert_eq!(j["pixels"], lib.pixels, "{args:?}");
            assert!(j.get("triangles").is_none(), "only with --triangles: {j}");
            // --triangles: the global indices, sorted
            args.push("--triangles");
            let j = json(&run_in(&dir, &args));
            let tris: Vec<u32> = j["triangles"]
                .as_array()
                .expect("triangles array")
                .iter()
                .map(|t| t.as_u64().unwrap() as u32)
                .collect();
            assert_eq!(tris, lib.triangles, "{args:?}");
        }
    }
    assert!(differ > 0, "x-ray selects occluded meshes somewhere");
    // the occluded rectangle: exactly pillar_1 is added, invisible there
    let [vis, thr] = &cases[1].1;
    let extra: Vec<u32> = thr
        .meshes
        .iter()
        .copied()
        .filter(|m| !vis.contains_mesh(*m))
        .collect();
    assert_eq!(extra.len(), 1, "{vis:?} {thr:?}");
    assert_eq!(scene.mesh(extra[0]).unwrap().name(), "pillar_1");
    assert!(vis.pixels > 0 && cases[4].1[1].is_empty());

    // readable output: a summary line, then one line per mesh
    let o = run_in(&dir, &["select", "--rect", "100,250,200,330", "--through"]);
    assert_ok(&o, "select");
    let out = text(&o.stdout);
    let mut lines = out.lines();
    let head = lines.next().unwrap();
    assert!(
        head.contains("through") && head.contains(&format!("{} meshes", thr.meshes.len())),
        "{out}"
    );
    assert_eq!(lines.clone().count(), thr.meshes.len(), "{out}");
    assert!(lines.any(|l| l.contains("\"pillar_1\"")), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pick_radius_finds_the_nearest_covered_pixel() {
    let dir = scratch("radius");
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let frame = render(&scene, &cam, RenderOptions::default()).unwrap();
    // a background pixel a few pixels away from the nearest mesh
    let (bx, by, near) = (0..360u32 * 360)
        .map(|i| (i % 360, i / 360))
        .filter(|&(x, y)| frame.triangle_at(i64::from(x), i64::from(y)).is_none())
        .find_map(|(x, y)| {
            let n = frame.nearest_covered(i64::from(x), i64::from(y), 12.0)?;
            (n.distance > 5.0).then_some((x, y, n))
        })
        .expect("a background pixel near a mesh");
    let at = format!("{bx},{by}");
    let want = frame
        .picks(&scene)
        .unwrap()
        .near(i64::from(bx), i64::from(by), 12.0)
        .expect("pick_near finds it");
    for method in ["buffer", "direct"] {
        let o = run_in(
            &dir,
            &[
                "pick", "--at", &at, "--radius", "12", "--method", method, "--json",
            ],
        );
        assert_ok(&o, "pick --radius");
        let j = json(&o);
        assert_eq!(
            (j["x"].as_u64(), j["y"].as_u64()),
            (Some(bx.into()), Some(by.into()))
        );
        assert_eq!(j["radius"], 12.0);
        assert_eq!(j["near"]["x"], near.x, "{j}");
        assert_eq!(j["near"]["y"], near.y, "{j}");
        assert_eq!(
            j["near"]["distance"].as_f64().unwrap() as f32,
            near.distance
        );
        assert_eq!(j["global_triangle"], want.global_triangle, "{j}");
        assert_eq!(j["global_triangle"], near.triangle, "{j}");
        assert_eq!(j["mesh_name"], &*want.mesh_name);
    }
    // a radius short of it finds nothing
    let short = format!("{}", (near.distance - 0.5).max(0.0));
    let j = json(&run_in(
        &dir,
        &["pick", "--at", &at, "--radius", &short, "--json"],
    ));
    assert!(j["near"].is_null() && j["mesh"].is_null(), "{j}");
    // on a covered pixel the pixel itself answers, at distance 0
    let (cx, cy) = (near.x, near.y);
    let j = json(&run_in(
        &dir,
        &[
            "pick",
            "--at",
            &format!("{cx},{cy}"),
            "--radius",
            "3",
            "--json",
        ],
    ));
    assert_eq!(
        (j["near"]["x"].as_u64(), j["near"]["y"].as_u64()),
        (Some(cx.into()), Some(cy.into()))
    );
    assert_eq!(j["near"]["distance"], 0.0);
    // --all lists the stack at the found pixel
    let j = json(&run_in(
        &dir,
        &["pick", "--at", &at, "--radius", "12", "--all", "--json"],
    ));
    assert_eq!(j["hits"][0]["global_triangle"], want.global_triangle, "{j}");
    // without --radius the fields are absent; the readable line names the pixel
    let j = json(&run_in(&dir, &["pick", "--at", &at, "--json"]));
    assert!(j.get("near").is_none() && j["mesh"].is_null(), "{j}");
    let o = run_in(&dir, &["pick", "--at", &at, "--radius", "12"]);
    assert_ok(&o, "pick --radius");
    let out = text(&o.stdout);
    assert!(
        out.contains(&format!(
            "covered pixel ({}, {}) at distance {:.4}",
            near.x, near.y, near.distance
        )),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_error_exits_2_with_one_clear_line() {
    let dir = scratch("errors");
    let write = |name: &str, body: &[u8]| std::fs::write(dir.join(name), body).unwrap();
    write("broken.obj", b"v 0 0 0\nv 1 0 0\nf 1 2 9\n");
    write("binary.obj", b"\x00\x01\x02\xff\xfe");
    write("badcam.json", br#"{"eye":[0,0,5],"target":[0,0,5]}"#);
    write("cut.json", br#"{"eye":[0,0,"#);
    std::fs::create_dir_all(dir.join("adir.png")).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["render", "missing.obj", "-o", "o.png"], "missing.obj"),
        (&["render", "broken.obj", "-o", "o.png"], "broken.obj"),
        (&["render", "binary.obj", "-o", "o.png"], "binary.obj"),
        (&["pickmap", "broken.obj", "-o", "o.png"], "broken.obj"),
        (
            &["render", "--camera", "badcam.json", "-o", "o.png"],
            "badcam.json",
        ),
        (
            &["render", "--camera", "cut.json", "-o", "o.png"],
            "cut.json",
        ),
        (
            &["render", "--camera", "nocam.json", "-o", "o.png"],
            "nocam.json",
        ),
        (&["render", "--size", "0x10", "-o", "o.png"], "--size"),
        (&["render", "--size", "big", "-o", "o.png"], "--size"),
        (&["rules", "--size", "20000x20", "-o", "o.png"], "--size"),
        (&["render", "-o", "no/such/dir/o.png"], "no/such/dir/o.png"),
        (&["render", "-o", "adir.png"], "adir.png"),
        (
            &["render", "-o", "o.png", "--ids-raw", "nodir/o.u32"],
            "nodir/o.u32",
        ),
        (&["pickmap", "-o", "nodir/o.png"], "nodir/o.png"),
        (&["rules", "-o", "nodir/o.png"], "nodir/o.png"),
        (&["pick", "--at", "360,5"], "--at"),
        (&["pick", "--at", "5,-1"], "--at"),
        (&["pick", "--at", "nan,5"], "--at"),
        (&["pick", "--at", "five"], "--at"),
        (&["pick", "missing.obj", "--at", "1,1"], "missing.obj"),
        (&["sweep", "broken.obj"], "broken.obj"),
        (&["pick", "--at", "1,1", "--radius", "-1"], "--radius"),
        (&["pick", "--at", "1,1", "--radius", "near"], "--radius"),
        (&["pick", "--at", "1,1", "--radius", "nan"], "--radius"),
        (&["select", "--lasso", "10,10,50,10,30"], "odd number"),
        (&["select", "--lasso", "10,10,50,10"], "at least 3"),
        (&["select", "--lasso", "10,10,50,ten,30,40"], "not a number"),
        (&["select", "--lasso", "10,10,50,10,30,inf"], "--lasso"),
        (&["select", "--rect", "1,2,3"], "--rect"),
        (&["select", "--rect", "a,b,c,d"], "not a number"),
        (&["select", "--rect", "1,2,3,4,5"], "--rect"),
        (&["select"], "--rect or --lasso"),
        (&["select", "--through", "--json"], "--rect or --lasso"),
        (
            &["select", "--rect", "0,0,5,5", "--lasso", "0,0,5,0,0,5"],
            "--rect and --lasso",
        ),
        (
            &["select", "missing.obj", "--rect", "0,0,5,5"],
            "missing.obj",
        ),
        (&["select", "--rect", "0,0,5,5", "--size", "0x5"], "--size"),
    ];
    for (args, needle) in cases {
        let o = run_in(&dir, args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("softpick: "), "{args:?}: {err}");
        assert!(
            err.contains(needle),
            "{args:?}: message lacks {needle:?}: {err}"
        );
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{args:?}: one line: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: {}", text(&o.stdout));
        assert!(
            !dir.join("o.png").exists(),
            "{args:?} left a partial output"
        );
        assert!(!dir.join("output").exists(), "{args:?} left output/");
    }
    // usage errors are clap's, also exit code 2
    for args in [
        &["render", "--rule", "sideways"][..],
        &["sweep", "--reps", "0"],
        &["render", "--threads", "0"],
        &["pick"],
        &["frobnicate"],
    ] {
        let o = run_in(&dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!text(&o.stderr).contains("panicked"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_on_each_subcommand() {
    let dir = scratch("help");
    for sub in [
        "demo", "render", "pickmap", "rules", "pick", "select", "sweep", "view",
    ] {
        let o = run_in(&dir, &[sub, "--help"]);
        assert_ok(&o, sub);
        let out = text(&o.stdout);
        assert!(out.contains(&format!("Usage: softpick {sub}")), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn view_without_a_display_names_the_headless_commands() {
    let dir = scratch("view");
    let o = run_in(&dir, &["view"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    for c in ["render", "pickmap", "pick", "sweep"] {
        assert!(err.contains(c), "{err}");
    }
    assert!(!err.contains("panicked"));
    let _ = std::fs::remove_dir_all(&dir);
}

mod clip;
mod files;
mod gltf;
mod timing;
