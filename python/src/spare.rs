//! The frame pool: raster frames nobody holds any more, whose buffers the
//! next renders reuse instead of allocating (and faulting in) new ones, at
//! most [`SPARE_FRAMES`] of them, of at most [`SPARE_PIXELS`] pixels each.
//! A `softpick.Frame` hands its frame back when it is dropped (the numpy
//! views of its buffers hold the frame, so nothing reads them then); a
//! raster render takes one (`method::raster_frame`).

use std::sync::{Mutex, PoisonError};

use softpick::Frame;

static SPARE: Mutex<Vec<Frame>> = Mutex::new(Vec::new());
const SPARE_FRAMES: usize = 2;
const SPARE_PIXELS: u64 = 3840 * 2160;

/// A spare frame to render into, or a new 1×1 one.
pub(crate) fn spare_frame() -> Frame {
    let spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner).pop();
    spare.unwrap_or_else(tiny_frame)
}

/// A 1×1 frame: what a frame handed back leaves in its place.
pub(crate) fn tiny_frame() -> Frame {
    Frame::new(1, 1).unwrap_or_else(|| unreachable!("1x1 is a valid frame size"))
}

/// Keeps `frame`'s buffers for the next render, leaving a 1×1 frame in its
/// place, when the pool has room and the frame is not above
/// [`SPARE_PIXELS`].
pub(crate) fn hand_back(frame: &mut Frame) {
    let pixels = u64::from(frame.width()) * u64::from(frame.height());
    if pixels > SPARE_PIXELS {
        return;
    }
    let mut spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner);
    if spare.len() < SPARE_FRAMES {
        spare.push(std::mem::replace(frame, tiny_frame()));
    }
}
