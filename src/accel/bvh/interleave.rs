//! The one-ray walk of several rays at once, interleaved step by step
//! ([`Bvh::first_leaf_hits_on`]): random rays through a large tree are a
//! chain of loads each waiting on the one before (a node's children are
//! known only once it is read), so a lone walk spends most of its time
//! waiting on memory. Here each ray, after choosing the node or leaf it
//! visits next, prefetches it and yields to the next ray; by the time its
//! turn comes again its node is on its way or there, and the rays' misses
//! overlap instead of queueing.
//!
//! Each ray makes exactly the steps of its own walk (`Bvh::walk_first`
//! with the fast box test, [`NodeTest`]): the same box tests, the same
//! visiting order, the same stack and pruning, the same leaf tests, only
//! in turns with other rays. So every answer is bit for bit that of
//! [`Bvh::first_leaf_hit_on`] for the ray alone.

use super::traverse::{keep_closest, LeafHit, MeshStack, NodeTest};
use super::{Bvh, NodeRef};
use crate::accel::triangle::{Pack4Ray, Pack8Ray, RayPrecomp, TriHit};
use crate::cpu::{Isa, Kernel, Lanes8};
use crate::geometry::CullMode;

/// The most rays walked together.
pub(crate) const INTERLEAVE: usize = 8;

/// One ray's walk, paused between steps.
struct RayWalk<'a, L: Lanes8> {
    ray: &'a RayPrecomp,
    test: NodeTest<L>,
    tris8: Pack8Ray<L>,
    tris4: Pack4Ray,
    t_min: f32,
    /// The closest hit so far, its leaf, the range end and the box
    /// pruning bound (as in `Bvh::walk_first`).
    best: Option<(u32, TriHit)>,
    best_leaf: NodeRef,
    t_hi: f32,
    prune: f32,
    /// The node or leaf to visit next.
    next: NodeRef,
    stack: &'a mut MeshStack,
    done: bool,
}

impl<L: Lanes8> RayWalk<'_, L> {
    /// Visits `self.next` and chooses (and prefetches) the one after it,
    /// or marks the walk done: one turn of `Bvh::walk_first`'s loop.
    #[inline(always)]
    fn step(&mut self, bvh: &Bvh, cull: CullMode) {
        let NodeRef { index, count } = self.next;
        if count == 0 {
            let q = &bvh.nodes[index as usize];
            let (mask, near) = self.test.test(q, self.prune);
            if mask != 0 {
                let first = bvh.push_far_children(q, mask, &near, self.stack);
                self.next = q.child(first);
                bvh.prefetch(self.next);
                return;
            }
        } else {
            let leaf = NodeRef { index, count };
            let (ray, t_min, t_hi) = (self.ray, self.t_min, self.t_hi);
            let hit = if L::WIDE {
                bvh.leaf_first8(ray, &self.tris8, leaf, t_min, t_hi, cull)
            } else {
                bvh.leaf_first(ray, &self.tris4, leaf, t_min, t_hi, cull)
            };
            if let Some(hit) = hit {
                if keep_closest(&mut self.best, &mut self.t_hi, &mut self.prune, hit) {
                    self.best_leaf = leaf;
                }
            }
        }
        // the next node still in range
        while let Some((i, c, t_enter)) = self.stack.pop() {
            if t_enter <= self.prune {
                self.next = NodeRef { index: i, count: c };
                bvh.prefetch(self.next);
                return;
            }
        }
        self.done = true;
    }
}

/// [`Bvh::first_leaf_hits_on`]'s walks on the lanes of the instruction
/// set chosen: the rays of `fast` (index into `out`, ray, range), each
/// taking the fast box test (finite inverse direction, `t_min >= 0`).
pub(in crate::accel::bvh) struct Interleaved<'a> {
    pub(in crate::accel::bvh) bvh: &'a Bvh,
    pub(in crate::accel::bvh) fast: &'a [(usize, &'a RayPrecomp, f32, f32)],
    pub(in crate::accel::bvh) cull: CullMode,
    pub(in crate::accel::bvh) stacks: &'a mut [MeshStack; INTERLEAVE],
    pub(in crate::accel::bvh) out: &'a mut [Option<LeafHit>],
}

impl Kernel for Interleaved<'_> {
    type Out = ();

    #[inline(always)]
    fn run<L: Lanes8>(self, lanes: L) -> Self::Out {
        let (bvh, cull) = (self.bvh, self.cull);
        let mut walks: [Option<RayWalk<'_, L>>; INTERLEAVE] = Default::default();
        for ((w, &(_, ray, t_min, t_max)), stack) in
            walks.iter_mut().zip(self.fast).zip(self.stacks.iter_mut())
        {
            stack.clear();
            bvh.prefetch(bvh.root);
            *w = Some(RayWalk {
                ray,
                test: NodeTest::new(lanes, ray, t_min),
                tris8: Pack8Ray::new(lanes, ray),
                tris4: Pack4Ray::new(ray),
                t_min,
                best: None,
                best_leaf: NodeRef::default(),
                t_hi: t_max,
                prune: t_max,
                next: bvh.root,
                stack,
                done: false,
            });
        }
        let mut live = self.fast.len();
        while live > 0 {
            for w in walks.iter_mut().flatten() {
                if !w.done {
                    w.step(bvh, cull);
                    live -= usize::from(w.done);
                }
            }
        }
        for (w, &(k, ..)) in walks.iter().zip(self.fast) {
            if let Some(w) = w {
                self.out[k] = w.best.map(|hit| (hit, w.best_leaf));
            }
        }
    }
}

impl Bvh {
    /// [`Bvh::first_leaf_hit_on`] for up to [`INTERLEAVE`] rays (`rays[k]`
    /// within `[t_min[k], t_max[k]]`), into `out[k]`: the rays whose walk
    /// takes the fast box test walk together, interleaved step by step
    /// (see the module docs), the others alone. The answers are those of
    /// [`Bvh::first_leaf_hit_on`], ray by ray.
    pub(crate) fn first_leaf_hits_on(
        &self,
        isa: Isa,
        rays: &[RayPrecomp],
        range: &[(f32, f32)],
        cull: CullMode,
        stacks: &mut [MeshStack; INTERLEAVE],
        out: &mut [Option<LeafHit>],
    ) {
        assert!(rays.len() <= INTERLEAVE && range.len() == rays.len() && out.len() == rays.len());
        if rays.is_empty() {
            return;
        }
        let mut fast = [(0, &rays[0], 0.0, 0.0); INTERLEAVE];
        let mut n = 0;
        for (k, (ray, &(t_min, t_max))) in rays.iter().zip(range).enumerate() {
            if self.walks_fast(ray, t_min, t_max) {
                fast[n] = (k, ray, t_min, t_max);
                n += 1;
            } else {
                out[k] = self.first_leaf_hit_on(isa, ray, t_min, t_max, cull, &mut stacks[0]);
            }
        }
        if n > 0 {
            isa.run(Interleaved {
                bvh: self,
                fast: &fast[..n],
                cull,
                stacks,
                out,
            });
        }
    }
}
