//! The binary build tree collapsed into the 8-wide nodes the walks read
//! ([`Node`]s), and the leaves' triangles packed four at a time
//! ([`TriPack`]s) in leaf order.

use glam::Vec3;

use super::build::{Box3, Pair, Subtree, PAR_BUILD_MIN};
use super::{Node, NodeRef, EMPTY_NODE, WIDTH};
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

/// The 8-wide nodes of the binary tree below the interior node `root`
/// (of `pair_count` interior nodes in all), depth-first: the nodes, the
/// root's index and the tree's depth in levels, leaves included. Every node
/// keeps its two children when `widen` is false.
pub(super) fn collapse(root: BinaryNode, pair_count: usize, widen: bool) -> (Vec<Node>, u32, u32) {
    let mut c = Collapse {
        // (about one node per three interior binary nodes when widened)
        nodes: Vec::with_capacity(if widen {
            pair_count / 3 + 1
        } else {
            pair_count
        }),
        widen,
    };
    advise_huge_pages(&c.nodes);
    let (q, depth) = c.emit(root);
    (c.nodes, q, depth)
}

/// Converts the binary tree into 8-wide nodes: each node adopts the children
/// of its largest-area interior children until it has eight (ties to the
/// leftmost). With `widen == false` every node keeps its two children.
struct Collapse {
    nodes: Vec<Node>,
    widen: bool,
}

impl Collapse {
    /// Emits the node for the interior binary node `node`; returns its
    /// index and its depth in levels (leaves included).
    fn emit(&mut self, node: BinaryNode) -> (u32, u32) {
        let [a, b] = node.children();
        let mut children = [a; WIDTH];
        children[1] = b;
        let mut n = 2;
        while self.widen && n < WIDTH {
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
        let q = self.nodes.len();
        self.nodes.push(EMPTY_NODE);
        let mut depth = 1;
        for (k, (b, child)) in children[..n].iter().enumerate() {
            let r = match *child {
                BinaryNode::Leaf(r) => r,
                interior => {
                    let (cq, d) = self.emit(interior);
                    depth = depth.max(d);
                    NodeRef::inner(cq)
                }
            };
            self.nodes[q].set_lane(k, b, r);
        }
        (q as u32, depth + 1)
    }
}

/// The leaves' triangles four to a pack, in leaf order; the leaves' references
/// (`nodes` and `root`) are turned from their first entry in `prims` (as
/// built) into the index of their first pack, so that a walk reaching a leaf
/// loads its packs with no table in between.
pub(super) fn leaf_packs(
    nodes: &mut [Node],
    root: &mut NodeRef,
    prims: &[u32],
    positions: &[Vec3],
    tris: &[[u32; 3]],
) -> Vec<TriPack> {
    let mut leaves: Vec<NodeRef> = if root.is_leaf() {
        vec![*root]
    } else {
        nodes
            .iter()
            .flat_map(|q| {
                (0..WIDTH)
                    .filter(|&k| q.count[k] > 0)
                    .map(|k| NodeRef::leaf(q.index[k], q.count[k]))
            })
            .collect()
    };
    use crate::par::prelude::*;

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
    for q in nodes.iter_mut() {
        for k in (0..WIDTH).filter(|&k| q.count[k] > 0) {
            q.index[k] = start[q.index[k] as usize];
        }
    }
    packs
}
