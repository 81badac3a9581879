/* Keeps one CPU busy until killed, doing nothing else: a pause loop (no
 * memory traffic; on a core shared by two hardware threads it leaves the
 * other thread the core's units). scripts/bench-dg.py --keep-awake runs
 * one per extra thread while a single-thread run is timed, so that the
 * other CPUs are not idle when the next multi-thread run starts
 * (docs/performance.md 6.3). Not part of qflow. */
int main(void) {
    for (;;) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ volatile("yield");
#endif
    }
}
