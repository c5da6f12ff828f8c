//! `C` in the real window: the section plane the viewer prints is the one
//! it renders and picks with, and `C` again takes it away.

use softpick::{ClipPlanes, PickMethod, RenderOptions, Renderer};

use super::expect::{pick_line, View, H, W};
use super::session::Viewer;

/// The four values of a line's `plane=(a,b,c,d)` field.
fn plane_of(line: &str) -> [f32; 4] {
    let inner = line
        .split("plane=(")
        .nth(1)
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no plane=(…) in {line:?}"));
    let v: Vec<f32> = inner.split(',').map(|x| x.parse().unwrap()).collect();
    assert_eq!(v.len(), 4, "{line:?}");
    [v[0], v[1], v[2], v[3]]
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn c_cuts_the_scene_and_clicks_pick_what_the_section_keeps() {
    let view = View::new("section");
    let v = Viewer::start(&view);
    v.key("c");
    let on = v.line("set section=", "C");
    assert!(on.starts_with("set section=on plane=("), "{on}");
    let plane = plane_of(&on);

    // the library's frame of the same camera with the printed plane
    let mut r = Renderer::new(RenderOptions::default()).unwrap();
    r.set_clip_planes(Some(ClipPlanes::new(&[plane]).unwrap()));
    let cut = r.render(&view.scene, view.frame.camera().unwrap()).unwrap();
    let (plain, section) = (
        view.frame.picks(&view.scene).unwrap(),
        cut.picks(&view.scene).unwrap(),
    );
    // a pixel where the cut shows another triangle than the plain frame
    let (x, y) = (0..i64::from(H))
        .flat_map(|y| (0..i64::from(W)).map(move |x| (x, y)))
        .find(|&(x, y)| {
            matches!((plain.at(x, y), section.at(x, y)),
                (Some(a), Some(b)) if a.global_triangle != b.global_triangle)
        })
        .expect("the section changes some pixel");
    let px = (x as u32, y as u32);
    v.click(px);
    assert_eq!(
        v.line("pick ", "the click on the cut scene"),
        pick_line(PickMethod::Buffer, x, y, section.at(x, y).as_ref())
    );
    // `.` moves the plane one step away from the eye: the printed plane
    // is the old one with d one step smaller
    v.key("period");
    let moved = plane_of(&v.line("section plane=", "."));
    assert_eq!(moved[..3], plane[..3]);
    assert!(moved[3] < plane[3], "{moved:?} after {plane:?}");
    // `,` moves it back (to within a rounding of the sum)
    v.key("comma");
    let back = plane_of(&v.line("section plane=", ","));
    assert!(
        (back[3] - plane[3]).abs() <= 1e-5 * plane[3].abs().max(1.0),
        "{back:?}"
    );

    v.key("c");
    assert_eq!(v.line("set section=", "C again"), "set section=off");
    v.click(px);
    assert_eq!(
        v.line("pick ", "the click on the whole scene"),
        pick_line(PickMethod::Buffer, x, y, plain.at(x, y).as_ref())
    );
    v.quit();
    view.clean();
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn view_clip_cuts_from_the_start_and_the_section_comes_on_top() {
    let view = View::new("view-clip");
    let camera = *view.frame.camera().unwrap();
    // keep the half x >= 0 (in the built-in scene's world)
    let given = [1.0, 0.0, 0.0, 0.0];
    let cut_by = |planes: &[[f32; 4]]| {
        let mut r = Renderer::new(RenderOptions::default()).unwrap();
        r.set_clip_planes(Some(ClipPlanes::new(planes).unwrap()));
        r.render(&view.scene, &camera).unwrap();
        r.into_frame()
    };
    let cut = cut_by(&[given]);
    let picks = cut.picks(&view.scene).unwrap();
    let plain = view.frame.picks(&view.scene).unwrap();
    let (x, y) = (0..i64::from(H))
        .flat_map(|y| (0..i64::from(W)).map(move |x| (x, y)))
        .find(|&(x, y)| {
            plain.at(x, y).map(|h| h.global_triangle) != picks.at(x, y).map(|h| h.global_triangle)
        })
        .expect("the given plane changes some pixel");
    let cam_file = view.camera_file.to_string_lossy().into_owned();
    let v = Viewer::start_with(&["--camera", &cam_file, "--clip", "1,0,0,0"], &view.dir);
    v.click((x as u32, y as u32));
    assert_eq!(
        v.line("pick ", "the click on the scene cut by --clip"),
        pick_line(PickMethod::Buffer, x, y, picks.at(x, y).as_ref())
    );
    // `C` adds the section plane to the given one: the picks are those of both
    v.key("c");
    let section = plane_of(&v.line("set section=", "C"));
    let both = cut_by(&[given, section]);
    let both = both.picks(&view.scene).unwrap();
    let (bx, by) = (0..i64::from(H))
        .flat_map(|y| (0..i64::from(W)).map(move |x| (x, y)))
        .find(|&(x, y)| both.at(x, y).is_some())
        .expect("something is left after both planes");
    v.click((bx as u32, by as u32));
    assert_eq!(
        v.line("pick ", "the click on the scene cut by both planes"),
        pick_line(PickMethod::Buffer, bx, by, both.at(bx, by).as_ref())
    );
    v.quit();
    view.clean();
}
