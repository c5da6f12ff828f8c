//! The minifb part: opens the window, feeds the state machine with the
//! window's pointer, wheel and key events, carries out its actions (picks,
//! selections, saves, moves, stdout lines) and shows the composed image.

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use glam::Vec3;
use minifb::{InputCallback, Key, MouseButton, MouseMode, Window, WindowOptions};

use crate::collide::sweep_move;
use crate::error::Error;
use crate::export::write_png;
use crate::frame::render::{RenderOptions, Renderer};
use crate::frame::Frame;
use crate::pick::Picks;
use crate::scene::{MeshId, Scene};

use super::input::{Action, Event, ViewerState};
use super::lines::guides;
use super::no_display;
use super::overlay::{compose, mesh_of_triangles, pick_map, Overlay};
use super::report::move_line;

/// Input polling rate (updates per second) of the window loop.
pub(super) const POLL_HZ: usize = 250;

/// Every key event minifb reports, in order (press and release even within one update).
struct KeyQueue(Rc<RefCell<Vec<(Key, bool)>>>);

impl InputCallback for KeyQueue {
    fn add_char(&mut self, _uni_char: u32) {}

    fn set_key_state(&mut self, key: Key, state: bool) {
        self.0.borrow_mut().push((key, state));
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    // a closed stdout must not stop the viewer
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Moves mesh `mesh` by the world displacement `delta` with the ray-based
/// [`sweep_move`] (stopping `skin` short of other meshes) and returns the
/// stdout line.
pub(super) fn move_mesh(scene: &mut Scene, mesh: MeshId, delta: Vec3, skin: f32) -> String {
    let name = scene.mesh(mesh).map_or("?", |m| m.name()).to_string();
    match sweep_move(scene, mesh, delta, skin) {
        Some(r) => move_line(mesh, &name, delta, &r),
        None => format!("move mesh={mesh} name={name} none"),
    }
}

fn save(dir: &Path, frame: &Frame, mesh_of: &[MeshId]) -> Result<(PathBuf, PathBuf), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    let (w, h) = (frame.width(), frame.height());
    let color = dir.join("view_color.png");
    let map = dir.join("view_pickmap.png");
    write_png(&color, w, h, frame.color())?;
    write_png(&map, w, h, &pick_map(frame, mesh_of))?;
    Ok((color, map))
}

/// Opens a `w` × `h` window; a failure names the display and minifb's reason.
/// The pick view of the frame on screen. A move earlier in the same batch
/// of actions changed the scene since the render: the frame is rendered
/// again from the same camera first, so a pick never answers about a scene
/// that is no longer there.
fn current_picks<'a>(
    renderer: &'a mut Renderer,
    scene: &'a Scene,
    state: &ViewerState,
) -> Result<Picks<'a>, Error> {
    if renderer.frame().picks(scene).is_err() {
        let camera = renderer.frame().camera().copied().unwrap_or(state.camera);
        renderer.render(scene, &camera)?;
    }
    renderer.frame().picks(scene)
}

fn open_window(title: &str, w: u32, h: u32) -> Result<Window, Error> {
    Window::new(title, w as usize, h as usize, WindowOptions::default()).map_err(|e| {
        let on =
            std::env::var("DISPLAY").map_or_else(|_| String::new(), |d| format!(" on DISPLAY={d}"));
        // minifb's Display form drops the reason (XOpenDisplay,
        // XOpenIM, ...); its payload says which step failed
        let why = match &e {
            minifb::Error::WindowCreate(r) if !r.is_empty() => format!("{e} ({r})"),
            _ => e.to_string(),
        };
        no_display(&format!("{why}{on}"))
    })
}

/// What [`compose`] draws over the frame for `state`.
fn overlay_of(state: &ViewerState) -> Overlay {
    Overlay {
        mode: state.mode,
        selected: state.selected.as_ref().map(|s| (s.mesh, s.triangle)),
        hovered: if state.hover { state.hovered } else { None },
        selection: state.selection.clone(),
        band: state.band(),
        driven: state.drive.movers().iter().map(|m| m.mesh).collect(),
        guides: guides(&state.drive),
    }
}

/// Feeds `state` with the input of the window's last update, in order: a
/// lost focus, the keys (every press and release, from `keys`), the wheel,
/// then the pointer and buttons; returns the actions it asks for.
fn read_input(
    window: &mut Window,
    keys: &RefCell<Vec<(Key, bool)>>,
    active: &mut bool,
    state: &mut ViewerState,
) -> Vec<Action> {
    let mut actions = Vec::new();
    let now_active = window.is_active();
    if *active && !now_active {
        actions.extend(state.handle(Event::FocusLost));
    }
    *active = now_active;
    let events: Vec<(Key, bool)> = keys.borrow_mut().drain(..).collect();
    for (key, down) in events {
        actions.extend(state.handle(Event::Key { key, down }));
    }
    if let Some((_, dy)) = window.get_scroll_wheel() {
        actions.extend(state.handle(Event::Wheel(dy)));
    }
    actions.extend(state.handle(Event::Poll {
        pos: window.get_mouse_pos(MouseMode::Pass),
        left: window.get_mouse_down(MouseButton::Left),
        right: window.get_mouse_down(MouseButton::Right),
    }));
    actions
}

/// Shows `scene` through `renderer` in a `w` × `h` window driven by `state`
/// until `Esc` or the window is closed; `P` saves into `output_dir`.
pub(super) fn show(
    mut scene: Scene,
    mut renderer: Renderer,
    mut state: ViewerState,
    (w, h): (u32, u32),
    output_dir: &Path,
) -> Result<(), Error> {
    let mesh_of = mesh_of_triangles(&scene);
    let mut title = state.title();
    let mut window = open_window(&title, w, h)?;
    window.set_target_fps(POLL_HZ);
    let keys = Rc::new(RefCell::new(Vec::new()));
    window.set_input_callback(Box::new(KeyQueue(keys.clone())));

    let mut image: Vec<u32> = Vec::with_capacity(w as usize * h as usize);
    let mut blit = true;
    let mut last_blit = Instant::now();
    let mut active = window.is_active();
    let mut last_tick = Instant::now();
    loop {
        // motion advances by the time since the last tick, whatever the frame rate
        let now = Instant::now();
        let dt = now.duration_since(last_tick).as_secs_f32();
        last_tick = now;
        let input = state.drive_input();
        let tick = state.drive.tick(&mut scene, input, dt);
        for l in &tick.lines {
            say(l);
        }
        if tick.moved {
            state.scene_changed();
        } else if tick.turned {
            state.view_dirty = true;
        }
        // the animation's pose of this tick, before the render that shows it
        if let Some(t) = state.player.advance(dt) {
            scene
                .pose(t, Some(state.player.current), state.player.mode)
                .map_err(|e| Error::Window(format!("cannot pose the scene: {e}")))?;
            state.scene_changed();
        }
        if state.render_dirty {
            renderer.set_options(RenderOptions {
                rule: state.rule,
                ..renderer.options()
            });
            renderer.set_clip_planes(state.clip_planes());
            renderer.render(&scene, &state.camera)?;
            state.render_dirty = false;
            state.view_dirty = true;
            state.drive.refresh(&scene);
        }
        if state.view_dirty {
            // after every render and every change of the driving set
            if let Some(line) = state.check_camera(&scene) {
                say(&line);
            }
            let ov = overlay_of(&state);
            compose(renderer.frame(), &scene, &mesh_of, &ov, &mut image);
            state.view_dirty = false;
            blit = true;
        }
        let t = state.title();
        if t != title {
            window.set_title(&t);
            title = t;
        }
        // re-show the picture now and then in case the server lost it (expose)
        if blit || last_blit.elapsed() > Duration::from_millis(200) {
            window
                .update_with_buffer(&image, w as usize, h as usize)
                .map_err(|e| Error::Window(format!("cannot show the image: {e}")))?;
            blit = false;
            last_blit = Instant::now();
        } else {
            window.update();
        }
        // closing the window is an event like the others; it answers Exit
        let actions = if window.is_open() {
            read_input(&mut window, &keys, &mut active, &mut state)
        } else {
            state.handle(Event::Close)
        };
        for a in actions {
            match a {
                Action::Exit => return Ok(()),
                Action::Say(s) => say(&s),
                Action::Pick { x, y } => {
                    let picks = current_picks(&mut renderer, &scene, &state)?;
                    let line = state.click(picks, x, y);
                    say(&line);
                }
                Action::Select { region, op } => {
                    let picks = current_picks(&mut renderer, &scene, &state)?;
                    let line = state.select_region(picks, &region, op);
                    say(&line);
                }
                Action::Hover { x, y } => {
                    let m = renderer
                        .frame()
                        .triangle_at(x, y)
                        .and_then(|g| mesh_of.get(g as usize).copied());
                    state.set_hovered(m);
                }
                Action::FrameAll => state.frame_all(&scene.bounds()),
                Action::Save => match save(output_dir, renderer.frame(), &mesh_of) {
                    Ok((c, m)) => say(&format!("saved {} {}", c.display(), m.display())),
                    Err(e) => eprintln!("error: {e}"),
                },
                Action::DriveClick { x, y } => {
                    let picks = current_picks(&mut renderer, &scene, &state)?;
                    let line = state.drive_click(picks, x, y);
                    say(&line);
                }
                Action::DriveSelection => {
                    for line in state.drive_selection(&scene) {
                        say(&line);
                    }
                }
                Action::StopAll => {
                    for line in state.drive.stop_all() {
                        say(&line);
                    }
                    state.drive.refresh(&scene);
                    state.view_dirty = true;
                }
                Action::Move(delta) => match &state.selected {
                    None => say("move none (pick a mesh first)"),
                    Some(hit) => {
                        let line = move_mesh(&mut scene, hit.mesh, delta, state.step * 0.1);
                        say(&line);
                        state.scene_changed();
                    }
                },
            }
        }
    }
}
