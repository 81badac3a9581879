//! The process's allocator: the system's, with large blocks (a mesh's or a
//! grid's dats) placed on transparent huge pages.
//!
//! Linux backs memory with 4 KiB pages unless a region asks for huge ones
//! (`/sys/kernel/mm/transparent_hugepage/enabled` is `madvise` on Debian).
//! The solvers stream their dats every loop; on 2 MiB pages the same
//! loops ran 3-12% faster here (`docs/performance.md` 8), from fewer TLB misses
//! and page walks (on a virtual machine each walk is two-dimensional).
//! So every block of at least [`HUGE_FROM`] bytes is aligned to 2 MiB,
//! its size rounded up to whole 2 MiB pages, and marked
//! `MADV_HUGEPAGE` before anything touches it. The cost: up to 2 MiB of
//! memory per such block (a block of 512 KiB takes a whole page).
//! Where the kernel has no huge pages the advice is ignored and the block
//! is an ordinary one.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of at least this many bytes go on huge pages.
pub const HUGE_FROM: usize = 512 << 10;

/// A huge page's size (x86-64 and aarch64 with 4 KiB base pages).
const HUGE_PAGE: usize = 2 << 20;

/// The system allocator, with blocks of at least [`HUGE_FROM`] bytes on
/// transparent huge pages (the module's doc). Declared by the `qflow`
/// binary as its `#[global_allocator]`, and by the benches that time the
/// solvers as `qflow` runs them.
pub struct HugePageAlloc;

/// Has the C library keep blocks of up to 32 MiB in its heap rather than
/// mapping each from the kernel (and unmapping it when freed), and keep
/// the heap's freed top (up to 1 GiB) rather than give it back: a block
/// freed and allocated again (a run's set-up and its outputs build and
/// drop many) then finds its pages, huge ones included, already there,
/// where each new 2 MiB page would be zeroed again (with the top given
/// back, zeroing took 15% of a 150-step `lw` run's samples, 4% without).
/// glibc only.
pub fn keep_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: a setting of the allocator, made before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

/// The layout a block of `layout` is allocated with: itself if small,
/// else aligned to a huge page and a whole number of them.
fn placed(layout: Layout) -> Layout {
    if layout.size() < HUGE_FROM {
        return layout;
    }
    let size = layout.size().next_multiple_of(HUGE_PAGE);
    let align = layout.align().max(HUGE_PAGE);
    Layout::from_size_align(size, align).unwrap_or(layout)
}

/// Asks the kernel for huge pages under the block at `ptr` of `layout` (a
/// hint: whether it was taken is returned for the tests, and otherwise
/// ignored).
fn advise(ptr: *mut u8, layout: Layout) -> bool {
    #[cfg(target_os = "linux")]
    if !ptr.is_null() && layout.size() >= HUGE_FROM {
        // SAFETY: `ptr .. ptr + size` is the block just allocated (page
        // aligned: its alignment is at least a huge page's); the advice
        // changes no contents.
        return unsafe { libc::madvise(ptr.cast(), layout.size(), libc::MADV_HUGEPAGE) } == 0;
    }
    let _ = (ptr, layout);
    false
}

// SAFETY: every block comes from `System` with the layout `placed` gives
// for the caller's layout, and goes back to it with the same (`placed` is
// a function of the layout alone; `realloc` moves between the two kinds
// of block by allocating anew).
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let placed = placed(layout);
        // SAFETY: `placed` has a non-zero size (at least the caller's).
        let ptr = unsafe { System.alloc(placed) };
        let _ = advise(ptr, placed);
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let placed = placed(layout);
        if placed == layout {
            // SAFETY: as `System`'s, with the caller's layout.
            return unsafe { System.alloc_zeroed(layout) };
        }
        // Advised before the zeros touch the pages, so that they fault in
        // as huge pages.
        // SAFETY: as in `alloc`; the block is `placed.size()` bytes.
        unsafe {
            let ptr = System.alloc(placed);
            let _ = advise(ptr, placed);
            if !ptr.is_null() {
                std::ptr::write_bytes(ptr, 0, layout.size());
            }
            ptr
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` with `placed(layout)`.
        unsafe { System.dealloc(ptr, placed(layout)) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract (`new_size` non-zero, fits a
        // layout of `layout.align()`).
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if placed(layout) == layout && placed(new) == new {
            // SAFETY: both blocks are the system's own.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        if placed(new) == placed(layout) {
            // A large block that already holds the new size (its whole
            // pages), freed later with the new layout to the same block.
            return ptr;
        }
        // SAFETY: a new block, the old one's bytes copied (as many as both
        // hold), the old one freed.
        unsafe {
            let to = self.alloc(new);
            if !to.is_null() {
                std::ptr::copy_nonoverlapping(ptr, to, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            to
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Large blocks are aligned to a huge page and whole pages of it;
    /// small ones keep their layout; a block grows and shrinks across the
    /// threshold with its contents.
    #[test]
    fn large_blocks_are_placed_on_huge_pages() {
        let small = Layout::from_size_align(HUGE_FROM - 8, 8).unwrap();
        assert_eq!(placed(small), small);
        let large = Layout::from_size_align(HUGE_FROM + 8, 8).unwrap();
        let p = placed(large);
        assert_eq!((p.size(), p.align()), (HUGE_PAGE, HUGE_PAGE));
        let a = HugePageAlloc;
        unsafe {
            let ptr = a.alloc_zeroed(large);
            assert!(!ptr.is_null());
            assert_eq!(ptr as usize % HUGE_PAGE, 0);
            assert!((0..large.size()).all(|i| *ptr.add(i) == 0));
            for i in 0..large.size() {
                *ptr.add(i) = (i % 251) as u8;
            }
            // Grow within its whole pages: the same block.
            let within = Layout::from_size_align(HUGE_PAGE, 8).unwrap();
            assert_eq!(a.realloc(ptr, large, HUGE_PAGE), ptr);
            let large = within;
            // Shrink below the threshold, grow back past it.
            let ptr = a.realloc(ptr, large, 1000);
            assert!((0..1000).all(|i| *ptr.add(i) == (i % 251) as u8));
            let small = Layout::from_size_align(1000, 8).unwrap();
            let ptr = a.realloc(ptr, small, 3 * HUGE_PAGE);
            assert_eq!(ptr as usize % HUGE_PAGE, 0);
            assert!((0..1000).all(|i| *ptr.add(i) == (i % 251) as u8));
            a.dealloc(ptr, Layout::from_size_align(3 * HUGE_PAGE, 8).unwrap());
        }
    }

    /// Where the kernel offers transparent huge pages (Linux, not
    /// `never`), it takes the advice for a large block.
    #[test]
    fn the_kernel_takes_the_advice() {
        let Ok(mode) = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        else {
            return; // no transparent huge pages here
        };
        if mode.contains("[never]") {
            return;
        }
        let layout = placed(Layout::from_size_align(HUGE_FROM, 8).unwrap());
        unsafe {
            let ptr = System.alloc(layout);
            assert!(advise(ptr, layout), "madvise refused under {mode}");
            System.dealloc(ptr, layout);
        }
    }
}
