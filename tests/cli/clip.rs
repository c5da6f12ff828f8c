//! `--clip A,B,C,D`: the commands that render and pick cut the scene by the
//! planes given, exactly as the library's [`Renderer::set_clip_planes`] does.

use softpick::{builtin_scene, Camera, ClipPlanes, PickMethod, RenderOptions, Renderer};

use super::{assert_ok, json, json_meshes, read_u32, run_in, scratch, text};

/// The library's 360×360 frame of the built-in scene cut by `planes`.
fn library(planes: &[[f32; 4]]) -> (softpick::Scene, softpick::Frame) {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let mut r = Renderer::new(RenderOptions {
        color: false,
        ..RenderOptions::default()
    })
    .unwrap();
    r.set_clip_planes(Some(ClipPlanes::new(planes).unwrap()));
    r.render(&scene, &cam).unwrap();
    (scene, r.into_frame())
}

#[test]
fn render_pickmap_pick_and_select_honour_the_clip_planes() {
    let dir = scratch("clip");
    // keep x >= 0.1 and y <= 1: two planes, one of them with a negative value
    let args = ["--clip", "-1,0,0,0.1", "--clip", "0,-1,0,1"];
    let planes = [[-1.0, 0.0, 0.0, 0.1], [0.0, -1.0, 0.0, 1.0]];
    let (scene, cut) = library(&planes);
    let plain = softpick::render(
        &scene,
        cut.camera().unwrap(),
        RenderOptions {
            color: false,
            ..RenderOptions::default()
        },
    )
    .unwrap();
    assert_ne!(cut.ids(), plain.ids(), "the planes cut the built-in scene");

    // the ID buffer, and every method's pick map, are the library's
    let o = run_in(
        &dir,
        &[&["render", "--no-color", "--ids-raw", "r.u32"][..], &args].concat(),
    );
    assert_ok(&o, "render --clip");
    assert_eq!(read_u32(&dir.join("r.u32")), cut.ids());
    let picks = cut.picks(&scene).unwrap();
    for method in PickMethod::ALL {
        let o = run_in(
            &dir,
            &[
                &[
                    "pickmap",
                    "--method",
                    method.name(),
                    "--ids-raw",
                    "m.u32",
                    "-o",
                    "m.png",
                ][..],
                &args,
            ]
            .concat(),
        );
        assert_ok(&o, "pickmap --clip");
        let want: Vec<u32> = (0..360i64 * 360)
            .map(|i| {
                picks
                    .with(method)
                    .at(i % 360, i / 360)
                    .map_or(0, |h| h.global_triangle + 1)
            })
            .collect();
        assert_eq!(read_u32(&dir.join("m.u32")), want, "{}", method.name());
    }

    // a pixel the planes change: `pick` answers with what is kept there
    let i = (0..360 * 360)
        .find(|&i| cut.ids()[i] != plain.ids()[i] && cut.ids()[i] != 0)
        .expect("a pixel showing what lies behind the cut");
    let (x, y) = ((i % 360) as i64, (i / 360) as i64);
    for method in PickMethod::ALL {
        let at = format!("{x},{y}");
        let o = run_in(
            &dir,
            &[
                &["pick", "--at", &at, "--method", method.name(), "--json"][..],
                &args,
            ]
            .concat(),
        );
        assert_ok(&o, "pick --clip");
        let want = picks.with(method).at(x, y).map(|h| h.global_triangle);
        assert_eq!(
            json(&o)["global_triangle"].as_u64().map(|g| g as u32),
            want,
            "{}",
            method.name()
        );
    }

    // select: the visible meshes of the whole frame are those of the cut frame
    let o = run_in(
        &dir,
        &[&["select", "--rect", "0,0,359,359", "--json"][..], &args].concat(),
    );
    assert_ok(&o, "select --clip");
    let want = picks
        .rect(0, 0, 359, 359, softpick::SelectMode::Visible)
        .meshes;
    assert_eq!(json_meshes(&json(&o), &scene), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_clip_plane_is_one_clear_error() {
    let dir = scratch("clip-errors");
    for (plane, needle) in [
        ("1,2,3", "four numbers"),
        ("1,2,3,4,5", "four numbers"),
        ("a,b,c,d", "four numbers"),
        ("nan,0,0,0", "--clip"),
        ("0,0,0,1", "--clip"),
    ] {
        let o = run_in(&dir, &["render", "--no-color", "--clip", plane]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{plane}: {err}");
        assert!(
            err.starts_with("softpick: ") && err.contains(needle),
            "{plane}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{plane}: {err}");
    }
    // `view` reads its planes before it looks for a display
    let o = run_in(&dir, &["view", "--clip", "1,2,3"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--clip 1,2,3") && err.contains("four numbers"),
        "{err}"
    );
    // more planes than the limit
    let mut many = vec!["render", "--no-color"];
    for _ in 0..9 {
        many.extend(["--clip", "1,0,0,5"]);
    }
    let o = run_in(&dir, &many);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--clip"), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bench-render --clip`: the frames it times are the cut ones (their
/// covered pixels are the library's cut frame's), not the whole scene's.
#[test]
fn bench_render_times_the_cut_frame() {
    let dir = scratch("clip-bench");
    let planes = [[-1.0, 0.0, 0.0, 0.1]];
    let (_, cut) = library(&planes);
    let covered = |f: &[u32]| {
        f.iter()
            .filter(|&&i| i != softpick::Frame::NO_TRIANGLE)
            .count() as u64
    };
    let want = covered(cut.ids());
    let whole = {
        let scene = builtin_scene();
        let cam = cut.camera().unwrap();
        let plain = softpick::render(&scene, cam, RenderOptions::default()).unwrap();
        covered(plain.ids())
    };
    assert!(want < whole, "the plane cuts the built-in scene");
    for (clip, want) in [(&["--clip", "-1,0,0,0.1"][..], want), (&[][..], whole)] {
        let o = run_in(
            &dir,
            &[
                &["bench-render", "--pass", "ids", "--frames", "2", "--json"][..],
                clip,
            ]
            .concat(),
        );
        assert_ok(&o, "bench-render --clip");
        assert_eq!(json(&o)["covered_px"].as_u64(), Some(want), "{clip:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
