/* What a border shared by two threads costs, and what a packed copy of it
 * saves (docs/performance.md 6.3). A DG-stage-shaped loop, as
 * scripts/threads-control.c, over N x N periodic elements of L doubles,
 * but each element reads only a face of F = 4 values of its north and
 * south neighbours (their last and first four values), as a DG cell reads
 * its neighbours' face nodes. Rows are split into one block per thread;
 * `u` and `un` swap after every loop. Modes:
 *
 *   shared   the neighbours' faces are read from `u` itself: at a block's
 *            border rows, lines the other thread wrote in the last loop
 *            (and writes again two loops on);
 *   packed   each thread also copies the faces of its two border rows
 *            into a buffer of its own (two, alternating by loop), and the
 *            other thread reads its border neighbours there: no line of
 *            `u`, `k` or `un` is touched by two threads;
 *   whole    as packed, whole elements copied (what a layer that does not
 *            know which values a kernel reads would copy);
 *   private  each block wraps on itself (nothing read across threads).
 *
 * shared, packed and whole compute the same values (the checksum agrees).
 *
 * Build: cc -O3 -march=native -fopenmp scripts/threads-border.c -o border
 * Run:   OMP_NUM_THREADS=T ./border N L LOOPS MODE
 * Prints the wall microseconds per loop. Not part of qflow. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F 4

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s N L LOOPS shared|packed|whole|private\n", argv[0]);
        return 2;
    }
    const long n = atol(argv[1]), l = atol(argv[2]), loops = atol(argv[3]);
    const char *mode = argv[4];
    const int priv = !strcmp(mode, "private"), whole = !strcmp(mode, "whole");
    const int packed = whole || !strcmp(mode, "packed");
    if (!packed && !priv && strcmp(mode, "shared")) {
        fprintf(stderr, "MODE: shared, packed, whole or private\n");
        return 2;
    }
    if (n < 3 || l < F || l % 8 || loops < 1) {
        fprintf(stderr, "N >= 3, L a multiple of 8, LOOPS >= 1\n");
        return 2;
    }
    const int threads = omp_get_max_threads();
    if (packed && threads != 2) {
        fprintf(stderr, "packed and whole: 2 threads (OMP_NUM_THREADS=2)\n");
        return 2;
    }
    const long w = whole ? l : F; /* values per element in a border buffer */
    const long len = n * n * l;
    double *u = aligned_alloc(64, len * sizeof(double));
    double *k = aligned_alloc(64, len * sizeof(double));
    double *un = aligned_alloc(64, len * sizeof(double));
    /* [thread][loop parity][bottom, top] rows of n elements of w values */
    double *fb = aligned_alloc(64, 8 * n * l * sizeof(double));
    if (!u || !k || !un || !fb) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (long e = 0; e < len; e++) {
        u[e] = 1.0 + 1e-3 * (double)(e % 97);
        k[e] = 0.0;
        un[e] = 0.0;
    }
    memset(fb, 0, 8 * n * l * sizeof(double));
#define FB(t, par, side) (fb + (((t) * 2 + (par)) * 2 + (side)) * n * w)
    const double t0 = omp_get_wtime();
    for (long s = 0; s < loops; s++) {
        const int par = (int)(s & 1);
#pragma omp parallel
        {
            const long t = omp_get_num_threads(), me = omp_get_thread_num();
            const long i0 = n * me / t, i1 = n * (me + 1) / t, other = (me + 1) % t;
            for (long i = i0; i < i1; i++) {
                long up = (i + n - 1) % n, down = (i + 1) % n;
                if (priv) {
                    up = i == i0 ? i1 - 1 : i - 1;
                    down = i + 1 == i1 ? i0 : i + 1;
                }
                for (long j = 0; j < n; j++) {
                    const double *c = u + (i * n + j) * l;
                    const double *we = u + (i * n + (j + n - 1) % n) * l;
                    const double *ea = u + (i * n + (j + 1) % n) * l;
                    /* north neighbour's last F values, south's first F */
                    const double *no = u + (up * n + j) * l + (l - F);
                    const double *so = u + (down * n + j) * l;
                    if (packed && s > 0) {
                        if (i == i0)
                            no = FB(other, par ^ 1, 1) + j * w + (w - F);
                        if (i == i1 - 1)
                            so = FB(other, par ^ 1, 0) + j * w;
                    }
                    double *kk = k + (i * n + j) * l, *o = un + (i * n + j) * l;
                    for (long q = 0; q < l; q++) {
                        double r = 0.0;
                        for (long m = 0; m < 4; m++) {
                            const long v = q + m < l ? q + m : q + m - l;
                            r += c[v] * (0.01 * (double)(q + 1) + 0.001 * (double)m);
                        }
                        r += 0.1 * (we[q] - ea[q]) + 0.1 * (no[q % F] - so[q % F]);
                        kk[q] = 0.5 * kk[q] + 1e-3 * r;
                        o[q] = c[q] + 0.3 * kk[q] - 3e-4 * r;
                    }
                    if (packed && i == i0)
                        memcpy(FB(me, par, 0) + j * w, o, w * sizeof(double));
                    if (packed && i == i1 - 1)
                        memcpy(FB(me, par, 1) + j * w, o + l - w, w * sizeof(double));
                }
            }
        }
        double *tt = u;
        u = un;
        un = tt;
    }
    printf("%.3f\n", (omp_get_wtime() - t0) / (double)loops * 1e6);
    fprintf(stderr, "%d threads, checksum %.12g\n", threads, u[len / 3]);
    return 0;
}
