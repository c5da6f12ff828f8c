//! softpick's integration tests, one binary (tiny-skia style).

mod clipping;
mod golden;
mod hardening_camera;
mod hardening_geometry;
mod hardening_obj;
mod hardening_picks;
mod layers;
mod llvmpipe;
mod obj_encodings;
mod picks;
mod properties;
mod rays;
mod reuse;
mod rules;
mod select;
mod support;
