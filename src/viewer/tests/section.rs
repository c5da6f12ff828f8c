//! The section plane (`C`, `,` / `.`): its key bindings and lines, and that
//! the frame the viewer renders with it, and every pick method on that
//! frame, answer about the half the plane keeps.

use glam::Vec3;
use minifb::Key;

use crate::frame::render::{RenderOptions, Renderer};
use crate::pick::PickMethod;

use super::super::input::{Action, Event};
use super::{cam, key, scene_state, state};

/// The `Say` lines of `actions`.
fn lines(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Say(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// The four values of a line's `plane=(a,b,c,d)` field.
fn plane_of(line: &str) -> [f32; 4] {
    let inner = line
        .split("plane=(")
        .nth(1)
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no plane=(…) in {line:?}"));
    let v: Vec<f32> = inner.split(',').map(|x| x.parse().unwrap()).collect();
    [v[0], v[1], v[2], v[3]]
}

#[test]
fn c_toggles_a_plane_through_the_centre_facing_the_camera() {
    let mut s = state();
    assert!(s.clip_planes().is_none());
    let said = lines(&key(&mut s, Key::C));
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with("set section=on plane=("), "{said:?}");
    // the printed plane reads back exactly: the view direction, through
    // the bounds' centre (the origin here), keeping the far half
    let p = plane_of(&said[0]);
    let c = cam();
    let n = (c.target - c.eye).normalize();
    assert_eq!(p, [n.x, n.y, n.z, 0.0]);
    assert_eq!(
        said[0],
        format!("set section=on plane=({},{},{},0)", n.x, n.y, n.z)
    );
    assert!(s.render_dirty, "a new plane renders again");
    assert!(s.title().contains("| section |"), "{}", s.title());
    let clip = s.clip_planes().expect("section on");
    assert_eq!(clip.planes_of(0).copied().collect::<Vec<_>>(), vec![p]);

    s.render_dirty = false;
    assert_eq!(lines(&key(&mut s, Key::C)), ["set section=off"]);
    assert!(s.clip_planes().is_none() && s.render_dirty);
    assert!(!s.title().contains("section"), "{}", s.title());
}

#[test]
fn comma_and_period_move_the_plane_one_step_each_press_or_repeat() {
    let mut s = state();
    // without a plane they do nothing
    assert!(key(&mut s, Key::Comma).is_empty());
    assert!(key(&mut s, Key::Period).is_empty());
    key(&mut s, Key::C);
    let d0 = s.section.unwrap().offset;
    let said = lines(&key(&mut s, Key::Period));
    assert_eq!(s.section.unwrap().offset, d0 + s.step);
    assert_eq!(said.len(), 1);
    assert!(said[0].starts_with("section plane=("), "{said:?}");
    assert_eq!(plane_of(&said[0])[3], -(d0 + s.step));
    // held: key repeat sends "down" again, and each one moves
    s.handle(Event::Key {
        key: Key::Comma,
        down: true,
    });
    s.handle(Event::Key {
        key: Key::Comma,
        down: true,
    });
    s.handle(Event::Key {
        key: Key::Comma,
        down: false,
    });
    assert_eq!(s.section.unwrap().offset, d0 + s.step - s.step - s.step);
}

#[test]
fn the_frame_and_its_picks_answer_about_what_the_section_keeps() {
    let (scene, plain, mut s) = scene_state();
    key(&mut s, Key::C);
    let section = s.section.unwrap();
    let at = |p: Vec3| section.normal.dot(p) - section.offset;
    // what the window loop does before a render
    let mut r = Renderer::new(RenderOptions::default()).unwrap();
    r.set_clip_planes(s.clip_planes());
    let frame = r.render(&scene, &s.camera).unwrap();
    let (w, h) = (i64::from(frame.width()), i64::from(frame.height()));
    let radius = (scene.framing_bounds().max - scene.framing_bounds().min).length() * 0.5;
    let tol = radius * 1e-4;
    let (plain_picks, picks) = (plain.picks(&scene).unwrap(), frame.picks(&scene).unwrap());
    let (mut cut_away, mut seen_behind, mut rays, mut rays_agree) = (0, 0, 0, 0);
    for y in 0..h {
        for x in 0..w {
            let hit = picks.at(x, y);
            if let Some(hit) = &hit {
                assert!(
                    at(hit.position) >= -tol,
                    "({x}, {y}) shows a cut-away point"
                );
            }
            let ray = picks.with(PickMethod::Ray).at(x, y);
            if let Some(ray) = &ray {
                assert!(
                    at(ray.position) >= -tol,
                    "ray ({x}, {y}) hits a cut-away point"
                );
            }
            if let (Some(b), Some(r)) = (&hit, &ray) {
                rays += 1;
                rays_agree += u32::from(b.global_triangle == r.global_triangle);
            }
            // where the plain frame shows a point the plane cuts away, the
            // section shows what lies behind it, or nothing
            if let Some(before) = plain_picks.at(x, y) {
                if at(before.position) < -tol {
                    cut_away += 1;
                    if let Some(after) = &hit {
                        assert!(after.distance > before.distance, "({x}, {y})");
                        seen_behind += 1;
                    }
                }
            }
        }
    }
    assert!(
        cut_away > 1000,
        "the plane through the centre cuts little: {cut_away} px"
    );
    assert!(
        seen_behind > 100,
        "nothing seen behind the cut: {seen_behind} px"
    );
    // the ray and the buffer disagree only where the ray and the clipped
    // triangle's snapped edge round apart (a pixel next to one on the cut),
    // and where the cut bares surfaces at nearly equal depth (as a floor and
    // a box's bottom face) that the depth buffer cannot order as the ray does
    let on_cut = |x: i64, y: i64| {
        (y - 1..=y + 1).any(|yy| {
            (x - 1..=x + 1).any(|xx| {
                picks
                    .at(xx, yy)
                    .is_some_and(|q| at(q.position).abs() < radius * 0.01)
            })
        })
    };
    let mut unexplained = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let (Some(b), Some(r)) = (picks.at(x, y), picks.with(PickMethod::Ray).at(x, y)) else {
                continue;
            };
            let tie = (b.distance - r.distance).abs() <= 2e-5 * b.distance;
            if b.global_triangle != r.global_triangle && !tie && !on_cut(x, y) {
                unexplained.push((x, y, b.global_triangle, r.global_triangle));
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "ray and buffer disagree at {unexplained:?}"
    );
    assert!(
        rays > 5000 && rays_agree * 100 >= rays * 95,
        "{rays_agree} of {rays}"
    );

    // moved toward the eye past the whole scene, the plane keeps all: the
    // frame is the plain one, pixel for pixel
    let steps = (2.0 * radius / s.step).ceil() as usize;
    for _ in 0..steps {
        key(&mut s, Key::Comma);
    }
    r.set_clip_planes(s.clip_planes());
    assert!(r.clip_planes().is_some());
    let kept_all = r.render(&scene, &s.camera).unwrap();
    assert_eq!(kept_all.ids(), plain.ids());
    assert_eq!(kept_all.depth(), plain.depth());
}

#[test]
fn planes_given_at_the_start_stay_and_the_section_comes_on_top() {
    use crate::geometry::ClipPlanes;
    let mut s = state();
    let fixed = [1.0, 0.0, 0.0, 0.5];
    s.clip = Some(ClipPlanes::new(&[fixed]).unwrap());
    assert_eq!(s.clip_planes(), s.clip);
    let on = lines(&key(&mut s, Key::C));
    let section = plane_of(&on[0]);
    let both = s.clip_planes().unwrap();
    assert_eq!(
        both.planes_of(0).copied().collect::<Vec<_>>(),
        [fixed, section]
    );
    key(&mut s, Key::C);
    assert_eq!(s.clip_planes(), s.clip, "off again: the given planes alone");

    // eight given planes leave no room: C says why and changes nothing
    s.clip = Some(ClipPlanes::new(&[fixed; 8]).unwrap());
    s.render_dirty = false;
    let said = lines(&key(&mut s, Key::C));
    assert_eq!(said.len(), 1);
    assert!(
        said[0].starts_with("set section=off (invalid clip planes: ")
            && said[0].contains("at most 8"),
        "{said:?}"
    );
    assert!(s.section.is_none() && !s.render_dirty);
    assert_eq!(s.clip_planes(), s.clip);
}
