//! Launching one loop on the device: reduction slots, element lists and
//! staging buffers sized on first use, arguments bound in the order the
//! generated entry point declares them, one launch per group of rows.

use super::api::{bytes, bytes_mut, Arg, DeviceApi};
use super::backend::{dat_index, global_index, DeviceBackend};
use super::plans::BlockArgs;
use super::source::{self, Entry, Slot};
use crate::decl::{ArgKind, ElemType, GlobalKind, LoopDecl, Via};
use crate::kernel::identity;

impl<A: DeviceApi> DeviceBackend<A> {
    /// Makes sure a reduction has `groups` slots, set to its identity.
    pub(super) fn slots_for(&mut self, g: usize, groups: usize) -> Result<(), String> {
        if self.globals[g].groups >= groups && self.globals[g].slots.is_some() {
            return Ok(());
        }
        let dim = self.globals[g].decl.dim;
        let op = match self.globals[g].decl.kind {
            GlobalKind::Reduce(op) => op,
            GlobalKind::Const(_) => unreachable!("a reduction"),
        };
        let mut init: Vec<f64> = (0..dim * groups)
            .flat_map(|_| [identity(op), 0.0])
            .collect();
        // Keep what was accumulated so far.
        if let (Some(old), n) = (&self.globals[g].slots, self.globals[g].groups) {
            self.api
                .read(old, bytes_mut(&mut init[..2 * dim * n]))
                .map_err(|e| format!("reading a reduction: {e}"))?;
        }
        let mut buf = self.api.alloc(8 * init.len())?;
        self.api
            .write(&mut buf, bytes(&init))
            .map_err(|e| format!("initialising a reduction: {e}"))?;
        self.globals[g].slots = Some(buf);
        self.globals[g].groups = groups;
        Ok(())
    }

    /// Makes sure the halo element list `elements` is on the device (kept
    /// by its address and length: the part's lists live as long as it).
    pub(super) fn list(&mut self, elements: &[u32]) -> Result<(), String> {
        let key = (elements.as_ptr() as usize, elements.len());
        if !self.lists.contains_key(&key) {
            let b = self
                .upload(elements)
                .map_err(|e| format!("uploading a halo list: {e}"))?;
            self.lists.insert(key, b);
        }
        Ok(())
    }

    /// Makes sure the staging buffer holds `n` values.
    pub(super) fn staging(&mut self, n: usize) -> Result<(), String> {
        if self.staging_len < n {
            self.staging = self.api.alloc(8 * n)?;
            self.staging_len = n;
        }
        Ok(())
    }

    /// Launches loop `l` over rows `first + y * stride .. + len`, `y < rows`,
    /// through `entry` (a loop without increments through maps has one:
    /// [`Entry::Serial`] stands for it); a two-level entry runs the blocks
    /// `blocks` says, each element only if in `first .. first + len`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch(
        &mut self,
        l: &'static LoopDecl,
        first: usize,
        len: usize,
        rows: usize,
        stride: usize,
        entry: Entry,
        blocks: Option<BlockArgs<'_, A::Buffer>>,
    ) -> Result<(), String> {
        let key = l as *const LoopDecl as usize;
        let serial = source::serial(l) && entry == Entry::Serial;
        let (groups, wg) = match (serial, &blocks) {
            (true, _) => ([1, 1], 1),
            (false, Some(b)) => ([b.count, 1], self.wg),
            (false, None) => ([len.div_ceil(self.wg), rows], self.wg),
        };
        for a in l.args {
            if let ArgKind::Global { global, .. } = a.kind {
                if matches!(global.kind, GlobalKind::Reduce(_)) {
                    let g = global_index(&self.globals, global);
                    self.slots_for(g, groups[0] * groups[1])?;
                }
            }
        }
        let lk = self
            .kernels
            .get(&key)
            .ok_or_else(|| format!("loop `{}` was not compiled for the device", l.name))?;
        let kernel = match entry {
            Entry::Serial => &lk.kernel,
            e => lk
                .entries
                .get(&e)
                .ok_or_else(|| format!("loop `{}` has no {e:?} entry", l.name))?,
        };
        let (dats, maps, globals, unused) = (&self.dats, &self.maps, &self.globals, &self.unused);
        let part = &self.part;
        let set = &part.sets[part.set_index(l.set).expect("the loop's set")];
        let dat_of = |k: usize| {
            let ArgKind::Dat { dat, .. } = l.args[k].kind else {
                unreachable!("a dat argument")
            };
            &dats[dat_index(dats, dat)]
        };
        let map_of = |k: usize| {
            let ArgKind::Dat {
                via: Via::Map(m, _) | Via::Star(m),
                ..
            } = l.args[k].kind
            else {
                unreachable!("an argument through a map")
            };
            &maps[part.map_index(m).expect("a map")]
        };
        let global_of = |k: usize| {
            let ArgKind::Global { global, .. } = l.args[k].kind else {
                unreachable!("a global argument")
            };
            &globals[global_index(globals, global)]
        };
        let staged = |g: usize| blocks.as_ref().and_then(|b| b.staged.get(g));
        let mut args =
            lk.slots.iter().map(|slot| match *slot {
                Slot::Range(0) => Arg::U32(first as u32),
                Slot::Range(1) => Arg::U32(len as u32),
                Slot::Range(2) => Arg::U32(rows as u32),
                Slot::Range(_) => Arg::U32(stride as u32),
                Slot::Dat(k) => Arg::Buffer(&dat_of(k).buf),
                Slot::DatStride(k) => Arg::U32(dat_of(k).stride()),
                Slot::MapValues(k) | Slot::StarIdx(k) => Arg::Buffer(&map_of(k).values),
                Slot::StarStart(k) => Arg::Buffer(map_of(k).start.as_ref().expect("row starts")),
                Slot::Strides(s) => {
                    let st = set.block.as_ref().map_or([1, 0, 0], |b| b.strides());
                    Arg::I64(st[1 + s as usize] as i64)
                }
                Slot::Const(k, c) => {
                    let g = global_of(k);
                    match g.decl.kind {
                        GlobalKind::Const(ElemType::I32) => Arg::I32(g.i[c]),
                        _ => Arg::F64(g.f[c]),
                    }
                }
                Slot::Accumulator(k) => Arg::Buffer(global_of(k).slots.as_ref().expect("slots")),
                Slot::Blocks(1) => Arg::U32(blocks.as_ref().map_or(0, |b| b.first)),
                Slot::Blocks(s) => Arg::Buffer(blocks.as_ref().map_or(unused, |b| match s {
                    0 => b.blocks,
                    2 => b.thread_colour,
                    3 => b.thread_colours,
                    _ => b.starts,
                })),
                Slot::Stage(g, 0) => Arg::Local(staged(g).map_or(8, |x| x.bytes)),
                Slot::Stage(g, p) => Arg::Buffer(staged(g).map_or(unused, |x| {
                    if p == 1 {
                        &x.start
                    } else {
                        &x.targets
                    }
                })),
                Slot::StageIndex(k) => Arg::Buffer(
                    blocks
                        .as_ref()
                        .and_then(|b| {
                            b.staged.iter().find_map(|x| {
                                x.args.iter().position(|&a| a == k).map(|p| &x.index[p])
                            })
                        })
                        .unwrap_or(unused),
                ),
            });
        // SAFETY: each argument matches the entry kernel's parameter,
        // generated from the same slot list; the buffers hold the part.
        unsafe { self.api.launch(kernel, groups, wg, &mut args, Some(l.name)) }
            .map_err(|e| format!("launching loop `{}`: {e}", l.name))
    }
}
