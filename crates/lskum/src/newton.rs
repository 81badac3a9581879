//! The Newton-Krylov scheme for steady problems (`scheme = "newton-krylov"`).
//!
//! The steady state is the fixed point of the forward-Euler step `G` of the
//! explicit scheme with its local time steps: `F(W) = G(W) - W = 0` in the
//! primitive variables of every point. `F` is `-dt R` at interior points,
//! holds the wall's zero normal velocity and the far field's kinetic state
//! at outer points, and its density part is what the residue measures, so
//! a zero of `F` is a state whose residue is zero. Each iteration takes
//! one pseudo-transient Newton step
//!
//! ```text
//! (I / sigma - J) dW = F(W),   W <- W + lambda dW
//! ```
//!
//! with `J = dF/dW` applied matrix-free (`J v = (F(W + e v) - F(W)) / e`),
//! solved by GMRES, right-preconditioned by the block ILU(0) of
//! `I / sigma - J1`, where `J1` is the Jacobian of the *first-order*
//! residual (no reconstruction), whose blocks follow the stencils and are
//! filled by coloured differences (one evaluation per colour and
//! component). `sigma`, the pseudo time step in units of the explicit local
//! step, starts at `implicit_cfl` and follows the residual (switched
//! evolution relaxation, `sigma_k = sigma_(k-1) |F_(k-1)| / |F_k|`), so the
//! iteration starts as implicit time stepping and ends, at `sigma = 1e4`,
//! close to Newton's method.
//! `lambda` is the longest of 1, 1/2, 1/4, 1/8 that keeps every point's
//! density and pressure positive and does not more than double `|F|` (any
//! physical step once `|F|` is below 1e-4 of its first value); when
//! none does, the iteration takes no step and the next pseudo time step is
//! a quarter as long (with a new preconditioner).
//!
//! Every residual evaluation runs the method's own loops on the layer, on
//! any backend and rank count. The Krylov vectors and the preconditioner
//! live on rank 0 (the state gathered and scattered per evaluation), which
//! decides every step and tells the other ranks which evaluation comes
//! next: their loops run in the same order, so the result is the same on
//! every backend and rank count wherever the residual is. The cost is rank
//! 0's memory (about 5 KB per point) and the gathers, which is why this is
//! a scheme for clouds of up to a few hundred thousand points.

use qflow_par::driver::StepError;
use qflow_par::{Exec, Values};

use crate::decl::*;
use crate::gas;
use crate::krylov::{self, BlockSparse};
use crate::method::Lskum;
use crate::settings::Preconditioner;

/// The shortest pseudo time step, in units of `implicit_cfl`.
const SIGMA_FLOOR: f64 = 1e-2;
/// The longest pseudo time step, in explicit steps.
///
/// Not more: from about 1e5 on, GMRES stagnates on the transonic case
/// (M 0.8, 1.25 degrees) once the residual is small (the Jacobian is
/// nearly singular there, a shock's position being almost free between
/// points) and the residue stalls near -7; at 1e4 every shipped case
/// converges ten orders, the subsonic one in as many iterations as
/// without a bound.
const SIGMA_MAX: f64 = 1e4;
// `implicit_cfl` is at most SIGMA_MAX (`Settings::validate`), so the
// floor lies under it.
/// How much a step may raise `|F|` and be taken.
const GROWTH: f64 = 2.0;
/// Below this fraction of the first iteration's `|F|`, any physical step
/// is taken.
const SETTLED: f64 = 1e-4;

/// What the other ranks are told to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Command {
    /// The step is over.
    Done = 0,
    /// Evaluate the residual at the state rank 0 scatters.
    Residual = 1,
    /// The same with the first-order residual.
    FirstOrder = 2,
    /// Take the state rank 0 scatters.
    SetState = 3,
    /// The step failed (a non-physical state that no step length avoids);
    /// rank 0's message follows.
    Failed = 4,
    /// The step is over and took no step (a rejected one).
    DoneNoStep = 5,
}

impl Command {
    fn of(byte: u8) -> Command {
        match byte {
            1 => Command::Residual,
            2 => Command::FirstOrder,
            3 => Command::SetState,
            4 => Command::Failed,
            5 => Command::DoneNoStep,
            _ => Command::Done,
        }
    }
}

/// Rank 0's view of the stencils: the pattern of the Jacobian and the
/// colours of its columns.
#[derive(Clone, Debug)]
pub struct Pattern {
    rows: Vec<Vec<usize>>,
    colour: Vec<usize>,
    colours: usize,
}

impl Pattern {
    /// The pattern of stencils `rows` (point `i`'s neighbours, the
    /// problem's numbering).
    pub fn new(rows: Vec<Vec<usize>>) -> Pattern {
        let (colour, colours) = krylov::column_colours(&rows);
        Pattern {
            rows,
            colour,
            colours,
        }
    }
}

/// The Newton-Krylov state of a run.
#[derive(Clone, Debug, Default)]
pub struct Newton {
    /// Rank 0: the stencils.
    pattern: Option<Pattern>,
    /// Rank 0: the factorised preconditioner.
    preconditioner: Option<BlockSparse>,
    /// The pseudo time step of the last iteration (0: none yet) and `|F|`
    /// at its start: the next one is `sigma |F_prev| / |F|`.
    pub sigma: f64,
    /// `|F|` at the start of the last iteration.
    pub norm_prev: f64,
    /// `|F|` at the start of the first iteration.
    pub norm_first: f64,
    /// Rank 0: the last iteration took no step; the next builds a new
    /// preconditioner for its shorter pseudo time step.
    refresh: bool,
}

impl Newton {
    /// Gives rank 0 the stencils (the problem's `stencil` map as rows).
    pub fn set_pattern(&mut self, pattern: Pattern) {
        self.pattern = Some(pattern);
    }
}

fn broadcast(ex: &mut Exec, command: Command) -> Command {
    broadcast_with(ex, command, "").0
}

/// Rank 0's command and message on every rank.
fn broadcast_with(ex: &mut Exec, command: Command, message: &str) -> (Command, String) {
    let mut bytes = vec![command as u8];
    bytes.extend_from_slice(message.as_bytes());
    if ex.ranks() > 1 {
        ex.comm().broadcast(0, &mut bytes);
    }
    let command = Command::of(bytes.first().copied().unwrap_or(0));
    let message = String::from_utf8_lossy(bytes.get(1..).unwrap_or(&[])).into_owned();
    (command, message)
}

/// One residual evaluation at `w` (rank 0; `None` elsewhere), collective:
/// `F(w)` on rank 0 and the residue's sum of squares everywhere.
fn evaluate(
    m: &Lskum,
    ex: &mut Exec,
    w: Option<&[f64]>,
    first_order: bool,
) -> Result<(Option<Vec<f64>>, f64), StepError> {
    ex.scatter(&PRIM, w.map(|w| Values::F64(w.to_vec())).as_ref());
    m.forward_euler(ex, first_order)?;
    let mut sum = [0.0];
    ex.reduce(&[&SUM_SQ], &mut sum)?;
    let f = match (ex.gather(&PRIM), w) {
        (Some(Values::F64(g)), Some(w)) => {
            Some(g.iter().zip(w).map(|(g, w)| g - w).collect::<Vec<f64>>())
        }
        _ => None,
    };
    Ok((f, sum[0]))
}

/// Newton iteration `iteration` (from 1), collective; the residue's sum of
/// squares of the state the iteration started from, and whether the
/// iteration took a step (every rank knows). A new preconditioner
/// comes at iterations `1, 1 + jacobian_every, ...` (and the first after a
/// resume), so a resume from a checkpoint at a multiple of
/// `jacobian_every` continues bit for bit.
pub(crate) fn step(m: &mut Lskum, ex: &mut Exec, iteration: u64) -> Result<(f64, bool), StepError> {
    ex.run(&LOCAL_TIME_STEP)?;
    let w = match ex.gather(&PRIM) {
        Some(Values::F64(w)) => Some(w),
        _ => None,
    };
    let (f0, sum) = evaluate(m, ex, w.as_deref(), false)?;
    let stepped = match (w, f0) {
        (Some(w), Some(f0)) => lead(m, ex, iteration, w, f0)?,
        _ => follow(m, ex)?,
    };
    Ok((sum, stepped))
}

/// The other ranks: evaluations as rank 0 asks, until it says done;
/// whether the iteration took a step.
fn follow(m: &Lskum, ex: &mut Exec) -> Result<bool, StepError> {
    loop {
        match broadcast_with(ex, Command::Done, "") {
            (Command::Residual, _) => drop(evaluate(m, ex, None, false)?),
            (Command::FirstOrder, _) => drop(evaluate(m, ex, None, true)?),
            (Command::SetState, _) => ex.scatter(&PRIM, None),
            (Command::Done, _) => return Ok(true),
            (Command::DoneNoStep, _) => return Ok(false),
            (Command::Failed, message) => {
                ex.scatter(&PRIM, None);
                return Err(StepError::NonPhysical(message));
            }
        }
    }
}

/// Rank 0: the Newton step from `w` with `f0 = F(w)`; whether it took one.
fn lead(
    m: &mut Lskum,
    ex: &mut Exec,
    iteration: u64,
    w: Vec<f64>,
    f0: Vec<f64>,
) -> Result<bool, StepError> {
    let s = m.settings().clone();
    let fnorm = krylov::dot(&f0, &f0).sqrt();
    if !fnorm.is_finite() {
        let e = StepError::NonPhysical(format!(
            "iteration {iteration}: the residual is not finite; stopped with the state \
             before it kept"
        ));
        return Err(fail(ex, w, e));
    }
    let newton = m.newton_mut();
    let floor = s.implicit_cfl * SIGMA_FLOOR;
    if newton.norm_first <= 0.0 {
        newton.norm_first = fnorm;
    }
    // Far below the start, a step is taken whatever it does to |F| (a
    // limiter's kinks make |F| jump there without harm).
    let settled = newton.norm_first * SETTLED;
    let sigma = if newton.sigma <= 0.0 {
        s.implicit_cfl
    } else if fnorm > 0.0 {
        (newton.sigma * newton.norm_prev / fnorm).clamp(floor, SIGMA_MAX)
    } else {
        SIGMA_MAX
    };
    let mut evaluations = 1;
    let refresh = newton.preconditioner.is_none()
        || std::mem::take(&mut newton.refresh)
        || iteration.saturating_sub(1) % u64::from(s.jacobian_every) == 0;
    if refresh {
        match jacobian(m, ex, &w, sigma, &mut evaluations) {
            Ok(p) => m.newton_mut().preconditioner = Some(p),
            Err(e) => return Err(fail(ex, w, e)),
        }
    }
    let pre = m
        .newton_mut()
        .preconditioner
        .take()
        .expect("a preconditioner");
    let wnorm = krylov::dot(&w, &w).sqrt();
    let mut failure = None;
    let (dw, outcome) = krylov::gmres(
        &f0,
        s.krylov_vectors as usize,
        s.krylov_tolerance,
        |v| {
            let vnorm = krylov::dot(v, v).sqrt();
            if failure.is_some() || vnorm == 0.0 {
                return v.iter().map(|e| e / sigma).collect();
            }
            let e = 1e-7 * (1.0 + wnorm) / vnorm;
            let wp: Vec<f64> = w.iter().zip(v).map(|(a, b)| a + e * b).collect();
            broadcast(ex, Command::Residual);
            evaluations += 1;
            match evaluate(m, ex, Some(&wp), false) {
                Ok((Some(fp), _)) => v
                    .iter()
                    .zip(fp.iter().zip(&f0))
                    .map(|(v, (fp, f0))| v / sigma - (fp - f0) / e)
                    .collect(),
                Ok((None, _)) => unreachable!("rank 0 gathers"),
                Err(err) => {
                    failure = Some(err);
                    v.iter().map(|e| e / sigma).collect()
                }
            }
        },
        |v| pre.solve_ilu0(v),
    );
    m.newton_mut().preconditioner = Some(pre);
    if let Some(err) = failure {
        return Err(fail(ex, w, err));
    }
    // GMRES found no usable direction (a breakdown on a non-finite
    // product, or nothing): treated as a rejected step.
    let usable = outcome.relative_residual < 1.0 && dw.iter().all(|d| d.is_finite());
    // The longest of 1, 1/2, 1/4, 1/8 times the step that keeps every state
    // physical and |F| within GROWTH of its value before it; if none does,
    // no step and a pseudo time step a quarter as long next time (at its
    // floor, the shortest physical step).
    let mut lambda = 1.0;
    let mut next_sigma = sigma;
    let mut next = None;
    let mut shortest = None;
    for _ in 0..if usable { 4 } else { 0 } {
        let trial: Vec<f64> = w.iter().zip(&dw).map(|(a, b)| a + lambda * b).collect();
        if trial
            .chunks_exact(4)
            .all(|c| gas::is_physical(&[c[0], c[1], c[2], c[3]]))
        {
            broadcast(ex, Command::Residual);
            evaluations += 1;
            let f = match evaluate(m, ex, Some(&trial), false) {
                Ok((f, _)) => f.expect("rank 0 gathers"),
                Err(e) => return Err(fail(ex, w, e)),
            };
            let norm = krylov::dot(&f, &f).sqrt();
            if !norm.is_finite() {
                lambda *= 0.5;
                continue;
            }
            if norm <= GROWTH * fnorm || norm <= settled {
                next = Some(trial);
                break;
            }
            shortest = Some((trial, lambda));
        }
        lambda *= 0.5;
    }
    let next = match (next, shortest) {
        (Some(next), _) => next,
        _ if sigma > floor => {
            lambda = 0.0;
            next_sigma = (sigma * 0.25).max(floor);
            m.newton_mut().refresh = true;
            w.clone()
        }
        (None, Some((trial, l))) => {
            lambda = l;
            trial
        }
        (None, None) => {
            let e = StepError::NonPhysical(format!(
                "iteration {iteration}: no Newton step (GMRES reached {:.2e} of the \
                 residual) keeps the state physical with a finite residual, even at the \
                 shortest pseudo time step; stopped with the state before it kept",
                outcome.relative_residual
            ));
            return Err(fail(ex, w, e));
        }
    };
    tracing::debug!(
        "newton iteration {iteration}: |F| {fnorm:.3e}, sigma {sigma:.3e}, {} Krylov vectors \
         to {:.2e}, step {lambda}, {evaluations} residual evaluations",
        outcome.iterations,
        outcome.relative_residual
    );
    let newton = m.newton_mut();
    newton.sigma = next_sigma;
    newton.norm_prev = fnorm;
    broadcast(ex, Command::SetState);
    ex.scatter(&PRIM, Some(&Values::F64(next)));
    let stepped = lambda > 0.0;
    broadcast(
        ex,
        if stepped {
            Command::Done
        } else {
            Command::DoneNoStep
        },
    );
    Ok(stepped)
}

/// Rank 0: tells the others that the step failed (with the message),
/// puts back the state it started from, and passes `e` on. A layer error
/// passes on at once: the other ranks may be inside the collective that
/// failed, and the run driver's fault handling ends them.
fn fail(ex: &mut Exec, w: Vec<f64>, e: StepError) -> StepError {
    if let StepError::NonPhysical(message) = &e {
        broadcast_with(ex, Command::Failed, message);
        ex.scatter(&PRIM, Some(&Values::F64(w)));
    }
    e
}

/// Rank 0: `I / sigma - J1` at `w`, factorised, with `J1` the first-order
/// residual's Jacobian by coloured one-sided differences.
fn jacobian(
    m: &mut Lskum,
    ex: &mut Exec,
    w: &[f64],
    sigma: f64,
    evaluations: &mut usize,
) -> Result<BlockSparse, StepError> {
    let Some(pattern) = m.newton_mut().pattern.take() else {
        return Err(StepError::NonPhysical(
            "the Newton-Krylov scheme was given no stencils (Lskum::set_stencils)".into(),
        ));
    };
    let result = (|| {
        let mut a = BlockSparse::with_pattern(&pattern.rows);
        broadcast(ex, Command::FirstOrder);
        *evaluations += 1;
        let base = evaluate(m, ex, Some(w), true)?.0.expect("rank 0 gathers");
        let n = pattern.rows.len();
        let mut h = vec![0.0; n];
        for c in 0..pattern.colours {
            for comp in 0..4 {
                let mut wp = w.to_vec();
                for j in (0..n).filter(|&j| pattern.colour[j] == c) {
                    h[j] = 1e-7 * (1.0 + w[4 * j + comp].abs());
                    wp[4 * j + comp] += h[j];
                }
                broadcast(ex, Command::FirstOrder);
                *evaluations += 1;
                let fp = evaluate(m, ex, Some(&wp), true)?.0.expect("rank 0 gathers");
                for i in 0..n {
                    for p in a.start[i]..a.start[i + 1] {
                        let j = a.col[p];
                        if pattern.colour[j] == c {
                            for r in 0..4 {
                                a.val[p][4 * r + comp] = -(fp[4 * i + r] - base[4 * i + r]) / h[j];
                            }
                        }
                    }
                }
            }
        }
        for i in 0..n {
            for r in 0..4 {
                a.val[a.diag[i]][5 * r] += 1.0 / sigma;
            }
        }
        let factorised = match m.settings().preconditioner {
            Preconditioner::Ilu0 => a.factorise_ilu0(),
            Preconditioner::LuSgs => a.factorise_sgs(),
        };
        factorised.map_err(|row| {
            StepError::NonPhysical(format!(
                "the Newton preconditioner is singular at problem point {row}; \
                 stopped with the state before the step kept"
            ))
        })?;
        Ok(a)
    })();
    m.newton_mut().pattern = Some(pattern);
    result
}
