//! softpick's integration tests, one binary (tiny-skia style).

mod camera;
mod clipping;
mod extreme_geometry;
mod far_and_thin_models;
mod gltf;
mod gltf_channels;
mod gltf_errors;
mod golden;
mod layers;
mod llvmpipe;
mod looping;
mod mesh_format_errors;
mod mesh_formats;
mod obj_encodings;
mod obj_loading;
mod picks;
mod posing;
mod properties;
mod rays;
mod reuse;
mod rules;
mod select;
mod support;
