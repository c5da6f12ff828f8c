//! The packet walks of the mesh BVH: four rays at a time
//! ([`Bvh::first_hit_x4`], each ray testing a node's eight children at
//! once) and, in the AVX2 build, eight at a time ([`Bvh::first_hit_x8`],
//! the rays side by side against one child box per test). Each ray keeps
//! its own box decisions, pruning bound and closest hit, so every lane's
//! answer is its one-ray walk's ([`Bvh::first_hit_in`]).

use glam::{Vec3, Vec4};

use super::traverse::{insert_desc, keep_closest, set_bits, MeshStack, NodeTest, Stack};
use super::{Bvh, Node, NodeRef, WIDTH};
use crate::accel::triangle::{Pack4Ray, RayPrecomp, TriHit};
use crate::cpu::{Avx2, Isa, Kernel, Lanes8};
use crate::geometry::{CullMode, FAR_SLACK};

/// The traversal stack of [`Bvh::first_hit_x4`]: (node or first primitive,
/// count, the rays entering it as a bit mask, their entry distances).
pub(crate) type PacketStack = Stack<(u32, u32, u32, Vec4), 16>;

/// The traversal stack of [`Bvh::first_hit_x8`]: (node or first primitive,
/// count, the rays entering it as a bit mask, their entry distances).
pub(crate) type Packet8Stack = Stack<(u32, u32, u32, [f32; 8]), 16>;

/// Eight rays `origin + t * dir` side by side: per axis, the eight origins'
/// and directions' components (lanes: rays), for [`Bvh::first_hit_x8`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Rays8 {
    pub(crate) o: [[f32; 8]; 3],
    pub(crate) d: [[f32; 8]; 3],
}

impl Rays8 {
    /// Ray `r`'s origin.
    #[inline(always)]
    pub(crate) fn origin(&self, r: usize) -> Vec3 {
        Vec3::new(self.o[0][r], self.o[1][r], self.o[2][r])
    }

    /// Ray `r`'s direction.
    #[inline(always)]
    pub(crate) fn dir(&self, r: usize) -> Vec3 {
        Vec3::new(self.d[0][r], self.d[1][r], self.d[2][r])
    }

    /// Sets ray `r`.
    #[cfg(test)]
    pub(crate) fn set(&mut self, r: usize, origin: Vec3, dir: Vec3) {
        for (a, (o, d)) in [(origin.x, dir.x), (origin.y, dir.y), (origin.z, dir.z)]
            .into_iter()
            .enumerate()
        {
            self.o[a][r] = o;
            self.d[a][r] = d;
        }
    }
}

/// Eight rays' box-test constants side by side (lanes: rays), for
/// [`Bvh::first_hit_x8`]: per lane, the very operations [`NodeTest::test`]
/// makes for that ray, one child at a time instead of eight children at
/// once, so every decision and entry distance is the same. The rays'
/// direction components share their signs (so do their entry planes).
struct Packet8 {
    o: [[f32; 8]; 3],
    inv_near: [[f32; 8]; 3],
    inv_far: [[f32; 8]; 3],
    neg: [bool; 3],
    t_min: f32,
    avx2: Avx2,
}

impl Packet8 {
    /// The packet of `rays` with inverse directions `inv`; `None` unless
    /// every live ray (bit r of `live`) has a finite inverse direction, with
    /// the same signs as the others'. (The lanes outside `live` hold
    /// whatever they hold: their results are never read.)
    #[inline(always)]
    fn new(
        rays: &Rays8,
        inv: &[[f32; 8]; 3],
        live: u32,
        t_min: f32,
        avx2: Avx2,
    ) -> Option<Packet8> {
        // (lane loops and eight-lane masks: no per-lane branches)
        let mut zero = [0f32; 8];
        for i in inv {
            for r in 0..8 {
                zero[r] += i[r] * 0.0; // NaN unless finite
            }
        }
        if live & !avx2.le_mask(&zero, &[0.0; 8]) != 0 {
            return None;
        }
        let mut neg = [false; 3];
        for (a, i) in inv.iter().enumerate() {
            let negative = !avx2.le_mask(&[0.0; 8], i) & live;
            if negative != 0 && negative != live {
                return None;
            }
            neg[a] = negative != 0;
        }
        let (lo, hi) = (1.0 - FAR_SLACK, 1.0 + FAR_SLACK);
        let mut p = Packet8 {
            o: rays.o,
            inv_near: *inv,
            inv_far: *inv,
            neg,
            t_min,
            avx2,
        };
        for a in 0..3 {
            for r in 0..8 {
                p.inv_near[a][r] *= lo;
                p.inv_far[a][r] *= hi;
            }
        }
        Some(p)
    }

    /// Child `K` of `q` against the eight rays, each within
    /// `[t_min, prune[lane]]`: the rays entering it (bit mask) and their
    /// entry distances (`+inf` in the lanes that miss it).
    #[inline(always)]
    fn test<const K: usize>(&self, q: &Node, prune: &[f32; 8]) -> (u32, [f32; 8]) {
        let mut near = [self.t_min; 8];
        let mut far = *prune;
        for a in 0..3 {
            let neg = usize::from(self.neg[a]);
            let (pn, pf) = (q.planes[a + 3 * neg][K], q.planes[a + 3 * (1 - neg)][K]);
            let (o, i_n, i_f) = (&self.o[a], &self.inv_near[a], &self.inv_far[a]);
            for r in 0..8 {
                // (`max`/`min` as `Vec4::max`/`min` compute them, the
                // comparisons written out so that they compile to single
                // instructions)
                let n = (pn - o[r]) * i_n[r];
                let f = (pf - o[r]) * i_f[r];
                near[r] = if near[r] > n { near[r] } else { n };
                far[r] = if far[r] < f { far[r] } else { f };
            }
        }
        self.avx2.le_select(&near, &far)
    }
}

/// [`Bvh::first_hit_x4`]'s walk, run on the lanes of an instruction set.
pub(super) struct Walk4<'a, 'r> {
    pub(super) bvh: &'a Bvh,
    pub(super) rays: [Option<(&'r RayPrecomp, CullMode)>; 4],
    pub(super) t_min: f32,
    pub(super) t_max: [f32; 4],
    pub(super) stack: &'a mut PacketStack,
    pub(super) single: &'a mut MeshStack,
}

impl Kernel for Walk4<'_, '_> {
    type Out = [Option<(u32, TriHit)>; 4];

    #[inline(always)]
    fn run<L: Lanes8>(self, lanes: L) -> Self::Out {
        let Walk4 {
            bvh,
            rays,
            t_min,
            t_max,
            stack,
            single,
        } = self;
        bvh.walk_x4(lanes, rays, t_min, t_max, stack, single)
    }
}

impl Bvh {
    /// [`Bvh::first_hit_in`] for up to four rays at once (`None` lanes are
    /// skipped), each with its own cull mode and range end: one walk of
    /// the tree, the nodes any of the rays enters, with every box and
    /// triangle test made per ray exactly as the one-ray traversal makes it
    /// (a ray tests a child only where its own box test passes, with its
    /// own pruning bound), so each lane's answer is the one
    /// [`Bvh::first_hit_in`] gives for its ray. Coherent rays (neighbouring
    /// pixels) share most of their walk; the walk's bookkeeping is paid
    /// once for the four. Runs in the build for the CPU's best instruction
    /// set ([`Isa::detect`]).
    #[inline(always)]
    pub(crate) fn first_hit_x4(
        &self,
        rays: [Option<(&RayPrecomp, CullMode)>; 4],
        t_min: f32,
        t_max: [f32; 4],
        stack: &mut PacketStack,
        single: &mut MeshStack,
    ) -> [Option<(u32, TriHit)>; 4] {
        let walk = Walk4 {
            bvh: self,
            rays,
            t_min,
            t_max,
            stack,
            single,
        };
        Isa::detect().run(walk)
    }

    /// [`Bvh::first_hit_x4`] with the box tests on `lanes`.
    #[inline(always)]
    pub(super) fn walk_x4<L: Lanes8>(
        &self,
        lanes: L,
        rays: [Option<(&RayPrecomp, CullMode)>; 4],
        t_min: f32,
        t_max: [f32; 4],
        stack: &mut PacketStack,
        single: &mut MeshStack,
    ) -> [Option<(u32, TriHit)>; 4] {
        let mut out = [None; 4];
        let mut live = 0u32;
        let mut fast = true;
        for (r, ray) in rays.iter().enumerate() {
            if let Some((ray, _)) = ray {
                if !self.is_empty() && ray.is_valid() && t_min <= t_max[r] {
                    live |= 1 << r;
                    fast &= ray.inv_dir().is_finite() && t_min >= 0.0;
                }
            }
        }
        if live == 0 {
            return out;
        }
        if !fast || self.is_single_leaf() {
            // zero direction components (the generic slab), or a single
            // leaf (no tree to share): one ray at a time
            for (r, ray) in rays.iter().enumerate() {
                if let (true, Some((ray, cull))) = (live >> r & 1 != 0, ray) {
                    out[r] = self.first_hit_in(ray, t_min, t_max[r], *cull, single);
                }
            }
            return out;
        }
        // per-ray constants (lanes outside `live` are filled with the first
        // live ray's and never read)
        let Some(first) = rays[live.trailing_zeros() as usize] else {
            return out;
        };
        // (written out: `array::from_fn` and `map` here compiled to
        // outlined calls)
        let lane = |r: usize| rays[r].unwrap_or(first);
        let (l0, l1, l2, l3) = (lane(0), lane(1), lane(2), lane(3));
        let pre: [&RayPrecomp; 4] = [l0.0, l1.0, l2.0, l3.0];
        let cull: [CullMode; 4] = [l0.1, l1.1, l2.1, l3.1];
        let node = |r: usize| NodeTest::new(lanes, pre[r], t_min);
        let boxes: [NodeTest<L>; 4] = [node(0), node(1), node(2), node(3)];
        let pack = |r: usize| Pack4Ray::new(pre[r]);
        let tris4: [Pack4Ray; 4] = [pack(0), pack(1), pack(2), pack(3)];
        let mut t_hi = t_max;
        let mut prune = t_max;
        stack.clear();
        let NodeRef {
            mut index,
            mut count,
        } = self.root;
        let mut mask = live;
        loop {
            if count == 0 {
                let q = &self.nodes[index as usize];
                // ray r's hits in bits 8r..8r+8 (bit 8r + k: child k), its
                // entry distances (lanes: children)
                let mut hits = 0u32;
                let mut near = [[f32::INFINITY; WIDTH]; 4];
                for r in set_bits(mask) {
                    let (hit, n) = boxes[r].test(q, prune[r]);
                    hits |= hit << (WIDTH * r);
                    near[r] = n;
                }
                if hits != 0 {
                    // per child k, the rays entering it: bits k, k+8, k+16,
                    // k+24 gathered into bits 24..28 by one multiplication
                    // (the sixteen partial products land on distinct bits)
                    let rays_of = |k: usize| {
                        let bits = u64::from((hits >> k) & 0x0101_0101);
                        ((bits * 0x0102_0408) >> 24) as u32 & 0xf
                    };
                    let kids = (hits | hits >> 8 | hits >> 16 | hits >> 24) & 0xff;
                    let by_kid =
                        |k: usize| Vec4::new(near[0][k], near[1][k], near[2][k], near[3][k]);
                    // children front to back by their nearest entry over the rays
                    let mut order = [(0f32, 0usize); WIDTH];
                    let mut n = 0;
                    for k in set_bits(kids) {
                        self.prefetch(q.child(k));
                        // (a ray that misses child k still brings its slab
                        // distance: the order only steers pruning, any
                        // order gives the same answers)
                        n = insert_desc(&mut order, n, by_kid(k).min_element(), k);
                    }
                    for &(_, k) in &order[..n - 1] {
                        stack.push((q.index[k], q.count[k], rays_of(k), by_kid(k)));
                    }
                    let k = order[n - 1].1;
                    (index, count, mask) = (q.index[k], q.count[k], rays_of(k));
                    continue;
                }
            } else {
                for r in set_bits(mask) {
                    if let Some(hit) = self.leaf_first(
                        pre[r],
                        &tris4[r],
                        NodeRef { index, count },
                        t_min,
                        t_hi[r],
                        cull[r],
                    ) {
                        keep_closest(&mut out[r], &mut t_hi[r], &mut prune[r], hit);
                    }
                }
            }
            // Pop the next node still in range of one of its rays.
            loop {
                let Some((i, c, rm, t_enter)) = stack.pop() else {
                    return out;
                };
                let still = rm & t_enter.cmple(Vec4::from_array(prune)).bitmask();
                if still != 0 {
                    (index, count, mask) = (i, c, still);
                    break;
                }
            }
        }
    }

    /// [`Bvh::first_hit_in`] for eight rays with one cull mode and range
    /// (bit r of `live`: ray r is to be traced): one walk of the tree for
    /// the eight, each box tested for the eight rays side by side (the
    /// same per-ray operations as the one-ray walk's), each triangle test
    /// made per ray, each ray pruned by its own closest hit; so lane r
    /// holds what [`Bvh::first_hit_in`] gives for
    /// `RayPrecomp::new(rays.origin(r), rays.dir(r))`. That precomputation
    /// is made for a ray when it first reaches a leaf (a ray that misses
    /// every box never needs it). Rays whose direction signs differ, or
    /// that the fast box test cannot take, go through
    /// [`Bvh::first_hit_x4`] four at a time.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn first_hit_x8(
        &self,
        rays: &Rays8,
        live: u32,
        cull: CullMode,
        t_min: f32,
        t_max: f32,
        stacks: (&mut Packet8Stack, &mut PacketStack, &mut MeshStack),
        avx2: Avx2,
    ) -> [Option<(u32, TriHit)>; 8] {
        let mut out = [None; 8];
        // The validity `RayPrecomp::new` finds (finite origin and
        // direction, non-zero direction), lane by lane, and the inverse
        // directions as it computes them.
        let (mut zero, mut len) = ([0f32; 8], [0f32; 8]);
        let mut inv = [[0f32; 8]; 3];
        for ((o, d), inv) in rays.o.iter().zip(&rays.d).zip(&mut inv) {
            for r in 0..8 {
                zero[r] += o[r] * 0.0 + d[r] * 0.0; // NaN unless finite
                len[r] += d[r].abs();
                inv[r] = 1.0 / d[r];
            }
        }
        let finite = avx2.le_mask(&zero, &[0.0; 8]);
        let zero_dir = avx2.le_mask(&len, &[0.0; 8]);
        let live = live & finite & !zero_dir & 0xff;
        if live == 0 || self.is_empty() || !(t_min <= t_max) {
            return out;
        }
        let (stack, stack4, single) = stacks;
        let packet = (t_min >= 0.0 && !self.is_single_leaf())
            .then(|| Packet8::new(rays, &inv, live, t_min, avx2))
            .flatten();
        let Some(packet) = packet else {
            for half in 0..2 {
                let pre =
                    |r: usize| RayPrecomp::new(rays.origin(4 * half + r), rays.dir(4 * half + r));
                let pres = [pre(0), pre(1), pre(2), pre(3)];
                let lane = |r: usize| (live >> (4 * half + r) & 1 != 0).then_some((&pres[r], cull));
                let hits = self.first_hit_x4(
                    [lane(0), lane(1), lane(2), lane(3)],
                    t_min,
                    [t_max; 4],
                    stack4,
                    single,
                );
                out[4 * half..4 * half + 4].copy_from_slice(&hits);
            }
            return out;
        };
        // each ray's triangle-test constants, once it reaches a leaf
        let mut prep: [Option<(RayPrecomp, Pack4Ray)>; 8] =
            [None, None, None, None, None, None, None, None];
        let mut t_hi = [t_max; 8];
        let mut prune = [t_max; 8];
        stack.clear();
        let NodeRef {
            mut index,
            mut count,
        } = self.root;
        let mut mask = live;
        loop {
            if count == 0 {
                let q = &self.nodes[index as usize];
                // (the eight children written out: a loop over them kept
                // its index in a register and chose addresses by branches)
                let tests = [
                    packet.test::<0>(q, &prune),
                    packet.test::<1>(q, &prune),
                    packet.test::<2>(q, &prune),
                    packet.test::<3>(q, &prune),
                    packet.test::<4>(q, &prune),
                    packet.test::<5>(q, &prune),
                    packet.test::<6>(q, &prune),
                    packet.test::<7>(q, &prune),
                ];
                let mut order = [(0f32, 0usize); WIDTH];
                let mut n = 0;
                let mut rays_of = [0u32; WIDTH];
                for (k, (bits, d)) in tests.iter().enumerate() {
                    rays_of[k] = bits & mask;
                    if rays_of[k] != 0 {
                        self.prefetch(q.child(k));
                        // children front to back by their nearest entry
                        // (the order only steers pruning: any order gives
                        // the same answers)
                        n = insert_desc(&mut order, n, avx2.min(d), k);
                    }
                }
                if n != 0 {
                    for &(_, k) in &order[..n - 1] {
                        stack.push((q.index[k], q.count[k], rays_of[k], tests[k].1));
                    }
                    let k = order[n - 1].1;
                    (index, count, mask) = (q.index[k], q.count[k], rays_of[k]);
                    continue;
                }
            } else {
                for r in set_bits(mask) {
                    // (not `get_or_insert_with`, which compiled to an
                    // outlined call)
                    if prep[r].is_none() {
                        let pre = RayPrecomp::new(rays.origin(r), rays.dir(r));
                        let tris = Pack4Ray::new(&pre);
                        prep[r] = Some((pre, tris));
                    }
                    let Some((pre, tris)) = &prep[r] else {
                        continue;
                    };
                    if let Some(hit) =
                        self.leaf_first(pre, tris, NodeRef { index, count }, t_min, t_hi[r], cull)
                    {
                        keep_closest(&mut out[r], &mut t_hi[r], &mut prune[r], hit);
                    }
                }
            }
            // Pop the next node still in range of one of its rays.
            loop {
                let Some((i, c, rm, t_enter)) = stack.pop() else {
                    return out;
                };
                let still = rm & avx2.le_mask(&t_enter, &prune);
                if still != 0 {
                    (index, count, mask) = (i, c, still);
                    break;
                }
            }
        }
    }
}
