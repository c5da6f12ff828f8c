//! Unit tests of the viewer's parts: the input state machine, navigation,
//! the stdout lines and the window image, all without a window.

use glam::{Vec2, Vec3, Vec4};
use minifb::Key;

use crate::camera::{Camera, Projection};
use crate::collide::SweepResult;
use crate::frame::render::RenderOptions;
use crate::frame::Frame;
use crate::geometry::Aabb;
use crate::pick::{Hit, PickMethod};
use crate::raster::rules::FillRule;
use crate::scene::{MeshId, Scene};
use crate::select::SelectMode;

use super::input::{
    next_of, Action, Event, SelectOp, SelectRegion, ViewMode, ViewerState, DRAG_THRESHOLD_PX,
    LASSO_STEP_PX,
};
use super::navigation::{move_delta, orbit, MAX_PITCH_DEG, ZOOM_STEP};
use super::no_display;
use super::overlay::{
    compose, draw_clip_segment, draw_segment, highlight, mesh_at, mesh_of_triangles, pick_map,
    selection_tint, tint, Overlay, BAND, HIGHLIGHT, OUTLINE,
};
use super::report::{move_line, pick_line, select_line};
use super::window::move_mesh;

fn cam() -> Camera {
    Camera {
        eye: Vec3::new(0.0, 1.0, 5.0),
        target: Vec3::new(0.0, 0.5, 0.0),
        up: Vec3::Y,
        projection: Projection::Perspective { fov_y_deg: 45.0 },
        near: 0.05,
        far: 50.0,
        width: 320,
        height: 240,
    }
}

fn state() -> ViewerState {
    let b = Aabb {
        min: Vec3::splat(-1.0),
        max: Vec3::splat(1.0),
    };
    let mut s = ViewerState::new(cam(), &b, FillRule::TopLeft, PickMethod::Buffer);
    s.render_dirty = false;
    s.view_dirty = false;
    s
}

fn poll(s: &mut ViewerState, x: f32, y: f32, left: bool, right: bool) -> Vec<Action> {
    s.handle(Event::Poll {
        pos: Some((x, y)),
        left,
        right,
    })
}

fn key(s: &mut ViewerState, k: Key) -> Vec<Action> {
    let mut a = s.handle(Event::Key { key: k, down: true });
    a.extend(s.handle(Event::Key {
        key: k,
        down: false,
    }));
    a
}

fn picks(a: &[Action]) -> usize {
    a.iter()
        .filter(|a| matches!(a, Action::Pick { .. }))
        .count()
}

/// A left press at (x, y), and the next poll, which settles its position.
fn press(s: &mut ViewerState, x: f32, y: f32) -> Vec<Action> {
    let mut a = poll(s, x, y, true, false);
    a.extend(poll(s, x, y, true, false));
    a
}

fn hold(s: &mut ViewerState, k: Key, down: bool) {
    s.handle(Event::Key { key: k, down });
}

fn selects(a: &[Action]) -> Vec<(SelectRegion, SelectOp)> {
    a.iter()
        .filter_map(|a| match a {
            Action::Select { region, op } => Some((region.clone(), *op)),
            _ => None,
        })
        .collect()
}

#[test]
fn one_click_is_one_pick_on_release() {
    let mut s = state();
    assert!(poll(&mut s, 10.5, 20.5, false, false).is_empty());
    // the press alone does nothing yet
    assert!(press(&mut s, 10.5, 20.5).is_empty());
    assert_eq!(
        poll(&mut s, 10.5, 20.5, false, false),
        vec![Action::Pick { x: 10, y: 20 }]
    );
    // held for many polls, wandering within the threshold: one pick, at
    // the pixel of the press
    press(&mut s, 30.0, 20.0);
    let mut n = 0;
    for i in 0..10 {
        let a = poll(
            &mut s,
            30.0 + (i % 3) as f32,
            20.0 + (i % 2) as f32,
            true,
            false,
        );
        n += picks(&a) + selects(&a).len();
    }
    assert_eq!(n, 0);
    assert_eq!(
        poll(&mut s, 32.0, 22.0, false, false),
        vec![Action::Pick { x: 30, y: 20 }]
    );
    assert!(poll(&mut s, 32.0, 22.0, false, false).is_empty());
    // a press outside the frame picks nothing
    press(&mut s, -3.0, 20.0);
    assert_eq!(picks(&poll(&mut s, -3.0, 20.0, false, false)), 0);
    press(&mut s, 320.0, 20.0);
    assert_eq!(picks(&poll(&mut s, 320.0, 20.0, false, false)), 0);
    // a short click seen by two polls only
    poll(&mut s, 50.0, 60.0, true, false);
    assert_eq!(
        poll(&mut s, 50.0, 60.0, false, false),
        vec![Action::Pick { x: 50, y: 60 }]
    );
    // the camera never moved
    assert_eq!(s.camera, cam());
    assert!(!s.render_dirty);
}

#[test]
fn a_press_takes_its_position_from_the_next_poll() {
    // minifb reads the pointer before the button events: the poll that
    // sees the press may still report where the pointer was before it
    // jumped to the click
    let mut s = state();
    poll(&mut s, 200.0, 150.0, false, false);
    assert!(poll(&mut s, 200.0, 150.0, true, false).is_empty());
    assert!(poll(&mut s, 12.0, 34.0, true, false).is_empty());
    assert_eq!(s.band(), None, "no drag from the stale position");
    assert_eq!(
        poll(&mut s, 12.0, 34.0, false, false),
        vec![Action::Pick { x: 12, y: 34 }]
    );
    // a box starts there too
    poll(&mut s, 12.0, 34.0, true, false);
    poll(&mut s, 60.0, 70.0, true, false);
    poll(&mut s, 80.0, 90.0, true, false);
    assert_eq!(s.band(), Some(SelectRegion::Rect([60, 70, 80, 90])));
}

#[test]
fn drag_beyond_the_threshold_is_a_box() {
    let mut s = state();
    press(&mut s, 10.5, 20.5);
    // exactly at the threshold: still a click
    poll(&mut s, 10.5 + DRAG_THRESHOLD_PX, 20.5, true, false);
    assert_eq!(s.band(), None);
    // beyond it: a box from the press to the pointer, drawn while dragging
    s.view_dirty = false;
    assert!(poll(&mut s, 60.2, 5.9, true, false).is_empty());
    assert!(s.view_dirty);
    assert_eq!(s.band(), Some(SelectRegion::Rect([10, 20, 60, 5])));
    assert!(
        s.title().ends_with(" | box (10, 20)-(60, 5)"),
        "{}",
        s.title()
    );
    // back near the start: still a box (a drag never turns back into a click)
    poll(&mut s, 11.0, 21.0, true, false);
    assert_eq!(s.band(), Some(SelectRegion::Rect([10, 20, 11, 21])));
    // the release selects the box up to the release pixel; no pick
    let a = poll(&mut s, 40.7, 90.0, false, false);
    assert_eq!(
        a,
        vec![Action::Select {
            region: SelectRegion::Rect([10, 20, 40, 90]),
            op: SelectOp::Replace
        }]
    );
    assert_eq!(s.band(), None);
    // a box may reach outside the frame (the library clamps it)
    press(&mut s, 300.0, 200.0);
    poll(&mut s, 400.0, 300.0, true, false);
    let a = poll(&mut s, 400.0, 300.0, false, false);
    assert_eq!(
        selects(&a),
        vec![(SelectRegion::Rect([300, 200, 400, 300]), SelectOp::Replace)]
    );
    // moving and releasing within one poll still selects
    press(&mut s, 5.0, 5.0);
    let a = poll(&mut s, 25.0, 5.0, false, false);
    assert_eq!(
        selects(&a),
        vec![(SelectRegion::Rect([5, 5, 25, 5]), SelectOp::Replace)]
    );
    // but a press seen together with the move is a click where the pointer went
    poll(&mut s, 5.0, 5.0, true, false);
    let a = poll(&mut s, 25.0, 5.0, false, false);
    assert_eq!(a, vec![Action::Pick { x: 25, y: 5 }]);
    press(&mut s, 5.0, 5.0);
    let a = poll(&mut s, 25.0, 5.0, false, false);
    assert_eq!(
        selects(&a),
        vec![(SelectRegion::Rect([5, 5, 25, 5]), SelectOp::Replace)]
    );
    // losing the focus cancels a box
    press(&mut s, 5.0, 5.0);
    poll(&mut s, 50.0, 50.0, true, false);
    s.handle(Event::FocusLost);
    assert_eq!(s.band(), None);
    assert!(poll(&mut s, 50.0, 50.0, false, false).is_empty());
    assert_eq!(s.camera, cam());
}

#[test]
fn modifiers_at_release_add_or_remove() {
    let mut s = state();
    let drag = |s: &mut ViewerState, at_press: &[Key], at_release: &[Key]| {
        for &k in at_press {
            hold(s, k, true);
        }
        press(s, 10.0, 10.0);
        poll(s, 30.0, 30.0, true, false);
        for &k in at_press {
            hold(s, k, false);
        }
        for &k in at_release {
            hold(s, k, true);
        }
        let a = poll(s, 30.0, 30.0, false, false);
        for &k in at_release {
            hold(s, k, false);
        }
        selects(&a).into_iter().map(|x| x.1).collect::<Vec<_>>()
    };
    assert_eq!(drag(&mut s, &[], &[]), [SelectOp::Replace]);
    assert_eq!(drag(&mut s, &[], &[Key::LeftShift]), [SelectOp::Add]);
    assert_eq!(drag(&mut s, &[], &[Key::RightShift]), [SelectOp::Add]);
    assert_eq!(drag(&mut s, &[], &[Key::LeftCtrl]), [SelectOp::Remove]);
    assert_eq!(drag(&mut s, &[], &[Key::RightCtrl]), [SelectOp::Remove]);
    // Ctrl wins over Shift; Ctrl at the press is a box too (Shift at the press orbits)
    assert_eq!(
        drag(&mut s, &[], &[Key::LeftShift, Key::LeftCtrl]),
        [SelectOp::Remove]
    );
    assert_eq!(
        drag(&mut s, &[Key::LeftCtrl], &[Key::LeftCtrl]),
        [SelectOp::Remove]
    );
    assert_eq!(drag(&mut s, &[Key::LeftCtrl], &[]), [SelectOp::Replace]);
    assert!(drag(&mut s, &[Key::LeftShift], &[]).is_empty());
    assert_ne!(s.camera, cam(), "the Shift drag orbited");
    // a Ctrl or Shift click is still a click
    hold(&mut s, Key::LeftCtrl, true);
    poll(&mut s, 7.0, 8.0, true, false);
    assert_eq!(
        poll(&mut s, 7.0, 8.0, false, false),
        vec![Action::Pick { x: 7, y: 8 }]
    );
}

#[test]
fn alt_drag_is_a_lasso_through_pixel_centres() {
    let mut s = state();
    hold(&mut s, Key::LeftAlt, true);
    press(&mut s, 100.2, 100.7);
    // Alt may be let go once the drag has begun
    hold(&mut s, Key::LeftAlt, false);
    let path: Vec<(f32, f32)> = (1..=40)
        .map(|i| {
            let t = i as f32 / 40.0 * std::f32::consts::TAU;
            (100.0 + 30.0 * t.sin(), 100.0 + 20.0 * (1.0 - t.cos()))
        })
        .collect();
    for &(x, y) in &path {
        poll(&mut s, x, y, true, false);
    }
    let Some(SelectRegion::Lasso(band)) = s.band() else {
        panic!("no lasso: {:?}", s.band())
    };
    assert!(band.len() > 10);
    let t = s.title();
    assert!(
        t.ends_with(&format!(" | lasso of {} points", band.len())),
        "{t}"
    );
    let (ex, ey) = (100.0 + 12.0, 100.0 + 3.0);
    let a = poll(&mut s, ex, ey, false, false);
    let sel = selects(&a);
    assert_eq!(sel.len(), 1, "{a:?}");
    let (SelectRegion::Lasso(p), SelectOp::Replace) = &sel[0] else {
        panic!("{sel:?}")
    };
    assert_eq!(p[0], [100.5, 100.5]);
    assert_eq!(*p.last().unwrap(), [112.5, 103.5]);
    assert!(p.len() >= band.len());
    for q in p {
        assert_eq!(q.map(f32::fract), [0.5, 0.5], "pixel centres: {q:?}");
    }
    // points at least LASSO_STEP_PX apart (but the release point)
    for w in p[..p.len() - 1].windows(2) {
        let d = (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]);
        assert!(d >= LASSO_STEP_PX, "{w:?}");
    }
    assert_eq!(s.band(), None);
    // Alt pressed after the press but before the threshold: a lasso too
    press(&mut s, 10.0, 10.0);
    hold(&mut s, Key::RightAlt, true);
    poll(&mut s, 20.0, 10.0, true, false);
    assert!(matches!(s.band(), Some(SelectRegion::Lasso(_))));
    poll(&mut s, 20.0, 20.0, true, false);
    let a = poll(&mut s, 20.0, 20.0, false, false);
    assert!(matches!(
        selects(&a)[..],
        [(SelectRegion::Lasso(_), SelectOp::Replace)]
    ));
    // an Alt click is a click
    press(&mut s, 50.0, 60.0);
    assert_eq!(
        poll(&mut s, 50.0, 60.0, false, false),
        vec![Action::Pick { x: 50, y: 60 }]
    );
}

#[test]
fn x_toggles_through_selection() {
    let mut s = state();
    assert!(!s.through);
    assert_eq!(s.select_mode(), SelectMode::Visible);
    assert!(s.title().contains("select visible (0)"), "{}", s.title());
    let a = key(&mut s, Key::X);
    assert_eq!(a, vec![Action::Say("set through=on".into())]);
    assert!(s.through && s.view_dirty && !s.render_dirty);
    assert_eq!(s.select_mode(), SelectMode::Through);
    assert!(s.title().contains("select through"), "{}", s.title());
    // key repeat is one toggle
    for _ in 0..3 {
        hold(&mut s, Key::X, true);
    }
    hold(&mut s, Key::X, false);
    assert!(!s.through);
}

#[test]
fn selection_ops() {
    let mut s = state();
    s.apply_selection(SelectOp::Replace, &[5, 1, 3, 3]);
    assert_eq!(s.selection, [1, 3, 5]);
    s.apply_selection(SelectOp::Add, &[4, 1]);
    assert_eq!(s.selection, [1, 3, 4, 5]);
    s.apply_selection(SelectOp::Remove, &[3, 9, 5]);
    assert_eq!(s.selection, [1, 4]);
    s.apply_selection(SelectOp::Add, &[]);
    assert_eq!(s.selection, [1, 4]);
    assert!(s.title().contains("(2)"));
    s.apply_selection(SelectOp::Replace, &[]);
    assert!(s.selection.is_empty());
}

/// The built-in scene rendered with the test camera, in a fresh state.
fn scene_state() -> (Scene, Frame, ViewerState) {
    let scene = crate::builtin::builtin_scene();
    let camera = Camera::auto_frame(&scene.framing_bounds(), 320, 240);
    let frame = crate::frame::render::render(&scene, &camera, RenderOptions::default()).unwrap();
    let s = ViewerState::new(
        camera,
        &scene.framing_bounds(),
        FillRule::TopLeft,
        PickMethod::Buffer,
    );
    (scene, frame, s)
}

#[test]
fn select_region_equals_the_library() {
    let (scene, frame, mut s) = scene_state();
    let region = SelectRegion::Rect([0, 0, 319, 239]);
    let vis = frame
        .picks(&scene)
        .unwrap()
        .rect(0, 0, 319, 239, SelectMode::Visible);
    let thr = frame
        .picks(&scene)
        .unwrap()
        .rect(0, 0, 319, 239, SelectMode::Through);
    assert_ne!(vis.meshes, thr.meshes, "x-ray finds hidden meshes");
    let line = s.select_region(frame.picks(&scene).unwrap(), &region, SelectOp::Replace);
    assert_eq!(line, select_line(SelectMode::Visible, &vis.meshes, &scene));
    assert_eq!(s.selection, vis.meshes);
    key(&mut s, Key::X);
    let line = s.select_region(frame.picks(&scene).unwrap(), &region, SelectOp::Replace);
    assert_eq!(line, select_line(SelectMode::Through, &thr.meshes, &scene));
    assert!(
        line.starts_with("select mode=through meshes=[0:floor,"),
        "{line}"
    );
    assert!(
        line.ends_with(&format!("] count={}", thr.meshes.len())),
        "{line}"
    );
    // lasso: the library's select_lasso; Ctrl removes exactly those meshes
    let poly = vec![[40.5, 30.5], [280.5, 60.5], [160.5, 220.5]];
    let las = frame
        .picks(&scene)
        .unwrap()
        .lasso(&poly, SelectMode::Through);
    assert!(!las.meshes.is_empty());
    s.select_region(
        frame.picks(&scene).unwrap(),
        &SelectRegion::Lasso(poly),
        SelectOp::Remove,
    );
    let want: Vec<MeshId> = thr
        .meshes
        .iter()
        .copied()
        .filter(|m| !las.contains_mesh(*m))
        .collect();
    assert_eq!(s.selection, want);
    // empty background replaces the selection with nothing
    let line = s.select_region(
        frame.picks(&scene).unwrap(),
        &SelectRegion::Rect([1000, 1000, 2000, 2000]),
        SelectOp::Replace,
    );
    assert_eq!(line, "select mode=through meshes=[] count=0");
}

#[test]
fn repeated_clicks_cycle_through_the_stack() {
    let (scene, frame, mut s) = scene_state();
    // a pixel with at least two meshes under it
    let (x, y, stack) = (0..320 * 240)
        .map(|i| (i % 320, i / 320))
        .find_map(|(x, y)| {
            let st = frame.picks(&scene).unwrap().stack(x, y);
            (st.len() >= 2).then_some((x, y, st))
        })
        .expect("overlapping meshes in the built-in scene");
    let n = stack.len();
    let first = pick_line(
        PickMethod::Buffer,
        x,
        y,
        frame.picks(&scene).unwrap().at(x, y).as_ref(),
    );
    assert_eq!(s.click(frame.picks(&scene).unwrap(), x, y), first);
    assert!(!first.contains("cycle="));
    assert!(s.title().contains(&format!("1 of {n} under the cursor")));
    for (k, h) in stack.iter().enumerate().skip(1) {
        let line = s.click(frame.picks(&scene).unwrap(), x, y);
        assert_eq!(
            line,
            format!(
                "{} cycle={}/{n}",
                pick_line(PickMethod::Buffer, x, y, Some(h)),
                k + 1
            )
        );
        assert_eq!(s.selected.as_ref().map(|h| h.mesh), Some(h.mesh));
    }
    // wraps to the nearest, answered by the method again
    assert_eq!(
        s.click(frame.picks(&scene).unwrap(), x, y),
        format!("{first} cycle=1/{n}")
    );
    assert_eq!(s.click(frame.picks(&scene).unwrap(), x, y), {
        let h = &stack[1];
        format!(
            "{} cycle=2/{n}",
            pick_line(PickMethod::Buffer, x, y, Some(h))
        )
    });
    // a single mesh under the pixel: nothing to cycle, no field
    let single = (0..320 * 240)
        .map(|i| (i % 320, i / 320))
        .find(|&(a, b)| frame.picks(&scene).unwrap().stack(a, b).len() == 1)
        .unwrap();
    for _ in 0..3 {
        assert!(!s
            .click(frame.picks(&scene).unwrap(), single.0, single.1)
            .contains("cycle="));
    }
    // another pixel restarts the cycle; so does background
    let other = (0..320 * 240)
        .map(|i| (i % 320, i / 320))
        .find(|&(a, b)| (a, b) != (x, y) && frame.picks(&scene).unwrap().at(a, b).is_some())
        .unwrap();
    assert!(!s
        .click(frame.picks(&scene).unwrap(), other.0, other.1)
        .contains("cycle="));
    assert_eq!(s.click(frame.picks(&scene).unwrap(), x, y), first);
    assert!(s
        .click(frame.picks(&scene).unwrap(), x, y)
        .ends_with(&format!(" cycle=2/{n}")));
    // M restarts it, and the new method answers the first click
    key(&mut s, Key::M);
    let direct = pick_line(
        PickMethod::Direct,
        x,
        y,
        frame
            .picks(&scene)
            .unwrap()
            .with(crate::pick::PickMethod::Direct)
            .at(x, y)
            .as_ref(),
    );
    assert_eq!(s.click(frame.picks(&scene).unwrap(), x, y), direct);
    assert!(s
        .click(frame.picks(&scene).unwrap(), x, y)
        .ends_with(&format!(" cycle=2/{n}")));
    // so do camera changes, rule changes and moves
    s.handle(Event::Wheel(1.0));
    assert_eq!(s.cycle.position(), None);
    assert_eq!(s.click(frame.picks(&scene).unwrap(), x, y), direct);
    key(&mut s, Key::T);
    assert_eq!(s.click(frame.picks(&scene).unwrap(), x, y), direct);
    s.scene_changed();
    assert_eq!(s.click(frame.picks(&scene).unwrap(), x, y), direct);
    assert!(s.render_dirty);
}

#[test]
fn shift_left_and_right_drag_orbit_without_picking() {
    let mut s = state();
    s.handle(Event::Key {
        key: Key::LeftShift,
        down: true,
    });
    poll(&mut s, 100.0, 100.0, false, false);
    assert_eq!(picks(&poll(&mut s, 100.0, 100.0, true, false)), 0);
    assert_eq!(picks(&poll(&mut s, 120.0, 100.0, true, false)), 0);
    assert!(s.render_dirty);
    let moved = s.camera;
    assert_ne!(moved, cam());
    assert!(
        ((moved.eye - moved.target).length() - (cam().eye - cam().target).length()).abs() < 1e-4
    );
    // Shift released mid-drag: still the same orbit drag, still no pick
    s.handle(Event::Key {
        key: Key::LeftShift,
        down: false,
    });
    assert_eq!(picks(&poll(&mut s, 130.0, 100.0, true, false)), 0);
    poll(&mut s, 130.0, 100.0, false, false);
    // right drag orbits too
    s.render_dirty = false;
    let before = s.camera;
    assert_eq!(picks(&poll(&mut s, 130.0, 100.0, false, true)), 0);
    poll(&mut s, 130.0, 90.0, false, true);
    assert!(s.render_dirty);
    assert_ne!(s.camera, before);
    // the poll that sees the press does not orbit, even if the pointer jumped
    poll(&mut s, 130.0, 90.0, false, false);
    s.render_dirty = false;
    let c = s.camera;
    poll(&mut s, 10.0, 200.0, false, true);
    assert_eq!(s.camera, c);
    poll(&mut s, 10.0, 200.0, false, true);
    assert_eq!(s.camera, c);
    assert!(!s.render_dirty);
    // motion without a button does nothing
    poll(&mut s, 130.0, 90.0, false, false);
    s.render_dirty = false;
    let c = s.camera;
    poll(&mut s, 10.0, 10.0, false, false);
    assert_eq!(s.camera, c);
    assert!(!s.render_dirty);
}

#[test]
fn t_cycles_rules_and_m_cycles_methods() {
    let mut s = state();
    let start = s.rule;
    let mut seen = Vec::new();
    for _ in 0..FillRule::ALL.len() {
        s.render_dirty = false;
        let a = key(&mut s, Key::T);
        assert!(s.render_dirty);
        assert_eq!(a, vec![Action::Say(format!("set rule={}", s.rule.name()))]);
        seen.push(s.rule);
    }
    assert_eq!(s.rule, start);
    let mut all = FillRule::ALL.to_vec();
    all.sort_by_key(|r| r.name());
    seen.sort_by_key(|r| r.name());
    assert_eq!(seen, all);
    assert!(s.title().contains(&format!("rule {}", start.name())));
    // key repeat (down, down, down, up) is one press
    for _ in 0..3 {
        s.handle(Event::Key {
            key: Key::T,
            down: true,
        });
    }
    s.handle(Event::Key {
        key: Key::T,
        down: false,
    });
    assert_eq!(s.rule, next_of(&FillRule::ALL, start));

    assert_eq!(s.method, PickMethod::Buffer);
    key(&mut s, Key::M);
    assert_eq!(s.method, PickMethod::Direct);
    key(&mut s, Key::M);
    assert_eq!(s.method, PickMethod::Ray);
    assert!(s.title().contains("pick ray"));
    key(&mut s, Key::M);
    assert_eq!(s.method, PickMethod::Buffer);
}

#[test]
fn view_modes_hover_save_exit() {
    let mut s = state();
    key(&mut s, Key::Key2);
    assert_eq!(s.mode, ViewMode::Ids);
    assert!(s.view_dirty && !s.render_dirty);
    key(&mut s, Key::Key3);
    assert_eq!(s.mode, ViewMode::Depth);
    key(&mut s, Key::Key1);
    assert_eq!(s.mode, ViewMode::Shaded);
    assert!(key(&mut s, Key::P).contains(&Action::Save));
    assert!(key(&mut s, Key::Escape).contains(&Action::Exit));
    assert_eq!(s.handle(Event::Close), vec![Action::Exit]);
    // hover: off by default; on, moves ask for hover picks
    assert!(poll(&mut s, 5.0, 5.0, false, false).is_empty());
    let a = key(&mut s, Key::H);
    assert!(s.hover);
    assert!(a.contains(&Action::Hover { x: 5, y: 5 }));
    assert_eq!(
        poll(&mut s, 6.0, 5.0, false, false),
        vec![Action::Hover { x: 6, y: 5 }]
    );
    assert!(poll(&mut s, 6.0, 5.0, false, false).is_empty());
    s.set_hovered(Some(2));
    poll(&mut s, -1.0, 5.0, false, false);
    assert_eq!(s.hovered, None);
    key(&mut s, Key::H);
    assert!(!s.hover);
}

#[test]
fn zoom_reset_and_frame() {
    let mut s = state();
    let d0 = (s.camera.eye - s.camera.target).length();
    s.handle(Event::Wheel(1.0));
    let d1 = (s.camera.eye - s.camera.target).length();
    assert!((d1 - d0 * ZOOM_STEP).abs() < 1e-4);
    key(&mut s, Key::Minus);
    assert!(((s.camera.eye - s.camera.target).length() - d0).abs() < 1e-4);
    // zooming far in stops at 2 x near, far out at far / 2
    for _ in 0..500 {
        s.handle(Event::Wheel(1.0));
    }
    let d = (s.camera.eye - s.camera.target).length();
    assert!(d >= 2.0 * s.camera.near * 0.999 && d < d0);
    for _ in 0..500 {
        s.handle(Event::Wheel(-1.0));
    }
    let d = (s.camera.eye - s.camera.target).length();
    assert!(d <= s.camera.far * 0.5 * 1.001 && d > d0);
    key(&mut s, Key::R);
    assert_eq!(s.camera, cam());
    assert!(key(&mut s, Key::F).contains(&Action::FrameAll));
}

#[test]
fn orbit_math() {
    let c = cam();
    let r = (c.eye - c.target).length();
    // a full turn returns to the start
    let full = orbit(&c, std::f32::consts::TAU, 0.0);
    assert!((full.eye - c.eye).length() < 1e-4);
    // a quarter turn about +Y moves the eye from +Z to +X (right-handed)
    let q = orbit(&c, std::f32::consts::FRAC_PI_2, 0.0);
    assert!(((q.eye - q.target).length() - r).abs() < 1e-4);
    assert!(q.eye.x > 4.9 && q.eye.z.abs() < 1e-3, "{}", q.eye);
    assert!((q.eye.y - c.eye.y).abs() < 1e-4);
    assert_eq!(q.target, c.target);
    // pitch clamps below the pole, and the camera stays valid
    let top = orbit(&c, 0.0, 10.0);
    let elev = ((top.eye - top.target) / r).y.asin().to_degrees();
    assert!((elev - MAX_PITCH_DEG).abs() < 1e-2, "{elev}");
    assert!(top.validate().is_ok());
    let bottom = orbit(&c, 0.0, -10.0);
    let elev = ((bottom.eye - bottom.target) / r).y.asin().to_degrees();
    assert!((elev + MAX_PITCH_DEG).abs() < 1e-2, "{elev}");
    // up and down again is the identity
    let back = orbit(&orbit(&c, 0.3, 0.2), -0.3, -0.2);
    assert!((back.eye - c.eye).length() < 1e-4);
}

#[test]
fn moves_are_camera_relative() {
    let mut s = state();
    let a = key(&mut s, Key::W);
    let Some(Action::Move(d)) = a.first() else {
        panic!("{a:?}")
    };
    // camera looks toward -Z: forward is -Z on the ground plane
    assert!(d.z < 0.0 && d.x.abs() < 1e-6 && d.y.abs() < 1e-6);
    assert!((d.length() - s.step).abs() < 1e-6);
    let right = move_delta(&s.camera, Key::D, 1.0).unwrap();
    assert!((right - Vec3::X).length() < 1e-5);
    assert!((move_delta(&s.camera, Key::E, 1.0).unwrap() - Vec3::Y).length() < 1e-6);
    // key repeat keeps moving
    let mut n = 0;
    for _ in 0..3 {
        n += s
            .handle(Event::Key {
                key: Key::A,
                down: true,
            })
            .len();
    }
    assert_eq!(n, 3);
}

mod drive;
mod picture_and_lines;
mod section;
