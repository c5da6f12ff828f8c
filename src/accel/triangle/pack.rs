//! The watertight test on four ([`Pack4Ray`]) and eight ([`Pack8Ray`])
//! triangles at once, one triangle per lane, for the BVH walks' leaves:
//! every lane computes what [`intersect`] computes for its triangle, and
//! the lanes that need the exact completion go through [`intersect`].

use glam::{Vec3, Vec3A, Vec4};

use super::intersect;
use super::watertight::{FAR_CORNER_RATIO, RANGE_SLACK};
use super::{precedes, RayPrecomp, TriHit};
use crate::cpu::Lanes8;
use crate::geometry::CullMode;

/// Four triangles in SoA form for [`Pack4Ray::first`]: `p[v][axis]` holds
/// coordinate `axis` of vertex `v` of each lane's triangle; lanes not in
/// `used` are padding and never hit.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(16))]
pub(crate) struct TriPack {
    pub(crate) p: [[Vec4; 3]; 3],
    pub(crate) id: [u32; 4],
    pub(crate) used: u32,
}

impl TriPack {
    /// Up to four triangles (ids and corners).
    pub(crate) fn new(tris: &[(u32, [Vec3; 3])]) -> Self {
        debug_assert!(!tris.is_empty() && tris.len() <= 4);
        let mut pk = TriPack {
            p: [[Vec4::ZERO; 3]; 3],
            id: [u32::MAX; 4],
            used: 0,
        };
        for (lane, (id, v)) in tris.iter().enumerate() {
            for (k, c) in v.iter().enumerate() {
                pk.p[k][0][lane] = c.x;
                pk.p[k][1][lane] = c.y;
                pk.p[k][2][lane] = c.z;
            }
            pk.id[lane] = *id;
            pk.used |= 1 << lane;
        }
        pk
    }

    #[inline]
    pub(crate) fn corners(&self, lane: usize) -> [Vec3; 3] {
        // (written out: `array::map` here compiled to an outlined call;
        // each lane read as an array element, where indexing a `Vec4`
        // is a jump by the lane)
        let c = |k: usize| {
            let p = &self.p[k];
            let at = |v: &Vec4| AsRef::<[f32; 4]>::as_ref(v)[lane];
            Vec3::new(at(&p[0]), at(&p[1]), at(&p[2]))
        };
        [c(0), c(1), c(2)]
    }
}

/// Per-ray constants of the 4-wide test: the origin and the shear rows of a
/// [`RayPrecomp`], splatted.
pub(crate) struct Pack4Ray {
    o: [Vec4; 3],
    rows: [[Vec4; 3]; 3],
}

impl Pack4Ray {
    #[inline(always)]
    pub(crate) fn new(p: &RayPrecomp) -> Self {
        let o = p.origin;
        // (written out: `array::map` here compiled to an outlined call)
        let splat = |r: Vec3A| [Vec4::splat(r.x), Vec4::splat(r.y), Vec4::splat(r.z)];
        Pack4Ray {
            o: [Vec4::splat(o.x), Vec4::splat(o.y), Vec4::splat(o.z)],
            rows: [splat(p.rows[0]), splat(p.rows[1]), splat(p.rows[2])],
        }
    }

    /// The nearest hit among the pack's triangles with `t_min <= t <= t_max`
    /// (ties to the smaller id), as `(id, hit)`: of [`Pack4Ray::each`]'s
    /// hits, the one [`precedes`] keeps.
    #[inline(always)]
    pub(crate) fn first(
        &self,
        ray: &RayPrecomp,
        pk: &TriPack,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
    ) -> Option<(u32, TriHit)> {
        let mut best: Option<(u32, TriHit)> = None;
        self.each(ray, pk, t_min, t_max, cull, |id, h| {
            if precedes(id, h.t, best.map(|(bid, bh)| (bid, bh.t))) {
                best = Some((id, h));
            }
        });
        best
    }

    /// Every hit among the pack's triangles with `t_min <= t <= t_max`,
    /// handed to `take` as `(id, hit)` (in no particular order). Every
    /// lane computes exactly what [`intersect`] computes for its triangle
    /// (the same operations in the same order, one triangle per lane), and
    /// lanes that need the exact completion (an edge function rounded to
    /// zero, overflow, a tiny determinant) go through [`intersect`] itself,
    /// so the hits are those of [`intersect`] called on each triangle.
    #[inline(always)]
    pub(crate) fn each(
        &self,
        ray: &RayPrecomp,
        pk: &TriPack,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
        mut take: impl FnMut(u32, TriHit),
    ) {
        // Relative coordinates of the three vertices, per axis.
        let d: [[Vec4; 3]; 3] =
            std::array::from_fn(|v| std::array::from_fn(|a| pk.p[v][a] - self.o[a]));
        let shear = |v: usize, r: &[Vec4; 3]| d[v][0] * r[0] + d[v][1] * r[1] + d[v][2] * r[2];
        let [r0, r1, r2] = &self.rows;
        let (ax, bx, cx) = (shear(0, r0), shear(1, r0), shear(2, r0));
        let (ay, by, cy) = (shear(0, r1), shear(1, r1), shear(2, r1));
        let u = cx * by - cy * bx;
        let v = ax * cy - ay * cx;
        let w = bx * ay - by * ax;
        let zero = Vec4::ZERO;
        let neg = u.cmplt(zero) | v.cmplt(zero) | w.cmplt(zero);
        let pos = u.cmpgt(zero) | v.cmpgt(zero) | w.cmpgt(zero);
        let inside = !(neg & pos).bitmask() & pk.used;
        if inside == 0 {
            return;
        }
        let (az, bz, cz) = (shear(0, r2), shear(1, r2), shear(2, r2));
        let det = u + v + w;
        let on_edge = u.cmpeq(zero) | v.cmpeq(zero) | w.cmpeq(zero);
        let not_finite = !det.is_finite_mask();
        let mut slow = (on_edge | not_finite).bitmask() & inside;
        let front = det.cmpgt(zero);
        let keep = match cull {
            CullMode::None => 0xf,
            CullMode::Back => front.bitmask(),
            CullMode::Front => !front.bitmask(),
        };
        let mut fast = inside & !slow & keep;
        let t_scaled = u * az + v * bz + w * cz;
        let ts = Vec4::select(front, t_scaled, -t_scaled);
        let adet = Vec4::select(front, det, -det);
        // Corners far beyond the hit: [`intersect`] refines them. (Half the
        // bound, so that every lane it would refine goes there.)
        let reach = az.abs().max(bz.abs()).max(cz.abs());
        // (As `!(a < b)`, so that a `t_scaled` overflowed by corners even
        // farther goes there too: NaN, or infinite with `reach * adet`.)
        let near = (reach * adet).cmplt(ts.abs() * Vec4::splat(FAR_CORNER_RATIO * 0.5));
        let far = !near.bitmask() & inside;
        slow |= far;
        fast &= !far;
        let lo = Vec4::splat(t_min) * adet;
        let hi = Vec4::splat(t_max) * adet;
        let slack = Vec4::splat(RANGE_SLACK);
        let out = ts.cmplt(lo - lo.abs() * slack) | ts.cmpgt(hi + hi.abs() * slack);
        fast &= !out.bitmask();
        if fast != 0 {
            let rcp = Vec4::ONE / det;
            slow |= (!rcp.is_finite_mask()).bitmask() & fast;
            fast &= rcp.is_finite_mask().bitmask();
            let t = t_scaled * rcp;
            fast &= (t.cmpge(Vec4::splat(t_min)) & t.cmple(Vec4::splat(t_max))).bitmask();
            let (bu, bv, bw) = (u * rcp, v * rcp, w * rcp);
            while fast != 0 {
                let k = fast.trailing_zeros() as usize;
                fast &= fast - 1;
                take(
                    pk.id[k],
                    TriHit {
                        t: t[k],
                        bary: Vec3::new(bu[k], bv[k], bw[k]),
                        front: det[k] > 0.0,
                    },
                );
            }
        }
        while slow != 0 {
            let k = slow.trailing_zeros() as usize;
            slow &= slow - 1;
            let [a, b, c] = pk.corners(k);
            if let Some(h) = intersect(ray, a, b, c, t_min, t_max, cull) {
                take(pk.id[k], h);
            }
        }
    }
}

/// Per-ray constants of the eight-lane test ([`Pack8Ray::first`]): the
/// origin and the shear rows of a [`RayPrecomp`], splatted on the lanes
/// `L`.
pub(crate) struct Pack8Ray<L: Lanes8> {
    lanes: L,
    o: [L::V; 3],
    rows: [[L::V; 3]; 3],
}

impl<L: Lanes8> Pack8Ray<L> {
    #[inline(always)]
    pub(crate) fn new(lanes: L, p: &RayPrecomp) -> Self {
        let o = p.origin;
        let splat = |r: Vec3A| [lanes.splat(r.x), lanes.splat(r.y), lanes.splat(r.z)];
        Pack8Ray {
            lanes,
            o: [lanes.splat(o.x), lanes.splat(o.y), lanes.splat(o.z)],
            rows: [splat(p.rows[0]), splat(p.rows[1]), splat(p.rows[2])],
        }
    }

    /// [`Pack4Ray::first`] for the triangles of two packs at once, `lo`
    /// in lanes 0..4 and `hi` in lanes 4..8, of which the lanes of `used`
    /// (bit k: lane k) are tested (a leaf of one pack passes it twice,
    /// its upper lanes unused): every lane computes the very operations
    /// [`Pack4Ray::first`] makes for its triangle, in the same order, and
    /// the lanes that need the exact completion go through [`intersect`]
    /// as there, so the answer is that of [`intersect`] called on each
    /// triangle.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn first(
        &self,
        ray: &RayPrecomp,
        lo: &TriPack,
        hi: &TriPack,
        used: u32,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
    ) -> Option<(u32, TriHit)> {
        let l = self.lanes;
        // Relative coordinates of the three vertices, per axis.
        let d: [[L::V; 3]; 3] = std::array::from_fn(|v| {
            std::array::from_fn(|a| l.sub(l.load2(&lo.p[v][a], &hi.p[v][a]), self.o[a]))
        });
        let shear = |v: usize, r: &[L::V; 3]| {
            l.add(
                l.add(l.mul(d[v][0], r[0]), l.mul(d[v][1], r[1])),
                l.mul(d[v][2], r[2]),
            )
        };
        let [r0, r1, r2] = &self.rows;
        let (ax, bx, cx) = (shear(0, r0), shear(1, r0), shear(2, r0));
        let (ay, by, cy) = (shear(0, r1), shear(1, r1), shear(2, r1));
        let u = l.sub(l.mul(cx, by), l.mul(cy, bx));
        let v = l.sub(l.mul(ax, cy), l.mul(ay, cx));
        let w = l.sub(l.mul(bx, ay), l.mul(by, ax));
        let zero = l.splat(0.0);
        let neg = l.or(l.or(l.lt(u, zero), l.lt(v, zero)), l.lt(w, zero));
        let pos = l.or(l.or(l.gt(u, zero), l.gt(v, zero)), l.gt(w, zero));
        let inside = !l.bits(l.and(neg, pos)) & used;
        if inside == 0 {
            return None;
        }
        let (az, bz, cz) = (shear(0, r2), shear(1, r2), shear(2, r2));
        let det = l.add(l.add(u, v), w);
        let on_edge = l.or(l.or(l.eq(u, zero), l.eq(v, zero)), l.eq(w, zero));
        let not_finite = !l.bits(l.finite(det));
        let mut slow = (l.bits(on_edge) | not_finite) & inside;
        let front = l.gt(det, zero);
        let keep = match cull {
            CullMode::None => 0xff,
            CullMode::Back => l.bits(front),
            CullMode::Front => !l.bits(front),
        };
        let mut fast = inside & !slow & keep;
        let t_scaled = l.add(l.add(l.mul(u, az), l.mul(v, bz)), l.mul(w, cz));
        let ts = l.select(front, t_scaled, l.neg(t_scaled));
        let adet = l.select(front, det, l.neg(det));
        // Corners far beyond the hit: [`intersect`] refines them (see
        // `Pack4Ray::first`).
        let reach = l.max(l.max(l.abs(az), l.abs(bz)), l.abs(cz));
        let near = l.lt(
            l.mul(reach, adet),
            l.mul(l.abs(ts), l.splat(FAR_CORNER_RATIO * 0.5)),
        );
        let far = !l.bits(near) & inside;
        slow |= far;
        fast &= !far;
        let lo_t = l.mul(l.splat(t_min), adet);
        let hi_t = l.mul(l.splat(t_max), adet);
        let slack = l.splat(RANGE_SLACK);
        let out = l.or(
            l.lt(ts, l.sub(lo_t, l.mul(l.abs(lo_t), slack))),
            l.gt(ts, l.add(hi_t, l.mul(l.abs(hi_t), slack))),
        );
        fast &= !l.bits(out);
        let id = |k: usize| if k < 4 { lo.id[k] } else { hi.id[k - 4] };
        let mut best: Option<(u32, TriHit)> = None;
        let mut take = |id: u32, h: TriHit| {
            if precedes(id, h.t, best.map(|(bid, bh)| (bid, bh.t))) {
                best = Some((id, h));
            }
        };
        if fast != 0 {
            let rcp = l.div(l.splat(1.0), det);
            let rcp_ok = l.bits(l.finite(rcp));
            slow |= !rcp_ok & fast;
            fast &= rcp_ok;
            let t = l.mul(t_scaled, rcp);
            fast &= l.bits(l.and(l.ge(t, l.splat(t_min)), l.le_m(t, l.splat(t_max))));
            if fast != 0 {
                let (t, det) = (l.store(t), l.store(det));
                let (bu, bv, bw) = (
                    l.store(l.mul(u, rcp)),
                    l.store(l.mul(v, rcp)),
                    l.store(l.mul(w, rcp)),
                );
                while fast != 0 {
                    let k = fast.trailing_zeros() as usize;
                    fast &= fast - 1;
                    take(
                        id(k),
                        TriHit {
                            t: t[k],
                            bary: Vec3::new(bu[k], bv[k], bw[k]),
                            front: det[k] > 0.0,
                        },
                    );
                }
            }
        }
        while slow != 0 {
            let k = slow.trailing_zeros() as usize;
            slow &= slow - 1;
            let [a, b, c] = if k < 4 {
                lo.corners(k)
            } else {
                hi.corners(k - 4)
            };
            if let Some(h) = intersect(ray, a, b, c, t_min, t_max, cull) {
                take(id(k), h);
            }
        }
        best
    }
}
