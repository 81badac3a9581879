/* A control for threads measurements on a shared machine: a plain
 * OpenMP loop shaped like a DG stage (docs/performance.md 6.3), to run
 * beside qflow in the same minutes. Tells what speed-up two threads of a
 * simple static-schedule loop get at that moment, so that a qflow number
 * can be read against the machine's own ceiling.
 *
 * N x N periodic elements of L doubles; each loop reads an element and
 * its four neighbours from `u`, updates `k` and writes `un` (three arrays
 * of N^2 L doubles, as a low-storage Runge-Kutta stage), about 12 flops
 * per value (a loop takes about as long as qflow's 2D advection stage of
 * the same size on one core); `u` and `un` swap after every loop.
 *
 * With a fourth argument `private` each thread takes a block of rows
 * whose north and south neighbours wrap within the block: the same work
 * and arrays, but nothing one thread writes is read by another (what a
 * shared border costs: docs/performance.md 6.3).
 *
 * Build: cc -O3 -march=native -fopenmp scripts/threads-control.c -o control
 * Run:   OMP_NUM_THREADS=2 ./control N L LOOPS [private]
 * Prints the wall microseconds per loop. Not part of qflow. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 4 && !(argc == 5 && strcmp(argv[4], "private") == 0)) {
        fprintf(stderr, "usage: %s N L LOOPS [private]\n", argv[0]);
        return 2;
    }
    const long n = atol(argv[1]), l = atol(argv[2]), loops = atol(argv[3]);
    const int private_rows = argc == 5;
    if (n < 3 || l < 4 || loops < 1) {
        fprintf(stderr, "N >= 3, L >= 4, LOOPS >= 1\n");
        return 2;
    }
    const long len = n * n * l;
    double *u = malloc(len * sizeof(double));
    double *k = malloc(len * sizeof(double));
    double *un = malloc(len * sizeof(double));
    if (!u || !k || !un) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (long e = 0; e < len; e++) {
        u[e] = 1.0 + 1e-3 * (double)(e % 97);
        k[e] = 0.0;
        un[e] = 0.0;
    }
    const double t0 = omp_get_wtime();
    for (long s = 0; s < loops; s++) {
#pragma omp parallel
        {
            /* Rows i0..i1 of the box are this thread's (a static schedule). */
            const long t = omp_get_num_threads(), me = omp_get_thread_num();
            const long i0 = n * me / t, i1 = n * (me + 1) / t;
            for (long i = i0; i < i1; i++) {
                /* The rows above and below: the box's, or (private) the
                 * block's, wrapping within it. */
                long up = (i + n - 1) % n, down = (i + 1) % n;
                if (private_rows) {
                    up = i == i0 ? i1 - 1 : i - 1;
                    down = i + 1 == i1 ? i0 : i + 1;
                }
                for (long j = 0; j < n; j++) {
                    const double *c = u + (i * n + j) * l;
                    const double *w = u + (i * n + (j + n - 1) % n) * l;
                    const double *e = u + (i * n + (j + 1) % n) * l;
                    const double *no = u + (up * n + j) * l;
                    const double *so = u + (down * n + j) * l;
                    double *kk = k + (i * n + j) * l, *o = un + (i * n + j) * l;
                    for (long q = 0; q < l; q++) {
                        double r = 0.0;
                        for (long m = 0; m < 4; m++) {
                            const long v = q + m < l ? q + m : q + m - l;
                            r += c[v] * (0.01 * (double)(q + 1) + 0.001 * (double)m);
                        }
                        r += 0.1 * (w[q] - e[q]) + 0.1 * (no[q] - so[q]);
                        kk[q] = 0.5 * kk[q] + 1e-3 * r;
                        o[q] = c[q] + 0.3 * kk[q] - 3e-4 * r;
                    }
                }
            }
        }
        double *t = u;
        u = un;
        un = t;
    }
    const double t = omp_get_wtime() - t0;
    printf("%.3f\n", t / (double)loops * 1e6);
    fprintf(stderr, "%d threads, checksum %.12g\n", omp_get_max_threads(), u[len / 3]);
    return 0;
}
