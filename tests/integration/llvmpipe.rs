//! Conformance with Mesa llvmpipe (D3D orientation): the fixtures under
//! `tests/fixtures/llvmpipe/` were rendered by llvmpipe
//! (`scripts/llvmpipe_fixtures.py`); softpick's TopLeft rule must reproduce
//! them pixel for pixel.

use std::path::{Path, PathBuf};

use softpick::internals::read_raw_u32;
use softpick::internals::{load_obj, render_2d};
use softpick::{render, Camera, FillRule, RenderOptions};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llvmpipe")
}

fn load_case(path: &Path) -> (u32, u32, Vec<[[f32; 2]; 3]>) {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let w = v["width"].as_u64().unwrap() as u32;
    let h = v["height"].as_u64().unwrap() as u32;
    let tris = v["triangles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let c = |k: usize, a: usize| t[k][a].as_f64().unwrap() as f32;
            [[c(0, 0), c(0, 1)], [c(1, 0), c(1, 1)], [c(2, 0), c(2, 1)]]
        })
        .collect();
    (w, h, tris)
}

#[test]
fn top_left_matches_llvmpipe_on_2d_fixtures() {
    let mut cases = 0;
    let mut entries: Vec<_> = std::fs::read_dir(dir().join("2d"))
        .unwrap()
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let path = e.path();
        if path.extension().and_then(|s| s.to_str()) != Some("json") {
            continue;
        }
        let (w, h, tris) = load_case(&path);
        let want = read_raw_u32(path.with_extension("d3d.u32")).unwrap();
        let f = render_2d(w, h, &tris, FillRule::TopLeft).unwrap();
        let diff = f.ids().iter().zip(&want).filter(|(a, b)| a != b).count();
        let covered = want.iter().filter(|&&i| i != 0).count();
        println!(
            "{:<16} {:>4} triangles {:>6} covered {diff} differ",
            path.file_stem().unwrap().to_string_lossy(),
            tris.len(),
            covered
        );
        assert_eq!(
            diff,
            0,
            "{}: {diff} pixels differ from llvmpipe",
            path.display()
        );
        cases += 1;
    }
    assert!(cases >= 9, "fixtures missing");
}

#[test]
fn top_left_matches_llvmpipe_on_3d_views() {
    let (scene, _) = load_obj(&dir().join("3d/mesh.obj")).unwrap();
    for view in ["view_a", "view_b"] {
        let cam = Camera::load(
            dir().join(format!("3d/{view}.json")),
            &scene.framing_bounds(),
        )
        .unwrap();
        let f = render(
            &scene,
            &cam,
            RenderOptions {
                color: false,
                ..RenderOptions::default()
            },
        )
        .unwrap();
        let want = read_raw_u32(dir().join(format!("3d/{view}.d3d.u32"))).unwrap();
        assert_eq!(want.len(), f.ids().len());
        let same = f.ids().iter().zip(&want).filter(|(a, b)| a == b).count();
        let frac = same as f64 / want.len() as f64;
        println!(
            "{view}: {same}/{} pixels identical to llvmpipe ({:.4}%)",
            want.len(),
            frac * 100.0
        );
        assert!(frac >= 0.999, "{view}: only {:.4}% identical", frac * 100.0);
        // window depth, interpolated per pixel, against llvmpipe's 32-bit float depth
        let dpath = dir().join(format!("3d/{view}.d3d.f32"));
        let bytes = std::fs::read(&dpath).unwrap();
        let want_d: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut worst = 0.0f32;
        for (k, (a, b)) in f.ids().iter().zip(&want).enumerate() {
            if a == b && *a != 0 {
                worst = worst.max((f.depth()[k] - want_d[k]).abs());
            }
        }
        println!("{view}: largest depth difference from llvmpipe {worst:e}");
        assert!(worst < 2e-6, "{view}: depth differs by {worst}");
    }
}
