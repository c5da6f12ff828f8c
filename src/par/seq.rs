//! The sequential stand-in for rayon (`par/mod.rs` says when and why): the
//! names the crate uses of rayon's, with rayon's signatures less the
//! `Send`/`Sync` bounds, each running in order on the calling thread.
//!
//! [`Iter`] wraps a std iterator and gives it rayon's methods where they
//! differ from std's (`fold` and `reduce` with an identity, `for_each_init`,
//! `with_min_len`, `collect_into_vec`); the traits of [`prelude`] make one
//! from a slice, a range or a collection as rayon's `par_iter`,
//! `par_iter_mut`, `into_par_iter`, `par_chunks` and `par_chunks_mut` do.
//! Only what `src/` calls is here: a rayon method used in a new place is a
//! compile error on `wasm32` (CI's clippy of the wasm32 build) until it is
//! added, with a case in this file's tests.

use std::convert::Infallible;
use std::iter::{Enumerate, Map, Once, Zip};

/// A "parallel" iterator that runs on the calling thread, in order: the std
/// iterator `I` with rayon's methods.
#[must_use = "an iterator does nothing until consumed"]
pub(crate) struct Iter<I>(I);

impl<I: Iterator> Iter<I> {
    /// rayon's smallest piece of work: there is no splitting here.
    pub(crate) fn with_min_len(self, _min: usize) -> Self {
        self
    }

    pub(crate) fn map<R, F: Fn(I::Item) -> R>(self, f: F) -> Iter<Map<I, F>> {
        Iter(self.0.map(f))
    }

    pub(crate) fn enumerate(self) -> Iter<Enumerate<I>> {
        Iter(self.0.enumerate())
    }

    /// Pairs items up to the shorter of the two, as both rayon and std do.
    pub(crate) fn zip<Z: IntoParallelIterator>(self, other: Z) -> Iter<Zip<I, Z::Iter>> {
        Iter(self.0.zip(other.into_par_iter().0))
    }

    /// rayon's `fold`: folds pieces of the input from `identity()` each and
    /// yields one value per piece; here the one piece is the whole input.
    pub(crate) fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Iter<Once<T>>
    where
        ID: Fn() -> T,
        F: Fn(T, I::Item) -> T,
    {
        Iter(std::iter::once(self.0.fold(identity(), fold_op)))
    }

    /// rayon's `reduce`: `identity()` for no item, else the items combined
    /// by `op` (in order here; rayon's grouping differs, which an
    /// associative `op` does not see).
    pub(crate) fn reduce<ID, OP>(self, identity: ID, op: OP) -> I::Item
    where
        ID: Fn() -> I::Item,
        OP: Fn(I::Item, I::Item) -> I::Item,
    {
        self.0.fold(identity(), op)
    }

    pub(crate) fn for_each<F: Fn(I::Item)>(self, f: F) {
        self.0.for_each(f);
    }

    /// rayon's `for_each_init`: `init()` makes a scratch value per piece of
    /// work (here one for all items), which `f` gets with each item.
    pub(crate) fn for_each_init<T, INIT, F>(self, init: INIT, f: F)
    where
        INIT: Fn() -> T,
        F: Fn(&mut T, I::Item),
    {
        let mut scratch = init();
        self.0.for_each(|item| f(&mut scratch, item));
    }

    pub(crate) fn all<F: Fn(I::Item) -> bool>(mut self, f: F) -> bool {
        self.0.all(f)
    }

    pub(crate) fn collect<C: FromIterator<I::Item>>(self) -> C {
        self.0.collect()
    }

    /// rayon's `collect_into_vec`: `target` cleared, then the items in
    /// order (its capacity kept).
    pub(crate) fn collect_into_vec(self, target: &mut Vec<I::Item>) {
        target.clear();
        target.extend(self.0);
    }
}

/// So that an [`Iter`] can be the argument of [`Iter::zip`], as rayon's
/// parallel iterators can.
impl<I: Iterator> IntoIterator for Iter<I> {
    type Item = I::Item;
    type IntoIter = I;

    fn into_iter(self) -> I {
        self.0
    }
}

/// rayon's `into_par_iter`: for anything std can iterate by value (ranges,
/// vectors, [`Iter`] itself).
pub(crate) trait IntoParallelIterator {
    /// The std iterator run in order.
    type Iter: Iterator;
    fn into_par_iter(self) -> Iter<Self::Iter>;
}

impl<T: IntoIterator> IntoParallelIterator for T {
    type Iter = T::IntoIter;

    fn into_par_iter(self) -> Iter<T::IntoIter> {
        Iter(self.into_iter())
    }
}

/// rayon's `par_iter`: the items by reference (of a slice, a vector, …).
pub(crate) trait IntoParallelRefIterator<'data> {
    /// The std iterator run in order.
    type Iter: Iterator;
    fn par_iter(&'data self) -> Iter<Self::Iter>;
}

impl<'data, C: ?Sized + 'data> IntoParallelRefIterator<'data> for C
where
    &'data C: IntoIterator,
{
    type Iter = <&'data C as IntoIterator>::IntoIter;

    fn par_iter(&'data self) -> Iter<Self::Iter> {
        Iter(self.into_iter())
    }
}

/// rayon's `par_iter_mut`: the items by mutable reference.
pub(crate) trait IntoParallelRefMutIterator<'data> {
    /// The std iterator run in order.
    type Iter: Iterator;
    fn par_iter_mut(&'data mut self) -> Iter<Self::Iter>;
}

impl<'data, C: ?Sized + 'data> IntoParallelRefMutIterator<'data> for C
where
    &'data mut C: IntoIterator,
{
    type Iter = <&'data mut C as IntoIterator>::IntoIter;

    fn par_iter_mut(&'data mut self) -> Iter<Self::Iter> {
        Iter(self.into_iter())
    }
}

/// rayon's `par_chunks`: consecutive pieces of `size` items, the last one
/// shorter.
pub(crate) trait ParallelSlice<T> {
    fn par_chunks(&self, size: usize) -> Iter<std::slice::Chunks<'_, T>>;
}

impl<T> ParallelSlice<T> for [T] {
    fn par_chunks(&self, size: usize) -> Iter<std::slice::Chunks<'_, T>> {
        Iter(self.chunks(size))
    }
}

/// rayon's `par_chunks_mut`.
pub(crate) trait ParallelSliceMut<T> {
    fn par_chunks_mut(&mut self, size: usize) -> Iter<std::slice::ChunksMut<'_, T>>;
}

impl<T> ParallelSliceMut<T> for [T] {
    fn par_chunks_mut(&mut self, size: usize) -> Iter<std::slice::ChunksMut<'_, T>> {
        Iter(self.chunks_mut(size))
    }
}

/// The traits that give slices, ranges and collections the `par_*`
/// methods, as `rayon::prelude` does.
pub(crate) mod prelude {
    pub(crate) use super::{
        IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelSlice,
        ParallelSliceMut,
    };
}

/// rayon's `join`: `a` then `b`, on the calling thread (the order rayon
/// runs them in when no other thread takes `b`).
pub(crate) fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB,
{
    let ra = a();
    (ra, b())
}

/// rayon's index of the current thread in its pool: never in one here.
pub(crate) fn current_thread_index() -> Option<usize> {
    None
}

/// rayon's thread pool: `install` runs the work on the calling thread.
#[derive(Debug)]
pub(crate) struct ThreadPool(());

impl ThreadPool {
    pub(crate) fn install<R, OP: FnOnce() -> R>(&self, op: OP) -> R {
        op()
    }
}

/// rayon's pool builder: any number of threads gives the one pool.
#[derive(Debug, Default)]
pub(crate) struct ThreadPoolBuilder(());

impl ThreadPoolBuilder {
    pub(crate) fn new() -> Self {
        Self(())
    }

    pub(crate) fn num_threads(self, _threads: usize) -> Self {
        self
    }

    /// Never fails (rayon's fails when threads cannot be started).
    pub(crate) fn build(self) -> Result<ThreadPool, Infallible> {
        Ok(ThreadPool(()))
    }
}

#[cfg(test)]
mod tests;
