//! STL / PLY bytes → load → render (64×48, automatic camera) → picks with
//! every method. Byte 0 chooses the loader: `load_stl_bytes` ("fuzz.stl"),
//! `load_ply_bytes` ("fuzz.ply") or `load_model_bytes` ("fuzz.dat", so the
//! format is sniffed from the bytes, OBJ included); the rest is the file.
//! The loader must return a scene or an error whose message is one line
//! starting with the file name (never panic); a loaded scene has one usable
//! triangle or more, renders with its automatic camera and its picks pass
//! `checks.rs` (the methods agree; nothing drawn or picked touches a
//! non-finite vertex).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use softpick::internals::{load_ply_bytes, load_stl_bytes};
use softpick::load_model_bytes;

#[path = "checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let (name, loaded) = match which % 3 {
        0 => ("fuzz.stl", load_stl_bytes(Path::new("fuzz.stl"), bytes)),
        1 => ("fuzz.ply", load_ply_bytes(Path::new("fuzz.ply"), bytes)),
        _ => ("fuzz.dat", load_model_bytes(Path::new("fuzz.dat"), bytes)),
    };
    let (scene, report) = match loaded {
        Ok(r) => r,
        Err(e) => {
            assert!(e.model_kind().is_some(), "{e:?}");
            let msg = e.to_string();
            assert!(msg.starts_with(&format!("{name}: ")), "{msg}");
            assert!(!msg.contains('\n'), "{msg:?}");
            return;
        }
    };
    assert!(report.triangles > report.invalid_triangles, "{report:?}");
    assert_eq!(scene.triangle_count() as usize, report.triangles);
    checks::render_and_pick(&scene);
});
