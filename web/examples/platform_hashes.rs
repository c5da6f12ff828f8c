//! What the browser test compares the WebAssembly build with: FNV-1a
//! hashes of the built-in scene's 360 × 360 frame (softpick's automatic
//! camera, the default options) rendered and picked natively: its ID and
//! depth buffers and its pick maps by the direct and ray methods (on
//! x86-64 with AVX2, the AVX2 build of the ray rows), as one JSON line.
//! `cargo run --release -p softpick-web --example platform_hashes`

use softpick::{builtin_scene, Camera, PickMethod, RenderOptions, Renderer};

fn fnv(bytes: impl IntoIterator<Item = u8>) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

fn main() -> Result<(), softpick::Error> {
    let scene = builtin_scene();
    let camera = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let mut renderer = Renderer::new(RenderOptions {
        color: false,
        ..RenderOptions::default()
    })?;
    let frame = renderer.render(&scene, &camera)?;
    let map = |method| -> Result<String, softpick::Error> {
        let mut out = Vec::new();
        let mut row = vec![None; 360];
        let picks = frame.picks(&scene)?.with(method);
        for y in 0..360 {
            picks.span(0, y, &mut row);
            out.extend(row.iter().map(|p| p.map_or(0, |p| p.global_triangle + 1)));
        }
        Ok(fnv(out.iter().flat_map(|v: &u32| v.to_le_bytes())))
    };
    println!(
        "{{\"ids\":\"{}\",\"depth\":\"{}\",\"direct\":\"{}\",\"ray\":\"{}\"}}",
        fnv(frame.ids().iter().flat_map(|v| v.to_le_bytes())),
        fnv(frame.depth().iter().flat_map(|v| v.to_bits().to_le_bytes())),
        map(PickMethod::Direct)?,
        map(PickMethod::Ray)?,
    );
    Ok(())
}
