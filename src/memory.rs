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

/// Lets `value` go on a thread of the pool while this one goes on, not waiting for it: what a
/// build lets go at its end (its resolver's tables, its book resolved and packed) is tens of
/// thousands of small blocks, and freeing them took milliseconds of a one-chapter rebuild.
/// A process that ends meanwhile does not free them at all.
pub fn drop_aside<T: Send + 'static>(value: T) {
    rayon::spawn(move || drop(value));
}

/// The number of `mi_option_purge_delay` in mimalloc 2.3's `mi_option_e` (include/mimalloc.h);
/// the crate is pinned in Cargo.toml, and a test of main.rs checks the version.
pub const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long mimalloc waits before giving pages freed whole back to the system: `ms`, or never
/// (`-1`).
fn set_purge_delay(ms: std::ffi::c_long) {
    // SAFETY: `mi_option_set` stores a number in mimalloc's option table, which it reads each
    // time it decides whether to purge; a word-sized store that the lock in `Build` keeps from
    // racing another.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, ms) }
}

/// How many builds under way in this process read or write most of their book.
static WHOLE: std::sync::Mutex<usize> = std::sync::Mutex::new(0);

/// A build's use of memory. A build reads and writes its whole book until it knows better:
/// pages it frees go back to the system within a millisecond, which keeps its peak down (see
/// main.rs). A build that takes most of its book from the caches ([`Build::small`]) keeps
/// freed pages for its next allocations instead, while no other build in this process is
/// whole: giving them back only for the kernel to fault fresh zeroed pages in again took a
/// sixth of a one-chapter rebuild of markdown-50x2000.
pub struct Build {
    whole: std::sync::atomic::AtomicBool,
}

impl Build {
    pub fn begin() -> Build {
        let mut whole = WHOLE.lock().unwrap_or_else(|e| e.into_inner());
        *whole += 1;
        set_purge_delay(1);
        Build {
            whole: std::sync::atomic::AtomicBool::new(true),
        }
    }

    /// The build takes most of its book from the caches.
    pub fn small(&self) {
        if self.whole.swap(false, std::sync::atomic::Ordering::Relaxed) {
            let mut whole = WHOLE.lock().unwrap_or_else(|e| e.into_inner());
            *whole = whole.saturating_sub(1);
            if *whole == 0 {
                set_purge_delay(-1);
            }
        }
    }

    /// [`give_back_everywhere`], for a whole build only: a small one keeps what it frees for
    /// its next allocations, and waking every thread of the pool to look through its heap took
    /// 2–3 ms of a one-chapter rebuild of review-50x2000.
    pub fn give_back_everywhere(&self) {
        if self.whole.load(std::sync::atomic::Ordering::Relaxed) {
            give_back_everywhere();
        }
    }

    /// Lets `value` go: beside this thread when the build is small ([`drop_aside`]), here
    /// when it is whole (its memory goes back before the next step allocates more).
    pub fn drop_aside<T: Send + 'static>(&self, value: T) {
        if self.whole.load(std::sync::atomic::Ordering::Relaxed) {
            drop(value);
        } else {
            drop_aside(value);
        }
    }

    /// The build reads (or writes) most of its book after all.
    pub fn whole(&self) {
        if !self.whole.swap(true, std::sync::atomic::Ordering::Relaxed) {
            let mut whole = WHOLE.lock().unwrap_or_else(|e| e.into_inner());
            *whole += 1;
            set_purge_delay(1);
        }
    }
}

impl Drop for Build {
    fn drop(&mut self) {
        if *self.whole.get_mut() {
            let mut whole = WHOLE.lock().unwrap_or_else(|e| e.into_inner());
            *whole = whole.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    /// Tells a channel when it is dropped, and on which thread.
    struct Told(std::sync::mpsc::Sender<std::thread::ThreadId>);

    impl Drop for Told {
        fn drop(&mut self) {
            let _ = self.0.send(std::thread::current().id());
        }
    }

    /// A small build lets go beside its thread; a whole one, at once on its own.
    #[test]
    fn a_small_build_lets_go_beside_and_a_whole_one_at_once() {
        let (tx, rx) = std::sync::mpsc::channel();
        let here = std::thread::current().id();
        let build = super::Build::begin();
        build.drop_aside(Told(tx.clone()));
        assert_eq!(
            rx.try_recv(),
            Ok(here),
            "whole: dropped before drop_aside returns"
        );
        build.small();
        build.drop_aside(Told(tx));
        let dropped = rx.recv_timeout(std::time::Duration::from_secs(30));
        assert!(dropped.is_ok_and(|on| on != here), "{dropped:?}");
    }
}
