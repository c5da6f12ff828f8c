//! `softpick demo`: on the built-in scene, the three pictures (render, pick
//! map, fill rules), the fill-rule counts and the timed sweep of every
//! method.

use std::path::PathBuf;
use std::time::Instant;

use softpick::{builtin_scene, PickMethod, RenderOptions};

use crate::args::{ByArg, DemoArgs};
use crate::common::{self, say, CliError, Outputs, Res, Setup};
use crate::pickmap::pickmap_pixels;
use crate::{rules, sweep};

/// `softpick demo`.
pub fn demo_cmd(a: &DemoArgs) -> Res<()> {
    let t_all = Instant::now();
    common::init_threads(a.threads)?;
    let dir = PathBuf::from("output");
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError(format!("{}: cannot create directory: {e}", dir.display())))?;
    let scene = builtin_scene();
    let camera = softpick::Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let s = Setup {
        scene,
        camera,
        opts: RenderOptions {
            threads: a.threads.map(|n| n as usize),
            ..RenderOptions::default()
        },
        clip: None,
        label: "built-in scene".into(),
    };
    let frame = softpick::render(&s.scene, &s.camera, s.opts)?;
    let (pick_px, _) = pickmap_pixels(&s, &frame, PickMethod::Buffer, ByArg::Mesh)?;
    let reports = softpick::analyze_rules(&s.scene, &s.camera)?;
    let (rw, rh, rules_px) = rules::compose(&s.scene, &reports, 360, 360);
    let mut out = Outputs::default();
    out.png(&dir.join("render.png"), 360, 360, frame.color())?;
    out.png(&dir.join("pickmap.png"), 360, 360, &pick_px)?;
    out.png(&dir.join("rules.png"), rw, rh, &rules_px)?;
    out.commit()?;
    say(format_args!(
        "softpick demo: built-in scene, {} meshes, {} triangles, 360x360, rule top-left",
        s.scene.meshes().len(),
        s.scene.triangle_count()
    ))?;
    for p in out.written() {
        say(format_args!("wrote {}", p.display()))?;
    }
    say(format_args!(""))?;
    rules::print_table(&reports, false)?;
    say(format_args!(""))?;
    let results = sweep::run(&s, &PickMethod::ALL, 3, 0.0)?;
    sweep::print(&results, false)?;
    say(format_args!(
        "\ndone in {:.1} s",
        t_all.elapsed().as_secs_f64()
    ))?;
    Ok(())
}
