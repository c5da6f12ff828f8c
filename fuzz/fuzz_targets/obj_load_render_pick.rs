//! OBJ bytes → load → render (64×48, automatic camera) → picks with every
//! method. The loader must return a scene or an OBJ error naming the file
//! (never panic); a loaded scene renders with its automatic camera and its
//! picks pass `checks.rs` (the methods agree; nothing drawn or picked
//! touches a non-finite vertex).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use softpick::internals::load_obj_bytes;

#[path = "checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.obj");
    let (scene, report) = match load_obj_bytes(path, data, |_| Err(tobj::LoadError::OpenFileFailed))
    {
        Ok(r) => r,
        Err(e) => {
            assert!(e.model_kind().is_some(), "{e:?}");
            assert!(e.to_string().starts_with("fuzz.obj: "), "{e}");
            return;
        }
    };
    assert!(report.triangles > report.invalid_triangles, "{report:?}");
    assert_eq!(scene.triangle_count() as usize, report.triangles);
    checks::render_and_pick(&scene);
});
