//! Cameras from JSON and from code: missing JSON fields get defaults or a clear
//! error, every invalid parameter its own `CameraError`, and a camera file's
//! errors name the file. Automatic framing survives any box. Pinhole cameras
//! (OpenCV intrinsics) render what OpenCV's formula says, and every pick
//! method agrees on them.

use glam::{DVec3, Vec3};
use softpick::{
    builtin_scene, render, Aabb, Camera, CameraError, Error, FillRule, MapRequest, Mesh,
    Projection, Ray, RayCaster, RayOptions, RenderOptions, Scene, Transform,
};

use crate::support::TempDir;

fn unit_box() -> Aabb {
    Aabb {
        min: Vec3::splat(-1.0),
        max: Vec3::splat(1.0),
    }
}

/// The camera problem of an [`Error::InvalidCamera`].
fn problem(e: Error) -> CameraError {
    match e {
        Error::InvalidCamera(c) => c,
        e => panic!("not a camera error: {e}"),
    }
}

fn parse(json: &str) -> Result<Camera, CameraError> {
    Camera::from_json_str(json, &unit_box()).map_err(problem)
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
        (
            with(r#""projection":"pinhole","fy":300,"cx":180,"cy":180"#),
            CameraError::Missing("fx"),
        ),
        (
            with(r#""projection":"pinhole","fx":300,"cx":180,"cy":180"#),
            CameraError::Missing("fy"),
        ),
        (
            with(r#""projection":"pinhole","fx":300,"fy":300,"cy":180,"skew":1"#),
            CameraError::Missing("cx"),
        ),
        (
            with(r#""projection":"pinhole","fx":300,"fy":300,"cx":180"#),
            CameraError::Missing("cy"),
        ),
        (
            with(r#""projection":"pinhole","fx":0,"fy":300,"cx":180,"cy":180"#),
            CameraError::Intrinsic {
                name: "fx",
                value: 0.0,
            },
        ),
        (
            with(r#""projection":"pinhole","fx":300,"fy":-2,"cx":180,"cy":180"#),
            CameraError::Intrinsic {
                name: "fy",
                value: -2.0,
            },
        ),
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
                projection: Projection::Pinhole {
                    fx: 40.0,
                    fy: 40.0,
                    cx: 16.0,
                    cy: f32::NAN,
                    skew: 0.0,
                },
                ..good
            },
            CameraError::Intrinsic {
                name: "cy",
                value: f32::NAN,
            },
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
        let got = problem(cam.validate().unwrap_err());
        // NaN != NaN: compare the messages
        assert_eq!(got.to_string(), want.to_string(), "{cam:?}");
        let e = render(&scene, &cam, RenderOptions::default()).unwrap_err();
        assert!(matches!(e, Error::InvalidCamera(_)), "{e:?}");
        assert!(e.to_string().contains(&want.to_string()), "{e}");
    }
    assert_eq!(
        problem(good.try_with_size(0, 10).unwrap_err()),
        CameraError::Size(0, 10)
    );
    assert_eq!(
        problem(good.try_with_size(16384, 16385).unwrap_err()),
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
        assert!(c.validate().is_ok(), "{b:?} -> {c:?}");
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

/// A pinhole camera with fx ≠ fy, the principal point off the centre and
/// skew, looking at `target` from `eye`.
fn pinhole(eye: Vec3, target: Vec3, near: f32, far: f32, width: u32, height: u32) -> Camera {
    let (w, h) = (width as f32, height as f32);
    Camera {
        eye,
        target,
        up: Vec3::Y,
        projection: Projection::Pinhole {
            fx: 0.95 * h,
            fy: 1.1 * h,
            cx: 0.42 * w,
            cy: 0.57 * h,
            skew: 0.04 * h,
        },
        near,
        far,
        width,
        height,
    }
}

/// OpenCV's camera model of `cam` in f64, written from its definition: the
/// eye, the frame (x right, y down, z forward) and the intrinsics
/// `[fx, fy, cx, cy, skew]`.
struct OpenCv {
    eye: DVec3,
    axes: [DVec3; 3],
    k: [f64; 5],
}

impl OpenCv {
    fn of(cam: &Camera) -> Self {
        let Some([fx, fy, cx, cy, skew]) = cam.projection.intrinsics() else {
            panic!("not a pinhole camera: {cam:?}")
        };
        let forward = (cam.target - cam.eye).as_dvec3().normalize();
        let right = forward.cross(cam.up.as_dvec3()).normalize();
        Self {
            eye: cam.eye.as_dvec3(),
            axes: [right, forward.cross(right), forward],
            k: [fx, fy, cx, cy, skew].map(f64::from),
        }
    }

    /// Pixel coordinates (u, v) and camera z of a world point.
    fn project(&self, p: Vec3) -> (f64, f64, f64) {
        let d = p.as_dvec3() - self.eye;
        let [x, y, z] = self.axes.map(|a| d.dot(a));
        let [fx, fy, cx, cy, skew] = self.k;
        (fx * x / z + skew * y / z + cx, fy * y / z + cy, z)
    }

    /// The world direction of `K⁻¹·(u, v, 1)`: camera z 1.
    fn direction(&self, u: f64, v: f64) -> DVec3 {
        let [fx, fy, cx, cy, skew] = self.k;
        let b = (v - cy) / fy;
        let a = (u - cx - skew * b) / fx;
        self.axes[0] * a + self.axes[1] * b + self.axes[2]
    }
}

/// The pinhole views of the tests: the built-in scene from its automatic
/// framing's eye, and a random soup through the near plane.
fn pinhole_views() -> Vec<(&'static str, Scene, Camera)> {
    let builtin = builtin_scene();
    let auto = Camera::auto_frame(&builtin.framing_bounds(), 240, 180);
    let cam = pinhole(auto.eye, auto.target, auto.near, auto.far, 240, 180);
    vec![
        ("builtin", builtin, cam),
        (
            "soup",
            crate::picks::random_scene(7, 400),
            pinhole(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, 0.05, 30.0, 200, 150),
        ),
    ]
}

/// The buffer, direct and ray picks of a pinhole camera's frame agree as
/// they do for a perspective camera: direct equals buffer at every pixel
/// under every fill rule, and the ray pick equals the buffer away from ID
/// edges (and on at least 99 % of the covered pixels).
#[test]
fn pinhole_buffer_direct_and_ray_picks_agree() {
    for (what, scene, cam) in pinhole_views() {
        for rule in FillRule::ALL {
            let opts = RenderOptions {
                rule,
                ..RenderOptions::default()
            };
            let f = render(&scene, &cam, opts).unwrap();
            crate::picks::assert_direct_equals_buffer(&scene, &f, &format!("{what} {rule:?}"));
        }
        let f = render(&scene, &cam, RenderOptions::default()).unwrap();
        if what == "soup" {
            assert!(f.stats().clipped > 0, "expected near-plane clipping");
        }
        let (agree, covered) = crate::rays::agreement(&scene, &f);
        assert!(
            agree as f64 >= 0.99 * covered as f64,
            "{what}: {agree}/{covered}"
        );
    }
}

/// The triangle in the ID buffer is the one a ray from OpenCV's formula
/// (the eye toward `K⁻¹·(u, v, 1)` of the pixel centre, built here in f64)
/// hits first, at every covered pixel away from ID edges; and the frame's
/// z map is that hit's camera z (the ray's t, its camera z being 1).
#[test]
fn pinhole_pixels_show_what_opencv_rays_hit() {
    for (what, scene, cam) in pinhole_views() {
        let f = render(&scene, &cam, RenderOptions::default()).unwrap();
        let z = f
            .picks(&scene)
            .unwrap()
            .maps(MapRequest {
                z: true,
                ..MapRequest::default()
            })
            .z
            .unwrap();
        let model = OpenCv::of(&cam);
        let caster = RayCaster::new(&scene);
        let opts = RayOptions::default();
        let (w, h) = (i64::from(cam.width), i64::from(cam.height));
        let (mut covered, mut agree) = (0, 0);
        for y in 0..h {
            for x in 0..w {
                let Some(t) = f.triangle_at(x, y) else {
                    continue;
                };
                covered += 1;
                let d = model.direction(x as f64 + 0.5, y as f64 + 0.5);
                let ray = Ray::new(cam.eye, d.as_vec3());
                let hit = caster.first(&ray, &opts);
                if hit.as_ref().map(|h| h.global_triangle) == Some(t) {
                    agree += 1;
                    let hit = hit.unwrap();
                    let want = (hit.position.as_dvec3() - model.eye).dot(model.axes[2]);
                    let got = f64::from(z[(y * w + x) as usize]);
                    assert!(
                        (got - want).abs() <= 1e-4 * want,
                        "{what} ({x},{y}): z {got} vs {want}"
                    );
                    continue;
                }
                let near_edge = (-1..=1).any(|dy| {
                    (-1..=1).any(|dx| {
                        let (u, v) = (x + dx, y + dy);
                        u < 0 || v < 0 || u >= w || v >= h || f.triangle_at(u, v) != Some(t)
                    })
                });
                assert!(
                    near_edge,
                    "{what} ({x},{y}): buffer {t}, OpenCV ray {:?}",
                    hit.map(|h| h.global_triangle)
                );
            }
        }
        assert!(covered > 1000, "{what}: {covered} covered");
        assert!(
            agree as f64 >= 0.99 * covered as f64,
            "{what}: {agree}/{covered}"
        );
    }
}

/// A pinhole camera projects vertices to OpenCV's pixel coordinates, and a
/// triangle rendered alone covers the pixel centres inside the triangle of
/// those coordinates and none outside (centres within 0.01 px of an edge,
/// where the f32 projection may round either way, are skipped).
#[test]
fn pinhole_vertices_land_at_opencv_pixels() {
    let cam = pinhole(
        Vec3::new(0.4, 0.8, 6.0),
        Vec3::new(0.1, 0.0, 0.0),
        0.1,
        50.0,
        160,
        120,
    );
    let model = OpenCv::of(&cam);
    let mut rng = crate::support::Rng::new(11);
    let mut checked = 0;
    for k in 0..12 {
        let c = Vec3::new(
            rng.range(-2.0, 2.0),
            rng.range(-1.5, 1.5),
            rng.range(-2.0, 2.0),
        );
        let corners: Vec<Vec3> = (0..3).map(|_| c + rng.vec3(-1.2, 1.2)).collect();
        let mut px = [[0.0f64; 2]; 3];
        for (p, out) in corners.iter().zip(&mut px) {
            let (u, v, _) = model.project(*p);
            let got = cam.project(*p).unwrap();
            assert!(
                (f64::from(got.x) - u).abs() < 2e-3 && (f64::from(got.y) - v).abs() < 2e-3,
                "triangle {k}: {p} at {got}, OpenCV ({u}, {v})"
            );
            *out = [u, v];
        }
        let mut scene = Scene::new();
        let mesh = Mesh::new("tri", corners, vec![[0, 1, 2]], [200, 200, 200]).unwrap();
        scene.add_mesh(mesh, Transform::IDENTITY, None);
        let f = render(&scene, &cam, RenderOptions::default()).unwrap();
        // signed distances of a point to the three edges, positive inside
        let [a, b, c] = px;
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        let dist = |p: [f64; 2], e0: [f64; 2], e1: [f64; 2]| {
            let cross = (e1[0] - e0[0]) * (p[1] - e0[1]) - (e1[1] - e0[1]) * (p[0] - e0[0]);
            cross * area.signum() / (e1[0] - e0[0]).hypot(e1[1] - e0[1])
        };
        for y in 0..cam.height {
            for x in 0..cam.width {
                let p = [f64::from(x) + 0.5, f64::from(y) + 0.5];
                let d = dist(p, a, b).min(dist(p, b, c)).min(dist(p, c, a));
                if d.abs() < 0.01 {
                    continue;
                }
                let shown = f.triangle_at(i64::from(x), i64::from(y)).is_some();
                assert_eq!(
                    shown,
                    d > 0.0,
                    "triangle {k}: pixel ({x},{y}), edge distance {d}"
                );
                checked += usize::from(shown);
            }
        }
    }
    assert!(checked > 500, "{checked} covered pixels checked");
}

/// Pinhole camera JSON: the intrinsics are read as written, `skew`
/// defaults to 0, a missing intrinsic is named, and a camera written back
/// with every value in Rust's shortest round-trip form parses to the very
/// same camera.
#[test]
fn pinhole_json_round_trips() {
    let c = parse(&with(
        r#""projection":"pinhole","fx":512.5,"fy":498,"cx":170.25,"cy":201,"skew":-1.5,"width":320,"height":400"#,
    ))
    .unwrap();
    assert_eq!(
        c.projection,
        Projection::Pinhole {
            fx: 512.5,
            fy: 498.0,
            cx: 170.25,
            cy: 201.0,
            skew: -1.5,
        }
    );
    let c = parse(&with(
        r#""projection":"pinhole","fx":300,"fy":310,"cx":10,"cy":20"#,
    ))
    .unwrap();
    assert!(matches!(c.projection, Projection::Pinhole { skew, .. } if skew == 0.0));
    let e = parse(&with(r#""projection":"pinhole","fx":300,"fy":310,"cx":10"#)).unwrap_err();
    assert_eq!(e.to_string(), "missing field `cy`");
    let cam = Camera {
        near: 0.123_456_7,
        far: 98.765_43,
        ..pinhole(
            Vec3::new(0.1, 0.2, 3.3),
            Vec3::new(-0.7, 0.01, 0.3),
            0.1,
            10.0,
            321,
            173,
        )
    };
    let Some([fx, fy, cx, cy, skew]) = cam.projection.intrinsics() else {
        unreachable!()
    };
    let v = |v: Vec3| format!("[{:?},{:?},{:?}]", v.x, v.y, v.z);
    let json = format!(
        r#"{{"eye":{},"target":{},"up":{},"projection":"pinhole","fx":{fx:?},"fy":{fy:?},"cx":{cx:?},"cy":{cy:?},"skew":{skew:?},"near":{:?},"far":{:?},"width":{},"height":{}}}"#,
        v(cam.eye),
        v(cam.target),
        v(cam.up),
        cam.near,
        cam.far,
        cam.width,
        cam.height
    );
    assert_eq!(parse(&json), Ok(cam), "{json}");
}
