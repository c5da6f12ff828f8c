//! Buffers in the wasm memory that JavaScript fills and reads in place,
//! through typed-array views it makes over `memory.buffer` at the
//! pointers these calls return: a frame's pose and a ray query then pass
//! no array through wasm-bindgen's glue (which allocates, copies and
//! frees each one per call) and allocate nothing.
//!
//! A pointer stays valid until the call that asked for it is made again
//! with a larger length (the buffer moves) or the scene is freed; a view
//! made over `memory.buffer` is emptied (detached) when the memory grows
//! and must then be made again: `js/engine.js` does both.

use wasm_bindgen::prelude::*;

use crate::query::{self, HIT_STRIDE};
use crate::{err, pose_in, RawScene};

/// Hits the packed-hits buffer holds from the start (a nearest hit; it
/// grows for more).
const PACKED_ROOM: usize = 1;

/// The scene's in-place buffers (see the module docs).
#[derive(Debug)]
pub(crate) struct Io {
    /// A pose's bone matrices, then its morph influences.
    floats: Vec<f32>,
    /// A ray's origin and direction.
    ray: [f64; 6],
    /// An object mask, one byte per object.
    mask: Vec<u8>,
    /// The packed hits of the last ray query (`raycastIo`).
    packed: Vec<f64>,
}

impl Io {
    pub(crate) fn new() -> Box<Io> {
        Box::new(Io {
            floats: Vec::new(),
            ray: [0.0; 6],
            mask: Vec::new(),
            packed: Vec::with_capacity(PACKED_ROOM * HIT_STRIDE),
        })
    }
}

/// The address of `v`'s first element in the wasm memory.
fn address<T>(v: &[T]) -> u32 {
    v.as_ptr() as usize as u32
}

/// The address of `v` made `len` elements long at least: replaced by a
/// zeroed buffer of `len` (so moved) when it is shorter, else as it is.
fn address_of_len<T: Copy + Default>(v: &mut Vec<T>, len: u32) -> u32 {
    if v.len() < len as usize {
        *v = vec![T::default(); len as usize];
    }
    address(v)
}

#[wasm_bindgen]
impl RawScene {
    /// The address of the pose buffer, `len` f32 values at least (grown,
    /// and moved, when it is shorter): `poseObjectIo` reads it.
    #[wasm_bindgen(js_name = ioFloats)]
    pub fn io_floats(&mut self, len: u32) -> u32 {
        address_of_len(&mut self.io.floats, len)
    }

    /// The address of the ray buffer: 6 f64 values (origin, direction)
    /// that `raycastIo` reads. It never moves.
    #[wasm_bindgen(js_name = ioRay)]
    #[must_use]
    pub fn io_ray(&self) -> u32 {
        address(&self.io.ray)
    }

    /// The address of the object-mask buffer, `len` bytes at least (grown,
    /// and moved, when it is shorter): `raycastIo` reads it.
    #[wasm_bindgen(js_name = ioMask)]
    pub fn io_mask(&mut self, len: u32) -> u32 {
        address_of_len(&mut self.io.mask, len)
    }

    /// The address of the packed hits of the last `raycastIo`: room for
    /// one hit at least, and for all of the last query's (it moves only
    /// when a query has more hits than it had room for).
    #[wasm_bindgen(js_name = ioPacked)]
    #[must_use]
    pub fn io_packed(&self) -> u32 {
        address(&self.io.packed)
    }

    /// `poseObject` with its bone matrices (`bones` of them, 16 values
    /// each) and then `influences` morph influences read from the pose
    /// buffer (`ioFloats`); `bind`, `bind_inverse` as there (none: those
    /// of the last pose that gave them).
    #[wasm_bindgen(js_name = poseObjectIo)]
    pub fn pose_object_io(
        &mut self,
        id: u32,
        bones: u32,
        influences: u32,
        bind: Option<Vec<f64>>,
        bind_inverse: Option<Vec<f64>>,
    ) -> Result<u32, JsError> {
        let (nb, ni) = (16 * bones as usize, influences as usize);
        let f = &self.io.floats;
        if nb + ni > f.len() {
            return Err(err(format!(
                "the pose buffer holds {} values, not {nb} bone matrix values and {ni} influences",
                f.len()
            )));
        }
        pose_in(
            &mut self.world,
            id,
            &f[..nb],
            bind.as_deref().unwrap_or_default(),
            bind_inverse.as_deref().unwrap_or_default(),
            &f[nb..nb + ni],
        )
    }

    /// `raycastInto` with the ray read from the ray buffer (`ioRay`), the
    /// object mask from the first `mask` bytes of the mask buffer
    /// (`ioMask`; negative: every object), every hit packed into the
    /// packed-hits buffer (`ioPacked`); the number of hits.
    #[wasm_bindgen(js_name = raycastIo)]
    pub fn raycast_io(
        &mut self,
        near: f64,
        far: f64,
        mask: i32,
        all: bool,
    ) -> Result<u32, JsError> {
        let io = &mut *self.io;
        let ray = query::ray(&io.ray[..3], &io.ray[3..]).map_err(err)?;
        let mask = match usize::try_from(mask) {
            Ok(n) => Some(io.mask.get(..n).ok_or_else(|| {
                err(format!(
                    "the mask buffer holds {} bytes, not {n}",
                    io.mask.len()
                ))
            })?),
            Err(_) => None,
        };
        io.packed.clear();
        query::cast(&mut self.world, &ray, near, far, mask, all, &mut io.packed).map_err(err)?;
        Ok((io.packed.len() / HIT_STRIDE) as u32)
    }
}
