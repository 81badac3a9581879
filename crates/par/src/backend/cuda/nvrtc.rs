//! The device program compiled by NVRTC, CUDA's run-time compiler: for
//! the device's own architecture (`sm_90` on Hopper), to machine code the
//! driver loads as it is. NVRTC needs no GPU: the same compilation checks
//! the program on a machine without one ([`compile_check`]).

use std::ffi::{c_char, CStr, CString};

use cudarc::nvrtc::result as nv;
use cudarc::nvrtc::sys;

use super::platform::{nvrtc_present, NO_NVRTC};

/// What NVRTC made of a program.
pub struct Compiled {
    /// The machine code (a cubin), for the driver to load.
    pub image: Vec<u8>,
    /// NVRTC's diagnostics (empty when there were none).
    pub log: String,
    /// The cache file it was read from, if it was.
    pub cached: Option<std::path::PathBuf>,
}

/// The options every build takes: the architecture; no multiply-add
/// contraction (`--fmad=false`, the Rust kernels round every product);
/// IEEE division and square root (NVRTC's defaults, said here so that
/// no option can drop them); line information for profilers (it does not
/// change the code); the work-group bound of the reductions' local arrays.
pub fn options(arch: &str, wg: usize) -> Vec<String> {
    let mut o = vec![
        format!("--gpu-architecture={arch}"),
        "--fmad=false".to_string(),
        "--prec-div=true".to_string(),
        "--prec-sqrt=true".to_string(),
        "--ftz=false".to_string(),
        "--std=c++17".to_string(),
        "-lineinfo".to_string(),
        format!("-DQF_WG_MAX={wg}"),
    ];
    if let Ok(extra) = std::env::var("QFLOW_CUDA_OPTIONS") {
        o.extend(extra.split_whitespace().map(str::to_string));
    }
    o
}

/// The text of an NVRTC call's failure.
fn nv_error(what: &str, e: nv::NvrtcError) -> String {
    // SAFETY: NVRTC's static error strings.
    let text = unsafe { CStr::from_ptr(sys::nvrtcGetErrorString(e.0)) };
    format!("{what}: NVRTC error {:?} ({})", e.0, text.to_string_lossy())
}

/// NVRTC's version, `major.minor`.
pub fn version() -> Result<String, String> {
    if !nvrtc_present() {
        return Err(NO_NVRTC.into());
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: writes two ints.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| nv_error("asking NVRTC's version", e))?;
    Ok(format!("{major}.{minor}"))
}

/// What a compilation is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Output {
    /// Machine code for the architecture, optimised as for a run.
    Cubin,
    /// PTX for the architecture's virtual one, compiled as fast as NVRTC
    /// can (`--Ofast-compile=max`): its diagnostics are the front end's,
    /// the same either way.
    CheckPtx,
}

/// Compiles the program `text` for `arch` (`sm_90`) with work groups of at
/// most `wg` items: the machine code and NVRTC's log, or an error with the
/// whole log. A program compiled before with the same options by the same
/// NVRTC comes from the cache ([`cache_dir`]).
pub fn compile(text: &str, arch: &str, wg: usize) -> Result<Compiled, String> {
    let key = cache_key(text, arch, wg)?;
    if let Some(image) = key.as_ref().and_then(|k| std::fs::read(k).ok()) {
        tracing::debug!("CUDA kernels from the cache");
        return Ok(Compiled {
            image,
            log: String::new(),
            cached: key,
        });
    }
    let c = run(text, arch, wg, Output::Cubin)?;
    if let Some(path) = key {
        store(&path, &c.image);
    }
    Ok(c)
}

/// Compiles with NVRTC (see [`Output`]).
fn run(text: &str, arch: &str, wg: usize, output: Output) -> Result<Compiled, String> {
    if !nvrtc_present() {
        return Err(NO_NVRTC.into());
    }
    let src = CString::new(text).map_err(|_| "the device program holds a NUL byte".to_string())?;
    let name = c"qflow.cu";
    let prog = nv::create_program(&src, Some(name))
        .map_err(|e| nv_error("creating the NVRTC program", e))?;
    let options = match output {
        Output::Cubin => options(arch, wg),
        Output::CheckPtx => {
            let mut o = options(&arch.replace("sm_", "compute_"), wg);
            o.push("--Ofast-compile=max".into());
            o
        }
    };
    let started = std::time::Instant::now();
    // SAFETY: a program just created from a live source string.
    let compiled = unsafe { nv::compile_program(prog, &options) };
    let seconds = started.elapsed().as_secs_f64();
    if seconds > 2.0 && output == Output::Cubin {
        tracing::info!(
            "NVRTC compiled the program ({} KB of source) for {arch} in {seconds:.1} s",
            text.len() / 1024
        );
    }
    // SAFETY: the log of the program above.
    let log = unsafe { nv::get_program_log(prog) }
        .map(|raw| {
            // SAFETY: NVRTC's log is NUL-terminated.
            unsafe { CStr::from_ptr(raw.as_ptr()) }
                .to_string_lossy()
                .trim_end()
                .to_string()
        })
        .unwrap_or_default();
    let image = match (compiled, output) {
        (Ok(()), Output::Cubin) => cubin(prog),
        (Ok(()), Output::CheckPtx) => Ok(Vec::new()),
        (Err(e), _) => Err(format!(
            "{} for {arch} (options `{}`)\n--- NVRTC log ---\n{log}\n--- end of NVRTC log ---",
            nv_error("NVRTC rejected qflow's kernels", e),
            options.join(" ")
        )),
    };
    // SAFETY: destroyed once, after its last use.
    let _ = unsafe { nv::destroy_program(prog) };
    Ok(Compiled {
        image: image?,
        log,
        cached: None,
    })
}

/// Compiles as [`compile`] does, past the cache (whose entry is replaced):
/// for a cached program the driver would not load.
pub fn compile_afresh(text: &str, arch: &str, wg: usize) -> Result<Compiled, String> {
    let c = run(text, arch, wg, Output::Cubin)?;
    if let Some(path) = cache_key(text, arch, wg)? {
        store(&path, &c.image);
    }
    Ok(c)
}

/// The machine code of a compiled program.
fn cubin(prog: sys::nvrtcProgram) -> Result<Vec<u8>, String> {
    let mut size = 0usize;
    // SAFETY: the size of a compiled program's cubin.
    unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) }
        .result()
        .map_err(|e| nv_error("sizing the compiled kernels", e))?;
    let mut image = vec![0u8; size];
    // SAFETY: writes `size` bytes.
    unsafe { sys::nvrtcGetCUBIN(prog, image.as_mut_ptr() as *mut c_char) }
        .result()
        .map_err(|e| nv_error("reading the compiled kernels", e))?;
    Ok(image)
}

/// Compiles a device program for `arch`'s virtual architecture to PTX
/// (`sm_90`: `compute_90`), as fast as NVRTC can, and returns NVRTC's log:
/// empty when it had nothing to say; an error with the log when the
/// program does not compile. Needs NVRTC, not a GPU.
pub fn compile_check(text: &str, arch: &str) -> Result<String, String> {
    run(text, arch, 64, Output::CheckPtx).map(|c| c.log)
}

/// The folder of compiled programs: `QFLOW_CUDA_CACHE` (`0` or empty: no
/// cache), else `$XDG_CACHE_HOME/qflow/cuda`, else `~/.cache/qflow/cuda`.
/// A DG program of order 8 takes NVRTC up to a minute; its runs after the
/// first start at once.
pub fn cache_dir() -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    match std::env::var_os("QFLOW_CUDA_CACHE") {
        Some(v) if v.is_empty() || v == "0" => None,
        Some(v) => Some(PathBuf::from(v)),
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .map(|c| c.join("qflow").join("cuda")),
    }
}

/// Where the cubin of `text` compiled for `arch` with groups of `wg` is
/// cached: a name from a hash of everything that makes the machine code
/// (the text, the options, NVRTC's version). `None`: no cache.
fn cache_key(text: &str, arch: &str, wg: usize) -> Result<Option<std::path::PathBuf>, String> {
    use std::hash::{Hash, Hasher};
    let Some(dir) = cache_dir() else {
        return Ok(None);
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (text, options(arch, wg), version()?).hash(&mut h);
    Ok(Some(dir.join(format!(
        "{arch}-{:016x}-{}.cubin",
        h.finish(),
        text.len()
    ))))
}

/// Writes a compiled program into the cache, whole or not at all (a
/// temporary file renamed); a cache that cannot be written is no error.
fn store(path: &std::path::Path, image: &[u8]) {
    let Some(dir) = path.parent() else { return };
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let r = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&tmp, image))
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = r {
        let _ = std::fs::remove_file(&tmp);
        tracing::debug!("the CUDA kernel cache {}: {e}", dir.display());
    }
}
