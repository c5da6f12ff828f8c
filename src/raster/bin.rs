//! Binning (llvmpipe's `lp_setup_bin_triangle`): the triangles, in fixed
//! chunks of the global draw order, are culled by their outcodes, clipped
//! where they need it, set up and appended, in draw order, to the bin of
//! every 64×64 tile they may cover. A chunk's bins and set-up records are
//! one [`BinnedChunk`]; chunks are binned in parallel, and their size
//! depends on the triangle count only, so the bins never depend on the
//! thread count. With color, [`super::shade`] colors each chunk's records.
//!
//! This file holds the stage's frame (the chunks, [`BinStage::run`]), the
//! bins and the tile sort; which tiles a record may cover is
//! [`super::grid`] (tiles whose pixel rectangle lies entirely outside one
//! edge are rejected with one corner evaluation per edge); how a mesh's
//! triangles reach setup (batches, one at a time, clipping, user clip
//! planes) is [`super::front`].

use crate::par::prelude::*;
use glam::{Mat4, Vec3};

use super::clip::Guard;
use super::grid::{bin_small, bin_triangle, TileGrid};
use super::rules::{snap, FillRule, GUARD_BAND_PX};
use super::setup::{self, Rejected, SetupRecord, SmallTri, Tri, TriSetup, WinVertex};
use super::shade;
use super::simd;
use super::stats::Stats;
use super::vertex::SetupVertex;
use crate::camera::Camera;
use crate::cpu::Avx2;
use crate::geometry::{ClipPlanes, CullMode};
use crate::limits::{
    EARLY_EMPTY_TRIS_PER_PIXEL, OCCLUSION_CHUNK_TRIS, PREFETCH_MIN_VERTS, SCATTERED_JUMP,
    SCATTER_SAMPLES, TILE_SORT_MIN_TRIS, TILE_SORT_SWITCHES,
};
use crate::scene::{palette_color, Mesh, Scene};

/// The bins and set-up records of one chunk of triangles: per tile, the
/// entries of the chunk's triangles that may cover it, in draw order. An
/// entry is an index into `tris`, or, with [`BinnedChunk::SMALL`] set,
/// into `small`.
#[derive(Clone, Debug, Default)]
pub(crate) struct BinnedChunk {
    pub(crate) tris: Vec<TriSetup>,
    pub(crate) small: Vec<SmallTri>,
    pub(crate) bins: Vec<Vec<u32>>,
    pub(crate) stats: Stats,
    /// Scratch of [`sort_by_tile`], kept for the next render.
    pub(crate) sort: TileSortScratch,
    /// Per bin, its entries from the occluder pass ([`ChunkPick`]): the
    /// second pass's follow them until [`merge_split_bins`] puts them back
    /// in draw order.
    pub(crate) split: Vec<u32>,
    /// Scratch of [`merge_bins`].
    pub(crate) merge: Vec<u32>,
}

/// The two forms of a set-up record, stored in separate arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RecordForm {
    /// A [`TriSetup`].
    Big = 0,
    /// A [`SmallTri`].
    Small = 1,
}

/// The buffers [`sort_by_tile`] reuses from render to render.
/// Scratch only: a clone starts empty (a cloned frame does not copy them).
#[derive(Debug, Default)]
pub(crate) struct TileSortScratch {
    pub(crate) tris: Vec<TriSetup>,
    pub(crate) small: Vec<SmallTri>,
    pub(crate) new_index: Vec<u32>,
    pub(crate) starts: Vec<u32>,
    /// Records stored in another tile than the one before of their form,
    /// counted as setup stores them.
    pub(crate) switches: usize,
    /// Per [`RecordForm`], the tile of the last record stored.
    pub(crate) last: [usize; 2],
}

impl Clone for TileSortScratch {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl TileSortScratch {
    /// Counts a record of `form` stored in `tile`.
    #[inline(always)]
    pub(crate) fn count_stored(&mut self, form: RecordForm, tile: usize) {
        let last = &mut self.last[form as usize];
        self.switches += usize::from(*last != tile);
        *last = tile;
    }

    /// Forgets the records counted.
    pub(crate) fn restart(&mut self) {
        self.switches = 0;
        self.last = [usize::MAX; 2];
    }
}

impl BinnedChunk {
    /// Tag bit of a bin entry naming a [`SmallTri`].
    pub(crate) const SMALL: u32 = 1 << 31;

    /// The triangle a bin entry names.
    #[inline]
    pub(crate) fn get(&self, entry: u32) -> Option<Tri<'_>> {
        if entry & Self::SMALL != 0 {
            self.small
                .get((entry & !Self::SMALL) as usize)
                .map(Tri::Small)
        } else {
            self.tris.get(entry as usize).map(Tri::Big)
        }
    }

    /// Number of set-up triangles (both forms).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.tris.len() + self.small.len()
    }

    /// A dense index 0..len() of a bin entry.
    #[inline]
    pub(crate) fn slot(&self, entry: u32) -> usize {
        if entry & Self::SMALL != 0 {
            self.tris.len() + (entry & !Self::SMALL) as usize
        } else {
            entry as usize
        }
    }

    /// Every set-up triangle (big ones first, then small ones; not in draw order).
    pub(crate) fn iter(&self) -> impl Iterator<Item = Tri<'_>> {
        self.tris
            .iter()
            .map(Tri::Big)
            .chain(self.small.iter().map(Tri::Small))
    }
}

/// When binning stores a chunk's records tile by tile ([`sort_by_tile`]):
/// the renderer decides (`Auto`); the tests force either way, and check
/// that the frames are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TileSort {
    /// Scenes of at least [`TILE_SORT_MIN_TRIS`] triangles, chunks whose
    /// records change tile often enough ([`TILE_SORT_SWITCHES`]).
    Auto,
    #[cfg(test)]
    Always,
    #[cfg(test)]
    Never,
}

/// Whether setup's empty-box test is made first, inline
/// ([`BinStage::emit`]): the renderer decides (`Auto`); the tests also
/// force it off, and check that the frames are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EarlyEmpty {
    /// Scenes of at least [`EARLY_EMPTY_TRIS_PER_PIXEL`] triangles per
    /// pixel, under a rule that draws no zero-area lines.
    Auto,
    #[cfg(test)]
    Never,
}

impl EarlyEmpty {
    /// Whether the test is on for `triangles` drawn under `rule` into a
    /// `width` × `height` frame.
    pub(crate) fn enabled(self, rule: FillRule, triangles: usize, width: u32, height: u32) -> bool {
        match self {
            EarlyEmpty::Auto => {
                rule != FillRule::Inclusive
                    && triangles as u64
                        >= EARLY_EMPTY_TRIS_PER_PIXEL * u64::from(width) * u64::from(height)
            }
            #[cfg(test)]
            EarlyEmpty::Never => false,
        }
    }
}

/// How the triangles reach setup: in batches triaged side by side
/// ([`super::batch`], always), or one at a time (the loop before it, kept
/// for the tests as the reference the batches must equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrontEnd {
    /// [`super::batch::LANES`] triangles at a time, in the AVX2 build when the CPU has
    /// it ([`simd`]).
    Batches,
    /// The same in the baseline build.
    #[cfg(test)]
    BaselineBatches,
    /// One triangle at a time (baseline build).
    #[cfg(test)]
    PerTriangle,
}

/// The pass of an occlusion chunk (a run of
/// [`crate::limits::OCCLUSION_CHUNK_TRIS`] triangles of a mesh) in a
/// render that culls them ([`ChunkPick`]).
pub(crate) mod pass {
    /// Drawn first, into the depth buffer the others are tested against.
    pub(crate) const OCCLUDER: u8 = 0;
    /// Drawn in the second pass.
    pub(crate) const DRAW: u8 = 1;
    /// Hidden: never set up.
    pub(crate) const CULLED: u8 = 2;
}

/// Which triangles a [`BinStage`] sets up when the renderer culls hidden
/// runs of them (`frame::occlusion`): binning runs twice, first the
/// occluders into emptied chunks, then the triangles that survived the
/// cull, added to the same chunks (each chunk still a range of the draw
/// order), whose bins are then merged back into draw order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkPick<'a> {
    /// Per occlusion chunk, mesh after mesh, its pass ([`pass`]).
    pub pass_of: &'a [u8],
    /// Per mesh, the index in `pass_of` of its first occlusion chunk.
    pub first: &'a [u32],
    /// The pass this binning sets up.
    pub pass: u8,
    /// The second pass: add to the first pass's records, shade and sort;
    /// each bin's entries stay split in two runs, the first pass's and
    /// this one's, until [`merge_split_bins`].
    pub second: bool,
}

/// The clip, setup and bin stages of one render over the scene's
/// triangles, from the vertex stage's records.
pub(crate) struct BinStage<'a> {
    pub scene: &'a Scene,
    pub camera: &'a Camera,
    pub rule: FillRule,
    pub cull: CullMode,
    /// Shade the set-up records (the color pass).
    pub color: bool,
    pub guard: Guard,
    /// Triangles per chunk ([`crate::limits::chunk_tris`]).
    pub per_chunk: usize,
    /// Per mesh, the index of its first vertex in `verts` and `world_pos`.
    pub offsets: &'a [u32],
    pub verts: &'a [SetupVertex],
    /// World positions of the vertices (color only, else empty).
    pub world_pos: &'a [Vec3],
    pub worlds: &'a [Mat4],
    pub view_proj: Mat4,
    pub grid: TileGrid,
    pub tile_sort: TileSort,
    /// Test each triangle for an empty box before setup (a dense scene
    /// under a rule that draws no zero-area lines; see
    /// [`crate::limits::EARLY_EMPTY_TRIS_PER_PIXEL`]).
    pub early_empty: bool,
    /// How triangles reach setup.
    pub front_end: FrontEnd,
    /// User clip planes (world space).
    pub clip: Option<&'a ClipPlanes>,
}

impl BinStage<'_> {
    /// Bins every chunk of the scene's triangles into `chunks` (one per
    /// [`BinStage::per_chunk`] triangles, reusing their memory), in
    /// parallel, and returns their counters summed.
    #[inline]
    /// `pick`: only the triangles of some occlusion chunks (the occlusion
    /// cull's two passes), or all.
    pub(crate) fn run(&self, chunks: &mut Vec<BinnedChunk>, pick: Option<ChunkPick<'_>>) -> Stats {
        let nchunks = (self.scene.triangle_count() as usize).div_ceil(self.per_chunk);
        chunks.resize_with(nchunks, BinnedChunk::default);
        #[cfg(test)]
        let baseline = self.front_end != FrontEnd::Batches;
        #[cfg(not(test))]
        let baseline = false;
        chunks.par_iter_mut().enumerate().for_each(|(ci, chunk)| {
            simd::dispatch(
                baseline,
                #[inline(always)]
                |avx2| self.bin_chunk(ci, chunk, avx2, pick),
            )
        });
        let mut stats = Stats::default();
        for c in chunks.iter() {
            stats.add(&c.stats);
        }
        stats
    }

    /// Chunk `ci`: its triangles culled, clipped, set up, binned (and
    /// shaded), its records sorted by tile where that pays. (Inlined into
    /// both builds of [`simd::dispatch`].) Each mesh's part goes through
    /// the front end ([`super::front`]).
    /// `avx2`: in the AVX2 build, whose triangle batches use it.
    #[inline(always)]
    pub(crate) fn bin_chunk(
        &self,
        ci: usize,
        chunk: &mut BinnedChunk,
        avx2: Option<Avx2>,
        pick: Option<ChunkPick<'_>>,
    ) {
        // (wasm32 renders never cull, see `frame::render`: the two-pass
        // code is left out of the browser module)
        let pick = if cfg!(target_arch = "wasm32") {
            None
        } else {
            pick
        };
        let second = pick.is_some_and(|p| p.second);
        // the records this call adds (and shades) start here
        let from = (chunk.tris.len(), chunk.small.len());
        if second {
            // where the first pass's entries end
            chunk.split.clear();
            chunk
                .split
                .extend(chunk.bins.iter().map(|b| b.len() as u32));
        } else {
            chunk.tris.clear();
            chunk.small.clear();
            chunk.sort.restart();
            chunk.bins.resize_with(self.grid.count(), Vec::new);
            for b in &mut chunk.bins {
                b.clear();
            }
        }
        let from = if second { from } else { (0, 0) };
        let mut st = Stats::default();
        let start = ci * self.per_chunk;
        let end = ((ci + 1) * self.per_chunk).min(self.scene.triangle_count() as usize);
        let offs = self.scene.triangle_offsets();
        let first_mesh = offs.partition_point(|&o| o as usize <= start) - 1;
        let meshes = &self.scene.meshes()[first_mesh..];
        // the chunk's triangles, mesh by mesh: (mesh index, local range)
        let spans = meshes.iter().enumerate().map_while(|(k, mesh)| {
            let m = first_mesh + k;
            let (lo, hi) = (offs[m] as usize, offs[m + 1] as usize);
            (lo < end).then(|| (m, mesh, start.max(lo) - lo..end.min(hi) - lo))
        });
        for (m, mesh, range) in spans {
            Mesh::prefetch_ahead(self.scene.meshes(), m, Mesh::prefetch_triangles);
            // (prefetch the vertex records ahead: a scene whose records
            // outgrow the caches near the core, or a scattered draw order)
            let prefetch = self.verts.len() >= PREFETCH_MIN_VERTS
                || scattered(&mesh.triangles()[range.clone()]);
            // the whole range, or with a pick each maximal run of the
            // range's occlusion chunks in this pass, in order (one call
            // site of the inlined front end, so its code is there once)
            let mut at = range.start;
            while at < range.end {
                let run = match pick {
                    None => {
                        at = range.end;
                        range.clone()
                    }
                    Some(p) => {
                        let base = p.first[m] as usize;
                        let in_pass =
                            |a: usize| p.pass_of[base + a / OCCLUSION_CHUNK_TRIS] == p.pass;
                        let next = |a: usize| {
                            ((a / OCCLUSION_CHUNK_TRIS + 1) * OCCLUSION_CHUNK_TRIS).min(range.end)
                        };
                        while at < range.end && !in_pass(at) {
                            at = next(at);
                        }
                        let start = at;
                        while at < range.end && in_pass(at) {
                            at = next(at);
                        }
                        start..at
                    }
                };
                if !run.is_empty() {
                    self.mesh_range(m, run, prefetch, chunk, &mut st, avx2);
                }
            }
        }
        if self.color {
            // flat shading of what survived setup, from the records (see
            // `shade`), those of this call (each pass's are in draw order)
            let shader = shade::Shader {
                scene: self.scene,
                offsets: self.offsets,
                world_pos: self.world_pos,
                camera: self.camera,
            };
            shader.shade_records(&mut chunk.tris[from.0..]);
            shader.shade_records(&mut chunk.small[from.1..]);
        }
        match pick {
            Some(p) if !p.second => {
                // the occluders only: sorted with the rest
                chunk.stats = st;
                return;
            }
            Some(_) => {
                // (the bins stay split, for the survivors' raster, until
                // `merge_split_bins`)
                st.add(&chunk.stats);
            }
            None => {}
        }
        // (after the shading, which walks the records in draw order)
        match self.tile_sort {
            TileSort::Auto if self.scene.triangle_count() >= TILE_SORT_MIN_TRIS => {
                sort_by_tile(chunk, self.grid, false);
            }
            TileSort::Auto => {}
            #[cfg(test)]
            TileSort::Always => sort_by_tile(chunk, self.grid, true),
            #[cfg(test)]
            TileSort::Never => {}
        }
        chunk.stats = st;
    }

    /// Triangles `range` (mesh-local) of mesh `m` through the front end;
    /// `prefetch`: setup asks for the vertex records ahead (the scene's
    /// records are many, [`PREFETCH_MIN_VERTS`], or the mesh's draw order
    /// jumps around its vertices, [`scattered`]).
    #[inline(always)]
    fn mesh_range(
        &self,
        m: usize,
        range: std::ops::Range<usize>,
        prefetch: bool,
        chunk: &mut BinnedChunk,
        st: &mut Stats,
        avx2: Option<Avx2>,
    ) {
        let tris = &self.scene.meshes()[m].triangles()[range.clone()];
        let first = self.scene.triangle_offsets()[m] as usize + range.start;
        // a mesh with user clip planes takes the one-at-a-time loop
        // (the batches' triage knows the frustum only)
        if let Some(user) = self.user_planes(m) {
            self.mesh_triangles::<true>(m, tris, first, chunk, st, Some(&user));
            return;
        }
        match self.front_end {
            #[cfg(test)]
            FrontEnd::PerTriangle => {
                self.mesh_triangles::<false>(m, tris, first, chunk, st, None);
            }
            _ if prefetch => self.mesh_batches::<true>(m, tris, first, chunk, st, avx2),
            _ => self.mesh_batches::<false>(m, tris, first, chunk, st, avx2),
        }
    }
}

/// Puts the bins of chunks binned in two passes ([`ChunkPick`]) back in
/// draw order, in parallel (after the survivors' raster, which reads them
/// split).
pub(crate) fn merge_split_bins(chunks: &mut [BinnedChunk]) {
    chunks.par_iter_mut().for_each(merge_bins);
}

/// Puts each bin of a chunk binned in two passes ([`ChunkPick`]) back in
/// draw order: its first `split` entries (the occluders') and the rest
/// are each in draw order, and no triangle is in both, so a merge by
/// triangle id gives the order one pass over all of them would have
/// (the pieces of one clipped triangle stay in the order they came).
/// The records' sort by tile may come before: it renumbers entries in
/// place, leaving each bin's order and split as they were.
fn merge_bins(chunk: &mut BinnedChunk) {
    let BinnedChunk {
        tris,
        small,
        bins,
        split,
        merge,
        ..
    } = chunk;
    let id = |e: u32| {
        if e & BinnedChunk::SMALL != 0 {
            small[(e & !BinnedChunk::SMALL) as usize].id
        } else {
            tris[e as usize].id
        }
    };
    for (bin, &s) in bins.iter_mut().zip(split.iter()) {
        let s = s as usize;
        if s == 0 || s == bin.len() {
            continue;
        }
        merge.clear();
        merge.extend_from_slice(&bin[..s]);
        // writing at `o` never overtakes reading at `j` (o = i + j - s)
        let (mut i, mut j, mut o) = (0, s, 0);
        while i < merge.len() && j < bin.len() {
            if id(bin[j]) < id(merge[i]) {
                bin[o] = bin[j];
                j += 1;
            } else {
                bin[o] = merge[i];
                i += 1;
            }
            o += 1;
        }
        bin[o..o + merge.len() - i].copy_from_slice(&merge[i..]);
    }
}

/// Sets up and bins 2D triangles given in window coordinates (pixels, y
/// down) into one chunk, each colored by its palette color; non-finite
/// or out-of-guard-band coordinates drop the triangle (see
/// `frame::render::render_2d`).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub(crate) fn bin_window_triangles(
    tris: &[[[f32; 2]; 3]],
    rule: FillRule,
    width: u32,
    height: u32,
    grid: TileGrid,
) -> BinnedChunk {
    let mut chunk = BinnedChunk::default();
    chunk.bins.resize_with(grid.count(), Vec::new);
    let lim = 2.0 * GUARD_BAND_PX;
    for (id, t) in tris.iter().enumerate() {
        chunk.stats.triangles += 1;
        if !t.iter().flatten().all(|c| c.is_finite() && c.abs() <= lim) {
            chunk.stats.invalid += 1;
            continue;
        }
        let v = t.map(|[x, y]| WinVertex {
            x,
            y,
            z: 0.5,
            fx: snap(x) as i32,
            fy: snap(y) as i32,
        });
        let [r, g, b] = palette_color(id as u32);
        let color = (u32::from(r) << 16) | (u32::from(g) << 8) | u32::from(b);
        let res = setup::setup::<false>(
            [&v[0], &v[1], &v[2]],
            rule,
            CullMode::None,
            width,
            height,
            id as u32,
            color,
        );
        let mut st = chunk.stats;
        push_setup(&mut chunk, res, grid, &mut st);
        chunk.stats = st;
    }
    chunk
}

/// Does the draw order of `tris` jump around their vertices? Samples up
/// to [`SCATTER_SAMPLES`] pairs of consecutive triangles spread over the
/// range: their first vertices lie [`SCATTERED_JUMP`] or more apart on
/// average (as in a scan, whose draw order jumps by thousands of
/// vertices; a mesh generated or modelled in order jumps by a few).
/// Ranges of at most [`SCATTER_SAMPLES`] triangles are not (prefetching
/// would not pay).
/// A hint only: the records set up are the same either way.
pub(crate) fn scattered(tris: &[[u32; 3]]) -> bool {
    let n = tris.len();
    if n <= SCATTER_SAMPLES {
        return false;
    }
    let stride = (n - 1) / SCATTER_SAMPLES;
    let jumps: u64 = (0..SCATTER_SAMPLES)
        .map(|s| {
            let k = s * stride;
            u64::from(tris[k + 1][0].abs_diff(tris[k][0]))
        })
        .sum();
    jumps >= SCATTERED_JUMP * SCATTER_SAMPLES as u64
}

/// Bins and stores a set-up triangle, or counts why there is none.
#[inline(always)]
pub(super) fn push_setup(
    chunk: &mut BinnedChunk,
    res: Result<SetupRecord, Rejected>,
    grid: TileGrid,
    st: &mut Stats,
) {
    // (each record is stored first and binned from where it is stored:
    // binned from a copy on the stack, the store's wide reads of that
    // copy waited on the narrow writes that made it)
    match res {
        Ok(SetupRecord::Big(s)) => {
            let idx = chunk.tris.len();
            chunk.tris.push(s);
            if let Some(s) = chunk.tris.last() {
                st.bin_entries += u64::from(bin_triangle(s, idx as u32, grid, &mut chunk.bins));
                chunk.sort.count_stored(RecordForm::Big, big_tile(grid, s));
            }
            st.setups += 1;
        }
        Ok(SetupRecord::Small(s)) => push_small(chunk, s, grid, st),
        Err(Rejected::ZeroArea) => st.zero_area += 1,
        Err(Rejected::Culled) => st.face_culled += 1,
        Err(Rejected::Empty) => st.empty += 1,
    }
}

/// Bins and stores a small record.
#[inline(always)]
pub(super) fn push_small(chunk: &mut BinnedChunk, s: SmallTri, grid: TileGrid, st: &mut Stats) {
    let idx = chunk.small.len();
    chunk.small.push(s);
    if let Some(s) = chunk.small.last() {
        let entry = idx as u32 | BinnedChunk::SMALL;
        st.bin_entries += u64::from(bin_small(s, entry, grid, &mut chunk.bins));
        chunk
            .sort
            .count_stored(RecordForm::Small, small_tile(grid, s));
    }
    st.setups += 1;
    st.small += 1;
}

/// Stores a chunk's records tile by tile (by the tile of each box corner,
/// tiles in raster order; in draw order within a tile) and renames the
/// bins' entries to match, so that the tile rasterizer reads a tile's
/// records from consecutive memory. Setup writes them in draw order, which
/// for a mesh whose triangles are not listed by place (a scan, say) makes
/// the rasterizer's record reads land all over the chunk, each a cache
/// miss. The bins keep their order, so
/// nothing drawn changes. Unless `force`d, only when the records change
/// tile often enough ([`TILE_SORT_SWITCHES`]).
pub(crate) fn sort_by_tile(chunk: &mut BinnedChunk, grid: TileGrid, force: bool) {
    let BinnedChunk {
        tris,
        small,
        bins,
        sort,
        ..
    } = chunk;
    if !force && sort.switches * TILE_SORT_SWITCHES <= tris.len() + small.len() {
        return;
    }
    let big = |t: &TriSetup| big_tile(grid, t);
    let little = |t: &SmallTri| small_tile(grid, t);
    // the new index of each record at its old one: big ones, then small ones
    sort.new_index.clear();
    let starts = &mut sort.starts;
    reorder(tris, &mut sort.tris, starts, &mut sort.new_index, grid, big);
    let base = sort.new_index.len();
    reorder(
        small,
        &mut sort.small,
        starts,
        &mut sort.new_index,
        grid,
        little,
    );
    let new_index = &sort.new_index;
    for bin in bins.iter_mut() {
        for e in bin.iter_mut() {
            *e = if *e & BinnedChunk::SMALL != 0 {
                new_index[base + (*e & !BinnedChunk::SMALL) as usize] | BinnedChunk::SMALL
            } else {
                new_index[*e as usize]
            };
        }
    }
}

/// The tile a big record is stored by: that of its box corner.
#[inline(always)]
pub(crate) fn big_tile(grid: TileGrid, t: &TriSetup) -> usize {
    grid.tile_of(t.bbox[0] as u32, t.bbox[1] as u32)
}

/// The tile a small record is stored by: that of its box corner.
#[inline(always)]
pub(crate) fn small_tile(grid: TileGrid, t: &SmallTri) -> usize {
    grid.tile_of(u32::from(t.x0), u32::from(t.y0))
}

/// Reorders `recs` by `key` (a stable counting sort over the tiles, with
/// `spare` and `starts` as scratch) and appends each record's new index to
/// `new_index`, in the old order.
fn reorder<T: Copy + Default>(
    recs: &mut Vec<T>,
    spare: &mut Vec<T>,
    starts: &mut Vec<u32>,
    new_index: &mut Vec<u32>,
    grid: TileGrid,
    key: impl Fn(&T) -> usize,
) {
    starts.clear();
    starts.resize(grid.count() + 1, 0);
    for t in recs.iter() {
        starts[key(t) + 1] += 1;
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    spare.clear();
    spare.resize(recs.len(), T::default());
    for t in recs.iter() {
        let k = key(t);
        let at = starts[k];
        starts[k] += 1;
        spare[at as usize] = *t;
        new_index.push(at);
    }
    std::mem::swap(recs, spare);
}
