//! End-to-end scenarios of `softpick view` under a real X server.
//!
//! Each scenario starts its own Xvfb and the real binary on the built-in
//! scene with a fixed camera (`session.rs`), drives it with xdotool and
//! checks its stdout lines, the files it saves and screenshots of its
//! window against what the public library computes for the same view and
//! the viewer's documented formats and colors (`expect.rs`). Every scenario
//! ends with `Esc`, which must exit the viewer cleanly.
//!
//! Needs `Xvfb`, `xdotool` and ImageMagick's `import` (Debian: `xvfb xdotool
//! imagemagick`, plus `libx11-6 libxcursor1` that minifb loads at run time).
//! Every scenario is `#[ignore = "needs …"]`, so `cargo test` lists it as
//! ignored; `cargo test --test viewer_e2e -- --include-ignored` (as .ci/run
//! runs it, after installing the tools) runs it, and without the tools it
//! fails naming what is missing.

mod animation;
mod drive;
mod expect;
mod section;
mod session;

use softpick::{Frame, PickMethod, SelectMode};

use expect::{compare, pick_line, select_line, tint, Look, View, H, PICKED, W};
use session::Viewer;

/// Pixel (x, y) as the `i64` pair of the library's picks.
fn at((x, y): (u32, u32)) -> (i64, i64) {
    (i64::from(x), i64::from(y))
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn clicks_print_the_library_pick_of_each_method() {
    let view = View::new("picks");
    let (mesh, bg) = (view.mesh_pixel(&[]), view.background_pixel());
    let hit = view
        .pick(PickMethod::Buffer, mesh)
        .expect("mesh pixel hits");
    let v = Viewer::start(&view);

    // background, then the mesh: exactly the library's buffer picks
    v.click(bg);
    let (x, y) = at(bg);
    assert_eq!(
        v.line("pick ", "the background click"),
        pick_line(PickMethod::Buffer, x, y, None)
    );
    v.click(mesh);
    let (x, y) = at(mesh);
    let got = v.line("pick ", "the mesh click");
    assert_eq!(
        got,
        pick_line(PickMethod::Buffer, x, y, Some(&hit)),
        "library pick: {hit:?}"
    );
    assert!(got.contains(&format!(" mesh={} name={} ", hit.mesh, hit.mesh_name)));
    assert!(got.contains(&format!(" global={} ", hit.global_triangle)));

    // M cycles the pick method; each line says which one answered, and
    // answers exactly as the library's method does
    for method in [PickMethod::Direct, PickMethod::Ray] {
        v.key("m");
        assert_eq!(
            v.line("set method=", "M"),
            format!("set method={}", method.name())
        );
        v.click(mesh);
        let want = view.pick(method, mesh);
        assert!(want.is_some(), "{} misses the mesh pixel", method.name());
        assert_eq!(
            v.line("pick ", method.name()),
            pick_line(method, x, y, want.as_ref())
        );
    }
    v.key("m");
    assert_eq!(v.line("set method=", "M"), "set method=buffer");
    v.quit();
    view.clean();
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn a_click_tints_the_picked_mesh_and_outlines_its_triangle() {
    let view = View::new("highlight");
    let (mesh, bg) = (view.mesh_pixel(&[]), view.background_pixel());
    let hit = view
        .pick(PickMethod::Buffer, mesh)
        .expect("mesh pixel hits");
    let v = Viewer::start(&view);
    v.click(mesh);
    v.line("pick ", "the mesh click");

    let want = view.window(&Look {
        picked: Some(hit.mesh),
        ..Look::default()
    });
    let zone = view.outline_zone(hit.mesh, hit.triangle);
    let shot = view.dir.join("shot.png");
    let px = v.settled_screenshot(&shot, |px| compare(px, &want, Some(&zone)).is_ok());

    // at the clicked pixel (3 px or more inside the triangle, so no
    // outline): the plain color moved toward the tint, channel by channel
    let i = (mesh.1 * W + mesh.0) as usize;
    let (plain, seen) = (view.frame.color()[i], px[i]);
    assert_ne!(seen, plain, "the picked mesh is not tinted at {mesh:?}");
    for shift in [16, 8, 0] {
        let ch = |c: u32| ((c >> shift) & 0xff) as i32;
        if (ch(PICKED.0) - ch(plain)).abs() > 8 {
            assert_eq!(
                (ch(seen) - ch(plain)).signum(),
                (ch(PICKED.0) - ch(plain)).signum(),
                "{seen:06x} does not move from {plain:06x} toward {:06x}",
                PICKED.0
            );
        }
    }
    assert_eq!(seen, tint(plain, PICKED), "tint at the clicked pixel");
    // the capture is exact: background is untouched
    assert_eq!(px[(bg.1 * W + bg.0) as usize], Frame::BACKGROUND);
    // the whole window: the tinted mesh, the outline along the triangle
    match compare(&px, &want, Some(&zone)) {
        Ok(outlined) => assert!(outlined > 0, "no outline around the picked triangle"),
        Err(e) => panic!("window image after the pick: {e}"),
    }
    v.quit();
    view.clean();
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn p_saves_the_plain_render_and_the_pick_map() {
    let view = View::new("save");
    let mesh = view.mesh_pixel(&[]);
    let v = Viewer::start(&view);
    // a pick first: the window shows a tint and an outline, the files must not
    v.click(mesh);
    v.line("pick ", "the mesh click");
    v.key("p");
    assert_eq!(
        v.line("saved ", "P"),
        "saved output/view_color.png output/view_pickmap.png"
    );
    let (cw, ch, color) =
        softpick::internals::read_png(view.dir.join("output/view_color.png")).unwrap();
    assert_eq!((cw, ch), (W, H));
    assert!(
        color == view.frame.color(),
        "view_color.png differs from the library render"
    );
    let (pw, ph, map) =
        softpick::internals::read_png(view.dir.join("output/view_pickmap.png")).unwrap();
    assert_eq!((pw, ph), (W, H));
    assert!(
        map == view.pick_map(),
        "view_pickmap.png differs from the library pick map"
    );
    v.quit();
    view.clean();
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn a_box_selects_and_tints_what_the_library_selects() {
    let view = View::new("box");
    let mesh = view.mesh_pixel(&[]);
    let hit = view
        .pick(PickMethod::Buffer, mesh)
        .expect("mesh pixel hits");
    let (a, b) = ((W / 5, H / 4), (W * 4 / 5, H * 3 / 4));
    let boxed = view.rect(a, b, SelectMode::Visible);
    assert!(
        boxed.len() >= 3,
        "the test box holds several meshes: {boxed:?}"
    );
    let v = Viewer::start(&view);
    v.click(mesh);
    v.line("pick ", "the mesh click");

    // press at A, move to B, release: the library's select_rect of A and B
    v.drag(&[a, b]);
    assert_eq!(
        v.line("select ", "the box"),
        select_line(SelectMode::Visible, &boxed, &view.scene)
    );
    // on screen: the selection tinted, the pick still tinted and outlined
    let want = view.window(&Look {
        picked: Some(hit.mesh),
        selection: boxed,
        ..Look::default()
    });
    let zone = view.outline_zone(hit.mesh, hit.triangle);
    let shot = view.dir.join("shot.png");
    let px = v.settled_screenshot(&shot, |px| compare(px, &want, Some(&zone)).is_ok());
    if let Err(e) = compare(&px, &want, Some(&zone)) {
        panic!("window image after the box: {e}");
    }
    v.quit();
    view.clean();
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn ctrl_removes_from_the_selection_and_x_ray_takes_hidden_meshes() {
    let view = View::new("modifiers");
    let (a, b) = ((W / 5, H / 4), (W * 4 / 5, H * 3 / 4));
    let boxed = view.rect(a, b, SelectMode::Visible);
    let (c, d) = ((W / 2, H / 2), (W * 4 / 5, H * 3 / 4));
    let removed = view.rect(c, d, SelectMode::Visible);
    let left: Vec<_> = boxed
        .iter()
        .copied()
        .filter(|m| !removed.contains(m))
        .collect();
    assert!(left.len() < boxed.len() && !left.is_empty(), "{left:?}");
    let (e, f) = ((W - 2, H - 2), (1, 1));
    let (vis, thr) = (
        view.rect(e, f, SelectMode::Visible),
        view.rect(e, f, SelectMode::Through),
    );
    assert!(
        vis.iter().all(|m| thr.contains(m)) && vis != thr,
        "{vis:?} {thr:?}"
    );
    let v = Viewer::start(&view);

    v.drag(&[a, b]);
    assert_eq!(
        v.line("select ", "the box"),
        select_line(SelectMode::Visible, &boxed, &view.scene)
    );
    // Ctrl held at the release removes the second box's meshes
    v.hold("ctrl", true);
    v.drag(&[c, d]);
    v.hold("ctrl", false);
    assert_eq!(
        v.line("select ", "the Ctrl box"),
        select_line(SelectMode::Visible, &left, &view.scene)
    );
    // X: x-ray selection finds the hidden meshes too
    v.key("x");
    assert_eq!(v.line("set through=", "X"), "set through=on");
    v.drag(&[e, f]);
    assert_eq!(
        v.line("select ", "the x-ray box"),
        select_line(SelectMode::Through, &thr, &view.scene)
    );
    v.key("x");
    assert_eq!(v.line("set through=", "X"), "set through=off");
    v.quit();
    view.clean();
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn an_alt_drag_selects_the_library_lasso() {
    let view = View::new("lasso");
    // an L along the left pillar and the front of the floor, axis-aligned:
    // every point of the drag lies on these edges, so whichever of them the
    // viewer's polls see, its polygon covers the same pixels as the corners'
    let corners = [
        (95, 40),
        (125, 40),
        (125, 205),
        (250, 205),
        (250, 235),
        (95, 235),
    ];
    let lassoed = view.lasso(&corners, SelectMode::Visible);
    let boxed = view.rect(corners[0], corners[4], SelectMode::Visible);
    assert!(
        !lassoed.is_empty() && lassoed.iter().all(|m| boxed.contains(m)) && lassoed != boxed,
        "the test lasso selects some but not all meshes of its bounding box: \
         {lassoed:?} {boxed:?}"
    );
    let v = Viewer::start(&view);
    let mut path = corners.to_vec();
    path.push(corners[0]);
    v.hold("alt", true);
    v.drag(&path);
    v.hold("alt", false);
    assert_eq!(
        v.line("select ", "the lasso"),
        select_line(SelectMode::Visible, &lassoed, &view.scene)
    );
    let want = view.window(&Look {
        selection: lassoed,
        ..Look::default()
    });
    let shot = view.dir.join("shot.png");
    let px = v.settled_screenshot(&shot, |px| px == want);
    if let Err(e) = compare(&px, &want, None) {
        panic!("window image after the lasso: {e}");
    }
    v.quit();
    view.clean();
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn hover_tints_the_mesh_under_the_pointer() {
    let view = View::new("hover");
    let first = view.mesh_pixel(&[]);
    let first_mesh = view.mesh_at(first).unwrap();
    let second = view.mesh_pixel(&[first_mesh]);
    let second_mesh = view.mesh_at(second).unwrap();
    let bg = view.background_pixel();
    let v = Viewer::start(&view);
    let shot = view.dir.join("shot.png");
    let check = |hovered, what: &str| {
        let want = view.window(&Look {
            hovered,
            ..Look::default()
        });
        let px = v.settled_screenshot(&shot, |px| px == want);
        if let Err(e) = compare(&px, &want, None) {
            panic!("window image {what}: {e}");
        }
    };

    v.move_to(first);
    v.key("h");
    assert_eq!(v.line("set hover=", "H"), "set hover=on");
    check(Some(first_mesh), "hovering the first mesh");
    v.move_to(second);
    check(Some(second_mesh), "hovering the second mesh");
    v.move_to(bg);
    check(None, "hovering background");
    v.move_to(first);
    check(Some(first_mesh), "back on the first mesh");
    v.key("h");
    assert_eq!(v.line("set hover=", "H"), "set hover=off");
    check(None, "with hover off");
    v.quit();
    view.clean();
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn repeated_clicks_cycle_through_the_meshes_under_a_pixel() {
    let view = View::new("cycle");
    let (x, y, stack) = (0..W * H)
        .map(|i| (i64::from(i % W), i64::from(i / W)))
        .find_map(|(x, y)| {
            let st = view.frame.picks(&view.scene).unwrap().stack(x, y);
            (st.len() >= 2).then_some((x, y, st))
        })
        .expect("overlapping meshes in the test view");
    let n = stack.len();
    let first = pick_line(
        PickMethod::Buffer,
        x,
        y,
        view.frame.picks(&view.scene).unwrap().at(x, y).as_ref(),
    );
    let v = Viewer::start(&view);
    // near to far, then around again; the first click prints no cycle field
    for k in 0..=n {
        v.click((x as u32, y as u32));
        let want = match k {
            0 => first.clone(),
            k if k == n => format!("{first} cycle=1/{n}"),
            k => format!(
                "{} cycle={}/{n}",
                pick_line(PickMethod::Buffer, x, y, Some(&stack[k])),
                k + 1
            ),
        };
        assert_eq!(
            v.line("pick ", "a cycling click"),
            want,
            "click {} at ({x}, {y})",
            k + 1
        );
    }
    v.quit();
    view.clean();
}
