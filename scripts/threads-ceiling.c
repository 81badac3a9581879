/* What two threads of pure register arithmetic get from this machine at
 * this moment (docs/performance.md 6.2): each thread runs the same fixed
 * amount of work, 8 independent chains of 4-wide double multiply-adds
 * (no memory traffic, nothing shared, no synchronization until the end).
 * On T idle cores T threads take as long as one; the ratio
 * T x (time on 1 thread) / (time on T threads) is the speed-up the cores
 * themselves offer a perfectly parallel program, the ceiling for any
 * loop's speed-up measured in the same minutes.
 *
 * Build: cc -O2 -march=native -fopenmp scripts/threads-ceiling.c -o ceiling
 * Run:   OMP_NUM_THREADS=2 ./ceiling ITERATIONS
 * Prints the wall seconds. Not part of qflow. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

typedef double v4 __attribute__((vector_size(32)));

int main(int argc, char **argv) {
    const long iters = argc == 2 ? atol(argv[1]) : 0;
    if (iters < 1) {
        fprintf(stderr, "usage: %s ITERATIONS\n", argv[0]);
        return 2;
    }
    double sink = 0.0;
    const double t0 = omp_get_wtime();
#pragma omp parallel reduction(+ : sink)
    {
        const v4 m = {1.0000001, 1.0000001, 1.0000001, 1.0000001};
        const v4 c = {1e-9, 1e-9, 1e-9, 1e-9};
        v4 a[8];
        for (int j = 0; j < 8; j++)
            for (int q = 0; q < 4; q++) a[j][q] = (double)(j + q);
        for (long i = 0; i < iters; i++)
            for (int j = 0; j < 8; j++) a[j] = a[j] * m + c;
        for (int j = 0; j < 8; j++) sink += a[j][0];
    }
    printf("%.6f\n", omp_get_wtime() - t0);
    return sink == 42.0 ? 1 : 0; /* keeps the chains alive */
}
