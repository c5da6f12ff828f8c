//! Driving meshes as the three.js collision post does: a set of driven
//! meshes, each with its own heading and a speed that builds while a key is
//! held, moved every tick by velocity × elapsed time through
//! [`sweep_move`], stopping at contacts; optionally kept on the ground
//! under them. A pure state machine over a [`Scene`]: no window, so the
//! window loop and the unit tests drive it the same way.
//!
//! Speeds are in units of the scene's size (its framing radius, `unit`):
//! holding a key adds [`ACCEL`] × unit per second to the speed along that
//! key's direction, up to [`MAX_SPEED`] × unit per second in all.

use glam::{Quat, Vec3};
use minifb::Key;

use crate::collide::{ground_below, sweep_move};
use crate::geometry::{Aabb, Ray};
use crate::pick::ray::{RayCaster, RayOptions};
use crate::scene::{MeshId, Scene};

use super::report::{collide_line, drive_add_line, drive_remove_line, velocity_line};

/// Speed gained per second of holding a key, in scene units per second.
pub(super) const ACCEL: f32 = 0.2;
/// The highest speed, in scene units per second.
pub(super) const MAX_SPEED: f32 = 0.2;
/// Turning rate while a turn key is held, radians per second.
pub(super) const TURN_RATE: f32 = 1.5;
/// The longest time one tick advances (seconds): after a stall of the window
/// the objects move as if it had lasted this long, not a jump across the
/// scene (every move is collision-checked either way).
pub(super) const MAX_TICK: f32 = 0.1;
/// Least time between two `velocity` lines of one mesh (seconds).
pub(super) const VELOCITY_LINE_INTERVAL: f64 = 0.25;
/// The highest step a ground-following mesh climbs, as a fraction of its
/// height; a higher one stops it like a wall.
pub(super) const MAX_STEP_UP: f32 = 0.4;
/// Length of the forward line, in multiples of the mesh's radius (half the
/// largest side of its world box).
pub(super) const FORWARD_LINE: f32 = 1.5;
/// Length of the motion line per unit of speed: the distance travelled in
/// this many seconds.
pub(super) const MOTION_LINE_SECONDS: f32 = 1.0;

/// Which way the held keys push: along the mesh's forward (`W` +1, `S` −1),
/// right (`D` +1, `A` −1) and up (`Space` +1, `Ctrl` −1), and the turn
/// (`Left` +1, counter-clockwise seen from above; `Right` −1).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct DriveInput {
    /// (forward, right, up), each −1, 0 or 1.
    pub(super) push: Vec3,
    /// +1 turn left, −1 turn right, 0 none.
    pub(super) turn: f32,
}

impl DriveInput {
    /// The input of the keys held in `down`.
    #[must_use]
    pub(super) fn from_keys(down: impl Fn(Key) -> bool) -> Self {
        let axis = |plus: &[Key], minus: &[Key]| {
            let p = plus.iter().any(|&k| down(k));
            let m = minus.iter().any(|&k| down(k));
            f32::from(u8::from(p)) - f32::from(u8::from(m))
        };
        Self {
            push: Vec3::new(
                axis(&[Key::W], &[Key::S]),
                axis(&[Key::D], &[Key::A]),
                axis(&[Key::Space], &[Key::LeftCtrl, Key::RightCtrl]),
            ),
            turn: axis(&[Key::Left], &[Key::Right]),
        }
    }
}

/// The first mesh along a driven mesh's motion.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ahead {
    /// The mesh hit.
    pub(super) mesh: MeshId,
    /// Its name.
    pub(super) name: String,
    /// The hit point (world).
    pub(super) point: Vec3,
    /// Distance from the driven mesh's centre.
    pub(super) distance: f32,
}

/// Where a driven mesh is and goes, for its three lines and the title.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Look {
    /// Centre of its world box.
    pub(super) centre: Vec3,
    /// Half the largest side of its world box.
    pub(super) radius: f32,
    /// Its forward direction (horizontal, unit length).
    pub(super) forward: Vec3,
    /// Its world velocity.
    pub(super) velocity: Vec3,
    /// The first other mesh along the motion (along forward when still).
    pub(super) ahead: Option<Ahead>,
}

/// One driven mesh.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Mover {
    /// The mesh.
    pub(super) mesh: MeshId,
    /// Its name.
    pub(super) name: String,
    /// Turn from its node's forward about world +Y, radians.
    pub(super) heading: f32,
    /// Speed along its own (forward, right, up), world units per second.
    pub(super) speed: Vec3,
    /// Stopped by a contact: held keys do not push it again until every
    /// key has been released (as the post clears its pressed keys).
    latched: bool,
    /// The velocity of its last `velocity` line, and when it was printed.
    printed: Vec3,
    printed_at: Option<f64>,
    /// Cached by [`Drive::refresh`].
    pub(super) look: Option<Look>,
}

/// What a tick did.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Tick {
    /// Stdout lines (`collide`, `velocity`).
    pub(super) lines: Vec<String>,
    /// A mesh moved: the scene must be rendered again.
    pub(super) moved: bool,
    /// A heading changed: the lines must be drawn again.
    pub(super) turned: bool,
}

/// The driving set and its motion.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Drive {
    /// The driven meshes, by ascending mesh id (the order they move in).
    movers: Vec<Mover>,
    /// The scene's size: speeds are multiples of it per second.
    unit: f32,
    /// Contacts stop this far short of the other mesh.
    skin: f32,
    /// Ground following on (`U`).
    pub(super) ground: bool,
    /// The three lines shown (`L`).
    pub(super) lines: bool,
    /// Seconds of ticks so far.
    clock: f64,
}

impl Drive {
    /// An empty driving set in a scene of size `unit`, stopping contacts
    /// `skin` short.
    #[must_use]
    pub(super) fn new(unit: f32, skin: f32) -> Self {
        Self {
            movers: Vec::new(),
            unit,
            skin,
            ground: false,
            lines: true,
            clock: 0.0,
        }
    }

    /// The driven meshes, by ascending id.
    #[must_use]
    pub(super) fn movers(&self) -> &[Mover] {
        &self.movers
    }

    /// Is `mesh` driven?
    #[must_use]
    pub(super) fn contains(&self, mesh: MeshId) -> bool {
        self.index(mesh).is_some()
    }

    fn index(&self, mesh: MeshId) -> Option<usize> {
        self.movers.binary_search_by_key(&mesh, |m| m.mesh).ok()
    }

    /// The highest speed, world units per second.
    #[must_use]
    pub(super) fn max_speed(&self) -> f32 {
        MAX_SPEED * self.unit
    }

    /// Adds `mesh` to the driving set, or removes it when it is driven;
    /// returns the stdout line (`None` for a mesh the scene lacks).
    pub(super) fn toggle(&mut self, scene: &Scene, mesh: MeshId) -> Option<String> {
        match self.movers.binary_search_by_key(&mesh, |m| m.mesh) {
            Ok(i) => {
                let m = self.movers.remove(i);
                Some(drive_remove_line(m.mesh, &m.name))
            }
            Err(i) => {
                let name = scene.mesh(mesh)?.name().to_string();
                let mut m = Mover {
                    mesh,
                    name,
                    heading: 0.0,
                    speed: Vec3::ZERO,
                    latched: false,
                    printed: Vec3::ZERO,
                    printed_at: None,
                    look: None,
                };
                m.look = look(scene, &m);
                let fwd = m.look.as_ref().map_or(Vec3::Z, |l| l.forward);
                let line = drive_add_line(mesh, &m.name, fwd);
                self.movers.insert(i, m);
                Some(line)
            }
        }
    }

    /// Makes `meshes` the driving set: removes the others, then adds the
    /// new ones (both by ascending id); returns the stdout lines.
    pub(super) fn set(&mut self, scene: &Scene, meshes: &[MeshId]) -> Vec<String> {
        let mut lines = Vec::new();
        let gone: Vec<MeshId> = self
            .movers
            .iter()
            .map(|m| m.mesh)
            .filter(|m| !meshes.contains(m))
            .collect();
        let mut new: Vec<MeshId> = meshes
            .iter()
            .copied()
            .filter(|&m| !self.contains(m))
            .collect();
        new.sort_unstable();
        new.dedup();
        for m in gone.into_iter().chain(new) {
            lines.extend(self.toggle(scene, m));
        }
        lines
    }

    /// `G`: every driven mesh stops. Returns `stop all` and, for each mesh
    /// whose last `velocity` line was not zero, its zero line at once.
    pub(super) fn stop_all(&mut self) -> Vec<String> {
        let mut lines = vec!["stop all".to_string()];
        for m in &mut self.movers {
            m.speed = Vec3::ZERO;
            if let Some(l) = m.look.as_mut() {
                l.velocity = Vec3::ZERO;
            }
            if m.printed != Vec3::ZERO {
                lines.push(print_velocity(m, self.clock));
            }
        }
        lines
    }

    /// Advances the driving set by `dt` seconds (clamped to 0..[`MAX_TICK`])
    /// under `input`: turns, builds speed, then moves each mesh in id order
    /// by its velocity × dt with [`sweep_move`]. A mesh whose move is cut
    /// short by a contact stops, and so does the other mesh when it is
    /// driven; since each move is checked against the scene as the meshes
    /// before it left it, no mesh ends up inside another.
    pub(super) fn tick(&mut self, scene: &mut Scene, input: DriveInput, dt: f32) -> Tick {
        let mut out = Tick::default();
        if self.movers.is_empty() {
            return out;
        }
        let dt = if dt.is_finite() {
            dt.clamp(0.0, MAX_TICK)
        } else {
            0.0
        };
        self.clock += f64::from(dt);
        let (accel, max) = (ACCEL * self.unit, self.max_speed());
        let pushed = input.push != Vec3::ZERO;
        let turn = if input.turn.is_finite() {
            input.turn.clamp(-1.0, 1.0) * TURN_RATE * dt
        } else {
            0.0
        };
        for m in &mut self.movers {
            if turn != 0.0 {
                m.heading = (m.heading + turn).rem_euclid(std::f32::consts::TAU);
                out.turned = true;
            }
            if m.latched && !pushed {
                m.latched = false;
            }
            if !m.latched {
                m.speed += input.push.clamp(Vec3::NEG_ONE, Vec3::ONE) * (accel * dt);
            }
            if self.ground {
                m.speed.z = 0.0;
            }
            let s = m.speed.length();
            if s > max {
                m.speed *= max / s;
            }
        }
        for i in 0..self.movers.len() {
            self.move_one(scene, i, dt, &mut out);
        }
        if out.moved || out.turned {
            self.refresh(scene);
        }
        for m in &mut self.movers {
            let v = m.look.as_ref().map_or(Vec3::ZERO, |l| l.velocity);
            let due = m
                .printed_at
                .is_none_or(|t| self.clock - t >= VELOCITY_LINE_INTERVAL);
            if v != m.printed && due {
                out.lines.push(print_velocity(m, self.clock));
            }
        }
        out
    }

    /// Moves mover `i` by one tick (see [`Drive::tick`]).
    fn move_one(&mut self, scene: &mut Scene, i: usize, dt: f32, out: &mut Tick) {
        let m = &self.movers[i];
        let mesh = m.mesh;
        let mut d = world_velocity(scene, mesh, m.heading, m.speed) * dt;
        if self.ground {
            d.y = 0.0;
            out.moved |= settle(scene, mesh, d, self.skin);
        }
        if d == Vec3::ZERO || !d.is_finite() {
            return;
        }
        let Some(r) = sweep_move(scene, mesh, d, self.skin) else {
            return;
        };
        out.moved |= r.allowed != Vec3::ZERO;
        if !r.blocked {
            return;
        }
        let mover = &mut self.movers[i];
        mover.speed = Vec3::ZERO;
        mover.latched = true;
        let name = mover.name.clone();
        let Some(hit) = r.hit else { return };
        // a mover ray's hit lies on the other mesh; a reverse ray's lies on
        // the mover, and the other mesh's vertex it came from is `distance`
        // further along the motion
        let at = if r.by_other_vertex {
            hit.position + d.normalize() * hit.distance
        } else {
            hit.position
        };
        let other = r.other.unwrap_or(hit.mesh);
        if let Some(j) = self.index(other) {
            let o = &mut self.movers[j];
            if o.speed != Vec3::ZERO {
                o.speed = Vec3::ZERO;
                o.latched = true;
            }
        }
        let other_name = scene.mesh(other).map_or("?", |m| m.name());
        out.lines
            .push(collide_line(mesh, &name, other, other_name, at));
    }

    /// Recomputes every driven mesh's [`Look`] (after the scene changed).
    pub(super) fn refresh(&mut self, scene: &Scene) {
        for i in 0..self.movers.len() {
            let l = look(scene, &self.movers[i]);
            self.movers[i].look = l;
        }
    }
}

/// The `velocity` line of `m` now, recording it as printed.
fn print_velocity(m: &mut Mover, clock: f64) -> String {
    let (v, centre) = m
        .look
        .as_ref()
        .map_or((Vec3::ZERO, Vec3::ZERO), |l| (l.velocity, l.centre));
    let ahead = m
        .look
        .as_ref()
        .and_then(|l| l.ahead.as_ref())
        .map(|a| (a.mesh, a.name.as_str(), a.distance));
    let line = velocity_line(m.mesh, &m.name, v, centre, ahead);
    m.printed = v;
    m.printed_at = Some(clock);
    line
}

/// The world box of `mesh`: its local box's corners through its world
/// matrix (it contains every vertex; for a translated mesh it is exact).
#[must_use]
pub(super) fn world_box(scene: &Scene, mesh: MeshId) -> Option<Aabb> {
    let m = scene.mesh(mesh)?;
    let local = m.bounds();
    if !(local.min.x <= local.max.x) {
        return None;
    }
    let w = scene.mesh_world(mesh);
    let mut b = Aabb::empty();
    for i in 0..8 {
        let c = Vec3::new(
            if i & 1 == 0 { local.min.x } else { local.max.x },
            if i & 2 == 0 { local.min.y } else { local.max.y },
            if i & 4 == 0 { local.min.z } else { local.max.z },
        );
        b.grow(w.transform_point3(c));
    }
    (b.min.is_finite() && b.max.is_finite()).then_some(b)
}

/// The forward direction of `mesh` turned by `heading`: its node's +Z in
/// world space, flattened onto the ground plane (world +Y up), then turned
/// about +Y; world +Z when the node's +Z is vertical.
#[must_use]
pub(super) fn forward(scene: &Scene, mesh: MeshId, heading: f32) -> Vec3 {
    let z = scene.mesh_world(mesh).transform_vector3(Vec3::Z);
    let mut f = Vec3::new(z.x, 0.0, z.z).normalize_or_zero();
    if f == Vec3::ZERO || !f.is_finite() {
        f = Vec3::Z;
    }
    Quat::from_rotation_y(heading) * f
}

/// The world velocity of speeds (forward, right, up) for `mesh` turned by
/// `heading`; right is forward × up.
#[must_use]
pub(super) fn world_velocity(scene: &Scene, mesh: MeshId, heading: f32, speed: Vec3) -> Vec3 {
    let f = forward(scene, mesh, heading);
    let right = f.cross(Vec3::Y);
    f * speed.x + right * speed.y + Vec3::Y * speed.z
}

/// Where `m` is and goes (`None` when its mesh has no finite box).
fn look(scene: &Scene, m: &Mover) -> Option<Look> {
    let b = world_box(scene, m.mesh)?;
    let centre = (b.min + b.max) * 0.5;
    let radius = (b.max - b.min).max_element() * 0.5;
    let fwd = forward(scene, m.mesh, m.heading);
    let velocity = world_velocity(scene, m.mesh, m.heading, m.speed);
    let dir = velocity.try_normalize().unwrap_or(fwd);
    // the ray starts at the centre, inside the mesh itself, so the mesh is
    // left out: the first hit is the first *other* mesh
    let mover = m.mesh;
    let others = |x: MeshId| x != mover;
    let opts = RayOptions {
        filter: Some(&others),
        ..RayOptions::default()
    };
    let ahead = RayCaster::new(scene)
        .first_brute(&Ray::new(centre, dir), &opts)
        .map(|h| Ahead {
            mesh: h.mesh,
            name: h.mesh_name.to_string(),
            point: h.position,
            distance: h.distance,
        });
    Some(Look {
        centre,
        radius,
        forward: fwd,
        velocity,
        ahead,
    })
}

/// Keeps `mesh` on the ground under the box it will cover after moving by
/// the horizontal `d`: the highest surface below its top at that box's
/// centre and four corners (other meshes only), plus a clearance of two
/// skins. A rise above [`MAX_STEP_UP`] of its height is left to the
/// horizontal move, which the step then stops. The vertical move goes
/// through [`sweep_move`] too, so it never enters a mesh. Returns whether
/// the mesh moved.
fn settle(scene: &mut Scene, mesh: MeshId, d: Vec3, skin: f32) -> bool {
    let Some(b) = world_box(scene, mesh) else {
        return false;
    };
    let (lo, hi) = (b.min + d, b.max + d);
    let mid = (lo + hi) * 0.5;
    let others = |x: MeshId| x != mesh;
    let opts = RayOptions {
        filter: Some(&others),
        ..RayOptions::default()
    };
    let ground = [
        (mid.x, mid.z),
        (lo.x, lo.z),
        (lo.x, hi.z),
        (hi.x, lo.z),
        (hi.x, hi.z),
    ]
    .into_iter()
    .filter_map(|(x, z)| ground_below(scene, Vec3::new(x, b.max.y, z), &opts))
    .map(|h| h.position.y)
    .fold(f32::NEG_INFINITY, f32::max);
    if !ground.is_finite() {
        return false;
    }
    let rise = ground + 2.0 * skin - b.min.y;
    let height = b.max.y - b.min.y;
    if rise > MAX_STEP_UP * height || rise.abs() <= skin * 0.5 {
        return false;
    }
    sweep_move(scene, mesh, Vec3::Y * rise, skin).is_some_and(|r| r.allowed != Vec3::ZERO)
}
