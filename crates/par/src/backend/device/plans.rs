//! How a loop that increments through a map runs on the device: its plan
//! (colours, atomics, two-level blocks), made on its first run, uploaded
//! once, and the launches that carry it out.

use std::ops::Range;

use super::api::{DeviceApi, Plain};
use super::backend::DeviceBackend;
use super::source::Entry;
use crate::decl::{ArgKind, LoopDecl};
use crate::plan::Increments;

/// How a loop that increments through a map runs on the device.
pub(crate) enum DevicePlan<B> {
    /// Each colour's runs of elements, one launch per run.
    Colours(Vec<Vec<Range<usize>>>),
    /// Every element at once, increments atomic.
    Atomic,
    /// A two-level plan (blocks of the work-group size) and its buffers:
    /// colour by colour, or (`atomic`) every block at once in block order,
    /// the staged sums added atomically.
    Blocks {
        atomic: bool,
        plan: crate::plan::DeviceBlocks,
        blocks: B,
        thread_colour: B,
        thread_colours: B,
        starts: B,
        staged: Vec<StagedBuffers<B>>,
    },
}

/// One staged group's buffers ([`crate::plan::Staged`]).
pub(crate) struct StagedBuffers<B> {
    /// Where each block's targets start.
    pub(super) start: B,
    /// The targets.
    pub(super) targets: B,
    /// Per argument of the group, each element's place among the targets.
    pub(super) index: Vec<B>,
    /// Bytes of local memory a block needs.
    pub(super) bytes: usize,
    /// The loop's arguments of the group.
    pub(super) args: Vec<usize>,
}

/// The arguments of one launch of a loop's two-level entry.
pub(super) struct BlockArgs<'a, B> {
    /// The blocks, colour by colour.
    pub(super) blocks: &'a B,
    /// This launch's first block in `blocks`.
    pub(super) first: u32,
    /// Blocks in this launch (one work group each).
    pub(super) count: usize,
    /// Each element's thread colour.
    pub(super) thread_colour: &'a B,
    /// Each block's number of thread colours.
    pub(super) thread_colours: &'a B,
    /// Where each block starts.
    pub(super) starts: &'a B,
    /// The staged groups' buffers.
    pub(super) staged: &'a [StagedBuffers<B>],
}

impl<A: DeviceApi> DeviceBackend<A> {
    /// The device plan of loop `l` (which increments through a map) as
    /// the backend's [`Increments`] says.
    pub(super) fn device_plan(
        &mut self,
        l: &'static LoopDecl,
    ) -> Result<Option<DevicePlan<A::Buffer>>, String> {
        let inc = device_increments(self.increments, &self.info.device_type);
        if inc != self.increments {
            tracing::info!(
                "loop `{}`: owner-compute is a CPU plan; on {} it runs as {} \
                 (the same answer every run, within round-off of the sequential \
                 one; `sequential` gives that answer on one work item)",
                l.name,
                self.info.label(),
                inc.name()
            );
        }
        Ok(match inc {
            inc @ (Increments::Sequential | Increments::OwnerCompute) => {
                // One work item for the whole loop: right (the element
                // order's answer, which owner compute gives too; its parts
                // are a CPU plan) and, on a GPU, very slow.
                if self.info.device_type != "CPU" {
                    tracing::warn!(
                        "loop `{}` adds through a map and the increments are {}: it runs \
                         on one work item of {} (slow on a GPU); a device increment \
                         strategy (atomics, global-colouring, two-level) runs it on all",
                        l.name,
                        inc.name(),
                        self.info.label()
                    );
                }
                None
            }
            Increments::Atomics => Some(DevicePlan::Atomic),
            Increments::Colouring => {
                crate::plan::loop_runs(&self.part, l, Increments::Colouring, 0)?
                    .map(DevicePlan::Colours)
            }
            inc @ (Increments::TwoLevel | Increments::StagedAtomics) => {
                match crate::plan::device_blocks(&self.part, l, self.wg)? {
                    None => None,
                    Some(plan) => Some(DevicePlan::Blocks {
                        atomic: inc == Increments::StagedAtomics,
                        staged: plan
                            .staged
                            .iter()
                            .zip(crate::plan::staged_groups(l))
                            .map(|(st, args)| {
                                let ArgKind::Dat { dat, .. } = l.args[args[0]].kind else {
                                    unreachable!()
                                };
                                Ok(StagedBuffers {
                                    start: self.upload_plan(&st.start)?,
                                    targets: self.upload_plan(&st.targets)?,
                                    index: st
                                        .index
                                        .iter()
                                        .map(|x| self.upload_plan(x))
                                        .collect::<Result<_, String>>()?,
                                    bytes: (st.most * dat.dim * 8).max(8),
                                    args,
                                })
                            })
                            .collect::<Result<_, String>>()?,
                        blocks: if inc == Increments::StagedAtomics {
                            self.upload_plan(
                                &(0..(plan.starts.len() as u32).saturating_sub(1))
                                    .collect::<Vec<_>>(),
                            )?
                        } else {
                            self.upload_plan(&plan.order)?
                        },
                        thread_colour: self.upload_plan(&plan.thread_colour)?,
                        thread_colours: self.upload_plan(&plan.thread_colours)?,
                        starts: self.upload_plan(&plan.starts)?,
                        plan,
                    }),
                }
            }
        })
    }

    /// A read-only copy of a plan's `values` on the device.
    fn upload_plan<T: Plain>(&mut self, values: &[T]) -> Result<A::Buffer, String> {
        self.upload(values)
            .map_err(|e| format!("uploading a plan: {e}"))
    }

    /// Runs `spans` of loop `l` (which increments through a map) as its
    /// plan says: `Ok(false)` if the plan is to run it on one work item.
    pub(super) fn run_planned(
        &mut self,
        l: &'static LoopDecl,
        spans: &[Range<usize>],
    ) -> Result<bool, String> {
        let key = l as *const LoopDecl as usize;
        if !self.plans.contains_key(&key) {
            let plan = self.device_plan(l)?;
            self.plans.insert(key, plan);
        }
        // Taken out while it launches (no copy per run). The queue is in
        // order: each launch completes before the next starts.
        let Some(plan) = self.plans.get_mut(&key).and_then(Option::take) else {
            return Ok(false);
        };
        let mut result = Ok(());
        let mut go = |me: &mut Self, first, len, entry, blocks| {
            if result.is_ok() {
                result = me.launch(l, first, len, 1, 0, entry, blocks);
            }
        };
        for s in spans.iter().filter(|s| !s.is_empty()) {
            match &plan {
                DevicePlan::Colours(colours) => {
                    for r in colours.iter().flatten() {
                        let (a, e) = (r.start.max(s.start), r.end.min(s.end));
                        if a < e {
                            go(self, a, e - a, Entry::Coloured, None);
                        }
                    }
                }
                DevicePlan::Atomic => go(self, s.start, s.len(), Entry::Atomic, None),
                DevicePlan::Blocks {
                    atomic,
                    plan: p,
                    blocks,
                    thread_colour,
                    thread_colours,
                    starts,
                    staged,
                } => {
                    // Every block in one launch, or colour by colour.
                    let every_block = 0..p.starts.len().saturating_sub(1);
                    let (launches, entry) = if *atomic {
                        (std::slice::from_ref(&every_block), Entry::StagedAtomic)
                    } else {
                        (&p.colours[..], Entry::Blocks)
                    };
                    for c in launches {
                        let args = BlockArgs {
                            blocks,
                            first: c.start as u32,
                            count: c.len(),
                            thread_colour,
                            thread_colours,
                            starts,
                            staged,
                        };
                        go(self, s.start, s.len(), entry, Some(args));
                    }
                }
            }
        }
        self.plans.insert(key, Some(plan));
        result.map(|()| true)
    }
}

/// The increments a device runs for the backend's `inc`: owner compute (a
/// CPU plan, and the layer's default for methods that choose it) runs as
/// the global colouring on a device that is not a CPU (a GPU would
/// otherwise run the loop on one work item; the colouring gives the same
/// answer every run, where atomics would not), and as `sequential` (one
/// work item, the element order's bits) on a CPU device such as PoCL,
/// where the CPU backends' bits are the ones to match.
pub(super) fn device_increments(inc: Increments, device_type: &str) -> Increments {
    match inc {
        Increments::OwnerCompute if device_type != "CPU" => Increments::Colouring,
        inc => inc,
    }
}

#[cfg(test)]
mod tests {
    use super::device_increments;
    use crate::plan::Increments;

    /// Owner compute becomes the global colouring on a GPU and stays on
    /// one work item on a CPU device; every other strategy is as asked.
    #[test]
    fn owner_compute_runs_coloured_on_a_gpu() {
        assert_eq!(
            device_increments(Increments::OwnerCompute, "GPU"),
            Increments::Colouring
        );
        assert_eq!(
            device_increments(Increments::OwnerCompute, "accelerator"),
            Increments::Colouring
        );
        assert_eq!(
            device_increments(Increments::OwnerCompute, "CPU"),
            Increments::OwnerCompute
        );
        for inc in [
            Increments::Sequential,
            Increments::Colouring,
            Increments::TwoLevel,
            Increments::Atomics,
            Increments::StagedAtomics,
        ] {
            assert_eq!(device_increments(inc, "GPU"), inc);
            assert_eq!(device_increments(inc, "CPU"), inc);
        }
    }
}
