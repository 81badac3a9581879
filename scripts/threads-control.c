/* A control for threads measurements on a shared machine: a plain
 * OpenMP loop shaped like a DG stage (docs/performance.md 13h), to run
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
 * Build: cc -O3 -march=native -fopenmp scripts/threads-control.c -o control
 * Run:   OMP_NUM_THREADS=2 ./control N L LOOPS
 * Prints the wall microseconds per loop. Not part of qflow. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s N L LOOPS\n", argv[0]);
        return 2;
    }
    const long n = atol(argv[1]), l = atol(argv[2]), loops = atol(argv[3]);
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
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) {
            for (long j = 0; j < n; j++) {
                const double *c = u + (i * n + j) * l;
                const double *w = u + (i * n + (j + n - 1) % n) * l;
                const double *e = u + (i * n + (j + 1) % n) * l;
                const double *no = u + (((i + n - 1) % n) * n + j) * l;
                const double *so = u + (((i + 1) % n) * n + j) * l;
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
        double *t = u;
        u = un;
        un = t;
    }
    const double t = omp_get_wtime() - t0;
    printf("%.3f\n", t / (double)loops * 1e6);
    fprintf(stderr, "%d threads, checksum %.12g\n", omp_get_max_threads(), u[len / 3]);
    return 0;
}
