//! OpenCL for the tests: a prelude as qflow's, clang's OpenCL front end,
//! and a small host program that runs probes on the first OpenCL device
//! (PoCL's CPU device here).

use std::io::Write;
use std::process::{Command, Stdio};

/// The prelude's definitions (as in qflow's execution layer).
pub const PRELUDE_CL: &str = r#"#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#define FUNC static inline
#define GLOBAL __global
#define CONSTANT __constant
#define QF_AS_DOUBLE(u) as_double((ulong)(u))
#define QF_AS_ULONG(x) as_ulong((double)(x))
#define QF_INF INFINITY
#define QF_NAN NAN
"#;

/// A kernel running `run(id, in, out, fs, us)` (the probes) for each case,
/// with 256 doubles and 64 `uint`s of global scratch memory each.
pub const KERNEL_CL: &str = r#"
#define NIN 64
#define NOUT 16
__kernel void qf_test_run(__global const ulong* ins, __global const int* ids, __global ulong* outs, uint count,
                          __global double* fs, __global uint* us)
{
    uint g = get_global_id(0);
    if (g >= count) return;
    ulong in[NIN];
    ulong out[NOUT];
    for (int k = 0; k < NIN; k++) in[k] = ins[(ulong)g * NIN + k];
    int m = run(ids[g], in, out, fs + (ulong)g * 256, us + (ulong)g * 64);
    outs[(ulong)g * (NOUT + 1)] = (ulong)m;
    for (int k = 0; k < m; k++) outs[(ulong)g * (NOUT + 1) + 1 + k] = out[k];
}
"#;

/// The host: reads the program's path from its argument and the cases
/// (`probe n x0 ...`) from its input, runs `qf_test_run` and prints `m y0
/// ...` per case. Exit status 4: no OpenCL device; 3: the program does
/// not build (the log on standard error).
const HOST_C: &str = r#"#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define NIN 64
#define NOUT 16
#define CHECK(e, what) do { if ((e) != CL_SUCCESS) { fprintf(stderr, "%s: %d\n", what, (int)(e)); return 5; } } while (0)
int main(int argc, char** argv)
{
    if (argc != 2) return 2;
    FILE* f = fopen(argv[1], "rb");
    if (!f) return 2;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* src = malloc((size_t)len + 1);
    if (fread(src, 1, (size_t)len, f) != (size_t)len) return 2;
    src[len] = 0;
    fclose(f);
    size_t cap = 1024, count = 0;
    cl_ulong* ins = calloc(cap * NIN, sizeof(cl_ulong));
    cl_int* ids = calloc(cap, sizeof(cl_int));
    int id, n;
    while (scanf("%d %d", &id, &n) == 2) {
        if (count == cap) {
            cap *= 2;
            ins = realloc(ins, cap * NIN * sizeof(cl_ulong));
            ids = realloc(ids, cap * sizeof(cl_int));
        }
        memset(ins + count * NIN, 0, NIN * sizeof(cl_ulong));
        for (int k = 0; k < n; k++) {
            unsigned long v;
            if (scanf("%lx", &v) != 1) return 2;
            ins[count * NIN + k] = v;
        }
        ids[count++] = id;
    }
    cl_platform_id platform;
    cl_uint np = 0;
    if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0) return 4;
    cl_device_id dev;
    cl_uint nd = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS || nd == 0) return 4;
    char name[256] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    fprintf(stderr, "device: %s\n", name);
    cl_int e;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CHECK(e, "context");
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    CHECK(e, "queue");
    const char* srcs[1] = {src};
    cl_program prog = clCreateProgramWithSource(ctx, 1, srcs, NULL, &e);
    CHECK(e, "program");
    if (clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL) != CL_SUCCESS) {
        size_t ls = 0;
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &ls);
        char* log = malloc(ls + 1);
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, ls, log, NULL);
        log[ls] = 0;
        fprintf(stderr, "%s\n", log);
        return 3;
    }
    cl_kernel k = clCreateKernel(prog, "qf_test_run", &e);
    CHECK(e, "kernel");
    size_t total = count ? count : 1;
    cl_mem bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, total * NIN * sizeof(cl_ulong), ins, &e);
    CHECK(e, "in");
    cl_mem bid = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, total * sizeof(cl_int), ids, &e);
    CHECK(e, "ids");
    cl_mem bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, total * (NOUT + 1) * sizeof(cl_ulong), NULL, &e);
    CHECK(e, "out");
    cl_mem bfs = clCreateBuffer(ctx, CL_MEM_READ_WRITE, total * 256 * sizeof(cl_double), NULL, &e);
    CHECK(e, "fs");
    cl_mem bus = clCreateBuffer(ctx, CL_MEM_READ_WRITE, total * 64 * sizeof(cl_uint), NULL, &e);
    CHECK(e, "us");
    cl_uint cnt = (cl_uint)count;
    clSetKernelArg(k, 0, sizeof bin, &bin);
    clSetKernelArg(k, 1, sizeof bid, &bid);
    clSetKernelArg(k, 2, sizeof bout, &bout);
    clSetKernelArg(k, 3, sizeof cnt, &cnt);
    clSetKernelArg(k, 4, sizeof bfs, &bfs);
    clSetKernelArg(k, 5, sizeof bus, &bus);
    /* One work item per group: private arrays of many work items overflow the stacks of PoCL's threads. */
    size_t one = 1;
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &total, &one, 0, NULL, NULL), "run");
    cl_ulong* outs = malloc(total * (NOUT + 1) * sizeof(cl_ulong));
    CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, total * (NOUT + 1) * sizeof(cl_ulong), outs, 0, NULL, NULL), "read");
    for (size_t g = 0; g < count; g++) {
        int m = (int)outs[g * (NOUT + 1)];
        printf("%d", m);
        for (int j = 0; j < m; j++) printf(" %lx", (unsigned long)outs[g * (NOUT + 1) + 1 + j]);
        printf("\n");
    }
    return 0;
}
"#;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "qflow-par-codegen-cl-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn numbered(src: &str) -> String {
    let v: Vec<String> = src
        .lines()
        .enumerate()
        .map(|(k, l)| format!("{:5} {l}", k + 1))
        .collect();
    v.join("\n")
}

/// A clang that compiles OpenCL C, if any.
fn clang() -> Option<String> {
    let names = [
        "clang", "clang-19", "clang-18", "clang-17", "clang-16", "clang-15", "clang-14",
    ];
    names.iter().map(|s| s.to_string()).find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Checks `cl` with clang's OpenCL C 1.2 front end (`-fsyntax-only
/// -Wall -Werror`, unused functions allowed); prints SKIPPED without clang.
pub fn syntax_check(cl: &str, name: &str) {
    let Some(clang) = clang() else {
        println!("SKIPPED: no clang for OpenCL C");
        return;
    };
    let dir = temp_dir(name);
    let path = dir.join(format!("{name}.cl"));
    std::fs::write(&path, cl).unwrap();
    let out = Command::new(&clang)
        .args([
            "-x",
            "cl",
            "-cl-std=CL1.2",
            "-Xclang",
            "-finclude-default-header",
        ])
        .args(["-fsyntax-only", "-Wall", "-Werror", "-Wno-unused-function"])
        .arg(&path)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{clang} rejects the OpenCL C:\n{}\n--- source ---\n{}",
        String::from_utf8_lossy(&out.stderr),
        numbered(cl)
    );
    println!(
        "{clang} accepts the OpenCL C ({} lines)",
        cl.lines().count()
    );
}

/// Runs `cl` (with `qf_test_run`) on the first OpenCL device over the
/// cases of `input`; `None` (after printing SKIPPED) without an OpenCL
/// library, headers or device.
pub fn run(cl: &str, name: &str, input: &str) -> Option<String> {
    if !super::have_gcc() {
        println!("SKIPPED: no gcc to build the OpenCL host");
        return None;
    }
    let dir = temp_dir(name);
    let host_c = dir.join("host.c");
    let host = dir.join("host");
    let prog = dir.join(format!("{name}.cl"));
    std::fs::write(&host_c, HOST_C).unwrap();
    std::fs::write(&prog, cl).unwrap();
    let built = Command::new("gcc")
        .arg("-O1")
        .arg("-o")
        .arg(&host)
        .arg(&host_c)
        .arg("-lOpenCL")
        .output()
        .unwrap();
    if !built.status.success() {
        println!(
            "SKIPPED: cannot build an OpenCL host (headers or library missing): {}",
            String::from_utf8_lossy(&built.stderr)
                .lines()
                .next()
                .unwrap_or("")
        );
        let _ = std::fs::remove_dir_all(&dir);
        return None;
    }
    let mut child = Command::new(&host)
        .arg(&prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let res = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8_lossy(&res.stderr);
    match res.status.code() {
        Some(0) => {
            println!("{}", err.trim());
            Some(String::from_utf8(res.stdout).unwrap())
        }
        Some(4) => {
            println!("SKIPPED: no OpenCL device");
            None
        }
        Some(3) => panic!(
            "the OpenCL program does not build:\n{err}\n--- source ---\n{}",
            numbered(cl)
        ),
        other => panic!("the OpenCL host failed ({other:?}): {err}"),
    }
}
