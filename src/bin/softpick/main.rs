//! `softpick`: the command line of the softpick library.
//!
//! Every subcommand takes an optional OBJ model (default: the built-in
//! 362-triangle scene) and the common options of `args::SceneArgs`. Errors are
//! one line on stderr, `softpick: <file or option>: <problem>`, exit code 2.
//!
//! This file parses the arguments (`args`) and dispatches to the commands,
//! one file each: `demo`, `render`, `pickmap`, `rules`, `pick`, `select`,
//! `sweep`, `view`, `bench` (bench-render and bench-threads) and
//! `bench_pose`; `common` holds what they share.

mod args;
mod bench;
mod bench_pose;
mod common;
mod demo;
mod font;
mod pick;
mod pickmap;
mod render;
mod rules;
mod select;
mod sweep;
mod view;

use std::process::ExitCode;

use clap::Parser;
use softpick::animation::LoopMode;

use args::{Cli, Command};
use common::{Res, Setup};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("softpick: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cmd: Command) -> Res<ExitCode> {
    match cmd {
        Command::Demo(a) => demo::demo_cmd(&a)?,
        Command::Render(a) => render::render_cmd(&a)?,
        Command::Pickmap(a) => pickmap::pickmap_cmd(&a)?,
        Command::Rules(a) => rules::rules_cmd(&a)?,
        Command::Pick(a) => pick::pick_cmd(&a)?,
        Command::Select(a) => select::select_cmd(&a)?,
        Command::Sweep(a) => sweep::sweep_cmd(&a)?,
        Command::View(a) => return view::view_cmd(&a),
        Command::BenchRender(a) => bench::bench_render_cmd(&a)?,
        Command::BenchPose(a) => {
            let s = Setup::new(&a.scene, Some(&a.raster))?;
            let start = a.scene.time.unwrap_or(0.0);
            let looping = a.scene.loop_mode(LoopMode::Once);
            bench_pose::run(
                s,
                a.frames,
                (start, a.step, looping),
                a.scene.animation.as_deref(),
                a.json,
            )?
        }
        Command::BenchThreads(a) => {
            let n = a
                .threads
                .map_or_else(rayon::current_num_threads, |n| n as usize);
            bench::print_ceiling(&bench::thread_ceiling(n, a.rounds)?, a.json)?
        }
    }
    Ok(ExitCode::SUCCESS)
}
