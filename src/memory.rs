//! Giving memory back while a build runs. The binary's allocator is mimalloc (`main.rs`). With
//! mimalloc a block freed by another thread than the one that allocated it waits on the
//! allocating thread's heap until that thread collects it, and a page freed whole goes back to
//! the system only after a delay, on that thread's next collection. A book's documents are made
//! on one thread (the DocBook reader's) or a few and let go while other threads write the pages:
//! without collecting, none of them was given back before the build ended (docbook-25x3000 grew
//! from 46 to 64 MiB while writing its pages; collecting, its peak there is 56 MiB).
//!
//! Both calls are harmless where mimalloc is not the global allocator (the tests): its own heap
//! is then empty.

/// Frees at once what this thread allocated and other threads have freed since: cheap, for a
/// worker between two pieces of work.
pub fn collect() {
    // SAFETY: `mi_collect` takes no pointers and may be called from any thread at any time.
    unsafe { libmimalloc_sys::mi_collect(false) }
}

/// Like [`collect`], and hands the pages left free back to the system now rather than after
/// mimalloc's delay: for the thread that lets a large structure go while others still work.
/// It costs system calls: call it after freeing megabytes, not after each small block.
pub fn give_back() {
    // SAFETY: as above.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// [`give_back`] on every thread of the pool and on this one, after a parallel step has freed
/// much on each. Not from a thread of the pool (`seihon ci` builds books there): it would wait
/// for every other thread to finish what it is doing.
pub fn give_back_everywhere() {
    if rayon::current_thread_index().is_none() {
        rayon::broadcast(|_| give_back());
    }
    give_back();
}
