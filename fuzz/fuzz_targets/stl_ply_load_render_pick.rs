//! STL / PLY bytes → load → render (64×48, automatic camera) → picks with
//! every method. Byte 0 chooses the loader: `load_stl_bytes` ("fuzz.stl"),
//! `load_ply_bytes` ("fuzz.ply") or `load_model_bytes` ("fuzz.dat", so the
//! format is sniffed from the bytes, OBJ included); the rest is the file.
//! The loader must return a scene or an error whose message is one line
//! starting with the file name (never panic); a loaded scene has one usable
//! triangle or more and renders with its automatic camera; buffer and
//! direct picks agree, rows of ray picks equal single ray picks, rows of
//! buffer picks handed to a function equal the ID buffer; nothing drawn or
//! picked touches a non-finite vertex.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use softpick::internals::{direct_triangle_at, load_ply_bytes, load_stl_bytes};
use softpick::{load_model_bytes, render, Camera, Frame, PickId, PickMethod, RenderOptions};

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
    let cam = Camera::auto_frame(&scene.framing_bounds(), 64, 48);
    let frame = render(&scene, &cam, RenderOptions::default()).expect("auto camera is valid");
    let picks = frame.picks(&scene).expect("the frame of this scene");
    let (direct, ray) = (picks.with(PickMethod::Direct), picks.with(PickMethod::Ray));
    let finite = |g: u32| {
        let (m, t) = scene.locate(g).expect("drawn triangle exists");
        scene.meshes()[m as usize]
            .triangle(t)
            .iter()
            .all(|p| p.is_finite())
    };
    for y in 0..48u32 {
        for x in 0..64u32 {
            let a = frame.triangle_at(x.into(), y.into());
            let b = direct_triangle_at(&frame, x.into(), y.into()).map(|(t, _)| t);
            assert_eq!(a, b, "buffer vs direct at ({x},{y})");
            if let Some(g) = a {
                assert!(finite(g), "triangle {g} has a non-finite vertex");
            }
        }
    }
    for (x, y) in [
        (0, 0),
        (32, 24),
        (63, 47),
        (10, 40),
        (50, 5),
        (-1, 3),
        (64, 0),
        (i64::MIN, i64::MAX),
    ] {
        let a = picks.at(x, y).map(|h| h.global_triangle);
        let b = direct.at(x, y).map(|h| h.global_triangle);
        assert_eq!(a, b, "buffer vs direct pick at ({x},{y})");
        if let Some(h) = ray.at(x, y) {
            assert!(finite(h.global_triangle), "ray hit a non-finite triangle");
        }
        let _ = direct.all(x, y);
    }
    // rows of ray picks equal single ray picks, rows running off the frame
    // included; depths compared bit for bit
    let key =
        |p: Option<PickId>| p.map(|p| (p.mesh, p.triangle, p.global_triangle, p.depth.to_bits()));
    for (x0, y, len) in [(0u32, 24u32, 64usize), (61, 5, 9), (2, 47, 7)] {
        let mut row = vec![None; len];
        ray.span(x0.into(), y.into(), &mut row);
        for (k, got) in row.iter().enumerate() {
            let x = i64::from(x0) + k as i64;
            assert_eq!(
                key(*got),
                key(ray.id_at(x, y.into())),
                "ray row at ({x},{y})"
            );
        }
    }
    // buffer rows handed to a function equal the ID buffer, and past the
    // frame's edge nothing
    for y in [0u32, 24, 47] {
        let mut raw = vec![u32::MAX; 70];
        picks.span_with(0, y.into(), &mut raw, |p| {
            p.map_or(Frame::NO_TRIANGLE, |p| p.global_triangle + 1)
        });
        assert_eq!(
            &raw[..64],
            &frame.ids()[y as usize * 64..][..64],
            "buffer row {y}"
        );
        assert!(
            raw[64..].iter().all(|&r| r == Frame::NO_TRIANGLE),
            "buffer row {y} past the edge"
        );
    }
});
