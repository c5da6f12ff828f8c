//! `softpick render`: the flat-shaded color image, and the raw ID and depth
//! buffers.

use std::time::Instant;

use softpick::RenderOptions;

use crate::args::RenderCmd;
use crate::common::{default_output, say, Outputs, Res, Setup};

/// `softpick render`.
pub fn render_cmd(a: &RenderCmd) -> Res<()> {
    let s = Setup::new(&a.scene, Some(&a.raster))?.with_clip(&a.clip)?;
    let opts = RenderOptions {
        color: !a.no_color,
        ..s.opts
    };
    let mut renderer = s.renderer(opts)?;
    let t0 = Instant::now();
    let frame = renderer.render(&s.scene, &s.camera)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let (w, h) = (frame.width(), frame.height());
    let mut out = Outputs::default();
    if !a.no_color {
        let path = default_output(a.output.as_deref(), "render.png")?;
        out.png(&path, w, h, frame.color())?;
    }
    if let Some(p) = &a.ids_raw {
        out.raw_u32(p, frame.ids());
    }
    if let Some(p) = &a.depth_raw {
        out.raw_f32(p, frame.depth());
    }
    out.commit()?;
    let st = frame.stats();
    let covered = frame.ids().iter().filter(|&&i| i != 0).count();
    say(format_args!(
        "{}: {w}x{h}, {} instances, {} triangles ({} drawn, {} zero-area, {} culled, {} clipped), {covered} pixels covered, rule {}, {ms:.2} ms",
        s.label,
        s.scene.instances().len(),
        st.triangles,
        st.setups,
        st.zero_area,
        st.face_culled,
        st.clipped,
        frame.rule().name(),
    ))?;
    for p in out.written() {
        say(format_args!("wrote {}", p.display()))?;
    }
    Ok(())
}
