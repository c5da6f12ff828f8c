//! A fixed-size bitset over global triangle indices: the parallel phases of
//! a region selection each fill their own and OR them together.

/// A fixed-size bitset.
#[derive(Clone)]
pub(super) struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    /// `len` clear bits.
    pub(super) fn new(len: usize) -> Self {
        Self {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// The number of bits, set or clear.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Is bit `i` set? False out of range.
    #[inline]
    pub(super) fn get(&self, i: usize) -> bool {
        i < self.len && (self.words[i >> 6] >> (i & 63)) & 1 != 0
    }

    /// Sets bit `i`; true iff it was clear (and in range).
    #[inline]
    pub(super) fn insert(&mut self, i: usize) -> bool {
        if i >= self.len {
            return false;
        }
        let (w, b) = (i >> 6, 1u64 << (i & 63));
        let new = self.words[w] & b == 0;
        self.words[w] |= b;
        new
    }

    /// The union of two bitsets of the same length.
    pub(super) fn or(mut self, other: Self) -> Self {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
        self
    }

    /// The indices of the set bits, ascending.
    pub(super) fn indices(&self) -> Vec<u32> {
        let words = &self.words;
        let count: usize = words.iter().map(|w| w.count_ones() as usize).sum();
        let mut out = Vec::with_capacity(count);
        for (k, &w) in words.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                out.push((k * 64) as u32 + w.trailing_zeros());
                w &= w - 1;
            }
        }
        out
    }
}
