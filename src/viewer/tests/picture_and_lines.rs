//! What the viewer shows and prints: tints, segments and the composed
//! window image, the stdout lines, and the message without a display.

use super::*;

#[test]
fn tint_and_segments() {
    assert_eq!(tint(0x0000_0000, 0x00ff_ffff, 0.5), 0x0080_8080);
    assert_eq!(highlight(HIGHLIGHT), HIGHLIGHT);
    let mut img = vec![0u32; 10 * 10];
    draw_segment(
        &mut img,
        10,
        10,
        Vec2::new(-5.0, 2.5),
        Vec2::new(50.0, 2.5),
        7,
    );
    assert_eq!(img[2 * 10..3 * 10], [7; 10]);
    assert_eq!(img.iter().filter(|&&p| p == 7).count(), 10);
    let mut img = vec![0u32; 10 * 10];
    draw_segment(
        &mut img,
        10,
        10,
        Vec2::new(20.0, 2.5),
        Vec2::new(50.0, 2.5),
        7,
    );
    assert!(img.iter().all(|&p| p == 0));
    // a segment crossing the near plane is clipped, not mirrored
    let c = cam();
    let vp = c.view_proj();
    let front = vp * Vec4::new(0.0, 0.5, 0.0, 1.0);
    let behind = vp * Vec4::new(0.0, 0.5, 10.0, 1.0);
    let mut img = vec![0u32; 320 * 240];
    draw_clip_segment(&mut img, 320, 240, front, behind, 7);
    assert!(img.contains(&7));
}

#[test]
fn pick_line_format() {
    let hit = Hit {
        mesh: 3,
        mesh_name: "crate_1".into(),
        triangle: 7,
        global_triangle: 120,
        origin: crate::scene::MeshOrigin {
            instance: 3,
            node: 4,
            source_mesh: 3,
            primitive: 0,
        },
        node_name: "crate_1".into(),
        depth: 0.812_345,
        distance: 1.0,
        position: Vec3::new(0.1, -0.2, 0.3),
        barycentric: Vec3::ONE / 3.0,
        normal: Vec3::Z,
        front_face: true,
    };
    assert_eq!(
        pick_line(PickMethod::Buffer, 123, 45, Some(&hit)),
        "pick method=buffer x=123 y=45 mesh=3 name=crate_1 triangle=7 global=120 \
         depth=0.812345 position=(0.100000,-0.200000,0.300000) instance=3 primitive=0 node=crate_1"
    );
    assert_eq!(
        pick_line(PickMethod::Ray, 1, 2, None),
        "pick method=ray x=1 y=2 none"
    );
}

#[test]
fn compose_tints_the_selected_mesh_and_outlines_its_triangle() {
    let scene = crate::builtin::builtin_scene();
    let camera = Camera::auto_frame(&scene.framing_bounds(), 160, 120);
    let frame = crate::frame::render::render(&scene, &camera, RenderOptions::default()).unwrap();
    let mesh_of = mesh_of_triangles(&scene);
    assert_eq!(mesh_of.len(), scene.triangle_count() as usize);
    let g = (0..frame.ids().len())
        .find_map(|i| frame.triangle_at((i % 160) as i64, (i / 160) as i64))
        .unwrap();
    let (mesh, local) = scene.locate(g).unwrap();
    let mut plain = Vec::new();
    compose(&frame, &scene, &mesh_of, &Overlay::default(), &mut plain);
    assert_eq!(plain, frame.color());
    let mut lit = Vec::new();
    let ov = Overlay {
        selected: Some((mesh, local)),
        ..Overlay::default()
    };
    compose(&frame, &scene, &mesh_of, &ov, &mut lit);
    let mut outlined = 0;
    for (i, (&p, &l)) in plain.iter().zip(&lit).enumerate() {
        let m = mesh_at(frame.ids()[i], &mesh_of);
        if l == OUTLINE && p != OUTLINE {
            outlined += 1;
        } else if m == Some(mesh) {
            assert_eq!(l, highlight(p));
        } else {
            assert_eq!(l, p);
        }
    }
    assert!(outlined > 0);
    let mut ids = Vec::new();
    compose(
        &frame,
        &scene,
        &mesh_of,
        &Overlay {
            mode: ViewMode::Ids,
            ..Overlay::default()
        },
        &mut ids,
    );
    assert_eq!(ids, pick_map(&frame, &mesh_of));
}

#[test]
fn compose_tints_the_selection_and_draws_the_band() {
    let (scene, frame, _) = scene_state();
    let mesh_of = mesh_of_triangles(&scene);
    let mut plain = Vec::new();
    compose(&frame, &scene, &mesh_of, &Overlay::default(), &mut plain);
    let sel = frame
        .picks(&scene)
        .unwrap()
        .rect(0, 0, 319, 239, SelectMode::Visible);
    let (picked, chosen) = (sel.meshes[0], sel.meshes[1..].to_vec());
    let ov = Overlay {
        selection: sel.meshes.clone(),
        selected: Some((picked, u32::MAX)), // no outline: no such triangle
        hovered: Some(chosen[0]),
        ..Overlay::default()
    };
    let mut lit = Vec::new();
    compose(&frame, &scene, &mesh_of, &ov, &mut lit);
    let mut tinted = 0;
    for (i, (&p, &l)) in plain.iter().zip(&lit).enumerate() {
        match mesh_at(frame.ids()[i], &mesh_of) {
            Some(m) if m == picked => assert_eq!(l, highlight(p)),
            Some(m) if chosen.contains(&m) => {
                assert_eq!(l, selection_tint(p));
                tinted += 1;
            }
            _ => assert_eq!(l, p),
        }
    }
    assert!(tinted > 0);
    assert_ne!(selection_tint(0x0080_8080), highlight(0x0080_8080));
    // the band: a box outline along its pixel centres, a closed lasso
    let band = Overlay {
        band: Some(SelectRegion::Rect([10, 20, 30, 40])),
        ..Overlay::default()
    };
    let mut img = Vec::new();
    compose(&frame, &scene, &mesh_of, &band, &mut img);
    for (i, (&p, &b)) in plain.iter().zip(&img).enumerate() {
        let (x, y) = ((i % 320) as i64, (i / 320) as i64);
        let edge = ((x == 10 || x == 30) && (20..=40).contains(&y))
            || ((y == 20 || y == 40) && (10..=30).contains(&x));
        assert_eq!(b, if edge { BAND } else { p }, "({x}, {y})");
    }
    let lasso = Overlay {
        band: Some(SelectRegion::Lasso(vec![
            [5.5, 5.5],
            [50.5, 5.5],
            [5.5, 50.5],
        ])),
        ..Overlay::default()
    };
    compose(&frame, &scene, &mesh_of, &lasso, &mut img);
    for (x, y) in [(5, 5), (50, 5), (5, 50), (27, 28), (5, 30), (30, 5)] {
        assert_eq!(img[y * 320 + x], BAND, "({x}, {y})");
    }
}

#[test]
fn select_line_format() {
    let scene = crate::builtin::builtin_scene();
    assert_eq!(
        select_line(SelectMode::Visible, &[1, 5], &scene),
        "select mode=visible meshes=[1:pillar_1,5:pyramid_1] count=2"
    );
    assert_eq!(
        select_line(SelectMode::Through, &[], &scene),
        "select mode=through meshes=[] count=0"
    );
}

#[test]
fn move_lines_report_stops() {
    let free = SweepResult {
        allowed: Vec3::X,
        blocked: false,
        hit: None,
        by_other_vertex: false,
        other: None,
    };
    assert_eq!(
        move_line(2, "box", Vec3::X, &free),
        "move mesh=2 name=box requested=(1.000000,0.000000,0.000000) \
         delta=(1.000000,0.000000,0.000000) stopped=no"
    );
    // a lone triangle moves freely, by exactly the displacement
    let mut scene = Scene::new();
    let tri = crate::scene::Mesh::new(
        "tri",
        vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        vec![[0, 1, 2]],
        [200, 100, 50],
    )
    .unwrap();
    scene.add_mesh(tri, crate::scene::Transform::IDENTITY, None);
    let line = move_mesh(&mut scene, 0, Vec3::new(0.0, 0.0, 0.5), 0.01);
    assert!(line.ends_with(" stopped=no"), "{line}");
    assert!((scene.mesh_world(0).w_axis.z - 0.5).abs() < 1e-6, "{line}");
    assert!(move_mesh(&mut scene, 9999, Vec3::X, 0.0).ends_with(" none"));
}

#[test]
fn headless_error_names_the_commands() {
    let e = no_display("x").to_string();
    for c in ["render", "pickmap", "pick", "sweep"] {
        assert!(e.contains(&format!("`{c}`")), "{e}");
    }
}
