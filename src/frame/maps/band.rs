//! One band of rows of `Frame::pixel_maps`, walked in batches of pixels.
//!
//! A covered pixel needs its triangle set up (its mesh found, its corner
//! indices and corners read, edges and normal computed). On a big mesh
//! nearly every pixel shows another triangle, whose indices and corners
//! are in no cache: done pixel by pixel, each pixel waited for those
//! reads. So the band's pixels go into batches of up to [`BATCH`]:
//! 1. each pixel's triangle is looked up in a small cache by id; a new
//!    one takes its slot (or, when another triangle of the batch holds
//!    that, one of the batch's spare slots), its mesh is found and its
//!    corner indices are asked for ([`prefetch`]);
//! 2. the batch's new triangles are set up in two short loops: their
//!    corner indices (arrived meanwhile) are read and their corners
//!    asked for, then the corners are read and the set-ups computed;
//! 3. the batch's pixels are computed, four at a time in f64 lanes on a
//!    CPU with AVX2 ([`hits4`]), else one at a time.
//!
//! Each pixel's values depend on its own ray and triangle only, so
//! neither the batches nor the lanes change any.

use glam::DVec3;

use super::hit::{hits4, lanes, PixelHit, TriSetup, F4};
use super::meshes::Meshes;
use super::{BandOut, MapRequest, PixelRays};
use crate::cpu::{prefetch, Isa, Kernel, Lanes8};
use crate::frame::Frame;
use crate::raster::tile::NO_TRIANGLE;
use crate::scene::MeshId;

const _: () = assert!(NO_TRIANGLE == 0, "the walk's block-row test ORs ids");

/// Rows of a band, and the side of the blocks it is walked in.
pub(super) const BAND: usize = 8;

/// Triangle setups a band keeps (by id).
const CACHED_TRIS: usize = 64;

/// Most pixels of a batch.
const BATCH: usize = 64;

/// The cache's slots and a batch's spare slots.
const SLOTS: usize = CACHED_TRIS + BATCH;

/// What every band of one `Frame::pixel_maps` call reads.
pub(super) struct Shared<'a> {
    pub(super) frame: &'a Frame,
    pub(super) meshes: &'a Meshes<'a>,
    pub(super) rays: &'a PixelRays,
    /// The column and row parts of every pixel's ray (`None` for a
    /// pinhole camera, whose rays `PixelRays::ray` makes per pixel).
    pub(super) parts: Option<&'a (Vec<DVec3>, Vec<DVec3>)>,
    /// Whether each mesh was rendered at the identity (its corners are
    /// then its world points: `setup` skips the product).
    pub(super) identity: &'a [bool],
    pub(super) want: MapRequest,
    /// Where the pixels' arithmetic runs: [`Isa::Base`] one pixel at a
    /// time (`Frame::pixel_hit`), AVX2 four at a time ([`hits4`]).
    pub(super) isa: Isa,
}

/// Which triangle a slot of a band's triangle cache holds (apart from
/// its set-up, so that the walk's look-ups read 8 bytes a slot).
#[derive(Clone, Copy)]
struct Tag {
    /// The triangle's id (global triangle + 1), [`NO_TRIANGLE`] when empty.
    id: u32,
    /// The last batch whose pixels use the slot: that batch must be done
    /// before the slot takes another triangle.
    batch: u32,
}

/// The set-ups of the cache's slots, `None` for an id of no triangle of
/// the scene (never in a frame of it).
type Setups = [Option<TriSetup>; SLOTS];

/// A covered pixel of a batch: its index in the band's maps, its
/// position, and the cache slot of its triangle.
#[derive(Clone, Copy)]
struct Waiting {
    k: u32,
    x: u32,
    y: u32,
    slot: u8,
}

/// The state of a band's walk.
struct Walk {
    /// (then the batch's spare slots, for triangles whose slot another
    /// triangle of the batch holds)
    tags: [Tag; SLOTS],
    /// Each slot's set-up, made by the flush of the batch that took it.
    setups: Setups,
    /// The spare slots the batch uses.
    spare: usize,
    /// The batch being filled.
    batch: u32,
    /// Its pixels, and the slots it has yet to set up.
    pixels: Vec<Waiting>,
    /// (with the mesh and local index of each slot's triangle, `None`
    /// for an id of no triangle of the scene)
    todo: Vec<(u8, Option<(MeshId, u32)>)>,
}

impl Shared<'_> {
    /// Computes band `b` (rows `BAND·b ..`) of every map `out` holds.
    pub(super) fn band(&self, b: usize, mut out: BandOut) {
        let frame = self.frame;
        let w = frame.width as usize;
        let y0 = b * BAND;
        let rows = (frame.height as usize - y0).min(BAND);
        let ids = &frame.ids[y0 * w..(y0 + rows) * w];
        let want = self.want;
        if !(want.barycentric || want.normal || want.distance || want.z) {
            // mesh ids alone need no set-up: the mesh of the id, as
            // `Walk::flush` finds it
            let Some(m) = out.mesh.as_deref_mut() else {
                return;
            };
            for (k, &id) in ids.iter().enumerate() {
                if id == NO_TRIANGLE {
                    continue;
                }
                if let Some((mesh, _)) = self.meshes.locate(id - 1) {
                    m[k] = mesh;
                }
            }
            return;
        }
        let mut walk = Walk {
            tags: [Tag {
                id: NO_TRIANGLE,
                batch: u32::MAX,
            }; SLOTS],
            setups: std::array::from_fn(|_| None),
            spare: 0,
            batch: 0,
            pixels: Vec::with_capacity(BATCH),
            todo: Vec::with_capacity(BATCH),
        };
        // Neighbouring pixels mostly show one triangle: the band is
        // walked in blocks of BAND × BAND pixels, which show fewer
        // triangles than its rows do, and the cache keeps the last ones.
        for x0 in (0..w).step_by(BAND) {
            // (each row's ids 64 pixels (four cache lines) ahead, a line
            // per 16 pixels walked: the band's rows are BAND streams of
            // reads, which the CPU's own prefetcher follows late)
            if x0 % 16 == 0 {
                for r in 0..rows {
                    if let Some(id) = ids.get(r * w + x0 + 64) {
                        prefetch(id);
                    }
                }
            }
            let x1 = (x0 + BAND).min(w);
            for r in 0..rows {
                // a block row of no covered pixel (the background, most
                // of many frames) in one test: the OR of its ids, which is
                // NO_TRIANGLE (0) only when each id is
                if ids[r * w + x0..r * w + x1].iter().fold(0, |a, &i| a | i) == NO_TRIANGLE {
                    continue;
                }
                for x in x0..x1 {
                    let k = r * w + x;
                    let id = ids[k];
                    if id == NO_TRIANGLE {
                        continue;
                    }
                    let s = id as usize % CACHED_TRIS;
                    let slot = if walk.tags[s].id == id {
                        walk.tags[s].batch = walk.batch;
                        s
                    } else if walk.tags[s].batch != walk.batch {
                        walk.take(self, s, id);
                        s
                    } else if let Some(j) =
                        (CACHED_TRIS..CACHED_TRIS + walk.spare).find(|&j| walk.tags[j].id == id)
                    {
                        j
                    } else {
                        // the slot holds another triangle of this batch:
                        // one of the batch's spare slots takes this one
                        let j = CACHED_TRIS + walk.spare;
                        walk.spare += 1;
                        walk.take(self, j, id);
                        j
                    };
                    walk.pixels.push(Waiting {
                        k: k as u32,
                        x: x as u32,
                        y: (y0 + r) as u32,
                        slot: slot as u8,
                    });
                    if walk.pixels.len() == BATCH {
                        walk.flush(self, &mut out);
                    }
                }
            }
        }
        walk.flush(self, &mut out);
    }

    /// The ray of pixel (x, y) (`PixelRays::ray`).
    #[inline(always)]
    fn ray(&self, x: u32, y: u32) -> (DVec3, DVec3) {
        match self.parts {
            Some((columns, rows)) => self
                .rays
                .ray_from_parts(columns[x as usize], rows[y as usize]),
            None => self.rays.ray(x, y),
        }
    }

    /// The rays of four pixels in lanes (`ov[c][i]`, `dv[c][i]`: component
    /// `c` of pixel `i`'s origin and direction), lane by lane the
    /// operations of [`Shared::ray`], so the same bits; made in lanes
    /// rather than gathered from four `DVec3`s, which LLVM passes through
    /// the stack in pieces it then reads whole (a store-forwarding stall
    /// per group).
    #[inline(always)]
    fn rays4(&self, p: &[Waiting; 4]) -> ([F4; 3], [F4; 3]) {
        let Some((columns, rows)) = self.parts else {
            let ray = |i: usize| self.ray(p[i].x, p[i].y);
            let r = [ray(0), ray(1), ray(2), ray(3)];
            let o = |c: usize| lanes(|i| r[i].0[c]);
            let d = |c: usize| lanes(|i| r[i].1[c]);
            return ([o(0), o(1), o(2)], [d(0), d(1), d(2)]);
        };
        let column = |i: usize| columns[p[i].x as usize];
        let row = |i: usize| rows[p[i].y as usize];
        let (col, row) = (
            [column(0), column(1), column(2), column(3)],
            [row(0), row(1), row(2), row(3)],
        );
        // `ray_from_parts`: side = column + row, then forward + side
        // (perspective) or eye + side (orthographic)
        let side = |c: usize| lanes(|i| col[i][c] + row[i][c]);
        let side = [side(0), side(1), side(2)];
        let (e, f) = (self.rays.eye, self.rays.forward);
        let fixed = |v: DVec3| [[v.x; 4], [v.y; 4], [v.z; 4]];
        let plus = |v: DVec3| {
            let one = |c: usize| lanes(|i| v[c] + side[c][i]);
            [one(0), one(1), one(2)]
        };
        if self.rays.perspective {
            (fixed(e), plus(f))
        } else {
            (plus(e), fixed(f))
        }
    }

    /// The setup of triangle `corners` (indices into mesh `mesh`'s
    /// positions) as rendered.
    #[inline]
    fn setup(&self, mesh: MeshId, positions: &[glam::Vec3], corners: [u32; 3]) -> TriSetup {
        // (the identity's product is the point itself: skipped, the same
        // values; a mesh without a matrix was rendered at the identity.
        // Each corner is read and widened on its own: `corners.map` made
        // an array of `Vec3`s on the stack, copied in 8-byte pieces and
        // read back across them, a store-forwarding stall per triangle.)
        let p = match self.frame.worlds.get(mesh as usize) {
            Some(world) if !self.identity[mesh as usize] => {
                let corner = |i: u32| world.transform_point3(positions[i as usize]).as_dvec3();
                [corner(corners[0]), corner(corners[1]), corner(corners[2])]
            }
            _ => {
                let corner = |i: u32| positions[i as usize].as_dvec3();
                [corner(corners[0]), corner(corners[1]), corner(corners[2])]
            }
        };
        let (e0, e1) = (p[1] - p[0], p[2] - p[0]);
        let n = e0.cross(e1);
        let (a, b, c) = (e0.dot(e0), e0.dot(e1), e1.dot(e1));
        TriSetup {
            mesh,
            p0: p[0],
            e0,
            e1,
            n,
            abc: (a, b, c),
            den: a * c - b * b,
            normal: if self.want.normal {
                n.normalize_or_zero().as_vec3().to_array()
            } else {
                [0.0; 3]
            },
            num_eye: n.dot(p[0] - self.rays.eye),
        }
    }

    /// Writes pixel `p`'s values.
    #[inline(always)]
    fn write(out: &mut BandOut, p: Waiting, t: &TriSetup, h: &PixelHit) {
        let k = p.k as usize;
        if let Some(v) = out.bary.as_deref_mut() {
            v[3 * k..3 * k + 3].copy_from_slice(&h.bary);
        }
        if let Some(v) = out.normal.as_deref_mut() {
            v[3 * k..3 * k + 3].copy_from_slice(&t.normal);
        }
        if let Some(v) = out.distance.as_deref_mut() {
            v[k] = h.distance;
        }
        if let Some(v) = out.z.as_deref_mut() {
            v[k] = h.z;
        }
    }

    /// Pixel `p` on its own (`Frame::pixel_hit`).
    #[inline(always)]
    fn one(&self, out: &mut BandOut, p: Waiting, t: &TriSetup) {
        let ray = self.ray(p.x, p.y);
        if let Some(h) = self
            .frame
            .pixel_hit(t, self.rays, ray, (p.x, p.y), self.want)
        {
            Self::write(out, p, t, &h);
        }
    }

    /// The pixels of a batch whose triangles are set up, four at a time
    /// in lanes ([`hits4`]) when `four`, else one at a time.
    #[inline(always)]
    fn pixels(&self, setups: &Setups, pixels: &[Waiting], out: &mut BandOut, four: bool) {
        // (pixels of no triangle of the scene, never in a frame of it,
        // are left at the background's values)
        let setup = |p: &Waiting| setups[p.slot as usize].as_ref();
        if let Some(m) = out.mesh.as_deref_mut() {
            for p in pixels {
                if let Some(t) = setup(p) {
                    m[p.k as usize] = t.mesh;
                }
            }
        }
        let mut rest = pixels;
        if four {
            let groups = pixels.chunks_exact(4);
            rest = groups.remainder();
            for g in groups {
                // (written out: `array::from_fn` and `map` are not always
                // inlined into the AVX2 build)
                let p = [g[0], g[1], g[2], g[3]];
                let (Some(t0), Some(t1), Some(t2), Some(t3)) =
                    (setup(&p[0]), setup(&p[1]), setup(&p[2]), setup(&p[3]))
                else {
                    for p in g {
                        if let Some(t) = setup(p) {
                            self.one(out, *p, t);
                        }
                    }
                    continue;
                };
                let t = [t0, t1, t2, t3];
                let (o, d) = self.rays4(&p);
                let (hits, computed) = hits4(t, self.rays.perspective, &o, &d, self.want);
                for i in 0..4 {
                    if computed >> i & 1 != 0 {
                        Self::write(out, p[i], t[i], &hits[i]);
                    } else {
                        self.one(out, p[i], t[i]);
                    }
                }
            }
        }
        for p in rest {
            if let Some(t) = setup(p) {
                self.one(out, *p, t);
            }
        }
    }
}

/// A batch's pixels in the AVX2 build (see [`Isa::run`]).
struct Pixels<'a, 'b> {
    shared: &'a Shared<'a>,
    setups: &'a Setups,
    pixels: &'a [Waiting],
    out: &'a mut BandOut<'b>,
}

impl Kernel for Pixels<'_, '_> {
    type Out = ();
    #[inline(always)]
    fn run<L: Lanes8>(self, _lanes: L) {
        self.shared.pixels(self.setups, self.pixels, self.out, true);
    }
}

impl Walk {
    /// Puts triangle `id` in slot `s` to be set up by this batch, finds
    /// its mesh and asks for its corner indices, which the flush reads.
    #[inline]
    fn take(&mut self, sh: &Shared, s: usize, id: u32) {
        // (its set-up is made by this batch's flush, before any pixel
        // reads it)
        self.tags[s] = Tag {
            id,
            batch: self.batch,
        };
        let found = sh.meshes.locate(id - 1);
        if let Some((mesh, local)) = found {
            if let Some(c) = sh.meshes.triangles[mesh as usize].get(local as usize) {
                prefetch(c);
            }
        }
        self.todo.push((s as u8, found));
    }

    /// Sets up the batch's new triangles, computes its pixels and starts
    /// the next batch.
    fn flush(&mut self, sh: &Shared, out: &mut BandOut) {
        if self.pixels.is_empty() {
            return;
        }
        // each new triangle's corner indices (fetched since it joined
        // the batch), then its corners (fetched meanwhile) and set-up, in
        // two loops whose reads overlap (module docs)
        let mut found = [None::<(MeshId, [u32; 3])>; BATCH];
        for (f, &(_, at)) in found.iter_mut().zip(&self.todo) {
            *f = at.map(|(mesh, local)| {
                let corners = sh.meshes.triangles[mesh as usize][local as usize];
                let positions = sh.meshes.positions[mesh as usize];
                for i in corners {
                    if let Some(p) = positions.get(i as usize) {
                        prefetch(p);
                    }
                }
                (mesh, corners)
            });
        }
        for (f, &(s, _)) in found.iter().zip(&self.todo) {
            self.setups[s as usize] = f
                .map(|(mesh, corners)| sh.setup(mesh, sh.meshes.positions[mesh as usize], corners));
        }
        self.todo.clear();
        match sh.isa {
            Isa::Base => sh.pixels(&self.setups, &self.pixels, out, false),
            #[allow(unreachable_patterns)]
            isa => isa.run(Pixels {
                shared: sh,
                setups: &self.setups,
                pixels: &self.pixels,
                out,
            }),
        }
        self.pixels.clear();
        self.spare = 0;
        self.batch = self.batch.wrapping_add(1);
    }
}
