//! The toy methods of `toy_methods/` under mpirun (`scripts/test-mpi.sh` runs it
//! on 1 to 4 ranks): heat on a periodic structured block cut into boxes,
//! in every exchange mode, as strips and as a grid of ranks, serial and
//! threads on each rank: the field and the per-step totals are
//! bit-identical to one process's. A loop that increments through a map
//! (faces into the cells of a line) runs on several ranks with its
//! executed halo, within round-off of one process. Line loops (the split
//! heat toy) on boxes and strips, every mode: one process's bits.
//!
//! `harness = false`: one MPI process runs the cases in turn; a failed
//! check panics, which ends the job with a non-zero status.

mod toy_methods;

use std::sync::Arc;

use qflow_par::backend::{BackendKind, BackendSpec, Program};
use qflow_par::comm::mpi::MpiComm;
use qflow_par::comm::{Comm, ExchangeMode};
use qflow_par::launch::{agree, distribute, Catalog};
use qflow_par::{DatDecl, Exec, GlobalDecl, LoopDecl, Problem};
use toy_methods::*;

/// A distributed executor of `problem` (given on rank 0).
#[allow(clippy::too_many_arguments)]
fn distributed(
    world: &Arc<MpiComm>,
    problem: Option<(Problem, Option<Vec<u32>>)>,
    loops: &'static [&'static LoopDecl],
    dats: &[&'static DatDecl],
    globals: &[&'static GlobalDecl],
    spec: &BackendSpec,
    mode: ExchangeMode,
    strips: bool,
) -> Result<Exec, String> {
    let catalog = Catalog::of(loops, dats);
    let part = distribute(&**world, problem.map(Ok), loops, &catalog, strips)?;
    let part = Arc::new(part);
    let program = Program {
        name: "toys",
        loops,
        device_source: "",
    };
    let local =
        qflow_par::backend::create(spec, part.clone(), globals, &program, world.node_rank());
    let local = agree(&**world, local)?;
    Ok(Exec::new(part, local, Box::new(world.clone()), mode))
}

fn main() {
    let world = Arc::new(MpiComm::init().expect("MPI initialised once"));
    let (rank, size) = (world.rank(), world.size());
    let reference = (rank == 0).then(|| heat(&spec(BackendKind::Serial, 1)));
    let modes = [
        ExchangeMode::Blocking,
        ExchangeMode::Nonblocking,
        ExchangeMode::Rma,
        ExchangeMode::RmaFence,
    ];
    let mut ran = 0;
    for mode in modes {
        for strips in [false, true] {
            for threads in [1, 2] {
                let kind = if threads == 1 {
                    BackendKind::Serial
                } else {
                    BackendKind::Threads
                };
                let mut ex = distributed(
                    &world,
                    (rank == 0).then(|| (heat_problem(), None)),
                    &HEAT_LOOPS,
                    &HEAT_DATS,
                    &HEAT_GLOBALS,
                    &spec(kind, threads),
                    mode,
                    strips,
                )
                .expect("the heat toy distributes");
                let (u, totals) = heat_run(&mut ex).expect("the heat toy runs");
                let what = format!(
                    "heat on {size} ranks, {} exchange, {}, {threads} thread(s)",
                    mode.name(),
                    if strips { "strips" } else { "grid" }
                );
                if let Some((ru, rt)) = &reference {
                    assert_eq!(
                        u.as_ref(),
                        Some(ru),
                        "{what}: field differs from one process"
                    );
                    assert_eq!(&totals, rt, "{what}: totals differ from one process");
                }
                ran += 1;
            }
        }
    }
    // Line loops (rows and columns marched by one kernel call each) on
    // boxes and strips, in every exchange mode (the non-blocking ones
    // computing the core's lines while the halos travel): one process's
    // bits.
    let serial_split = (rank == 0).then(|| {
        let p = heat_problem();
        let mut ex = exec(
            &p,
            &split::SPLIT_LOOPS,
            &split::SPLIT_GLOBALS,
            &spec(BackendKind::Serial, 1),
        );
        let (u, highs) = split::split_run(&mut ex, false).expect("the split toy runs");
        (u.expect("one process gathers"), highs)
    });
    for mode in modes {
        for strips in [false, true] {
            for threads in [1, 2] {
                let kind = if threads == 1 {
                    BackendKind::Serial
                } else {
                    BackendKind::Threads
                };
                let mut ex = distributed(
                    &world,
                    (rank == 0).then(|| (heat_problem(), None)),
                    &split::SPLIT_LOOPS,
                    &HEAT_DATS,
                    &split::SPLIT_GLOBALS,
                    &spec(kind, threads),
                    mode,
                    strips,
                )
                .expect("the split toy distributes");
                let (u, highs) = split::split_run(&mut ex, true).expect("the split toy runs");
                if let Some((su, sh)) = &serial_split {
                    let what = format!(
                        "line loops on {size} ranks, {} exchange, {}, {threads} thread(s)",
                        mode.name(),
                        if strips { "strips" } else { "grid" }
                    );
                    assert_eq!(
                        u.as_ref(),
                        Some(su),
                        "{what}: field differs from one process"
                    );
                    assert_eq!(&highs, sh, "{what}: maxima differ from one process");
                }
                ran += 1;
            }
        }
    }
    // Increments through a map on several ranks: the line cut into
    // consecutive pieces, each rank running its faces and the executed
    // halo (faces another rank owns that reach its cells). A boundary
    // cell may take its two fluxes in the other order: round-off from one
    // process, in every exchange mode.
    let serial_line = (rank == 0).then(|| line(&spec(BackendKind::Serial, 1)).0);
    for mode in modes {
        let owners: Vec<u32> = (0..N_LINE).map(|i| (i * size / N_LINE) as u32).collect();
        let mut ex = distributed(
            &world,
            (rank == 0).then(|| (line_problem(), Some(owners))),
            &LINE_LOOPS,
            &LINE_DATS,
            &LINE_GLOBALS,
            &spec(BackendKind::Serial, 1),
            mode,
            false,
        )
        .expect("increments through a map run on any number of ranks");
        let (v, _) = line_run(&mut ex).expect("the line toy runs");
        if let (Some(v), Some(want)) = (v, &serial_line) {
            let worst = v
                .iter()
                .zip(want)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(
                worst < 1e-13,
                "line on {size} ranks, {} exchange: {worst:e} from one process",
                mode.name()
            );
        }
    }
    // Gauss-Seidel sweeps with the grid dealt out in a scatter (most
    // neighbours on another rank): the halos refreshed between colours
    // give one process's bits.
    let serial_sweeps = (rank == 0).then(|| sweeps(&spec(BackendKind::Serial, 1)));
    for mode in modes {
        let owners: Vec<u32> = (0..GX * GY)
            .map(|e| ((e % GX / 3 + e / GX / 2) % size) as u32)
            .collect();
        let mut ex = distributed(
            &world,
            (rank == 0).then(|| (sweep_problem(), Some(owners))),
            &GS_LOOPS,
            &GS_DATS,
            &GS_GLOBALS,
            &spec(BackendKind::Threads, 2),
            mode,
            false,
        )
        .expect("sweeps run on any number of ranks");
        let (u, residuals) = sweep_run(&mut ex).expect("the sweep toy runs");
        if let Some((su, sr)) = &serial_sweeps {
            let what = format!("sweeps on {size} ranks, {} exchange", mode.name());
            assert_eq!(
                u.as_ref(),
                Some(su),
                "{what}: field differs from one process"
            );
            assert_eq!(&residuals, sr, "{what}: residuals differ from one process");
        }
    }
    if rank == 0 {
        eprintln!(
            "toys on {size} rank(s): {ran} heat and line-loop runs and the sweeps bit-identical to one process"
        );
    }
}
