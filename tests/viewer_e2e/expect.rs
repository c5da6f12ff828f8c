//! What the viewer must print and show, from the public library API and the
//! viewer's documented behaviour (the `softpick::viewer` module docs: its
//! stdout lines, "Colors"; docs/cli.md, "Viewer"): the test view (built-in
//! scene, a camera file, the library's render of it), the line formats, the
//! tints and the pick map.

use std::path::PathBuf;

use softpick::internals::id_color;
use softpick::{
    builtin_scene, render, Camera, Frame, Hit, MeshId, PickMethod, RenderOptions, Scene, SelectMode,
};

/// Window and frame size of every scenario.
pub const W: u32 = 320;
pub const H: u32 = 240;

/// The viewer's tints, (color, amount), as documented under "Colors": the
/// picked mesh, the selected meshes, the hovered mesh.
pub const PICKED: (u32, f32) = (0x00ff_c830, 0.5);
pub const SELECTED: (u32, f32) = (0x0040_e070, 0.45);
pub const HOVERED: (u32, f32) = (0x0030_d0ff, 0.35);
/// The color of the picked triangle's outline.
pub const OUTLINE: u32 = 0x00ff_ffff;

/// A tint as documented: each 8-bit channel `c` moves toward the tint's
/// channel `t` to `round(c + (t - c) · amount)`, in `f32`.
pub fn tint(c: u32, (to, amount): (u32, f32)) -> u32 {
    let mut out = 0;
    for shift in [16, 8, 0] {
        let a = ((c >> shift) & 0xff) as f32;
        let b = ((to >> shift) & 0xff) as f32;
        let v = (a + (b - a) * amount).round().clamp(0.0, 255.0) as u32;
        out |= v << shift;
    }
    out
}

/// The documented `pick` line of a click at (x, y) that `method` answered
/// with `hit`: depth and position with 6 decimals, a negative zero printed
/// as a plain one, `none` for background.
pub fn pick_line(method: PickMethod, x: i64, y: i64, hit: Option<&Hit>) -> String {
    let m = method.name();
    let Some(h) = hit else {
        return format!("pick method={m} x={x} y={y} none");
    };
    let p = h.position;
    format!(
        "pick method={m} x={x} y={y} mesh={} name={} triangle={} global={} depth={:.6} \
         position=({:.6},{:.6},{:.6}) instance={} primitive={} node={}",
        h.mesh,
        h.mesh_name,
        h.triangle,
        h.global_triangle,
        h.depth,
        p.x + 0.0,
        p.y + 0.0,
        p.z + 0.0,
        h.origin.instance,
        h.origin.primitive,
        h.node_name
    )
}

/// The documented `select` line: the mode of the box or lasso and the whole
/// selection as `id:name`, ascending.
pub fn select_line(mode: SelectMode, meshes: &[MeshId], scene: &Scene) -> String {
    let list: Vec<String> = meshes
        .iter()
        .map(|&m| format!("{m}:{}", scene.mesh(m).map_or("?", |m| m.name())))
        .collect();
    let mode = match mode {
        SelectMode::Visible => "visible",
        SelectMode::Through => "through",
    };
    format!(
        "select mode={mode} meshes=[{}] count={}",
        list.join(","),
        meshes.len()
    )
}

/// What the window shows over the shaded render: a pixel of the picked mesh
/// takes [`PICKED`], else of a selected one [`SELECTED`], else of the
/// hovered one [`HOVERED`].
#[derive(Debug, Default)]
pub struct Look {
    pub picked: Option<MeshId>,
    pub selection: Vec<MeshId>,
    pub hovered: Option<MeshId>,
}

/// The test view: the built-in scene through a camera file, as the library
/// renders it, and a scratch directory the viewer runs in.
pub struct View {
    pub scene: Scene,
    pub frame: Frame,
    pub dir: PathBuf,
    pub camera_file: PathBuf,
}

impl View {
    /// The built-in scene framed automatically at [`W`] × [`H`], written to
    /// a camera file and loaded back, so the viewer and the library use the
    /// same camera; rendered with the library's default options (the
    /// viewer's defaults). `name` keeps each scenario's directory apart.
    pub fn new(name: &str) -> View {
        let scene = builtin_scene();
        let auto = Camera::auto_frame(&scene.framing_bounds(), W, H);
        let dir =
            std::env::temp_dir().join(format!("softpick-view-e2e-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let camera_file = dir.join("camera.json");
        let json = format!(
            r#"{{"eye":[{},{},{}],"target":[{},{},{}],"up":[0,1,0],"fov_y_deg":45,"near":{},"far":{},"width":{W},"height":{H}}}"#,
            auto.eye.x,
            auto.eye.y,
            auto.eye.z,
            auto.target.x,
            auto.target.y,
            auto.target.z,
            auto.near,
            auto.far
        );
        std::fs::write(&camera_file, json).unwrap();
        let camera = Camera::load(&camera_file, &scene.framing_bounds()).unwrap();
        let frame = render(&scene, &camera, RenderOptions::default()).unwrap();
        View {
            scene,
            frame,
            dir,
            camera_file,
        }
    }

    /// Removes the scratch directory (kept when a scenario fails, to look at).
    pub fn clean(self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }

    /// The mesh of pixel `i` (row-major) of the frame.
    pub fn mesh_of_pixel(&self, i: usize) -> Option<MeshId> {
        let id = self.frame.ids()[i];
        id.checked_sub(1)
            .and_then(|g| self.scene.locate(g))
            .map(|m| m.0)
    }

    /// The mesh under pixel (x, y).
    pub fn mesh_at(&self, (x, y): (u32, u32)) -> Option<MeshId> {
        self.mesh_of_pixel((y * W + x) as usize)
    }

    /// The screen-space corners of a mesh-local triangle; all in front of
    /// the eye.
    fn corners(&self, mesh: MeshId, local: u32) -> [(f32, f32); 3] {
        let tri = self.scene.meshes()[mesh as usize].triangles()[local as usize];
        tri.map(|i| {
            let v =
                softpick::internals::screen_vertex(&self.frame, mesh, i).expect("screen vertex");
            assert!(
                v.w > 0.0,
                "triangle {local} of mesh {mesh} reaches behind the eye"
            );
            (v.x, v.y)
        })
    }

    /// The most interior pixel of a triangle (at least 3 px from its
    /// edges, its 3×3 neighbourhood all one mesh) of any mesh but `not`'s.
    pub fn mesh_pixel(&self, not: &[MeshId]) -> (u32, u32) {
        let mut best: Option<(f32, u32, u32)> = None;
        for y in 1..H - 1 {
            for x in 1..W - 1 {
                let Some(g) = self.frame.triangle_at(x.into(), y.into()) else {
                    continue;
                };
                let (mesh, local) = self.scene.locate(g).unwrap();
                let same = (y - 1..=y + 1)
                    .all(|b| (x - 1..=x + 1).all(|a| self.mesh_at((a, b)) == Some(mesh)));
                if not.contains(&mesh) || !same {
                    continue;
                }
                let tri = self.scene.meshes()[mesh as usize].triangles()[local as usize];
                let in_front = tri.iter().all(|&i| {
                    softpick::internals::screen_vertex(&self.frame, mesh, i)
                        .is_some_and(|v| v.w > 0.0)
                });
                if !in_front {
                    continue;
                }
                let v = self.corners(mesh, local);
                let c = (x as f32 + 0.5, y as f32 + 0.5);
                let dist = (0..3)
                    .map(|k| line_distance(c, v[k], v[(k + 1) % 3]))
                    .fold(f32::INFINITY, f32::min);
                if dist >= 3.0 && best.is_none_or(|b| dist > b.0) {
                    best = Some((dist, x, y));
                }
            }
        }
        let (_, x, y) = best.expect("no interior mesh pixel in the test view");
        (x, y)
    }

    /// A background pixel whose 5×5 neighbourhood is background.
    pub fn background_pixel(&self) -> (u32, u32) {
        for y in 2..H - 2 {
            for x in 2..W - 2 {
                let clear = (y - 2..=y + 2).all(|b| {
                    (x - 2..=x + 2).all(|a| self.frame.triangle_at(a.into(), b.into()).is_none())
                });
                if clear {
                    return (x, y);
                }
            }
        }
        panic!("no background pixel in the test view");
    }

    /// The pick with `method` at pixel (x, y).
    pub fn pick(&self, method: PickMethod, (x, y): (u32, u32)) -> Option<Hit> {
        let (x, y) = (i64::from(x), i64::from(y));
        match method {
            PickMethod::Buffer => self.frame.picks(&self.scene).unwrap().at(x, y),
            PickMethod::Direct => self
                .frame
                .picks(&self.scene)
                .unwrap()
                .with(softpick::PickMethod::Direct)
                .at(x, y),
            PickMethod::Ray => self
                .frame
                .picks(&self.scene)
                .unwrap()
                .with(softpick::PickMethod::Ray)
                .at(x, y),
        }
    }

    /// The library's box selection between pixels `a` and `b`.
    pub fn rect(&self, a: (u32, u32), b: (u32, u32), mode: SelectMode) -> Vec<MeshId> {
        let (a, b) = (
            (i64::from(a.0), i64::from(a.1)),
            (i64::from(b.0), i64::from(b.1)),
        );
        self.frame
            .picks(&self.scene)
            .unwrap()
            .rect(a.0, a.1, b.0, b.1, mode)
            .meshes
    }

    /// The library's lasso selection of the polygon through the centres of
    /// the pixels `corners`.
    pub fn lasso(&self, corners: &[(u32, u32)], mode: SelectMode) -> Vec<MeshId> {
        let poly: Vec<[f32; 2]> = corners
            .iter()
            .map(|&(x, y)| [x as f32 + 0.5, y as f32 + 0.5])
            .collect();
        self.frame
            .picks(&self.scene)
            .unwrap()
            .lasso(&poly, mode)
            .meshes
    }

    /// The window image of `look` without the outline: the shaded render,
    /// tinted.
    pub fn window(&self, look: &Look) -> Vec<u32> {
        let color = self.frame.color();
        (0..color.len())
            .map(|i| match self.mesh_of_pixel(i) {
                Some(m) if Some(m) == look.picked => tint(color[i], PICKED),
                Some(m) if look.selection.contains(&m) => tint(color[i], SELECTED),
                Some(m) if Some(m) == look.hovered => tint(color[i], HOVERED),
                _ => color[i],
            })
            .collect()
    }

    /// The per-mesh pick map `P` saves: [`id_color`] of each pixel's mesh.
    pub fn pick_map(&self) -> Vec<u32> {
        (0..self.frame.ids().len())
            .map(|i| id_color(self.mesh_of_pixel(i)))
            .collect()
    }

    /// The pixels the outline of a picked triangle may cover: those whose
    /// centre is within 1 px of one of its edges. The outline colors pixels
    /// that its edges pass through, and no point of a pixel is more than
    /// √2/2 from its centre.
    pub fn outline_zone(&self, mesh: MeshId, local: u32) -> Vec<bool> {
        let v = self.corners(mesh, local);
        (0..W * H)
            .map(|i| {
                let c = ((i % W) as f32 + 0.5, (i / W) as f32 + 0.5);
                (0..3).any(|k| segment_distance(c, v[k], v[(k + 1) % 3]) <= 1.0)
            })
            .collect()
    }
}

/// Distance from `p` to the line through `a` and `b`.
fn line_distance(p: (f32, f32), a: (f32, f32), b: (f32, f32)) -> f32 {
    let (ex, ey) = (b.0 - a.0, b.1 - a.1);
    let len = ex.hypot(ey).max(1e-6);
    ((p.0 - a.0) * ey - (p.1 - a.1) * ex).abs() / len
}

/// Distance from `p` to the segment from `a` to `b`.
fn segment_distance(p: (f32, f32), a: (f32, f32), b: (f32, f32)) -> f32 {
    let (ex, ey) = (b.0 - a.0, b.1 - a.1);
    let l2 = ex * ex + ey * ey;
    let t = if l2 > 0.0 {
        (((p.0 - a.0) * ex + (p.1 - a.1) * ey) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p.0 - a.0 - t * ex).hypot(p.1 - a.1 - t * ey)
}

/// Compares a screenshot with the expected window image. Inside `outline`
/// (see [`View::outline_zone`]) a pixel may also be [`OUTLINE`]; everywhere
/// else it must be exact. Returns how many pixels the outline took, or what
/// differs.
pub fn compare(got: &[u32], want: &[u32], outline: Option<&[bool]>) -> Result<usize, String> {
    let (mut wrong, mut outlined, mut first) = (0, 0, None);
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let may_outline = outline.is_some_and(|z| z[i]);
        if g == w {
            continue;
        }
        if may_outline && g == OUTLINE {
            outlined += 1;
            continue;
        }
        wrong += 1;
        first.get_or_insert((i as u32 % W, i as u32 / W, g, w));
    }
    match first {
        None => Ok(outlined),
        Some((x, y, g, w)) => Err(format!(
            "{wrong} pixels differ, the first at ({x}, {y}): {g:06x} instead of {w:06x}"
        )),
    }
}
