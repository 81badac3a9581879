//! What the distributed layer asks of the backend that computes one rank's
//! part: the steps over ranges of points (interior, boundary, ghosts), the
//! state update of the owned points with their sums, and moving the values
//! its neighbours read in and out of its state. Implemented by the CPU
//! backend (serial or threads: the state is in host memory) and, with the
//! feature `opencl`, by the OpenCL backend (the state stays on the device;
//! only the exchanged values cross to the host).

use std::ops::Range;

use qflow_lskum::kernels::UpdateOutcome;
use qflow_lskum::{gas, Vec4};

use super::halo::Fields;
use crate::{Backend, CpuBackend};

/// A backend that can compute a rank's part for
/// [`super::DistributedBackend`]. The local points are numbered owned
/// (interior, then boundary) then ghosts; a step over a range writes the
/// outputs of the points of that range only and reads any point through
/// the stencils.
pub trait LocalCompute: Backend {
    /// Whether steps only enqueue work for a device and return (the
    /// interior is then submitted in one piece and the messages are waited
    /// for while the device computes it); `false`: a step computes before
    /// it returns, and the interior is computed in chunks between polls of
    /// the exchange.
    fn asynchronous(&self) -> bool {
        false
    }

    /// Starts the work enqueued so far (asynchronous backends).
    fn flush(&mut self) {}

    /// [`Backend::local_time_step`] over the points `r`.
    fn local_time_step_range(&mut self, r: Range<usize>);

    /// [`Backend::q_variables`] over the points `r`.
    fn q_variables_range(&mut self, r: Range<usize>);

    /// [`Backend::q_derivatives`] over the points `r`.
    fn q_derivatives_range(&mut self, r: Range<usize>);

    /// One inner sweep over the points `r`, into the sweep's output;
    /// [`LocalCompute::finish_inner_iteration`] makes it current.
    fn q_inner_iteration_range(&mut self, r: Range<usize>);

    /// Makes the inner sweep's new gradients the current ones.
    fn finish_inner_iteration(&mut self);

    /// [`Backend::flux_residual`] over the points `r`.
    fn flux_residual_range(&mut self, r: Range<usize>);

    /// [`Backend::state_update`] over the owned points `0..owned`, with the
    /// sum of squared density changes of those points; `bad_point` reports
    /// that one of them went non-physical (a device backend may report it
    /// only at the iteration's last stage).
    fn state_update_owned(&mut self, stage: usize, owned: usize) -> UpdateOutcome;

    /// Copies the primitive state to the iteration's start state over the
    /// points `r` (the ghosts, whose local time step is not computed).
    fn save_start_state(&mut self, r: Range<usize>);

    /// Writes the values of `fields` at `points` into `out`,
    /// `fields.width()` values per point in [`Fields`]' packing order.
    fn pack(&mut self, fields: Fields, points: &[u32], out: &mut [f64]);

    /// Sets `fields` of the points from `first` on from `values`, packed
    /// as [`LocalCompute::pack`] packs them.
    fn unpack(&mut self, fields: Fields, first: usize, values: &[f64]);

    /// After a state update reported a non-physical point: the stage that
    /// found it (`stage`, the stage just computed, unless the backend
    /// knows better), and the non-physical point among `0..owned` with the
    /// lowest `key` (its local index and state).
    fn first_bad(
        &mut self,
        stage: usize,
        owned: usize,
        key: &[u32],
    ) -> Option<(usize, usize, Vec4)>;
}

/// The non-physical point of `prim[..owned]` with the lowest `key`.
fn lowest_bad(prim: &[Vec4], owned: usize, key: &[u32]) -> Option<(usize, Vec4)> {
    (0..owned)
        .filter(|&j| !gas::is_physical(&prim[j]))
        .min_by_key(|&j| key[j])
        .map(|j| (j, prim[j]))
}

impl LocalCompute for CpuBackend {
    fn local_time_step_range(&mut self, r: Range<usize>) {
        CpuBackend::local_time_step_range(self, r);
    }

    fn q_variables_range(&mut self, r: Range<usize>) {
        CpuBackend::q_variables_range(self, r);
    }

    fn q_derivatives_range(&mut self, r: Range<usize>) {
        CpuBackend::q_derivatives_range(self, r);
    }

    fn q_inner_iteration_range(&mut self, r: Range<usize>) {
        CpuBackend::q_inner_iteration_range(self, r);
    }

    fn finish_inner_iteration(&mut self) {
        CpuBackend::finish_inner_iteration(self);
    }

    fn flux_residual_range(&mut self, r: Range<usize>) {
        CpuBackend::flux_residual_range(self, r);
    }

    fn state_update_owned(&mut self, stage: usize, owned: usize) -> UpdateOutcome {
        self.state_update_range(stage, 0..owned)
    }

    fn save_start_state(&mut self, r: Range<usize>) {
        let s = self.arrays_mut();
        let (prim, old) = (&s.prim[r.clone()], &mut s.prim_old[r]);
        old.copy_from_slice(prim);
    }

    fn pack(&mut self, fields: Fields, points: &[u32], out: &mut [f64]) {
        let w = fields.width();
        let count = fields.count();
        let arrays = fields.arrays(self.arrays());
        for (o, &j) in out.chunks_exact_mut(w).zip(points) {
            for (o, arr) in o.chunks_exact_mut(4).zip(arrays.iter().take(count)) {
                o.copy_from_slice(&arr[j as usize]);
            }
        }
    }

    fn unpack(&mut self, fields: Fields, first: usize, values: &[f64]) {
        let w = fields.width();
        let count = fields.count();
        let mut arrays = fields.arrays_mut(self.arrays_mut());
        for (g, v) in values.chunks_exact(w).enumerate() {
            for (a, arr) in arrays.iter_mut().take(count).enumerate() {
                arr[first + g].copy_from_slice(&v[4 * a..4 * a + 4]);
            }
        }
    }

    fn first_bad(
        &mut self,
        stage: usize,
        owned: usize,
        key: &[u32],
    ) -> Option<(usize, usize, Vec4)> {
        lowest_bad(&self.arrays().prim, owned, key).map(|(j, w)| (stage, j, w))
    }
}

#[cfg(feature = "opencl")]
mod device {
    use super::*;
    use crate::opencl::{Field, OpenClBackend};

    /// The device fields of an exchange, in packing order.
    fn device_fields(f: Fields) -> &'static [Field] {
        match f {
            Fields::Prim => &[Field::Primitive],
            Fields::Derivatives => &[Field::Qx, Field::Qy, Field::QMax, Field::QMin],
            Fields::Gradients => &[Field::Qx, Field::Qy],
        }
    }

    /// The state stays on the device; an exchange moves only the values of
    /// the points sent (a gather kernel and one transfer per field) and of
    /// the ghosts received (one transfer per field: the ghosts are
    /// contiguous). A device error is recorded by the backend, which then
    /// stops the run at the next state update (every rank stops with it).
    impl LocalCompute for OpenClBackend {
        fn asynchronous(&self) -> bool {
            true
        }

        fn flush(&mut self) {
            OpenClBackend::flush(self);
        }

        fn local_time_step_range(&mut self, r: Range<usize>) {
            OpenClBackend::local_time_step_range(self, r);
        }

        fn q_variables_range(&mut self, r: Range<usize>) {
            OpenClBackend::q_variables_range(self, r);
        }

        fn q_derivatives_range(&mut self, r: Range<usize>) {
            OpenClBackend::q_derivatives_range(self, r);
        }

        fn q_inner_iteration_range(&mut self, r: Range<usize>) {
            OpenClBackend::q_inner_iteration_range(self, r);
        }

        fn finish_inner_iteration(&mut self) {
            OpenClBackend::finish_inner_iteration(self);
        }

        fn flux_residual_range(&mut self, r: Range<usize>) {
            OpenClBackend::flux_residual_range(self, r);
        }

        fn state_update_owned(&mut self, stage: usize, owned: usize) -> UpdateOutcome {
            self.state_update_first(stage, owned)
        }

        fn save_start_state(&mut self, r: Range<usize>) {
            OpenClBackend::save_start_state(self, r);
        }

        fn pack(&mut self, fields: Fields, points: &[u32], out: &mut [f64]) {
            if let Err(e) = self.download_interleaved(device_fields(fields), points, out) {
                self.record_error(e);
                out.fill(f64::NAN);
            }
        }

        fn unpack(&mut self, fields: Fields, first: usize, values: &[f64]) {
            if let Err(e) = self.upload_interleaved(device_fields(fields), first, values) {
                self.record_error(e);
            }
        }

        fn first_bad(
            &mut self,
            stage: usize,
            owned: usize,
            key: &[u32],
        ) -> Option<(usize, usize, Vec4)> {
            let mut prim = vec![[f64::NAN; 4]; owned];
            if let Err(e) = self.download_state_range(0..owned, &mut prim) {
                self.record_error(e);
                prim.fill([f64::NAN; 4]);
            }
            let stage = self.bad_stage().unwrap_or(stage);
            lowest_bad(&prim, owned, key).map(|(j, w)| (stage, j, w))
        }
    }
}
