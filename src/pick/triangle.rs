//! TEMPORARY placeholder until the ray-triangle kernel lands.
#![allow(missing_docs, dead_code)]
use glam::Vec3;
#[derive(Clone, Copy, Debug)]
pub struct TriHit {
    pub t: f32,
    pub bary: Vec3,
    pub front: bool,
}
#[derive(Clone, Copy, Debug)]
pub struct RayPrecomp {
    o: Vec3,
    inv: Vec3,
}
impl RayPrecomp {
    pub fn new(o: Vec3, d: Vec3) -> Self {
        Self { o, inv: d.recip() }
    }
    pub fn origin(&self) -> Vec3 {
        self.o
    }
    pub fn inv_dir(&self) -> Vec3 {
        self.inv
    }
}
