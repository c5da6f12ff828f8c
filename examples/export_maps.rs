//! Export what a render knows, for other programs: a pick map PNG (one
//! color per mesh), the raw ID buffer (`.u32`) and the raw depth buffer
//! (`.f32`), little-endian, row by row from the top-left pixel. Writes
//! them to `output/maps/`.
//!
//! `cargo run --release --example export_maps`

use std::path::Path;

use softpick::internals::{read_png, read_raw_u32};
use softpick::{
    builtin_scene, render, write_png, write_raw_f32, write_raw_u32, Camera, RenderOptions,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scene = builtin_scene();
    let camera = Camera::auto_frame(&scene.framing_bounds(), 360, 240);
    // IDs and depth are all that is exported here: skip the color pass
    let frame = render(
        &scene,
        &camera,
        RenderOptions {
            color: false,
            ..RenderOptions::default()
        },
    )?;
    let (w, h) = (frame.width(), frame.height());

    // The pick map: each pixel colored by the mesh it shows (black for the
    // background): a row of compact picks at a time, each handed to a
    // function that turns it into a color.
    let picks = frame.picks(&scene)?;
    let color_of = |mesh: u32| {
        let [r, g, b] = scene.meshes()[mesh as usize].color();
        (u32::from(r) << 16) | (u32::from(g) << 8) | u32::from(b)
    };
    let mut map = vec![0u32; w as usize * h as usize];
    for (y, row) in map.chunks_mut(w as usize).enumerate() {
        picks.span_with(0, y as i64, row, |p| p.map_or(0, |p| color_of(p.mesh)));
    }

    let dir = Path::new("output/maps");
    std::fs::create_dir_all(dir)?;
    let (png, ids, depth) = (
        dir.join("pickmap.png"),
        dir.join("ids.u32"),
        dir.join("depth.f32"),
    );
    write_png(&png, w, h, &map)?;
    // ID buffer: global triangle index + 1, 0 for the background
    write_raw_u32(&ids, frame.ids())?;
    // depth buffer: window depth, 0 at the near plane, 1 at the far one
    write_raw_f32(&depth, frame.depth())?;

    // Read the files back: they hold exactly the frame's buffers.
    let (pw, ph, pixels) = read_png(&png)?;
    assert_eq!((pw, ph, pixels), (w, h, map));
    assert_eq!(read_raw_u32(&ids)?, frame.ids());
    let bytes = std::fs::read(&depth)?;
    let read_depth: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(read_depth, frame.depth());

    let covered = frame.ids().iter().filter(|&&id| id != 0).count();
    assert!(covered > 0);
    println!("{w}x{h}, {covered} covered pixels:");
    for p in [&png, &ids, &depth] {
        println!("  {} ({} bytes)", p.display(), std::fs::metadata(p)?.len());
    }
    Ok(())
}
