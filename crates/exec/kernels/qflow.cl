/*
 * qflow's GPU kernels: one q-LSKUM iteration (LSKUM.md section 4) on a device.
 *
 * This file is the GPU counterpart of the Rust reference kernels in
 * crates/lskum/src/{gas,flux,limiter,kernels,forces}.rs and is laid out
 * function for function like them, in the same order and with the same names
 * (q_of_primitive, Kinetic, gx/gy/quadrant, venkatakrishnan, Fit,
 * reconstruct, SplitSums, local_time_step, q_variables, q_derivatives,
 * q_inner_iteration, flux_residual, state_update, force sums). Every
 * expression keeps the Rust code's order of operations (which is the
 * reference implementation's), so that a device agrees with the CPU to
 * round-off: the only differences come from the device's exp, log, erf,
 * hypot and pow, which OpenCL allows to differ from the host's by a few
 * units in the last place.
 *
 * ONE SOURCE, TWO LANGUAGES. The text below the prelude uses only these
 * macros for everything that differs between OpenCL C and CUDA C++:
 *
 *   KERNEL              a kernel entry point (returns void)
 *   FUNC                a device function (always inlined)
 *   GLOBAL              address space of device-memory pointers
 *   LOCAL               address space of work-group (shared) memory pointers
 *   LOCAL_ARRAY(T,a,n)  a work-group (shared) array declared in a kernel
 *   RESTRICT            no-alias qualifier
 *   GLOBAL_ID(), LOCAL_ID(), LOCAL_SIZE(), GROUP_ID()   1-D indexing
 *   BARRIER()           work-group barrier on local memory
 *   REAL                the floating-point type (double throughout)
 *   uint, uchar         unsigned int, unsigned char
 *
 * The OpenCL prelude is selected by __OPENCL_VERSION__ (every OpenCL C
 * compiler defines it); the CUDA prelude by __CUDACC__ (nvcc and NVRTC define
 * it). A CUDA backend would compile this same text with NVRTC, options
 * `--fmad=false -DQF_WG_MAX=<block size bound>` (no multiply-add
 * contraction: the FP_CONTRACT pragma below is OpenCL's way of saying the
 * same), launch each KERNEL by its extern "C" name with blockDim = the work
 * group size and gridDim = ceil(points / blockDim), and pass buffers as
 * device pointers and scalars by value, in the argument order written here.
 * The CUDA prelude is not compiled in this repository (there is no CUDA
 * backend yet); the OpenCL one is compiled and tested on every build that
 * has the `opencl` feature.
 *
 * RANGES. A point kernel may run over a range first..end of the points (the
 * distributed layer computes a rank's interior points while ghost values
 * travel, then the rest): the host sets the kernel's `n` to end and starts
 * the work items at first. OpenCL does that with the launch's global work
 * offset, which get_global_id includes; CUDA has no such offset, so its
 * GLOBAL_ID() adds the __constant__ qf_first, which a CUDA backend sets
 * (cuMemcpyHtoDAsync on the launch's stream, to the address
 * cuModuleGetGlobal gives for it) before each launch of a range that does
 * not start at 0. The reductions always start at point 0 (their partial
 * sums are indexed by work group).
 *
 * DATA LAYOUT. Struct of arrays, field by field: every per-point scalar
 * (x, y, nx, ny, min_dist, kind, delta) is its own array indexed by point,
 * and every 4-component field (primitive state, q, its derivatives, stencil
 * bounds, residual) is its own array of 32-byte points, component c of point
 * i at f[4 * i + c] (AT below). Work item i handles point i, so a work
 * group's reads of its own points are one contiguous run per field
 * (coalesced), and a neighbour read through the stencil fetches the point's
 * four components from one 32-byte sector (one cache line on a CPU) instead
 * of four: the stencil gathers are most of the traffic of q_derivatives, the
 * inner iterations and the flux residual. (Four component planes, the other
 * struct-of-arrays choice, measured 5x slower in q_derivatives on PoCL; see
 * docs/gpu.md.) Only scalar loads are used, so the text needs none of the
 * vector types that differ between OpenCL and CUDA. The stencils are
 * compressed rows: the neighbours of point i are
 * nbr[nbr_start[i] .. nbr_start[i + 1]], in stencil order.
 */

/* ---------------------------------------------------------------- prelude */

#if defined(__OPENCL_VERSION__)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* No a*b+c -> fma contraction: the Rust kernels round every product. */
#pragma OPENCL FP_CONTRACT OFF
#define KERNEL __kernel void
#define FUNC static inline
#define GLOBAL __global
#define LOCAL __local
#define LOCAL_ARRAY(type, name, n) __local type name[n]
#define RESTRICT restrict
#define GLOBAL_ID() ((uint)get_global_id(0))
#define LOCAL_ID() ((uint)get_local_id(0))
#define LOCAL_SIZE() ((uint)get_local_size(0))
#define GROUP_ID() ((uint)get_group_id(0))
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define ATOMIC_MIN(p, v) atomic_min((p), (v))
#elif defined(__CUDACC__)
/* The CUDA prelude (not compiled here: see above). NVRTC has the math
 * functions (exp, log, erf, hypot, pow, isfinite) built in. */
typedef unsigned int uint;
typedef unsigned char uchar;
#define KERNEL extern "C" __global__ void
#define FUNC static __device__ __forceinline__
#define GLOBAL
#define LOCAL
#define LOCAL_ARRAY(type, name, n) __shared__ type name[n]
#define RESTRICT __restrict__
/* The first point of a range launch (see RANGES above); 0 otherwise. */
__constant__ uint qf_first;
#define GLOBAL_ID() (qf_first + blockIdx.x * blockDim.x + threadIdx.x)
#define LOCAL_ID() (threadIdx.x)
#define LOCAL_SIZE() (blockDim.x)
#define GROUP_ID() (blockIdx.x)
#define BARRIER() __syncthreads()
#define ATOMIC_MIN(p, v) atomicMin((p), (v))
#else
#error "qflow.cl needs an OpenCL C or a CUDA compiler"
#endif

/* Bound on the work-group size, for the reduction's work-group arrays; the
 * host defines it when it builds the program. */
#ifndef QF_WG_MAX
#define QF_WG_MAX 256
#endif

typedef double REAL;

/* ------------------------------------------------------------- gas model */

/* gamma - 1 as the reference evaluates it (1.4 - 1.0 = 0.3999999999999999). */
#define GAMMA_MINUS_1 (1.4 - 1.0)
#define RHO_INF 1.0
/* 1/gamma as the reference writes it (one ulp below 1.0 / 1.4). */
#define P_INF 0.7142857142857142
/* The double nearest pi (std::f64::consts::PI). */
#define QF_PI 3.14159265358979323846

/* No non-physical point found (a flag in the `bad` array). */
#define NO_POINT 0xffffffffu

/* Point kinds, the legacy file's codes (qflow_cloud::PointKind). */
#define WALL 0
#define INTERIOR 1
#define OUTER 2

/* Four components of one point. */
typedef struct {
    REAL c[4];
} Vec4;

/* Component c of point i of a 4-component field. */
#define AT(i, c) (4 * (i) + (c))

FUNC Vec4 load4(GLOBAL const REAL* RESTRICT f, uint i)
{
    Vec4 v;
    for (int c = 0; c < 4; c++) v.c[c] = f[AT(i, c)];
    return v;
}

FUNC void store4(GLOBAL REAL* RESTRICT f, uint i, Vec4 v)
{
    for (int c = 0; c < 4; c++) f[AT(i, c)] = v.c[c];
}

/* gas::q_of_primitive: q-variables (eq. 13), 1/(gamma-1) as the literal 2.5. */
FUNC Vec4 q_of_primitive(Vec4 w)
{
    REAL rho = w.c[0], u1 = w.c[1], u2 = w.c[2], pr = w.c[3];
    REAL beta = 0.5 * (rho / pr);
    REAL two_times_beta = 2.0 * beta;
    Vec4 q;
    q.c[0] = log(rho) + log(beta) * 2.5 - (beta * ((u1 * u1) + (u2 * u2)));
    q.c[1] = two_times_beta * u1;
    q.c[2] = two_times_beta * u2;
    q.c[3] = -two_times_beta;
    return q;
}

/* gas::primitive_of_q: the inverse of q_of_primitive. */
FUNC Vec4 primitive_of_q(Vec4 q)
{
    REAL beta = -q.c[3] * 0.5;
    REAL temp = 0.5 / beta;
    REAL u1 = q.c[1] * temp;
    REAL u2 = q.c[2] * temp;
    REAL temp1 = q.c[0] + beta * (u1 * u1 + u2 * u2);
    REAL temp2 = temp1 - (log(beta) / GAMMA_MINUS_1);
    REAL rho = exp(temp2);
    Vec4 w;
    w.c[0] = rho;
    w.c[1] = u1;
    w.c[2] = u2;
    w.c[3] = rho * temp;
    return w;
}

/* gas::conserved_in_frame: U in the frame of tangent (ny, -nx), normal n. */
FUNC Vec4 conserved_in_frame(Vec4 w, REAL nx, REAL ny)
{
    REAL rho = w.c[0];
    REAL temp1 = rho * w.c[1];
    REAL temp2 = rho * w.c[2];
    Vec4 u;
    u.c[0] = rho;
    u.c[1] = temp1 * ny - temp2 * nx;
    u.c[2] = temp1 * nx + temp2 * ny;
    u.c[3] = 2.5 * w.c[3] + 0.5 * (temp1 * temp1 + temp2 * temp2) / rho;
    return u;
}

/* gas::primitive_of_conserved, with the reference's literals 0.4 and 0.2. */
FUNC Vec4 primitive_of_conserved(Vec4 u)
{
    REAL rho = u.c[0];
    REAL temp = 1.0 / rho;
    Vec4 w;
    w.c[0] = rho;
    w.c[1] = u.c[1] * temp;
    w.c[2] = u.c[2] * temp;
    w.c[3] = (0.4 * u.c[3]) - ((0.2 * temp) * (u.c[1] * u.c[1] + u.c[2] * u.c[2]));
    return w;
}

/* gas::far_field_state: the kinetic far-field state at an outer point. The
 * free-stream velocity (u1_inf, u2_inf) = M (cos a, sin a) comes from the
 * host, computed there exactly as the Rust code computes it. */
FUNC Vec4 far_field_state(Vec4 w, REAL nx, REAL ny, REAL u1_inf, REAL u2_inf)
{
    REAL tx = ny, ty = -nx;
    REAL u1_inf_rot = u1_inf * tx + u2_inf * ty;
    REAL u2_inf_rot = u1_inf * nx + u2_inf * ny;
    REAL temp1 = u1_inf_rot * u1_inf_rot + u2_inf_rot * u2_inf_rot;
    REAL e_inf = (P_INF / (RHO_INF * GAMMA_MINUS_1)) + 0.5 * temp1;
    REAL beta = (0.5 * RHO_INF) / P_INF;
    REAL s2 = u2_inf_rot * sqrt(beta);
    REAL b2_inf = exp(-s2 * s2) / (2.0 * sqrt(QF_PI * beta));
    REAL a2n_inf = 0.5 * (1.0 - erf(s2));

    REAL rho = w.c[0], u1 = w.c[1], u2 = w.c[2], pr = w.c[3];
    REAL u1_rot = u1 * tx + u2 * ty;
    REAL u2_rot = u1 * nx + u2 * ny;
    temp1 = u1_rot * u1_rot + u2_rot * u2_rot;
    REAL e = (pr / (rho * GAMMA_MINUS_1)) + 0.5 * temp1;
    beta = rho / (2.0 * pr);
    s2 = u2_rot * sqrt(beta);
    REAL b2 = exp(-s2 * s2) / (2.0 * sqrt(QF_PI * beta));
    REAL a2p = 0.5 * (1.0 + erf(s2));

    Vec4 u;
    u.c[0] = (RHO_INF * a2n_inf) + (rho * a2p);
    u.c[1] = (RHO_INF * u1_inf_rot * a2n_inf) + (rho * u1_rot * a2p);
    u.c[2] = RHO_INF * (u2_inf_rot * a2n_inf - b2_inf) + rho * (u2_rot * a2p + b2);
    u.c[3] = (RHO_INF * a2n_inf * e_inf - 0.5 * RHO_INF * u2_inf_rot * b2_inf)
        + (rho * a2p * e + 0.5 * rho * u2_rot * b2);
    return u;
}

/* gas::is_physical: finite, positive density and pressure. */
FUNC int is_physical(Vec4 w)
{
    return w.c[0] > 0.0 && w.c[3] > 0.0 && isfinite(w.c[0]) && isfinite(w.c[1])
        && isfinite(w.c[2]) && isfinite(w.c[3]);
}

/* --------------------------------------------------- kinetic split fluxes */

/* flux::Kinetic: a state in a point's frame with its kinetic moments. */
typedef struct {
    REAL rho, ut, un;
    REAL pr_by_rho; /* p / rho */
    REAL u_sqr;     /* |u|^2 */
    REAL erf1, b1;  /* erf(S1), B1 */
    REAL erf2, b2;  /* erf(S2), B2 */
} Kinetic;

/* flux::b_of: B = exp(-S^2) / (2 sqrt(pi beta)). */
FUNC REAL b_of(REAL s, REAL sqrt_pi_beta)
{
    return 0.5 * exp(-s * s) / sqrt_pi_beta;
}

/* The directions whose moments a flux needs: S_DIR for the x-split fluxes
 * (erf S1, B1), N_DIR for the y-split fluxes (erf S2, B2), both for the
 * quadrant fluxes. */
#define S_DIR 1
#define N_DIR 2
#define BOTH_DIRS 3

/* flux::Kinetic::new. The Rust code always computes both directions'
 * moments; the split kernels ask only for those their fluxes use (`dirs`),
 * which skips an erf and an exp per state where the other is not needed and
 * changes no computed value. */
FUNC Kinetic kinetic_new(REAL nx, REAL ny, Vec4 w, int dirs)
{
    REAL rho = w.c[0], u1 = w.c[1], u2 = w.c[2], pr = w.c[3];
    REAL tx = ny, ty = -nx;
    REAL ut = u1 * tx + u2 * ty;
    REAL un = u1 * nx + u2 * ny;
    REAL beta = 0.5 * rho / pr;
    REAL sqrt_beta = sqrt(beta);
    REAL sqrt_pi_beta = sqrt(QF_PI * beta);
    REAL s1 = ut * sqrt_beta;
    REAL s2 = un * sqrt_beta;
    Kinetic k;
    k.rho = rho;
    k.ut = ut;
    k.un = un;
    k.pr_by_rho = pr / rho;
    k.u_sqr = ut * ut + un * un;
    k.erf1 = 0.0;
    k.b1 = 0.0;
    k.erf2 = 0.0;
    k.b2 = 0.0;
    if (dirs & S_DIR) {
        k.erf1 = erf(s1);
        k.b1 = b_of(s1, sqrt_pi_beta);
    }
    if (dirs & N_DIR) {
        k.erf2 = erf(s2);
        k.b2 = b_of(s2, sqrt_pi_beta);
    }
    return k;
}

/* flux::Kinetic::gx: the x-split flux of half-range sign st (+1: Gx+, -1: Gx-). */
FUNC Vec4 gx(Kinetic k, REAL st)
{
    REAL rho = k.rho, ut = k.ut, un = k.un;
    REAL a1 = 0.5 * (1.0 + st * k.erf1);
    REAL b1 = k.b1;
    REAL temp2 = (k.pr_by_rho + ut * ut) * a1 + st * (ut * b1);
    REAL g3 = ut * un * a1 + st * (un * b1);
    REAL e7 = 7.0 * k.pr_by_rho + k.u_sqr;
    REAL e6 = 6.0 * k.pr_by_rho + k.u_sqr;
    Vec4 g;
    g.c[0] = rho * (ut * a1 + st * b1);
    g.c[1] = rho * temp2;
    g.c[2] = rho * g3;
    g.c[3] = rho * (0.5 * ut * e7 * a1 + st * (0.5 * e6 * b1));
    return g;
}

/* flux::Kinetic::gy: the y-split flux of half-range sign sn. */
FUNC Vec4 gy(Kinetic k, REAL sn)
{
    REAL rho = k.rho, ut = k.ut, un = k.un;
    REAL a2 = 0.5 * (1.0 + sn * k.erf2);
    REAL b2 = k.b2;
    REAL temp2 = (k.pr_by_rho + un * un) * a2 + sn * (un * b2);
    REAL g2 = ut * un * a2 + sn * (ut * b2);
    REAL e7 = 7.0 * k.pr_by_rho + k.u_sqr;
    REAL e6 = 6.0 * k.pr_by_rho + k.u_sqr;
    Vec4 g;
    g.c[0] = rho * (un * a2 + sn * b2);
    g.c[1] = rho * g2;
    g.c[2] = rho * temp2;
    g.c[3] = rho * (0.5 * un * e7 * a2 + sn * (0.5 * e6 * b2));
    return g;
}

/* flux::Kinetic::quadrant: half-range st in t and sn in n
 * (I: (-,-), II: (+,-), III: (+,+), IV: (-,+)). */
FUNC Vec4 quadrant(Kinetic k, REAL st, REAL sn)
{
    REAL rho = k.rho, ut = k.ut, un = k.un;
    REAL b1 = k.b1, b2 = k.b2;
    REAL a1 = 0.5 * (1.0 + st * k.erf1);
    REAL a2 = 0.5 * (1.0 + sn * k.erf2);
    REAL t_half = ut * a1 + st * b1;
    REAL n_half = un * a2 + sn * b2;
    REAL temp2 = (k.pr_by_rho + ut * ut) * a1 + st * (ut * b1);
    REAL e7 = 7.0 * k.pr_by_rho + k.u_sqr;
    REAL e6 = 6.0 * k.pr_by_rho + k.u_sqr;
    REAL energy_t = 0.5 * ut * e7 * a1;
    REAL energy_b = 0.5 * b1 * e6;
    REAL temp4 = 0.5 * rho * un * b2 * t_half;
    Vec4 g;
    g.c[0] = rho * a2 * t_half;
    g.c[1] = rho * a2 * temp2;
    g.c[2] = rho * t_half * n_half;
    g.c[3] = rho * a2 * (energy_t + st * energy_b) + sn * temp4;
    return g;
}

#define GX_POS(k) gx((k), 1.0)
#define GX_NEG(k) gx((k), -1.0)
#define GY_POS(k) gy((k), 1.0)
#define GY_NEG(k) gy((k), -1.0)
#define QUAD_1(k) quadrant((k), -1.0, -1.0)
#define QUAD_2(k) quadrant((k), 1.0, -1.0)
#define QUAD_3(k) quadrant((k), 1.0, 1.0)
#define QUAD_4(k) quadrant((k), -1.0, 1.0)

/* ---------------------------------------------------------------- limiter */

/* limiter::venkat_epsilon: eps = (vl_const * min_dist)^3. */
FUNC REAL venkat_epsilon(REAL vl_const, REAL min_dist)
{
    REAL e = vl_const * min_dist;
    return e * e * e;
}

/* limiter::venkatakrishnan: phi per component. */
FUNC Vec4 venkatakrishnan(Vec4 qt, Vec4 q, Vec4 q_max, Vec4 q_min, REAL epsi)
{
    Vec4 phi;
    REAL eps2 = epsi * epsi;
    for (int i = 0; i < 4; i++) {
        phi.c[i] = 1.0;
        REAL del_neg = qt.c[i] - q.c[i];
        if (fabs(del_neg) > 1e-5) {
            REAL del_pos = del_neg > 0.0 ? q_max.c[i] - q.c[i] : q_min.c[i] - q.c[i];
            REAL num = (del_pos * del_pos) + eps2;
            num = (num * del_neg) + 2.0 * (del_neg * del_neg * del_pos);
            REAL den = (del_pos * del_pos) + (2.0 * del_neg * del_neg);
            den = den + (del_neg * del_pos) + eps2;
            den = den * del_neg;
            REAL temp = num / den;
            phi.c[i] = temp < 1.0 ? temp : 1.0;
        }
    }
    return phi;
}

/* ---------------------------------------------------------------- kernels */

/* kernels::weight: the least-squares weight d^power, exactly 1 for power 0
 * (as pow gives) without computing the distance: the macro evaluates `dist`
 * only when it is needed, as the Rust closure does. */
#define WEIGHT(power, dist) ((power) == 0.0 ? 1.0 : pow((dist), (power)))

/* kernels::local_time_step, and the copy of the state at the start of the
 * iteration. Reads prim through the stencil; writes delta, prim_old. */
KERNEL local_time_step(const uint n, const REAL cfl,
                       GLOBAL const REAL* RESTRICT x, GLOBAL const REAL* RESTRICT y,
                       GLOBAL const uint* RESTRICT nbr_start, GLOBAL const uint* RESTRICT nbr,
                       GLOBAL const REAL* RESTRICT prim, GLOBAL REAL* RESTRICT delta,
                       GLOBAL REAL* RESTRICT prim_old)
{
    uint i = GLOBAL_ID();
    if (i >= n) return;
    REAL xi = x[i], yi = y[i];
    REAL min_delt = 1.0;
    for (uint e = nbr_start[i]; e < nbr_start[i + 1]; e++) {
        uint k = nbr[e];
        Vec4 w = load4(prim, k);
        REAL dist = hypot(x[k] - xi, y[k] - yi);
        REAL mod_u = hypot(w.c[1], w.c[2]);
        REAL delta_t = dist / (mod_u + 3.0 * sqrt(w.c[3] / w.c[0]));
        delta_t *= cfl;
        if (min_delt > delta_t) min_delt = delta_t;
    }
    delta[i] = min_delt;
    store4(prim_old, i, load4(prim, i));
}

/* kernels::q_variables (pointwise). */
KERNEL q_variables(const uint n, GLOBAL const REAL* RESTRICT prim,
                   GLOBAL REAL* RESTRICT q)
{
    uint i = GLOBAL_ID();
    if (i >= n) return;
    store4(q, i, q_of_primitive(load4(prim, i)));
}

/* kernels::Fit: least-squares sums of one fit. */
typedef struct {
    REAL sxx, syy, sxy;
    REAL sxq[4], syq[4];
} Fit;

FUNC void fit_init(Fit* f)
{
    f->sxx = 0.0;
    f->syy = 0.0;
    f->sxy = 0.0;
    for (int c = 0; c < 4; c++) {
        f->sxq[c] = 0.0;
        f->syq[c] = 0.0;
    }
}

/* Fit::add: one neighbour at (dx, dy), weight w, difference dq. */
FUNC void fit_add(Fit* f, REAL dx, REAL dy, REAL w, Vec4 dq)
{
    f->sxx += (dx * dx) * w;
    f->syy += (dy * dy) * w;
    f->sxy += (dx * dy) * w;
    for (int c = 0; c < 4; c++) {
        REAL iv = w * dq.c[c];
        f->sxq[c] += dx * iv;
        f->syq[c] += dy * iv;
    }
}

/* Fit::solve: the gradient from the 2x2 normal equations. */
FUNC void fit_solve(const Fit* f, Vec4* gx_out, Vec4* gy_out)
{
    REAL det = (f->sxx * f->syy) - (f->sxy * f->sxy);
    REAL one_by_det = 1.0 / det;
    for (int c = 0; c < 4; c++) {
        gx_out->c[c] = one_by_det * (f->sxq[c] * f->syy - f->syq[c] * f->sxy);
        gy_out->c[c] = one_by_det * (f->syq[c] * f->sxx - f->sxq[c] * f->sxy);
    }
}

/* kernels::q_derivatives: first least-squares q-derivatives over the full
 * stencil and the stencil's bounds of q (point included). Reads q through
 * the stencil; writes qx, qy, q_max, q_min. */
KERNEL q_derivatives(const uint n, const REAL power,
                     GLOBAL const REAL* RESTRICT x, GLOBAL const REAL* RESTRICT y,
                     GLOBAL const uint* RESTRICT nbr_start, GLOBAL const uint* RESTRICT nbr,
                     GLOBAL const REAL* RESTRICT q, GLOBAL REAL* RESTRICT qx,
                     GLOBAL REAL* RESTRICT qy, GLOBAL REAL* RESTRICT q_max,
                     GLOBAL REAL* RESTRICT q_min)
{
    uint i = GLOBAL_ID();
    if (i >= n) return;
    REAL xi = x[i], yi = y[i];
    Vec4 qi = load4(q, i);
    Fit fit;
    fit_init(&fit);
    Vec4 hi = qi, lo = qi;
    for (uint e = nbr_start[i]; e < nbr_start[i + 1]; e++) {
        uint k = nbr[e];
        REAL dx = x[k] - xi;
        REAL dy = y[k] - yi;
        REAL w = WEIGHT(power, hypot(dx, dy));
        Vec4 qk = load4(q, k);
        Vec4 dq;
        for (int c = 0; c < 4; c++) dq.c[c] = qk.c[c] - qi.c[c];
        fit_add(&fit, dx, dy, w, dq);
        for (int c = 0; c < 4; c++) {
            if (hi.c[c] < qk.c[c]) hi.c[c] = qk.c[c];
            if (lo.c[c] > qk.c[c]) lo.c[c] = qk.c[c];
        }
    }
    Vec4 gxv, gyv;
    fit_solve(&fit, &gxv, &gyv);
    store4(qx, i, gxv);
    store4(qy, i, gyv);
    store4(q_max, i, hi);
    store4(q_min, i, lo);
}

/* kernels::q_inner_iteration: one Jacobi sweep of the second-order
 * q-derivatives. Reads q, qx, qy through the stencil; writes qx_new, qy_new
 * (the host swaps the two buffers afterwards). */
KERNEL q_inner_iteration(const uint n, const REAL power,
                         GLOBAL const REAL* RESTRICT x, GLOBAL const REAL* RESTRICT y,
                         GLOBAL const uint* RESTRICT nbr_start,
                         GLOBAL const uint* RESTRICT nbr, GLOBAL const REAL* RESTRICT q,
                         GLOBAL const REAL* RESTRICT qx, GLOBAL const REAL* RESTRICT qy,
                         GLOBAL REAL* RESTRICT qx_new, GLOBAL REAL* RESTRICT qy_new)
{
    uint i = GLOBAL_ID();
    if (i >= n) return;
    REAL xi = x[i], yi = y[i];
    Vec4 qi = load4(q, i), qxi = load4(qx, i), qyi = load4(qy, i);
    Fit fit;
    fit_init(&fit);
    for (uint e = nbr_start[i]; e < nbr_start[i + 1]; e++) {
        uint k = nbr[e];
        REAL dx = x[k] - xi;
        REAL dy = y[k] - yi;
        REAL w = WEIGHT(power, hypot(dx, dy));
        Vec4 qk = load4(q, k), qxk = load4(qx, k), qyk = load4(qy, k);
        Vec4 dq;
        for (int c = 0; c < 4; c++) {
            REAL qi_tilde = qi.c[c] - 0.5 * (dx * qxi.c[c] + dy * qyi.c[c]);
            REAL qk_tilde = qk.c[c] - 0.5 * (dx * qxk.c[c] + dy * qyk.c[c]);
            dq.c[c] = qk_tilde - qi_tilde;
        }
        fit_add(&fit, dx, dy, w, dq);
    }
    Vec4 gxv, gyv;
    fit_solve(&fit, &gxv, &gyv);
    store4(qx_new, i, gxv);
    store4(qy_new, i, gyv);
}

/* kernels::FluxInputs: the fields the flux residual reads. */
typedef struct {
    GLOBAL const REAL* q;
    GLOBAL const REAL* qx;
    GLOBAL const REAL* qy;
    GLOBAL const REAL* q_max;
    GLOBAL const REAL* q_min;
    int limiter;
} FluxInputs;

/* kernels::reconstruct: qt = q_i - phi/2 (dx qx_i + dy qy_i), limited per
 * component, as a primitive state. */
FUNC Vec4 reconstruct(const FluxInputs* f, REAL epsi, uint i, REAL dx, REAL dy)
{
    Vec4 q = load4(f->q, i), qx = load4(f->qx, i), qy = load4(f->qy, i);
    Vec4 qt;
    for (int c = 0; c < 4; c++) qt.c[c] = q.c[c] - 0.5 * (dx * qx.c[c] + dy * qy.c[c]);
    if (f->limiter) {
        Vec4 phi = venkatakrishnan(qt, q, load4(f->q_max, i), load4(f->q_min, i),
                                   epsi);
        for (int c = 0; c < 4; c++)
            qt.c[c] = q.c[c] - 0.5 * phi.c[c] * (dx * qx.c[c] + dy * qy.c[c]);
    }
    return primitive_of_q(qt);
}

/* kernels::SplitSums: least-squares sums of one split stencil in the s-n frame. */
typedef struct {
    REAL sss, snn, ssn;
    REAL sdf_s[4], sdf_n[4];
} SplitSums;

FUNC void split_sums_init(SplitSums* s)
{
    s->sss = 0.0;
    s->snn = 0.0;
    s->ssn = 0.0;
    for (int c = 0; c < 4; c++) {
        s->sdf_s[c] = 0.0;
        s->sdf_n[c] = 0.0;
    }
}

/* SplitSums::add: a neighbour at (ds, dn), weighted (ds_w, dn_w), with flux
 * difference g_k - g_i. */
FUNC void split_sums_add(SplitSums* s, REAL ds, REAL dn, REAL ds_w, REAL dn_w, Vec4 g_k,
                         Vec4 g_i)
{
    s->sss += ds * ds_w;
    s->snn += dn * dn_w;
    s->ssn += ds * dn_w;
    for (int c = 0; c < 4; c++) {
        REAL d = g_k.c[c] - g_i.c[c];
        s->sdf_s[c] += d * ds_w;
        s->sdf_n[c] += d * dn_w;
    }
}

/* SplitSums::d_ds: dG/ds (x-type fluxes). */
FUNC Vec4 d_ds(const SplitSums* s)
{
    REAL one_by_det = 1.0 / (s->sss * s->snn - s->ssn * s->ssn);
    Vec4 out;
    for (int c = 0; c < 4; c++)
        out.c[c] = (s->sdf_s[c] * s->snn - s->sdf_n[c] * s->ssn) * one_by_det;
    return out;
}

/* SplitSums::d_dn: dG/dn (y-type fluxes). */
FUNC Vec4 d_dn(const SplitSums* s)
{
    REAL one_by_det = 1.0 / (s->sss * s->snn - s->ssn * s->ssn);
    Vec4 out;
    for (int c = 0; c < 4; c++)
        out.c[c] = (s->sdf_n[c] * s->sss - s->sdf_s[c] * s->ssn) * one_by_det;
    return out;
}

/* The geometry of point i the flux kernels need. */
typedef struct {
    GLOBAL const REAL* x;
    GLOBAL const REAL* y;
    GLOBAL const REAL* min_dist;
    REAL xi, yi, nx, ny, eps_i, power, vl_const;
} FluxPoint;

/* One neighbour k of point i, as the flux kernels see it: its offset in the
 * point's s-n frame and the weighted offsets. */
typedef struct {
    REAL ds, dn, ds_w, dn_w, dx, dy;
} Offset;

FUNC Offset offset_of(const FluxPoint* p, uint k)
{
    Offset o;
    o.dx = p->x[k] - p->xi;
    o.dy = p->y[k] - p->yi;
    o.ds = o.dx * p->ny - o.dy * p->nx;
    o.dn = o.dx * p->nx + o.dy * p->ny;
    REAL w = WEIGHT(p->power, sqrt(o.ds * o.ds + o.dn * o.dn));
    o.ds_w = o.ds * w;
    o.dn_w = o.dn * w;
    return o;
}

/* The kinetic moments of the reconstructions of point i (ki) and neighbour
 * k (kk) towards the offset o, both in the frame of point i. */
FUNC void kinetics_of(const FluxInputs* f, const FluxPoint* p, uint i, uint k, Offset o,
                      int dirs, Kinetic* ki, Kinetic* kk)
{
    REAL eps_k = venkat_epsilon(p->vl_const, p->min_dist[k]);
    *ki = kinetic_new(p->nx, p->ny, reconstruct(f, p->eps_i, i, o.dx, o.dy), dirs);
    *kk = kinetic_new(p->nx, p->ny, reconstruct(f, eps_k, k, o.dx, o.dy), dirs);
}

#define FLUX_KERNEL_ARGS                                                                       \
    const uint n, const REAL power, const REAL vl_const, const int limiter,     \
        GLOBAL const REAL *RESTRICT x, GLOBAL const REAL *RESTRICT y,                          \
        GLOBAL const REAL *RESTRICT nx, GLOBAL const REAL *RESTRICT ny,                        \
        GLOBAL const REAL *RESTRICT min_dist, GLOBAL const uchar *RESTRICT kind,               \
        GLOBAL const uint *RESTRICT nbr_start, GLOBAL const uint *RESTRICT nbr,                \
        GLOBAL const REAL *RESTRICT q, GLOBAL const REAL *RESTRICT qx,                         \
        GLOBAL const REAL *RESTRICT qy, GLOBAL const REAL *RESTRICT q_max,                     \
        GLOBAL const REAL *RESTRICT q_min, GLOBAL const REAL *RESTRICT delta,                  \
        GLOBAL REAL *RESTRICT res

/* The common start of every flux kernel: point i's inputs. */
#define FLUX_SETUP                                                                             \
    uint i = GLOBAL_ID();                                                                      \
    if (i >= n) return;                                                                        \
    FluxInputs f;                                                                              \
    f.q = q;                                                                                   \
    f.qx = qx;                                                                                 \
    f.qy = qy;                                                                                 \
    f.q_max = q_max;                                                                           \
    f.q_min = q_min;                                                                           \
    f.limiter = limiter;                                                                       \
    FluxPoint p;                                                                               \
    p.x = x;                                                                                   \
    p.y = y;                                                                                   \
    p.min_dist = min_dist;                                                                     \
    p.xi = x[i];                                                                               \
    p.yi = y[i];                                                                               \
    p.nx = nx[i];                                                                              \
    p.ny = ny[i];                                                                              \
    p.power = power;                                                                           \
    p.vl_const = vl_const;                                                                     \
    p.eps_i = venkat_epsilon(vl_const, min_dist[i]);                                           \
    int knd = kind[i];

/* kernels::flux_residual (fused): the flux residual of each point for its
 * kind, in one pass over the stencil; each neighbour is reconstructed once
 * and its flux differences go to every split stencil it belongs to (xpos
 * when ds <= 0, xneg when ds >= 0, and by dn likewise; all of them to yneg at
 * a wall, to ypos at the far field). Reads q, qx, qy, q_max, q_min through
 * the stencil; writes res.
 *   interior: delta (dGx+/ds + dGx-/ds + dGy+/dn + dGy-/dn)
 *   wall:     2 delta (dGxII/ds + dGxI/ds + dGy-/dn)
 *   outer:    delta (dGxIII/ds + dGxIV/ds + dGy+/dn) */
KERNEL flux_residual(FLUX_KERNEL_ARGS)
{
    FLUX_SETUP
    SplitSums xpos, xneg, ypos, yneg;
    split_sums_init(&xpos);
    split_sums_init(&xneg);
    split_sums_init(&ypos);
    split_sums_init(&yneg);
    for (uint e = nbr_start[i]; e < nbr_start[i + 1]; e++) {
        uint k = nbr[e];
        Offset o = offset_of(&p, k);
        Kinetic ki, kk;
        kinetics_of(&f, &p, i, k, o, BOTH_DIRS, &ki, &kk);
        if (knd == INTERIOR) {
            if (o.ds <= 0.0) split_sums_add(&xpos, o.ds, o.dn, o.ds_w, o.dn_w, GX_POS(kk), GX_POS(ki));
            if (o.ds >= 0.0) split_sums_add(&xneg, o.ds, o.dn, o.ds_w, o.dn_w, GX_NEG(kk), GX_NEG(ki));
            if (o.dn <= 0.0) split_sums_add(&ypos, o.ds, o.dn, o.ds_w, o.dn_w, GY_POS(kk), GY_POS(ki));
            if (o.dn >= 0.0) split_sums_add(&yneg, o.ds, o.dn, o.ds_w, o.dn_w, GY_NEG(kk), GY_NEG(ki));
        } else if (knd == WALL) {
            if (o.ds <= 0.0) split_sums_add(&xpos, o.ds, o.dn, o.ds_w, o.dn_w, QUAD_2(kk), QUAD_2(ki));
            if (o.ds >= 0.0) split_sums_add(&xneg, o.ds, o.dn, o.ds_w, o.dn_w, QUAD_1(kk), QUAD_1(ki));
            split_sums_add(&yneg, o.ds, o.dn, o.ds_w, o.dn_w, GY_NEG(kk), GY_NEG(ki));
        } else {
            if (o.ds <= 0.0) split_sums_add(&xpos, o.ds, o.dn, o.ds_w, o.dn_w, QUAD_3(kk), QUAD_3(ki));
            if (o.ds >= 0.0) split_sums_add(&xneg, o.ds, o.dn, o.ds_w, o.dn_w, QUAD_4(kk), QUAD_4(ki));
            split_sums_add(&ypos, o.ds, o.dn, o.ds_w, o.dn_w, GY_POS(kk), GY_POS(ki));
        }
    }
    REAL dlt = delta[i];
    Vec4 r;
    if (knd == INTERIOR) {
        Vec4 a = d_ds(&xpos), b = d_ds(&xneg), c = d_dn(&ypos), d = d_dn(&yneg);
        for (int m = 0; m < 4; m++) r.c[m] = dlt * (a.c[m] + b.c[m] + c.c[m] + d.c[m]);
    } else if (knd == WALL) {
        Vec4 a = d_ds(&xpos), b = d_ds(&xneg), d = d_dn(&yneg);
        /* The reference's factor 2 at walls (the update halves R). */
        for (int m = 0; m < 4; m++) r.c[m] = dlt * (a.c[m] + b.c[m] + d.c[m]) * 2.0;
    } else {
        Vec4 a = d_ds(&xpos), b = d_ds(&xneg), c = d_dn(&ypos);
        for (int m = 0; m < 4; m++) r.c[m] = dlt * (a.c[m] + b.c[m] + c.c[m]);
    }
    store4(res, i, r);
}

/* The split flux residual: the same sums as flux_residual, one split
 * stencil per kernel (fewer live registers per work item, the paper's
 * Tables 4-5), run in the order xpos, xneg, ypos, yneg. Each kernel selects
 * the neighbours of its split stencil by the sign of ds or dn, reconstructs
 * only those, and accumulates into res in the fused kernel's order of
 * additions, so that both variants give the same bits:
 *   xpos: res = a;  xneg: res += b;  ypos: res += c;  yneg: res += d,
 * the last term of each kind also multiplying by delta (and 2 at walls). */

/* dGx/ds over xpos (ds <= 0): Gx+ at interior points, quadrant II at
 * walls, III at the far field. */
KERNEL flux_residual_xpos(FLUX_KERNEL_ARGS)
{
    FLUX_SETUP
    SplitSums s;
    split_sums_init(&s);
    for (uint e = nbr_start[i]; e < nbr_start[i + 1]; e++) {
        uint k = nbr[e];
        Offset o = offset_of(&p, k);
        if (!(o.ds <= 0.0)) continue;
        Kinetic ki, kk;
        kinetics_of(&f, &p, i, k, o, knd == INTERIOR ? S_DIR : BOTH_DIRS, &ki, &kk);
        if (knd == INTERIOR)
            split_sums_add(&s, o.ds, o.dn, o.ds_w, o.dn_w, GX_POS(kk), GX_POS(ki));
        else if (knd == WALL)
            split_sums_add(&s, o.ds, o.dn, o.ds_w, o.dn_w, QUAD_2(kk), QUAD_2(ki));
        else
            split_sums_add(&s, o.ds, o.dn, o.ds_w, o.dn_w, QUAD_3(kk), QUAD_3(ki));
    }
    store4(res, i, d_ds(&s));
}

/* dGx/ds over xneg (ds >= 0): Gx- at interior points, quadrant I at walls,
 * IV at the far field. */
KERNEL flux_residual_xneg(FLUX_KERNEL_ARGS)
{
    FLUX_SETUP
    SplitSums s;
    split_sums_init(&s);
    for (uint e = nbr_start[i]; e < nbr_start[i + 1]; e++) {
        uint k = nbr[e];
        Offset o = offset_of(&p, k);
        if (!(o.ds >= 0.0)) continue;
        Kinetic ki, kk;
        kinetics_of(&f, &p, i, k, o, knd == INTERIOR ? S_DIR : BOTH_DIRS, &ki, &kk);
        if (knd == INTERIOR)
            split_sums_add(&s, o.ds, o.dn, o.ds_w, o.dn_w, GX_NEG(kk), GX_NEG(ki));
        else if (knd == WALL)
            split_sums_add(&s, o.ds, o.dn, o.ds_w, o.dn_w, QUAD_1(kk), QUAD_1(ki));
        else
            split_sums_add(&s, o.ds, o.dn, o.ds_w, o.dn_w, QUAD_4(kk), QUAD_4(ki));
    }
    Vec4 a = load4(res, i), b = d_ds(&s), r;
    for (int m = 0; m < 4; m++) r.c[m] = a.c[m] + b.c[m];
    store4(res, i, r);
}

/* dGy+/dn over ypos: dn <= 0 at interior points, the whole stencil at the
 * far field (its last term), none at walls. */
KERNEL flux_residual_ypos(FLUX_KERNEL_ARGS)
{
    FLUX_SETUP
    if (knd == WALL) return;
    SplitSums s;
    split_sums_init(&s);
    for (uint e = nbr_start[i]; e < nbr_start[i + 1]; e++) {
        uint k = nbr[e];
        Offset o = offset_of(&p, k);
        if (knd == INTERIOR && !(o.dn <= 0.0)) continue;
        Kinetic ki, kk;
        kinetics_of(&f, &p, i, k, o, N_DIR, &ki, &kk);
        split_sums_add(&s, o.ds, o.dn, o.ds_w, o.dn_w, GY_POS(kk), GY_POS(ki));
    }
    Vec4 acc = load4(res, i), c = d_dn(&s), r;
    if (knd == INTERIOR) {
        for (int m = 0; m < 4; m++) r.c[m] = acc.c[m] + c.c[m];
    } else {
        REAL dlt = delta[i];
        for (int m = 0; m < 4; m++) r.c[m] = dlt * (acc.c[m] + c.c[m]);
    }
    store4(res, i, r);
}

/* dGy-/dn over yneg: dn >= 0 at interior points, the whole stencil at walls;
 * the last term of both; none at the far field. */
KERNEL flux_residual_yneg(FLUX_KERNEL_ARGS)
{
    FLUX_SETUP
    if (knd == OUTER) return;
    SplitSums s;
    split_sums_init(&s);
    for (uint e = nbr_start[i]; e < nbr_start[i + 1]; e++) {
        uint k = nbr[e];
        Offset o = offset_of(&p, k);
        if (knd == INTERIOR && !(o.dn >= 0.0)) continue;
        Kinetic ki, kk;
        kinetics_of(&f, &p, i, k, o, N_DIR, &ki, &kk);
        split_sums_add(&s, o.ds, o.dn, o.ds_w, o.dn_w, GY_NEG(kk), GY_NEG(ki));
    }
    Vec4 acc = load4(res, i), d = d_dn(&s), r;
    REAL dlt = delta[i];
    if (knd == INTERIOR) {
        for (int m = 0; m < 4; m++) r.c[m] = dlt * (acc.c[m] + d.c[m]);
    } else {
        for (int m = 0; m < 4; m++) r.c[m] = dlt * (acc.c[m] + d.c[m]) * 2.0;
    }
    store4(res, i, r);
}

/* ------------------------------------------------------------ reductions */

/* A double-double value hi + lo. The device sums in double-double (TwoSum
 * at every addition), so that a sum's error is ~log2(terms) * 2^-106 of the
 * sum of the terms' magnitudes: rounded once on the host, it is the
 * correctly rounded sum the CPU's exact accumulators give, but for
 * astronomically rare near-ties. */
typedef struct {
    REAL hi, lo;
} DD;

FUNC DD dd_make(REAL hi, REAL lo)
{
    DD r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

/* a + b in double-double: TwoSum of the high parts, the low parts added to
 * the error, renormalized with FastTwoSum. */
FUNC DD dd_add(DD a, DD b)
{
    REAL s = a.hi + b.hi;
    REAL bb = s - a.hi;
    REAL err = (a.hi - (s - bb)) + (b.hi - bb);
    err += a.lo + b.lo;
    REAL hi = s + err;
    return dd_make(hi, err - (hi - s));
}

/* Tree sum of one double-double per work item over the work group; the
 * result is in hi[0], lo[0] for every work item after the last barrier. A
 * fixed tree for a given work-group size: the same inputs give the same
 * bits on every run. */
FUNC DD group_sum(LOCAL REAL* hi, LOCAL REAL* lo, DD v)
{
    uint lid = LOCAL_ID(), lsz = LOCAL_SIZE();
    hi[lid] = v.hi;
    lo[lid] = v.lo;
    BARRIER();
    uint p2 = 1;
    while (p2 < lsz) p2 <<= 1;
    for (uint s = p2 >> 1; s > 0; s >>= 1) {
        if (lid < s && lid + s < lsz) {
            DD r = dd_add(dd_make(hi[lid], lo[lid]), dd_make(hi[lid + s], lo[lid + s]));
            hi[lid] = r.hi;
            lo[lid] = r.lo;
        }
        BARRIER();
    }
    DD r = dd_make(hi[0], lo[0]);
    BARRIER(); /* the arrays may be reused by the caller */
    return r;
}

/* kernels::state_update: Runge-Kutta stage `stage` of the update of each
 * point (the kinetic far-field state at outer points, U <- U - factor R, the
 * SSPRK scheme's third-stage averaging with the iteration's start state,
 * zero normal momentum at walls, rotation back, primitives), with level 1
 * of the residue's reduction: each work group's sum of the squared density
 * changes over its wall and interior points goes to res_partials[group] as
 * a double-double (hi, lo). The lowest non-physical point of the stage goes
 * to bad[stage] (an atomic minimum). Once a stage of this iteration has
 * found a non-physical point, the later stages write nothing, so that the
 * state the host reads back is the one of the failing stage. Reads res at
 * the point; writes prim. */
KERNEL state_update(const uint n, const uint stage, const REAL factor,
                    const int average, const REAL u1_inf, const REAL u2_inf,
                    GLOBAL const REAL* RESTRICT nx, GLOBAL const REAL* RESTRICT ny,
                    GLOBAL const uchar* RESTRICT kind, GLOBAL REAL* RESTRICT prim,
                    GLOBAL const REAL* RESTRICT prim_old, GLOBAL const REAL* RESTRICT res,
                    GLOBAL uint* RESTRICT bad, GLOBAL REAL* RESTRICT res_partials)
{
    LOCAL_ARRAY(REAL, s_hi, QF_WG_MAX);
    LOCAL_ARRAY(REAL, s_lo, QF_WG_MAX);
    uint i = GLOBAL_ID();
    int frozen = 0;
    for (uint s = 0; s < stage; s++) frozen |= bad[s] != NO_POINT;
    REAL d2 = 0.0;
    if (i < n && !frozen) {
        REAL pnx = nx[i], pny = ny[i];
        int knd = kind[i];
        Vec4 w = load4(prim, i);
        Vec4 u;
        if (knd == OUTER)
            u = far_field_state(w, pnx, pny, u1_inf, u2_inf);
        else
            u = conserved_in_frame(w, pnx, pny);
        REAL rho_before = u.c[0];
        Vec4 r = load4(res, i);
        for (int c = 0; c < 4; c++) u.c[c] -= factor * r.c[c];
        if (average) {
            Vec4 w_old = load4(prim_old, i);
            Vec4 u_old;
            if (knd == OUTER)
                u_old = far_field_state(w_old, pnx, pny, u1_inf, u2_inf);
            else
                u_old = conserved_in_frame(w_old, pnx, pny);
            for (int c = 0; c < 4; c++) u.c[c] = u.c[c] * 1.0 / 3.0 + u_old.c[c] * 2.0 / 3.0;
        }
        if (knd == WALL) u.c[2] = 0.0;
        REAL u2_rot = u.c[1], u3_rot = u.c[2];
        u.c[1] = u2_rot * pny + u3_rot * pnx;
        u.c[2] = u3_rot * pny - u2_rot * pnx;
        if (knd != OUTER) {
            REAL d = u.c[0] - rho_before;
            d2 = d * d;
        }
        Vec4 wn = primitive_of_conserved(u);
        store4(prim, i, wn);
        if (!is_physical(wn)) ATOMIC_MIN(&bad[stage], i);
    }
    DD sum = group_sum(s_hi, s_lo, dd_make(d2, 0.0));
    if (LOCAL_ID() == 0) {
        res_partials[2 * GROUP_ID()] = sum.hi;
        res_partials[2 * GROUP_ID() + 1] = sum.lo;
    }
}

/* forces::ForceSums, level 1: each work group's sums over its surface
 * points of H = S(cp nx ds), V = S(cp ny ds) and
 * M = S(-cp ny ds (x - 0.25) + cp nx ds y), with the reference's -Cp as cp,
 * to force_partials[(sum * max_groups + group)] as double-doubles. */
KERNEL force_sums(const uint m, const uint max_groups, const REAL dyn_pressure,
                  GLOBAL const uint* RESTRICT surf_index, GLOBAL const REAL* RESTRICT surf_x,
                  GLOBAL const REAL* RESTRICT surf_y, GLOBAL const REAL* RESTRICT surf_nx,
                  GLOBAL const REAL* RESTRICT surf_ny, GLOBAL const REAL* RESTRICT surf_ds,
                  GLOBAL const REAL* RESTRICT prim, GLOBAL REAL* RESTRICT force_partials)
{
    LOCAL_ARRAY(REAL, s_hi, QF_WG_MAX);
    LOCAL_ARRAY(REAL, s_lo, QF_WG_MAX);
    uint j = GLOBAL_ID();
    REAL h = 0.0, v = 0.0, mo = 0.0;
    if (j < m) {
        REAL p = prim[AT(surf_index[j], 3)];
        REAL cp = p - P_INF;
        cp = -cp / dyn_pressure;
        REAL sx = surf_x[j], sy = surf_y[j], snx = surf_nx[j], sny = surf_ny[j], sds = surf_ds[j];
        h = cp * snx * sds;
        v = cp * sny * sds;
        mo = (-cp * sny * sds * (sx - 0.25)) + (cp * snx * sds * sy);
    }
    REAL t[3];
    t[0] = h;
    t[1] = v;
    t[2] = mo;
    for (uint s = 0; s < 3; s++) {
        DD sum = group_sum(s_hi, s_lo, dd_make(t[s], 0.0));
        if (LOCAL_ID() == 0) {
            force_partials[2 * (s * max_groups + GROUP_ID())] = sum.hi;
            force_partials[2 * (s * max_groups + GROUP_ID()) + 1] = sum.lo;
        }
    }
}

/* Level 2 of the reductions: work group g sums slot first_slot + g (0: the
 * residue's partials, 1-3: the force sums' H, V, M) into results[2 * slot],
 * results[2 * slot + 1]; work group 0 also copies the four stages'
 * non-physical flags to results[8..12], so that one read of 96 bytes brings
 * back all an iteration reports. */
KERNEL reduce_partials(const uint first_slot, const uint res_count, const uint force_count,
                       const uint max_force_groups, GLOBAL const REAL* RESTRICT res_partials,
                       GLOBAL const REAL* RESTRICT force_partials,
                       GLOBAL const uint* RESTRICT bad, GLOBAL REAL* RESTRICT results)
{
    LOCAL_ARRAY(REAL, s_hi, QF_WG_MAX);
    LOCAL_ARRAY(REAL, s_lo, QF_WG_MAX);
    uint slot = first_slot + GROUP_ID();
    uint count = slot == 0 ? res_count : force_count;
    GLOBAL const REAL* src =
        slot == 0 ? res_partials : force_partials + 2 * (slot - 1) * max_force_groups;
    DD acc = dd_make(0.0, 0.0);
    for (uint g = LOCAL_ID(); g < count; g += LOCAL_SIZE())
        acc = dd_add(acc, dd_make(src[2 * g], src[2 * g + 1]));
    DD sum = group_sum(s_hi, s_lo, acc);
    if (LOCAL_ID() == 0) {
        results[2 * slot] = sum.hi;
        results[2 * slot + 1] = sum.lo;
    }
    if (GROUP_ID() == 0 && LOCAL_ID() < 4) results[8 + LOCAL_ID()] = (REAL)bad[LOCAL_ID()];
}

/* ------------------------------------------------- ghost exchange support */

/* packed[4 j + c] = field[4 list[j] + c]: the values of a list of
 * points of a 4-component field, packed for one transfer to the host (what a
 * distributed layer sends to its neighbours). */
KERNEL gather_points(const uint count, GLOBAL const uint* RESTRICT list,
                     GLOBAL const REAL* RESTRICT field, GLOBAL REAL* RESTRICT packed)
{
    uint j = GLOBAL_ID();
    if (j >= count) return;
    uint i = list[j];
    for (int c = 0; c < 4; c++) packed[AT(j, c)] = field[AT(i, c)];
}

/* field[4 list[j] + c] = packed[4 j + c]: the inverse (what a
 * distributed layer does with the ghost values it received). */
KERNEL scatter_points(const uint count, GLOBAL const uint* RESTRICT list,
                      GLOBAL const REAL* RESTRICT packed, GLOBAL REAL* RESTRICT field)
{
    uint j = GLOBAL_ID();
    if (j >= count) return;
    uint i = list[j];
    for (int c = 0; c < 4; c++) field[AT(i, c)] = packed[AT(j, c)];
}
