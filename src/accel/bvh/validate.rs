//! [`Bvh::validate`]: the tree checked against the mesh it was built from.

use glam::Vec3;

use super::{Bvh, NodeRef, MAX_DEPTH};
use crate::geometry::Aabb;

impl Bvh {
    /// Checks the structure against the mesh it was built from: every node's
    /// bounds contain its children (interior) or its triangles (leaf), the
    /// tree is well formed (indices in range, every node reached once, depth
    /// and traversal stack within `MAX_DEPTH` (64)), and every valid triangle
    /// (finite coordinates, in-range indices) appears in exactly one leaf
    /// while no invalid one appears at all; every leaf's packs hold its
    /// triangles' corners (and padding only after them), each pack in one
    /// leaf. (The tests' check of every build and refit.)
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn validate(&self, positions: &[Vec3], tris: &[[u32; 3]]) -> Result<(), String> {
        let valid = |t: &[u32; 3]| {
            t.iter().all(|&i| {
                positions
                    .get(i as usize)
                    .is_some_and(|p: &Vec3| p.is_finite())
            })
        };
        let n_valid = tris.iter().filter(|t| valid(t)).count();
        if self.is_empty() {
            return if n_valid == 0 && self.quads.is_empty() && self.root_bounds.is_empty() {
                Ok(())
            } else {
                Err(format!("empty tree but {n_valid} valid triangles"))
            };
        }
        let mut seen = vec![false; tris.len()];
        let mut visited = vec![false; self.quads.len()];
        let mut pack_covered = vec![false; self.packs.len()];
        // (reference, bounds, level, stack entries pushed above, parent quad)
        let mut todo = vec![(self.root, self.root_bounds, 1u32, 0u32, usize::MAX)];
        let (mut count, mut max_depth) = (0usize, 0u32);
        while let Some((NodeRef { index, count: n }, bounds, d, stack, parent)) = todo.pop() {
            count += 1;
            max_depth = max_depth.max(d);
            if d > MAX_DEPTH || stack > MAX_DEPTH {
                return Err(format!("node at depth {d} needs a stack of {stack}"));
            }
            if bounds.is_empty() || !bounds.min.is_finite() || !bounds.max.is_finite() {
                return Err(format!("node has bad bounds {bounds:?}"));
            }
            if n == 0 {
                let i = index as usize;
                let q = self.quads.get(i).ok_or(format!("quad {i} out of range"))?;
                if parent != usize::MAX && i <= parent {
                    return Err(format!("quad {i} does not follow its parent {parent}"));
                }
                if std::mem::replace(&mut visited[i], true) {
                    return Err(format!("quad {i} reached twice"));
                }
                let used: Vec<usize> = (0..4).filter(|&k| q.lane_used(k)).collect();
                if used.len() < 2 || used.iter().enumerate().any(|(j, &k)| j != k) {
                    return Err(format!("quad {i} uses lanes {used:?}"));
                }
                let pushed = stack + used.len() as u32 - 1;
                for k in used {
                    let child_bounds = q.child_bounds(k);
                    if !bounds.contains(&child_bounds) {
                        return Err(format!("node does not contain child {k} of quad {i}"));
                    }
                    let child = NodeRef {
                        index: q.index[k],
                        count: q.count[k],
                    };
                    todo.push((child, child_bounds, d + 1, pushed, i));
                }
            } else {
                let (first, n) = (index as usize, n as usize);
                let packs = self
                    .packs
                    .get(first..first + n.div_ceil(4))
                    .ok_or(format!("leaf pack range {first}+{n} out of bounds"))?;
                for (j, pk) in packs.iter().enumerate() {
                    if std::mem::replace(&mut pack_covered[first + j], true) {
                        return Err(format!("pack {} in two leaves", first + j));
                    }
                    // the leading lanes hold the leaf's triangles, the rest is padding
                    let lanes = (n - 4 * j).min(4);
                    let ids_ok = (0..4).all(|l| (pk.id[l] == u32::MAX) == (l >= lanes));
                    if pk.used != (1 << lanes) - 1 || !ids_ok {
                        return Err(format!("pack {} has lanes {:#b}", first + j, pk.used));
                    }
                }
                for (lane, id) in self.leaf_ids(NodeRef::leaf(index, n as u32)).enumerate() {
                    let id = id as usize;
                    let t = tris.get(id).ok_or(format!("bad triangle index {id}"))?;
                    if !valid(t) {
                        return Err(format!("invalid triangle {id} indexed"));
                    }
                    if std::mem::replace(&mut seen[id], true) {
                        return Err(format!("triangle {id} indexed twice"));
                    }
                    let mut tb = Aabb::empty();
                    t.iter().for_each(|&v| tb.grow(positions[v as usize]));
                    if !bounds.contains(&tb) {
                        return Err(format!("leaf does not contain triangle {id}"));
                    }
                    let corners = t.map(|v| positions[v as usize]);
                    if packs[lane / 4].corners(lane % 4) != corners {
                        return Err(format!("pack corners of triangle {id} differ"));
                    }
                }
            }
        }
        if count != self.node_count || max_depth != self.depth {
            return Err(format!(
                "node_count/depth {}/{} but found {count}/{max_depth}",
                self.node_count, self.depth
            ));
        }
        if visited.iter().any(|v| !v) {
            return Err("unreachable quad".into());
        }
        if pack_covered.iter().any(|c| !c) {
            return Err("pack not referenced by any leaf".into());
        }
        let missing = tris
            .iter()
            .zip(&seen)
            .filter(|(t, s)| valid(t) && !**s)
            .count();
        if missing > 0 {
            return Err(format!("{missing} valid triangles missing"));
        }
        Ok(())
    }

    /// The triangles of a leaf, in leaf order (its packs' leading lanes).
    fn leaf_ids(&self, leaf: NodeRef) -> impl Iterator<Item = u32> + '_ {
        self.packs_of(leaf)
            .iter()
            .flat_map(|pk| pk.id)
            .take(leaf.count as usize)
    }
}
