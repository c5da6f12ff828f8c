//! `softpick view`: the desktop viewer.

use std::process::ExitCode;

use softpick::animation::LoopMode;

use crate::args::ViewCmd;
use crate::common::{self, CliError, Res};

/// `softpick view`: the desktop viewer (`softpick::viewer`); its default
/// size is 800x600. No display: exit 2 naming the headless commands.
pub fn view_cmd(a: &ViewCmd) -> Res<ExitCode> {
    use softpick::viewer::{run, BuiltinScene, ViewerOptions, DEFAULT_HEIGHT, DEFAULT_WIDTH};
    let (width, height) = match a.scene.size.as_deref() {
        Some(s) => common::parse_size(s)?,
        None => (DEFAULT_WIDTH, DEFAULT_HEIGHT),
    };
    let rule = common::parse_rule(&a.raster.rule)?;
    let cull = common::parse_cull(&a.raster.cull)?;
    let clip = common::clip_planes(&a.clip)?;
    let builtin = match a.builtin.as_deref() {
        None => BuiltinScene::default(),
        Some(n) => BuiltinScene::from_name(n)
            .ok_or_else(|| CliError(format!("--builtin {n:?}: unknown built-in scene")))?,
    };
    run(ViewerOptions {
        model: a.scene.model.clone(),
        scene: a.scene.scene.clone(),
        animation: a.scene.animation.clone(),
        time: a.scene.time,
        loop_mode: a.scene.loop_mode(LoopMode::Repeat),
        builtin,
        camera: a.scene.camera.clone(),
        width,
        height,
        rule,
        cull,
        threads: a.scene.threads.map(|n| n as usize),
        clip,
        ..ViewerOptions::default()
    })?;
    Ok(ExitCode::SUCCESS)
}
