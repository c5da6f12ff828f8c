//! Cameras from JSON and from code: missing JSON fields get defaults or a clear
//! error, every invalid parameter its own `CameraError`, and a camera file's
//! errors name the file. Automatic framing survives any box.

use glam::Vec3;
use softpick::{render, Aabb, Camera, CameraError, Error, Projection, RenderOptions, Scene};

use crate::support::TempDir;

fn unit_box() -> Aabb {
    Aabb {
        min: Vec3::splat(-1.0),
        max: Vec3::splat(1.0),
    }
}

fn parse(json: &str) -> Result<Camera, CameraError> {
    Camera::from_json_str(json, &unit_box())
}

/// A camera JSON with `eye` and `target` plus the given extra fields.
fn with(extra: &str) -> String {
    let sep = if extra.is_empty() { "" } else { "," };
    format!(r#"{{"eye":[0,0,5],"target":[0,0,0]{sep}{extra}}}"#)
}

/// Every kind of invalid camera JSON, with its exact error.
fn invalid_cases() -> Vec<(String, CameraError)> {
    vec![
        (with(r#""near":0"#), CameraError::Near(0.0)),
        (with(r#""near":-1"#), CameraError::Near(-1.0)),
        (with(r#""near":5,"far":5"#), CameraError::NearFar(5.0, 5.0)),
        (
            with(r#""near":10,"far":1"#),
            CameraError::NearFar(10.0, 1.0),
        ),
        (with(r#""fov_y_deg":0"#), CameraError::Fov(0.0)),
        (with(r#""fov_y_deg":-30"#), CameraError::Fov(-30.0)),
        (with(r#""fov_y_deg":180"#), CameraError::Fov(180.0)),
        (
            r#"{"eye":[1,2,3],"target":[1,2,3]}"#.into(),
            CameraError::EyeIsTarget,
        ),
        (
            r#"{"eye":[0,5,0],"target":[0,0,0]}"#.into(),
            CameraError::UpParallel,
        ),
        (
            r#"{"eye":[0,0,5],"target":[0,0,0],"up":[0,0,-3]}"#.into(),
            CameraError::UpParallel,
        ),
        (with(r#""up":[0,0,0]"#), CameraError::UpParallel),
        (with(r#""width":0"#), CameraError::Size(0, 360)),
        (with(r#""height":0"#), CameraError::Size(360, 0)),
        (
            with(r#""width":16385,"height":100"#),
            CameraError::Size(16385, 100),
        ),
        (
            with(r#""width":100,"height":4000000000"#),
            CameraError::Size(100, 4_000_000_000),
        ),
        (
            with(r#""projection":"orthographic","ortho_height":0"#),
            CameraError::OrthoHeight(0.0),
        ),
        (
            with(r#""projection":"orthographic""#),
            CameraError::Missing("ortho_height"),
        ),
        (
            with(r#""projection":"fisheye""#),
            CameraError::UnknownProjection("fisheye".into()),
        ),
        (r#"{"eye":[0,0,5]}"#.into(), CameraError::Missing("target")),
        // f32 overflow in the JSON, and near·far overflowing the matrix
        (with(r#""near":1e39"#), CameraError::NonFinite),
        (with(r#""near":1e20,"far":1e30"#), CameraError::NonFinite),
    ]
}

#[test]
fn missing_fields_get_defaults() {
    let c = parse("{}").unwrap();
    assert_eq!(c, Camera::auto_frame(&unit_box(), 360, 360));
    let c = parse(&with("")).unwrap();
    assert_eq!(c.up, Vec3::Y);
    assert_eq!(c.projection, Projection::Perspective { fov_y_deg: 45.0 });
    assert_eq!((c.near, c.far, c.width, c.height), (0.1, 100.0, 360, 360));
    // target without eye: automatic eye, given target
    let c = parse(r#"{"target":[0.5,0,0],"width":64,"height":48}"#).unwrap();
    assert_eq!(c.target, Vec3::new(0.5, 0.0, 0.0));
    assert_eq!((c.width, c.height), (64, 48));
    // the largest size is fine
    assert!(parse(&with(r#""width":16384,"height":16384"#)).is_ok());
    // a byte-order mark is skipped
    assert_eq!(parse("\u{feff}{}"), parse("{}"));
}

#[test]
fn invalid_parameters_have_exact_errors() {
    for (json, want) in invalid_cases() {
        assert_eq!(parse(&json), Err(want), "{json}");
    }
}

#[test]
fn malformed_json_is_a_json_error() {
    for json in [
        "",
        "null",
        "[1,2,3]",
        "{",
        r#"{"eye":[0,0]}"#,
        r#"{"eye":[0,0,"5"]}"#,
        r#"{"width":-5}"#,
        r#"{"width":1.5}"#,
        r#"{"width":99999999999}"#,
        r#"{"near":1e400}"#,
        r#"{"eye":[0,0,5],"target":[0,0,0],"zoom":2}"#,
    ] {
        let e = parse(json).unwrap_err();
        assert!(matches!(e, CameraError::Json(_)), "{json}: {e:?}");
        assert!(e.to_string().starts_with("invalid camera JSON"), "{e}");
    }
}

#[test]
fn camera_files_name_the_file() {
    let dir = TempDir::new("camera");
    let b = unit_box();
    // unreadable: missing, a directory, not UTF-8
    let missing = dir.path().join("missing.json");
    let e = Camera::load(&missing, &b).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("missing.json"), "{e}");
    let e = Camera::load(dir.path(), &b).unwrap_err();
    assert!(
        e.to_string().contains(&dir.path().display().to_string()),
        "{e}"
    );
    let p = dir.write("binary.json", b"\xff\xfe{}");
    let e = Camera::load(&p, &b).unwrap_err();
    assert!(e.to_string().contains("binary.json"), "{e}");
    // every invalid parameter, through a file
    let mut cases = invalid_cases();
    cases.push(("{".into(), CameraError::Json(String::new())));
    for (i, (json, want)) in cases.into_iter().enumerate() {
        let p = dir.write(&format!("cam{i}.json"), &json);
        let e = Camera::load(&p, &b).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with(&format!("{}: ", p.display())), "{msg}");
        match e {
            Error::Camera { path, source } => {
                assert_eq!(path, p);
                match want {
                    CameraError::Json(_) => assert!(matches!(source, CameraError::Json(_))),
                    want => assert_eq!(source, want, "{json}"),
                }
                assert!(msg.ends_with(&source.to_string()), "{msg}");
            }
            other => panic!("{json}: {other:?}"),
        }
    }
    // and a good file loads
    let p = dir.write("good.json", with(r#""width":10,"height":20"#));
    assert_eq!(Camera::load(&p, &b).unwrap().width, 10);
}

#[test]
fn cameras_built_in_code_are_checked_before_rendering() {
    let good = crate::support::cam(32, 32);
    assert!(good.validate().is_ok());
    let scene = Scene::new();
    let cases = [
        (
            Camera {
                eye: Vec3::new(f32::NAN, 0.0, 5.0),
                ..good
            },
            CameraError::NonFinite,
        ),
        (
            Camera {
                far: f32::INFINITY,
                ..good
            },
            CameraError::NonFinite,
        ),
        (
            Camera {
                projection: Projection::Perspective {
                    fov_y_deg: f32::NAN,
                },
                ..good
            },
            CameraError::Fov(f32::NAN),
        ),
        (
            Camera {
                projection: Projection::Orthographic {
                    height: f32::INFINITY,
                },
                ..good
            },
            CameraError::OrthoHeight(f32::INFINITY),
        ),
        (
            Camera {
                target: Vec3::new(0.0, 0.0, 5.0 + 1e-7),
                ..good
            },
            CameraError::EyeIsTarget,
        ),
        (
            Camera {
                up: Vec3::new(0.0, 0.0, 1.0),
                ..good
            },
            CameraError::UpParallel,
        ),
        (Camera { width: 0, ..good }, CameraError::Size(0, 32)),
        (
            Camera {
                height: u32::MAX,
                ..good
            },
            CameraError::Size(32, u32::MAX),
        ),
    ];
    for (cam, want) in cases {
        let got = cam.validate().unwrap_err();
        // NaN != NaN: compare the messages
        assert_eq!(got.to_string(), want.to_string(), "{cam:?}");
        let e = render(&scene, &cam, RenderOptions::default()).unwrap_err();
        assert!(matches!(e, Error::InvalidCamera(_)), "{e:?}");
        assert!(e.to_string().contains(&want.to_string()), "{e}");
    }
    assert_eq!(
        good.try_with_size(0, 10).unwrap_err(),
        CameraError::Size(0, 10)
    );
    assert_eq!(
        good.try_with_size(16384, 16385).unwrap_err(),
        CameraError::Size(16384, 16385)
    );
}

#[test]
fn auto_frame_keeps_the_peers_formula_for_ordinary_boxes() {
    let b = Aabb {
        min: Vec3::new(-2.0, 0.5, -1.0),
        max: Vec3::new(3.0, 1.5, 4.0),
    };
    let c = Camera::auto_frame(&b, 360, 360);
    let center = (b.min + b.max) * 0.5;
    let d = b.max - b.min;
    let r = (d.x * d.x + d.y * d.y + d.z * d.z).sqrt() * 0.5;
    assert_eq!(c.target, center);
    assert_eq!(c.eye, center + Vec3::new(0.0, 0.2 * r, 2.2 * r));
    assert_eq!((c.near, c.far), (0.01 * r, 10.0 * r));
    assert_eq!(c.projection, Projection::Perspective { fov_y_deg: 45.0 });
}

#[test]
fn auto_frame_survives_any_box() {
    let boxes = [
        // empty, NaN, infinite
        Aabb {
            min: Vec3::splat(f32::INFINITY),
            max: Vec3::splat(f32::NEG_INFINITY),
        },
        Aabb {
            min: Vec3::new(0.0, f32::NAN, 0.0),
            max: Vec3::ONE,
        },
        Aabb {
            min: Vec3::splat(f32::NEG_INFINITY),
            max: Vec3::ONE,
        },
        // a point, at the origin and far away
        Aabb {
            min: Vec3::ZERO,
            max: Vec3::ZERO,
        },
        Aabb {
            min: Vec3::splat(1600.0),
            max: Vec3::splat(1600.0),
        },
        // tiny far from the origin: eye == target in f32 with the peers' r
        Aabb {
            min: Vec3::new(1e10, 0.0, 0.0),
            max: Vec3::new(1e10 + 1024.0, 1e-3, 1e-3),
        },
        Aabb {
            min: Vec3::splat(1e6),
            max: Vec3::splat(1e6) + 1e-4,
        },
        // huge: r² overflows, near·far overflows
        Aabb {
            min: Vec3::splat(-1e30),
            max: Vec3::splat(1e30),
        },
        Aabb {
            min: Vec3::splat(-f32::MAX),
            max: Vec3::splat(f32::MAX),
        },
        Aabb {
            min: Vec3::splat(f32::MAX / 2.0),
            max: Vec3::splat(f32::MAX),
        },
        Aabb {
            min: Vec3::splat(-1e20),
            max: Vec3::splat(1e20),
        },
    ];
    for b in boxes {
        let c = Camera::auto_frame(&b, 64, 48);
        assert_eq!(c.validate(), Ok(()), "{b:?} -> {c:?}");
        // and a box that can be framed is in view (f32 look-at far from
        // the origin moves it by a few pixels)
        let center = b.min * 0.5 + b.max * 0.5;
        if center.is_finite() && center.abs().max_element() < 1e20 {
            let p = c.project(center).expect("centre in front of the eye");
            assert!(
                (p.x - 32.0).abs() < 8.0 && (p.y - 24.0).abs() < 8.0,
                "{b:?}: {p}"
            );
        }
    }
}
