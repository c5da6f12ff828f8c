//! The checks every loader target runs on a scene it loaded: render
//! (64×48, automatic camera), then picks with every method. Buffer and
//! direct picks agree; rows and blocks of ray picks equal single ray
//! picks; rows of buffer picks handed to a function equal the ID buffer;
//! nothing drawn or picked touches a non-finite vertex. Included by the
//! targets with `#[path]` (not a target of its own).

use softpick::internals::direct_triangle_at;
use softpick::{render, Camera, Frame, PickId, PickMethod, RenderOptions, Scene};

/// Renders `scene` and checks its picks (see the module docs); panics on
/// the first disagreement, which is what the fuzzer reports.
pub fn render_and_pick(scene: &Scene) {
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
    // rows of ray picks (four or eight pixels per BVH walk) equal single ray picks,
    // rows running off the frame included; depths compared bit for bit (a
    // hit whose window depth overflows is NaN on both sides, and NaN != NaN)
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
    // so do blocks of rows (4×2-pixel walks), blocks running off the frame included
    for (x0, y0, width) in [(1u32, 20u32, 13usize), (58, 45, 9)] {
        let mut block = vec![None; width * 5];
        ray.block(x0.into(), y0.into(), width, &mut block);
        for (k, got) in block.iter().enumerate() {
            let x = i64::from(x0) + (k % width) as i64;
            let y = i64::from(y0) + (k / width) as i64;
            assert_eq!(key(*got), key(ray.id_at(x, y)), "ray block at ({x},{y})");
        }
    }
    // buffer rows handed to a function (the sweep's raw IDs) equal the ID
    // buffer, and past the frame's edge nothing
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
}
