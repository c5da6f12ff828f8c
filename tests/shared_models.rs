//! The third-party models of `../shared/models/` (beside the repository):
//! every glTF, STL and PLY file there loads, renders and picks with the
//! three methods agreeing, and every broken file in `gltf/bad/` is a clear
//! error. Not part of the required tests (those generate their files): run
//! with `cargo test --release --features shared-models --test shared_models`.
//! A missing folder fails the run.

use std::path::{Path, PathBuf};

use softpick::{load_model, render, Camera, ModelFormat, RenderOptions, Scene};

/// `../shared/models/<sub>`, beside the repository or beside the folder of
/// worktrees that holds it; panics when it is absent.
fn shared(sub: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["../shared/models", "../../shared/models"]
        .iter()
        .map(|r| root.join(r).join(sub))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| panic!("../shared/models/{sub} is missing: these tests need it"))
}

/// Model files under `dir` (recursively), those under a `bad` folder apart.
fn model_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "bad") {
                model_files(&p, out);
            }
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .and_then(ModelFormat::from_extension)
            .is_some_and(|f| f != ModelFormat::Obj)
        {
            out.push(p);
        }
    }
    out.sort();
}

/// Renders `scene` at 120×90 and checks buffer = direct at every pixel and
/// ray = buffer away from ID edges; the number of pixels covered.
fn check_picks(scene: &Scene, name: &str) -> usize {
    let cam = Camera::auto_frame(&scene.framing_bounds(), 120, 90);
    let f = render(scene, &cam, RenderOptions::default()).unwrap();
    let picks = f.picks(scene).unwrap();
    let id = |x: i64, y: i64| f.triangle_at(x, y);
    let mut covered = 0;
    for y in 0..90 {
        for x in 0..120 {
            let b = picks.at(x, y).map(|h| h.global_triangle);
            let d = picks
                .with(softpick::PickMethod::Direct)
                .at(x, y)
                .map(|h| h.global_triangle);
            assert_eq!(b, d, "{name} ({x},{y})");
            let Some(t) = b else { continue };
            covered += 1;
            let r = picks
                .with(softpick::PickMethod::Ray)
                .at(x, y)
                .map(|h| h.global_triangle);
            let edge = (-1..=1).any(|dy| (-1..=1).any(|dx| id(x + dx, y + dy) != Some(t)));
            assert!(
                r == Some(t) || edge,
                "{name} ({x},{y}): buffer {t}, ray {r:?}"
            );
        }
    }
    covered
}

#[test]
fn shared_gltf_stl_and_ply_models_load_render_and_pick() {
    let mut files = Vec::new();
    model_files(&shared("gltf"), &mut files);
    model_files(&shared("stl_ply"), &mut files);
    assert!(files.len() >= 20, "{files:?}");
    let mut loaded = 0;
    for p in &files {
        let name = p.display().to_string();
        match load_model(p) {
            Ok((scene, report)) => {
                let covered = check_picks(&scene, &name);
                println!(
                    "{name}: {} instances, {} triangles, {covered} pixels",
                    report.instances, report.triangles
                );
                assert!(covered > 0, "{name}");
                loaded += 1;
            }
            // the primitive-mode samples that hold only points or lines
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.starts_with(&name) && msg.contains("no triangle primitives"),
                    "{msg}"
                );
            }
        }
    }
    assert!(loaded >= 15, "{loaded}");
}

#[test]
fn the_engine_shares_bvhs_between_instances_and_its_camera_works() {
    let path = shared("gltf").join("2CylinderEngine.glb");
    let (scene, report) = load_model(&path).unwrap();
    assert_eq!(report.cameras.len(), 1);
    assert!(report.instances > 29, "{}", report.instances);
    let m = scene.meshes();
    let shared_pairs = (1..m.len())
        .filter(|&i| (0..i).any(|j| m[i].shares_geometry(&m[j])))
        .count();
    assert!(shared_pairs > 0, "some meshes are used by several nodes");
    let c = &report.cameras[0];
    let cam = c
        .camera(
            scene.world_matrix(c.node),
            360,
            None,
            &scene.framing_bounds(),
        )
        .unwrap();
    let f = render(&scene, &cam, RenderOptions::default()).unwrap();
    assert!(f.ids().iter().filter(|&&i| i != 0).count() > 10_000);
}

#[test]
fn shared_broken_gltf_files_are_clear_errors() {
    let dir = shared("gltf").join("bad");
    let mut files = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            for f in std::fs::read_dir(&p).unwrap() {
                files.push(f.unwrap().path());
            }
        } else {
            files.push(p);
        }
    }
    files.retain(|p| p.extension().is_some_and(|e| e == "gltf"));
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    for p in &files {
        let e = load_model(p).unwrap_err().to_string();
        assert!(
            e.starts_with(&p.display().to_string()) && !e.contains('\n'),
            "{e}"
        );
        println!("{e}");
    }
}
