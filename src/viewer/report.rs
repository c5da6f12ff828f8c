//! The viewer's stdout lines (see "Output on stdout" in the module docs):
//! one formatter per kind of event, so scripts can rely on their shape.

use glam::Vec3;

use crate::collide::SweepResult;
use crate::pick::{Hit, PickMethod};
use crate::scene::{MeshId, Scene};
use crate::select::SelectMode;

/// The stdout line of a pick (see the module docs).
#[must_use]
pub(super) fn pick_line(method: PickMethod, x: i64, y: i64, hit: Option<&Hit>) -> String {
    match hit {
        None => format!("pick method={} x={x} y={y} none", method.name()),
        Some(h) => format!(
            "pick method={} x={x} y={y} mesh={} name={} triangle={} global={} depth={:.6} position={} \
             instance={} primitive={} node={}",
            method.name(),
            h.mesh,
            h.mesh_name,
            h.triangle,
            h.global_triangle,
            h.depth,
            fmt_vec(h.position),
            h.origin.instance,
            h.origin.primitive,
            h.node_name
        ),
    }
}

/// `visible` or `through`.
#[must_use]
pub(super) fn select_mode_name(mode: SelectMode) -> &'static str {
    match mode {
        SelectMode::Visible => "visible",
        SelectMode::Through => "through",
    }
}

/// The stdout line of a selection: the mode of the box or lasso that made
/// it and every selected mesh as `id:name` (see the module docs).
#[must_use]
pub(super) fn select_line(mode: SelectMode, selection: &[MeshId], scene: &Scene) -> String {
    let list: Vec<String> = selection
        .iter()
        .map(|&m| format!("{m}:{}", scene.mesh(m).map_or("?", |m| m.name())))
        .collect();
    format!(
        "select mode={} meshes=[{}] count={}",
        select_mode_name(mode),
        list.join(","),
        selection.len()
    )
}

/// `(x,y,z)` with 6 decimals; `+ 0.0` turns a negative zero into a plain one.
pub(super) fn fmt_vec(v: Vec3) -> String {
    let v = v + Vec3::ZERO;
    format!("({:.6},{:.6},{:.6})", v.x, v.y, v.z)
}

/// The stdout line of a move: what was asked, what was applied, and the
/// contact that stopped it, if any.
#[must_use]
pub(super) fn move_line(mesh: MeshId, name: &str, requested: Vec3, result: &SweepResult) -> String {
    let mut line = format!(
        "move mesh={mesh} name={name} requested={} delta={} stopped={}",
        fmt_vec(requested),
        fmt_vec(result.allowed),
        if result.blocked { "yes" } else { "no" }
    );
    if let Some(h) = result.hit.as_ref().filter(|_| result.blocked) {
        line += &format!(
            " contact_mesh={} contact_name={} contact_triangle={} contact_position={}{}",
            h.mesh,
            h.mesh_name,
            h.triangle,
            fmt_vec(h.position),
            if result.by_other_vertex {
                " reverse=yes"
            } else {
                ""
            }
        );
    }
    line
}

/// `drive add mesh=ID name=NAME forward=(x,y,z)`: a mesh joined the driving set.
#[must_use]
pub(super) fn drive_add_line(mesh: MeshId, name: &str, forward: Vec3) -> String {
    format!(
        "drive add mesh={mesh} name={name} forward={}",
        fmt_vec(forward)
    )
}

/// `drive remove mesh=ID name=NAME`: a mesh left the driving set.
#[must_use]
pub(super) fn drive_remove_line(mesh: MeshId, name: &str) -> String {
    format!("drive remove mesh={mesh} name={name}")
}

/// The world velocity, speed and centre of a driven mesh, and what lies
/// ahead along its motion (`ahead=ID:NAME distance=D`, or `ahead=none`).
#[must_use]
pub(super) fn velocity_line(
    mesh: MeshId,
    name: &str,
    v: Vec3,
    centre: Vec3,
    ahead: Option<(MeshId, &str, f32)>,
) -> String {
    let ahead = match ahead {
        Some((m, n, d)) => format!("ahead={m}:{n} distance={d:.6}"),
        None => "ahead=none".to_string(),
    };
    format!(
        "velocity mesh={mesh} name={name} v={} speed={:.6} centre={} {ahead}",
        fmt_vec(v),
        v.length(),
        fmt_vec(centre)
    )
}

/// A driven mesh stopped at a contact with mesh `with` at point `at`.
#[must_use]
pub(super) fn collide_line(
    mesh: MeshId,
    name: &str,
    with: MeshId,
    with_name: &str,
    at: Vec3,
) -> String {
    format!(
        "collide mesh={mesh} name={name} with={with} with_name={with_name} at={}",
        fmt_vec(at)
    )
}
