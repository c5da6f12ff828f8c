//! glTF / GLB bytes → load → render (64×48, automatic camera) → picks with
//! every method. Byte 0 chooses the name: "fuzz.gltf" (JSON, data-URI
//! buffers), "fuzz.glb" or "fuzz.dat" (the format sniffed from the bytes);
//! the rest is the file. The loader must return a scene or an error whose
//! message is one line starting with the file name (never panic, never an
//! allocation sized by a count in the file); a loaded scene renders, its
//! hits name an existing instance whose node places the hit mesh, and
//! buffer and direct picks agree at every pixel.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use softpick::{load_model_bytes_with, render, Camera, LoadOptions, PickMethod, RenderOptions};

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let name = ["fuzz.gltf", "fuzz.glb", "fuzz.dat"][usize::from(which % 3)];
    let opts = LoadOptions {
        scene: (which & 0x80 != 0).then(|| "1".to_string()),
    };
    let (scene, report) = match load_model_bytes_with(Path::new(name), bytes, &opts) {
        Ok(r) => r,
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.starts_with(&format!("{name}: ")), "{msg}");
            assert!(!msg.contains('\n'), "{msg:?}");
            return;
        }
    };
    assert!(report.triangles > report.invalid_triangles, "{report:?}");
    assert!(!scene.instances().is_empty());
    let cam = Camera::auto_frame(&scene.framing_bounds(), 64, 48);
    let frame = render(&scene, &cam, RenderOptions::default()).expect("auto camera is valid");
    let picks = frame.picks(&scene).expect("same scene");
    for y in 0..48i64 {
        for x in 0..64i64 {
            let a = picks.at(x, y);
            let b = picks.with(PickMethod::Direct).at(x, y);
            assert_eq!(
                a.as_ref().map(|h| h.global_triangle),
                b.as_ref().map(|h| h.global_triangle),
                "buffer vs direct at ({x},{y})"
            );
            if let Some(h) = a {
                let inst = &scene.instances()[h.origin.instance as usize];
                assert_eq!(inst.node, h.origin.node);
                assert_eq!(scene.mesh_node(h.mesh), Some(h.origin.node));
            }
        }
    }
    for (x, y) in [(0, 0), (32, 24), (63, 47)] {
        let _ = picks.with(PickMethod::Ray).at(x, y);
    }
});
