//! glTF accessors read into numbers: every component type, normalized or
//! not, interleaved (byteStride) or packed, sparse or dense, with each read
//! checked against its buffer view and buffer before anything is allocated
//! for it (so a hostile count or offset is an error, never a panic).

use gltf::accessor::{DataType, Dimensions};
use gltf::Accessor;

use super::Fail;

/// Most elements one accessor may hold (a bound on what a count without
/// data behind it, such as a sparse accessor with no buffer view, can make
/// us allocate).
const MAX_ELEMENTS: usize = 1 << 28;

/// The number of components of an accessor type.
fn components(d: Dimensions) -> usize {
    match d {
        Dimensions::Scalar => 1,
        Dimensions::Vec2 => 2,
        Dimensions::Vec3 => 3,
        Dimensions::Vec4 | Dimensions::Mat2 => 4,
        Dimensions::Mat3 => 9,
        Dimensions::Mat4 => 16,
    }
}

fn component_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// Component `k` of type `t` at the start of `b`, as f32: normalized
/// integers map to [0, 1] or [-1, 1] as the spec's formulas say (the signed
/// ones with `max(c / MAX, -1)`), other integers to their value.
fn component(b: &[u8], t: DataType, normalized: bool) -> f32 {
    match t {
        DataType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        DataType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
        DataType::I8 => {
            let c = f32::from(b[0] as i8);
            if normalized {
                (c / 127.0).max(-1.0)
            } else {
                c
            }
        }
        DataType::U8 => {
            let c = f32::from(b[0]);
            if normalized {
                c / 255.0
            } else {
                c
            }
        }
        DataType::I16 => {
            let c = f32::from(i16::from_le_bytes([b[0], b[1]]));
            if normalized {
                (c / 32767.0).max(-1.0)
            } else {
                c
            }
        }
        DataType::U16 => {
            let c = f32::from(u16::from_le_bytes([b[0], b[1]]));
            if normalized {
                c / 65535.0
            } else {
                c
            }
        }
    }
}

/// The bytes of `count` elements of `elem` bytes each, `stride` apart, from
/// `offset` into buffer view `view`; checked against the view and its buffer.
fn view_bytes<'b>(
    buffers: &'b [Vec<u8>],
    view: &gltf::buffer::View<'_>,
    offset: usize,
    count: usize,
    elem: usize,
    stride: usize,
    at: &str,
) -> Result<&'b [u8], Fail> {
    let view_at = format!("bufferViews[{}]", view.index());
    let data = buffers
        .get(view.buffer().index())
        .ok_or_else(|| Fail::at(&view_at, "refers to a buffer that was not loaded"))?;
    let view_end = view
        .offset()
        .checked_add(view.length())
        .filter(|&e| e <= data.len())
        .ok_or_else(|| {
            Fail::at(
                &view_at,
                format!(
                    "bytes {}..{}+{} run past the end of buffers[{}] ({} bytes)",
                    view.offset(),
                    view.offset(),
                    view.length(),
                    view.buffer().index(),
                    data.len()
                ),
            )
        })?;
    let view_data = &data[view.offset()..view_end];
    if count == 0 {
        return Ok(&view_data[..0]);
    }
    let need = (count - 1)
        .checked_mul(stride)
        .and_then(|n| n.checked_add(elem))
        .and_then(|n| n.checked_add(offset));
    match need {
        Some(n) if n <= view_data.len() => Ok(&view_data[offset..n]),
        _ => Err(Fail::at(
            at,
            format!(
                "{count} elements of {elem} bytes (stride {stride}) from byte {offset} run past the end of {view_at} ({} bytes)",
                view_data.len()
            ),
        )),
    }
}

/// Reads accessor `a` as f32 components, `want` per element (its type must
/// have that many), with sparse substitution applied. `at` names it in errors.
pub(super) fn read_f32(
    buffers: &[Vec<u8>],
    a: &Accessor<'_>,
    want: usize,
    at: &str,
) -> Result<Vec<f32>, Fail> {
    let n = components(a.dimensions());
    if n != want {
        return Err(Fail::at(
            at,
            format!("has {n} components per element where {want} are needed"),
        ));
    }
    let count = a.count();
    if count > MAX_ELEMENTS {
        return Err(Fail::at(
            at,
            format!("count {count} is above the limit of {MAX_ELEMENTS}"),
        ));
    }
    let t = a.data_type();
    let size = component_size(t);
    let elem = n * size;
    let mut out = match a.view() {
        Some(view) => {
            let stride = view.stride().unwrap_or(elem);
            if stride < elem {
                return Err(Fail::at(
                    at,
                    format!("byteStride {stride} is smaller than an element ({elem} bytes)"),
                ));
            }
            let bytes = view_bytes(buffers, &view, a.offset(), count, elem, stride, at)?;
            let mut out = Vec::with_capacity(count * n);
            for e in 0..count {
                let base = e * stride;
                for k in 0..n {
                    out.push(component(&bytes[base + k * size..], t, a.normalized()));
                }
            }
            out
        }
        // no buffer view: zeros (then usually sparse values)
        None => vec![0.0; count * n],
    };
    if let Some(sparse) = a.sparse() {
        let sat = format!("{at}.sparse");
        let k = sparse.count();
        if k > count {
            return Err(Fail::at(
                &sat,
                format!("count {k} is above the accessor's count {count}"),
            ));
        }
        let idx = sparse.indices();
        let isize = match idx.index_type() {
            gltf::accessor::sparse::IndexType::U8 => 1,
            gltf::accessor::sparse::IndexType::U16 => 2,
            gltf::accessor::sparse::IndexType::U32 => 4,
        };
        let ib = view_bytes(
            buffers,
            &idx.view(),
            idx.offset(),
            k,
            isize,
            isize,
            &format!("{sat}.indices"),
        )?;
        let vals = sparse.values();
        let vb = view_bytes(
            buffers,
            &vals.view(),
            vals.offset(),
            k,
            elem,
            elem,
            &format!("{sat}.values"),
        )?;
        for j in 0..k {
            let b = &ib[j * isize..];
            let i = match isize {
                1 => usize::from(b[0]),
                2 => usize::from(u16::from_le_bytes([b[0], b[1]])),
                _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
            };
            if i >= count {
                return Err(Fail::at(
                    &format!("{sat}.indices"),
                    format!("index {i} is past the accessor's {count} elements"),
                ));
            }
            for c in 0..n {
                out[i * n + c] = component(&vb[j * elem + c * size..], t, a.normalized());
            }
        }
    }
    Ok(out)
}

/// Reads an index accessor (SCALAR of unsigned bytes, shorts or ints).
pub(super) fn read_indices(
    buffers: &[Vec<u8>],
    a: &Accessor<'_>,
    at: &str,
) -> Result<Vec<u32>, Fail> {
    if a.dimensions() != Dimensions::Scalar {
        return Err(Fail::at(at, "indices must be scalars"));
    }
    match a.data_type() {
        DataType::U8 | DataType::U16 | DataType::U32 => {}
        t => {
            return Err(Fail::at(
                at,
                format!("indices must be unsigned integers, not {t:?}"),
            ))
        }
    }
    if a.normalized() {
        return Err(Fail::at(at, "indices must not be normalized"));
    }
    // (u32 values above 2^24 are exact in f32 only up to 2^24: read u32
    // indices directly instead of through `read_f32`)
    if a.data_type() == DataType::U32 && a.sparse().is_none() {
        let count = a.count();
        if count > MAX_ELEMENTS {
            return Err(Fail::at(
                at,
                format!("count {count} is above the limit of {MAX_ELEMENTS}"),
            ));
        }
        let Some(view) = a.view() else {
            return Ok(vec![0; count]);
        };
        let stride = view.stride().unwrap_or(4).max(4);
        let bytes = view_bytes(buffers, &view, a.offset(), count, 4, stride, at)?;
        return Ok((0..count)
            .map(|e| {
                let b = &bytes[e * stride..];
                u32::from_le_bytes([b[0], b[1], b[2], b[3]])
            })
            .collect());
    }
    Ok(read_f32(buffers, a, 1, at)?
        .into_iter()
        .map(|v| v as u32)
        .collect())
}
