//! TEMPORARY placeholder until the BVH lands (replaced wholesale).
#![allow(missing_docs, dead_code)]
use glam::Vec3;
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}
impl Aabb {
    pub fn empty() -> Self {
        Self {
            min: Vec3::splat(f32::INFINITY),
            max: Vec3::splat(f32::NEG_INFINITY),
        }
    }
    pub fn grow(&mut self, p: Vec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }
}
#[derive(Debug)]
pub struct Bvh;
impl Bvh {
    pub fn build(_p: &[Vec3], _t: &[[u32; 3]]) -> Bvh {
        Bvh
    }
}
use crate::pick::triangle::{RayPrecomp, TriHit};
use crate::raster::rules::CullMode;
impl Aabb {
    pub fn ray_interval(&self, _o: Vec3, _i: Vec3, a: f32, b: f32) -> Option<(f32, f32)> {
        Some((a, b))
    }
}
impl Bvh {
    pub fn first_hit(
        &self,
        _p: &[Vec3],
        _t: &[[u32; 3]],
        _r: &RayPrecomp,
        _a: f32,
        _b: f32,
        _c: CullMode,
    ) -> Option<(u32, TriHit)> {
        None
    }
    #[allow(clippy::too_many_arguments)]
    pub fn all_hits(
        &self,
        _p: &[Vec3],
        _t: &[[u32; 3]],
        _r: &RayPrecomp,
        _a: f32,
        _b: f32,
        _c: CullMode,
        _o: &mut Vec<(u32, TriHit)>,
    ) {
    }
}
