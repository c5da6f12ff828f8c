//! The binary build tree collapsed into the 4-wide nodes the walks read
//! ([`Quad`]s), and the leaves' triangles packed four at a time
//! ([`TriPack`]s) in leaf order.

use glam::Vec3;

use super::build::{Box3, Pair, Subtree, PAR_BUILD_MIN};
use super::{NodeRef, Quad, EMPTY_QUAD, MAX_DEPTH};
use crate::accel::triangle::TriPack;
use crate::cpu::advise_huge_pages;

/// A node of the binary build tree, wherever the builder left it.
#[derive(Clone, Copy)]
pub(super) enum BinaryNode<'a> {
    /// A leaf.
    Leaf(NodeRef),
    /// A node split by the parallel builder (a [`Subtree::Parallel`]).
    Parallel(&'a Subtree),
    /// Pair `index` of a serially built chunk's `pairs`.
    Serial(&'a [Pair], u32),
}

impl<'a> BinaryNode<'a> {
    /// The root of a sub-tree.
    pub(super) fn of_subtree(sub: &'a Subtree) -> BinaryNode<'a> {
        match sub {
            Subtree::Chunk { root, .. } if root.is_leaf() => BinaryNode::Leaf(*root),
            Subtree::Chunk { root, pairs } => BinaryNode::Serial(pairs, root.index),
            Subtree::Parallel { .. } => BinaryNode::Parallel(sub),
        }
    }

    /// The node `r` refers to in a chunk of `pairs`.
    fn of_ref(pairs: &'a [Pair], r: NodeRef) -> BinaryNode<'a> {
        if r.is_leaf() {
            BinaryNode::Leaf(r)
        } else {
            BinaryNode::Serial(pairs, r.index)
        }
    }

    /// An interior node's two children with their bounds.
    fn children(self) -> [(Box3, BinaryNode<'a>); 2] {
        match self {
            BinaryNode::Leaf(_) => unreachable!("leaves have no children"),
            BinaryNode::Parallel(Subtree::Parallel { bounds, children }) => [
                (bounds.0, BinaryNode::of_subtree(&children.0)),
                (bounds.1, BinaryNode::of_subtree(&children.1)),
            ],
            BinaryNode::Parallel(Subtree::Chunk { .. }) => {
                unreachable!("chunks are Serial or Leaf")
            }
            BinaryNode::Serial(pairs, i) => {
                let p = &pairs[i as usize];
                [
                    (p.bounds[0], BinaryNode::of_ref(pairs, p.child[0])),
                    (p.bounds[1], BinaryNode::of_ref(pairs, p.child[1])),
                ]
            }
        }
    }
}

/// The 4-wide nodes of the binary tree below the interior node `root`
/// (of `pair_count` interior nodes in all), depth-first: the quads, the
/// root's index and the tree's depth in levels, leaves included. Every node
/// keeps its two children when `widen` is false, or when the 4-wide tree
/// would need a traversal stack deeper than [`MAX_DEPTH`] entries (the
/// binary tree has depth <= `MAX_DEPTH`, so without widening the stack need
/// is <= `MAX_DEPTH - 1`).
pub(super) fn collapse(root: BinaryNode, pair_count: usize, widen: bool) -> (Vec<Quad>, u32, u32) {
    let mut c = Collapse {
        quads: Vec::with_capacity(pair_count / 2 + 1),
        widen,
    };
    advise_huge_pages(&c.quads);
    let (mut q, mut depth, stack) = c.emit(root);
    if stack > MAX_DEPTH && widen {
        c.quads.clear();
        c.widen = false;
        (q, depth, _) = c.emit(root);
    }
    (c.quads, q, depth)
}

/// Converts the binary tree into 4-wide nodes: each node adopts the children
/// of its largest-area interior children until it has four (ties to the
/// leftmost). With `widen == false` every node keeps its two children.
struct Collapse {
    quads: Vec<Quad>,
    widen: bool,
}

impl Collapse {
    /// Emits the quad for the interior binary node `node`; returns its index,
    /// its depth in levels (leaves included) and the traversal stack it may
    /// need.
    fn emit(&mut self, node: BinaryNode) -> (u32, u32, u32) {
        let [a, b] = node.children();
        let mut children = [a, b, a, a];
        let mut n = 2;
        while self.widen && n < 4 {
            let mut best: Option<(usize, f32)> = None;
            for (j, (b, c)) in children[..n].iter().enumerate() {
                let area = b.half_area();
                if !matches!(c, BinaryNode::Leaf(_)) && best.is_none_or(|(_, a)| area > a) {
                    best = Some((j, area));
                }
            }
            let Some((j, _)) = best else { break };
            let [l, r] = children[j].1.children();
            children.copy_within(j + 1..n, j + 2);
            children[j] = l;
            children[j + 1] = r;
            n += 1;
        }
        let q = self.quads.len();
        self.quads.push(EMPTY_QUAD);
        let (mut depth, mut stack) = (1, 0);
        for (k, (b, child)) in children[..n].iter().enumerate() {
            let r = match *child {
                BinaryNode::Leaf(r) => r,
                interior => {
                    let (cq, d, s) = self.emit(interior);
                    depth = depth.max(d);
                    stack = stack.max(s);
                    NodeRef::inner(cq)
                }
            };
            self.quads[q].set_lane(k, b, r);
        }
        (q as u32, depth + 1, stack + n as u32 - 1)
    }
}

/// The leaves' triangles four to a pack, in leaf order; the leaves' references
/// (`quads` and `root`) are turned from their first entry in `prims` (as
/// built) into the index of their first pack, so that a walk reaching a leaf
/// loads its packs with no table in between.
pub(super) fn leaf_packs(
    quads: &mut [Quad],
    root: &mut NodeRef,
    prims: &[u32],
    positions: &[Vec3],
    tris: &[[u32; 3]],
) -> Vec<TriPack> {
    let mut leaves: Vec<NodeRef> = if root.is_leaf() {
        vec![*root]
    } else {
        quads
            .iter()
            .flat_map(|q| {
                (0..4)
                    .filter(|&k| q.count[k] > 0)
                    .map(|k| NodeRef::leaf(q.index[k], q.count[k]))
            })
            .collect()
    };
    use rayon::prelude::*;

    leaves.sort_unstable();
    // the packs in leaf order: each one's first triangle (its position in
    // `prims`) and count; `start`: a leaf's first pack
    let mut start = vec![0u32; prims.len()];
    let mut spans: Vec<(u32, u32)> = Vec::with_capacity(prims.len().div_ceil(4) + leaves.len());
    for &NodeRef {
        index: first,
        count,
    } in &leaves
    {
        start[first as usize] = spans.len() as u32;
        for c in (0..count).step_by(4) {
            spans.push((first + c, (count - c).min(4)));
        }
    }
    let pack = |&(first, count): &(u32, u32)| {
        let mut four = [(0u32, [Vec3::ZERO; 3]); 4];
        let ids = &prims[first as usize..(first + count) as usize];
        for (slot, &id) in four.iter_mut().zip(ids) {
            *slot = (id, tris[id as usize].map(|v| positions[v as usize]));
        }
        TriPack::new(&four[..ids.len()])
    };
    // (written in place, in parallel for large trees: the same packs for
    // any number of threads; small trees on the calling thread, see
    // `Bvh::build_impl`)
    let mut packs: Vec<TriPack> = Vec::with_capacity(spans.len());
    advise_huge_pages(&packs);
    if prims.len() < PAR_BUILD_MIN {
        packs.extend(spans.iter().map(pack));
    } else {
        spans
            .par_iter()
            .with_min_len(PAR_BUILD_MIN / 4)
            .map(pack)
            .collect_into_vec(&mut packs);
    }
    if root.is_leaf() {
        root.index = start[root.index as usize];
    }
    for q in quads.iter_mut() {
        for k in (0..4).filter(|&k| q.count[k] > 0) {
            q.index[k] = start[q.index[k] as usize];
        }
    }
    packs
}
