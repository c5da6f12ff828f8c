//! `softpick pickmap`: a pick at every pixel, one color per mesh or per
//! triangle.

use softpick::internals::id_color;
use softpick::PickMethod;

use crate::args::{ByArg, PickmapCmd};
use crate::common::{default_output, say, Outputs, Res, Setup};
use crate::sweep;

/// Pick-map pixels and raw pick results (global triangle + 1) for one method.
pub fn pickmap_pixels(
    s: &Setup,
    frame: &softpick::Frame,
    method: PickMethod,
    by: ByArg,
) -> Res<(Vec<u32>, Vec<u32>)> {
    let hits = sweep::pick_grid(frame.picks(&s.scene)?.with(method), &|_| {});
    let pixels = hits
        .iter()
        .map(|h| {
            id_color(h.map(|(mesh, g)| match by {
                ByArg::Mesh => mesh,
                ByArg::Triangle => g,
            }))
        })
        .collect();
    let ids = hits.iter().map(|h| h.map_or(0, |(_, g)| g + 1)).collect();
    Ok((pixels, ids))
}

/// `softpick pickmap`.
pub fn pickmap_cmd(a: &PickmapCmd) -> Res<()> {
    let s = Setup::new(&a.scene, Some(&a.raster))?.with_clip(&a.clip)?;
    let frame = s.render_ids()?;
    let (pixels, ids) = pickmap_pixels(&s, &frame, a.method.method(), a.by)?;
    let mut out = Outputs::default();
    let path = default_output(a.output.as_deref(), "pickmap.png")?;
    out.png(&path, frame.width(), frame.height(), &pixels)?;
    if let Some(p) = &a.ids_raw {
        out.raw_u32(p, &ids);
    }
    out.commit()?;
    let picked = ids.iter().filter(|&&i| i != 0).count();
    say(format_args!(
        "{}: {}x{} pick map by {}, method {}, {picked} pixels hit",
        s.label,
        frame.width(),
        frame.height(),
        match a.by {
            ByArg::Mesh => "mesh",
            ByArg::Triangle => "triangle",
        },
        a.method.method().name()
    ))?;
    for p in out.written() {
        say(format_args!("wrote {}", p.display()))?;
    }
    Ok(())
}
