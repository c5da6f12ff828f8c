//! Every limit of softpick in one place (llvmpipe's `lp_limits.h`).
//!
//! The limits a user must know (frame size, file sizes, triangle counts)
//! are public, here and nowhere else (`softpick::limits`); the tuning
//! constants of the pipeline are crate-private, so retuning one is not a
//! change of the API. None of the tuning constants changes any output:
//! they decide how work is split and ordered, never what is drawn.

/// Largest frame side accepted by [`crate::Frame::new`], the renderer and
/// the camera.
pub const MAX_FRAME_SIDE: u32 = 16_384;
/// Most pixels of a frame in the browser build (`web/`): 2^25, an
/// 8192 × 4096 view (a 7680 × 4320 screen fits). A frame of the largest
/// sides, 16384², would need over 2 GiB of buffers, past what a page's
/// WebAssembly memory (4 GiB at most) can hold beside the scene.
pub const MAX_WASM_FRAME_PIXELS: u64 = 1 << 25;
/// Guard band: how far (in pixels) outside the viewport a vertex may lie
/// before the triangle is clipped in homogeneous space. With the frame limit
/// this keeps snapped coordinates below 2^23 in magnitude, edge deltas below
/// 2^24 and every edge product below 2^49, far inside i64.
pub(crate) const GUARD_BAND_PX: f32 = 16_384.0;
/// Side of a bin tile in pixels (llvmpipe's `TILE_SIZE`).
pub(crate) const TILE_SIZE: u32 = 64;
/// log2 of [`TILE_SIZE`].
pub(crate) const TILE_ORDER: u32 = 6;
/// Rows of a raster band: the unit of parallel work (one writer per band)
/// and of clearing. A divisor of [`TILE_SIZE`], so a band lies in one row of
/// tiles and draws those tiles' triangles clipped to its rows.
pub(crate) const BAND_ROWS: u32 = 32;
const _: () = assert!(BAND_ROWS > 0 && TILE_SIZE.is_multiple_of(BAND_ROWS));
/// Rows of a band in frames at least [`TALL_FRAME_ROWS`] high: a whole row
/// of tiles, so each tile's bins are walked, and each triangle crossing the
/// middle of a tile drawn, once instead of twice. Shorter frames keep
/// [`BAND_ROWS`], so that two threads still get enough bands to balance.
pub(crate) const TALL_BAND_ROWS: u32 = 64;
const _: () = assert!(TALL_BAND_ROWS >= BAND_ROWS && TILE_SIZE.is_multiple_of(TALL_BAND_ROWS));
/// Height from which a frame is cut into bands of [`TALL_BAND_ROWS`] (at
/// least eight of them).
pub(crate) const TALL_FRAME_ROWS: u32 = 8 * TALL_BAND_ROWS;

/// Rows of the raster bands of a frame `height` pixels high.
#[must_use]
pub(crate) const fn band_rows(height: u32) -> u32 {
    if height >= TALL_FRAME_ROWS {
        TALL_BAND_ROWS
    } else {
        BAND_ROWS
    }
}

/// Largest model file the loaders accept, in bytes (1 GiB), whatever the
/// format (OBJ, STL, PLY, glTF with its buffers): checked before the file
/// is read. A binary STL of this size holds about 21 million facets.
pub const MAX_MODEL_BYTES: u64 = 1 << 30;
/// Most triangles a model file may declare (2^26, about 67 million), and
/// most vertices of a PLY file.
pub const MAX_TRIANGLES: u64 = 1 << 26;
/// Largest `.mtl` file an OBJ file's materials are read from, in bytes
/// (64 MiB); a larger one is skipped with a warning.
pub const MAX_MTL_BYTES: u64 = 64 << 20;

/// Most triangles per setup chunk.
pub(crate) const CHUNK_TRIS: usize = 16_384;
/// Fewest triangles per setup chunk (scenes smaller than this have one chunk).
/// Small enough that a 362-triangle scene is set up in two chunks, so the
/// second thread wakes during setup rather than during the raster pass;
/// large enough to leave few bins per tile to walk.
pub(crate) const MIN_CHUNK_TRIS: usize = 256;

/// Triangles per setup chunk for a scene of `total` triangles: about 16
/// chunks, so mid-size meshes are set up on every core too, within
/// [`MIN_CHUNK_TRIS`]..=[`CHUNK_TRIS`]. A function of the triangle count
/// only, so the output never depends on the number of threads.
#[must_use]
pub(crate) fn chunk_tris(total: usize) -> usize {
    (total / 16)
        .next_power_of_two()
        .clamp(MIN_CHUNK_TRIS, CHUNK_TRIS)
}
/// A chunk's set-up records are stored tile by tile when more than one
/// in `TILE_SORT_SWITCHES` of them lies in another tile than the record
/// before it (draw order scattered over the screen, as in a 3D scan). Below
/// that, records of one tile already come in runs and sorting them costs
/// more than it saves.
pub(crate) const TILE_SORT_SWITCHES: usize = 4;
/// Scenes of fewer triangles are never sorted so: their records (40–120
/// bytes each) stay in a core's cache whatever their order, and sorting
/// only adds work.
pub(crate) const TILE_SORT_MIN_TRIS: u32 = 8_192;
/// Scenes of at least this many triangles per pixel of the frame test each
/// triangle's box for a pixel centre before the call to setup (which makes
/// the same test), saving the call for the triangles that hold none, which
/// are most of any mesh denser than the frame. For sparser scenes the second
/// test costs about what it saves.
pub(crate) const EARLY_EMPTY_TRIS_PER_PIXEL: u64 = 1;
/// Triangles per occlusion chunk: the renderer's occlusion cull
/// (`frame::occlusion`) bounds each run of this many consecutive triangles
/// of a mesh by one object-space box ([`crate::scene::Mesh`]'s chunk
/// boxes) and skips the runs found hidden.
pub(crate) const OCCLUSION_CHUNK_TRIS: usize = 64;
/// Frames of at least this many triangles per thousand pixels are
/// occlusion culled (depth test `Less` or `LessEqual`, no user clip
/// planes; the renderer then keeps culling while the cull pays,
/// [`OCCLUSION_MIN_YIELD`]). Below it few frames hide enough to pay for
/// the chunk boxes and the two passes (1 thread, whole frame, p10: a
/// sphere of 1M triangles at 1920×1080, 0.48 a pixel, 23.2 → 17.9 ms
/// culled, half its triangles hidden; a cull that hides nothing costs
/// city_san_francisco 1080p, 0.13 a pixel, 15.8 → 21 ms, and 640×480
/// 8.8 → 10.6).
pub(crate) const OCCLUSION_TRIS_PER_KPIXEL: u64 = 400;
/// Frames of fewer triangles are never occlusion culled: too few chunks
/// to pay for the occluder pass.
pub(crate) const OCCLUSION_MIN_TRIS: u64 = 32_768;
/// Of a culled frame's occlusion chunks on screen, the share (in per
/// mille) drawn first as occluders: those whose boxes come nearest to the
/// eye. (A sphere of 1M triangles, 1 thread, p10 ms of the frame at
/// 1920×1080 and 640×480: 150‰ 18.1–19.4 and 10.0–10.5, 250‰ 14.9–17.5
/// and 8.7–9.3, 325‰ 14.5–16.1 and 8.6–8.7, 400‰ 14.4–16.4 and 8.4–9.3,
/// 600‰ 15.3–15.4 and 8.9–9.2: occluders drawn once cost no more than
/// the second pass would.)
pub(crate) const OCCLUDER_PERMILLE: u64 = 350;
/// A render whose cull skipped fewer than one in this many of the
/// triangles makes the renderer draw its next [`OCCLUSION_RETRY`] frames
/// without it (a scene seen with little hidden, or chunks whose boxes are
/// too loose, pays the occluder pass for nothing: samurai_monastry at
/// 640×480, a tenth of its triangles culled, 3.3 → 3.6 ms; sphere70k, a
/// quarter, 2.5 → 2.2 ms; 1 thread, p10).
pub(crate) const OCCLUSION_MIN_YIELD: u64 = 5;
/// See [`OCCLUSION_MIN_YIELD`].
pub(crate) const OCCLUSION_RETRY: u32 = 15;
/// Side in pixels of the squares whose farthest occluder depth a chunk's
/// box is tested against.
pub(crate) const OCCLUSION_TILE: u32 = 8;
/// Vertices the vertex stage takes at a time: first their clip
/// coordinates, then their outcodes and snapped window positions, so that
/// many vertices' long chains from matrix to snap are in flight at once.
pub(crate) const VERTEX_BLOCK: usize = 64;
/// Scenes of at least this many meshes have their per-frame world
/// matrices and ray transforms made in parallel (a pure function per
/// mesh: the result does not depend on it); below, the parallel dispatch
/// costs more than it saves.
pub(crate) const PAR_MESHES: usize = 1_024;
/// Vertices per parallel work item of the vertex stage.
pub(crate) const CHUNK_VERTS: usize = 8_192;
/// A mesh range of more triangles than this is sampled at this many pairs
/// of consecutive triangles to tell whether its draw order jumps around
/// its vertices (the render's `scattered`).
pub(crate) const SCATTER_SAMPLES: usize = 256;
/// Average distance, in vertices, between the first vertices of
/// consecutive triangles from which a mesh's draw order counts as
/// scattered, and setup prefetches vertex records (64 vertices are 1.5 KB
/// of records: beyond the lines next to the last ones read, which the
/// hardware fetches on its own).
pub(crate) const SCATTERED_JUMP: u64 = 64;
/// How many triangles ahead setup prefetches the vertex records of a
/// scattered mesh: far enough for the memory read to arrive in time, near
/// enough that the line is still in the cache when it is used.
pub(crate) const PREFETCH_TRIS: usize = 8;
/// Scenes of at least this many vertices have setup prefetch the vertex
/// records of every mesh, not only of scattered ones: the records of
/// 32,768 vertices (24 bytes each) are 768 KB, about a core's L2 cache,
/// and beyond that the records the vertex stage wrote have left the
/// caches near the core by the time setup reads them, even in draw order,
/// where the batches' vertex loads then wait on each (sphere1m's setup and
/// binning 16 % faster, city_san_francisco's 5 %; sphere70k, 35k
/// vertices, the same either way).
pub(crate) const PREFETCH_MIN_VERTS: usize = 1 << 15;
/// How many entries of a tile's bin ahead the raster stage prefetches a
/// set-up record, in a pass of more than [`RECORD_PREFETCH_MIN`]
/// records: a bin's records lie apart in the chunks' lists, written by
/// the bin stage long before (city_san_francisco 640×480: raster stage
/// 7 % faster).
pub(crate) const RECORD_PREFETCH_ENTRIES: usize = 8;
/// The fewest records of a pass (all its chunks: every chunk is set up
/// before the first tile is drawn) for the raster stage to prefetch them:
/// fewer (about 160 KB) stay in the caches from the bin stage, and the
/// prefetches only add work. (Counted per chunk before, a frame of many
/// chunks of a few thousand records each, sphere1m's, read each record
/// from memory unprefetched.)
pub(crate) const RECORD_PREFETCH_MIN: usize = 4096;
/// A triangle drawn over at least this many rows of a tile gets its spans
/// stepped from row to row (two divisions per edge, then integer steps);
/// shorter ones divide per row (three divisions per row), which is fewer
/// for one or two rows.
pub(crate) const STEP_SPAN_ROWS: i32 = 4;
/// Triangles narrower than this (pixel box) have their spans drawn four
/// pixels at a time in masked f32 lanes; wider ones by a plain loop over
/// each span that the compiler vectorizes, which is faster for long spans.
pub(crate) const WIDE_TRI_PX: i32 = 16;

/// A refit BVH is rebuilt instead when the total surface area of its boxes
/// grows past this multiple of the area it had when it was built: boxes
/// that have grown that much overlap, and rays then visit many of them
/// (`Bvh::refit`).
pub(crate) const REFIT_AREA_LIMIT: f32 = 2.0;

/// User clip planes a mesh may have, its own and those of every mesh
/// together ([`crate::ClipPlanes`]): each can add a vertex to a clipped
/// triangle, and the clipper holds polygons of up to 8 + this many.
pub const MAX_CLIP_PLANES: usize = 8;

/// Triangles from which [`crate::RayCaster::first_hits`] walks the scene's
/// flat BVH eight rays at a time, interleaved step by step (the same
/// answers; `accel::bvh::INTERLEAVE`): below it the tree stays mostly in
/// cache and the book-keeping of the turns costs more than the overlapped
/// misses save. CPU ns a ray, 1M random rays, 1 thread, each ray alone →
/// eight interleaved: snowden_bust (109k triangles) 367, 377 → 400, 427;
/// city_san_francisco (268k) 583, 580 → 420, 410; sphere1m 650, 737 →
/// 463, 443 (four interleaved: 390, 397; 533, 483; 493, 533).
pub(crate) const INTERLEAVE_MIN_TRIS: usize = 200_000;

/// Scenes of up to this many meshes find the mesh of a global triangle
/// (a flat-BVH ray hit's) by counting the meshes whose first triangle is
/// at or below it, branch-free (`Scene::locate_from`); larger ones search
/// from the last hit's mesh. Random rays in a small scene rarely hit the
/// last ray's mesh, so the hinted search mispredicts there (builtin, 22
/// meshes: about 5 ns a ray of the 40 around the walk before the count).
pub(crate) const LOCATE_COUNT_MESHES: usize = 32;
