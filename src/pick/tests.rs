//! The row and block picks at any `i64` start: cells of pixels outside the
//! frame (left of or above it included) are `None`, the others the single
//! picks, with every method.

use glam::{Quat, Vec3};

use super::{PickId, PickMethod};
use crate::camera::Camera;
use crate::frame::render::{render, RenderOptions};
use crate::frame::Frame;
use crate::scene::{Mesh, Scene, Transform};
use crate::test_util::Rng;

/// A few jittered grids and triangle soups, some rotated, in a 48×36
/// frame that they mostly cover.
fn scene_and_frame() -> (Scene, Frame) {
    let mut rng = Rng(0x5ba7_0000_0000_0064);
    let mut s = Scene::new();
    for i in 0..6 {
        let (p, t) = if i % 2 == 0 {
            crate::test_util::grid(5, 0.3, &mut rng)
        } else {
            let p: Vec<Vec3> = (0..30).map(|_| rng.vec3(0.0, 5.0)).collect();
            let t = (0..10).map(|k| [3 * k, 3 * k + 1, 3 * k + 2]).collect();
            (p, t)
        };
        let mesh = Mesh::new(format!("m{i}"), p, t, [1, 2, 3]).unwrap();
        let placed = Transform {
            translation: rng.vec3(-3.0, 3.0),
            rotation: Quat::from_axis_angle(rng.unit(), rng.range(0.0, 1.0)),
            scale: Vec3::ONE,
        };
        s.add_mesh(mesh, placed, None);
    }
    let cam = Camera::auto_frame(&s.framing_bounds(), 48, 36);
    let f = render(&s, &cam, RenderOptions::default()).unwrap();
    (s, f)
}

/// The single pick at `(x + dx, y + dy)`, `None` where that overflows.
fn single(
    f: &Frame,
    s: &Scene,
    m: PickMethod,
    (x, y): (i64, i64),
    (dx, dy): (usize, usize),
) -> Option<PickId> {
    let x = x.checked_add(i64::try_from(dx).ok()?)?;
    let y = y.checked_add(i64::try_from(dy).ok()?)?;
    f.picks(s).unwrap().with(m).id_at(x, y)
}

#[test]
fn rows_and_blocks_from_any_start_equal_single_picks() {
    let (s, f) = scene_and_frame();
    let covered = (0..36i64)
        .flat_map(|y| (0..48i64).map(move |x| (x, y)))
        .filter(|&(x, y)| f.picks(&s).unwrap().id_at(x, y).is_some())
        .count();
    assert!(covered > 150, "{covered} covered pixels");
    let starts = [
        (0, 0),
        (-5, 3),
        (-47, 10),
        (-48, 10),
        (-200, 20),
        (7, -1),
        (-3, -2),
        (40, 33),
        (45, -4),
        (i64::MIN, 5),
        (5, i64::MIN),
        (i64::MAX - 2, 5),
        (5, i64::MAX),
        (i64::from(u32::MAX) - 10, 0),
        (-(1 << 32), 4),
    ];
    let stale = PickId {
        mesh: 9,
        triangle: 9,
        global_triangle: 9,
        depth: 0.5,
    };
    for m in PickMethod::ALL {
        for &(x, y) in &starts {
            for len in [0usize, 1, 5, 53, 70, 130] {
                let mut row = vec![Some(stale); len];
                f.picks(&s).unwrap().with(m).span(x, y, &mut row);
                let mut raw = vec![(7u32, 7u32); len];
                f.picks(&s).unwrap().with(m).span_with(x, y, &mut raw, |p| {
                    p.map_or((u32::MAX, 0), |p| (p.global_triangle, p.depth.to_bits()))
                });
                for (k, (got, raw)) in row.iter().zip(&raw).enumerate() {
                    let want = single(&f, &s, m, (x, y), (k, 0));
                    assert_eq!(*got, want, "{m:?} row from ({x},{y}) +{k}");
                    let want_raw =
                        want.map_or((u32::MAX, 0), |p| (p.global_triangle, p.depth.to_bits()));
                    assert_eq!(*raw, want_raw, "{m:?} row with from ({x},{y}) +{k}");
                }
            }
            for (width, rows) in [(0usize, 3usize), (1, 4), (9, 5), (50, 3), (13, 40)] {
                let mut block = vec![Some(stale); width.max(1) * rows + width / 2];
                f.picks(&s).unwrap().with(m).block(x, y, width, &mut block);
                for (k, got) in block.iter().enumerate() {
                    let want = (width > 0)
                        .then(|| single(&f, &s, m, (x, y), (k % width, k / width)))
                        .flatten();
                    assert_eq!(*got, want, "{m:?} block {width} from ({x},{y}), cell {k}");
                }
            }
        }
    }
}
