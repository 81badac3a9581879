//! Launching one loop on the device: reduction slots, element lists and
//! staging buffers sized on first use, arguments bound in the order the
//! generated entry point declares them, one launch per group of rows.

use super::*;

impl OpenClBackend {
    /// Makes sure a reduction has `groups` slots, set to its identity.
    pub(super) fn slots_for(&mut self, g: usize, groups: usize) -> Result<(), String> {
        if self.globals[g].groups >= groups && self.globals[g].slots.is_some() {
            return Ok(());
        }
        let dim = self.globals[g].decl.dim;
        let mut buf = new_buffer::<f64>(&self.context, 2 * dim * groups)?;
        let op = match self.globals[g].decl.kind {
            GlobalKind::Reduce(op) => op,
            GlobalKind::Const(_) => unreachable!("a reduction"),
        };
        let init: Vec<f64> = (0..dim * groups)
            .flat_map(|_| [identity(op), 0.0])
            .collect();
        // Keep what was accumulated so far.
        if let (Some(old), n) = (&self.globals[g].slots, self.globals[g].groups) {
            let mut prev = vec![0.0; 2 * dim * n];
            // SAFETY: blocking read of the whole old buffer.
            unsafe {
                self.queue
                    .enqueue_read_buffer(old, CL_BLOCKING, 0, &mut prev, &[])
            }
            .map_err(|e| cl_error("reading a reduction", e))?;
            let mut init = init.clone();
            init[..prev.len()].copy_from_slice(&prev);
            // SAFETY: blocking write of `init`, the buffer's size.
            unsafe {
                self.queue
                    .enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, &init, &[])
            }
            .map_err(|e| cl_error("initialising a reduction", e))?;
        } else {
            // SAFETY: as above.
            unsafe {
                self.queue
                    .enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, &init, &[])
            }
            .map_err(|e| cl_error("initialising a reduction", e))?;
        }
        self.globals[g].slots = Some(buf);
        self.globals[g].groups = groups;
        Ok(())
    }

    pub(super) fn list(&mut self, elements: &[u32]) -> Result<cl_mem, String> {
        let key = (elements.as_ptr() as usize, elements.len());
        if !self.lists.contains_key(&key) {
            let mut b = new_buffer::<u32>(&self.context, elements.len())?;
            // SAFETY: blocking write of the list into a buffer that long.
            unsafe {
                self.queue
                    .enqueue_write_buffer(&mut b, CL_BLOCKING, 0, elements, &[])
            }
            .map_err(|e| cl_error("uploading a halo list", e))?;
            self.lists.insert(key, b);
        }
        Ok(self.lists[&key].get())
    }

    pub(super) fn staging(&mut self, n: usize) -> Result<(), String> {
        if self.staging_len < n {
            self.staging = new_buffer::<f64>(&self.context, n)?;
            self.staging_len = n;
        }
        Ok(())
    }

    /// The device dat of argument `k` of loop `l`.
    fn dat_of(&self, l: &LoopDecl, k: usize) -> usize {
        let ArgKind::Dat { dat, .. } = l.args[k].kind else {
            unreachable!("a dat argument")
        };
        self.dat(dat)
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
        blocks: Option<BlockArgs<'_>>,
    ) -> Result<(), String> {
        let key = l as *const LoopDecl as usize;
        let serial = source::serial(l) && entry == Entry::Serial;
        let (gx, gy, wx, groups) = match (serial, blocks) {
            (true, _) => (1, 1, 1, 1),
            (false, Some(b)) => (b.count * self.wg, 1, self.wg, b.count),
            (false, None) => (
                len.div_ceil(self.wg) * self.wg,
                rows,
                self.wg,
                len.div_ceil(self.wg) * rows,
            ),
        };
        for a in l.args {
            if let ArgKind::Global { global, .. } = a.kind {
                if matches!(global.kind, GlobalKind::Reduce(_)) {
                    let g = self.global(global);
                    self.slots_for(g, groups)?;
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
        let unused = self.unused.get();
        let set = &self.part.sets[self.part.set_index(l.set).expect("the loop's set")];
        for (n, slot) in lk.slots.iter().enumerate() {
            let n = n as u32;
            // SAFETY: each argument matches the entry kernel's parameter,
            // generated from the same slot list.
            let r = unsafe {
                match *slot {
                    Slot::Range(0) => kernel.set_arg(n, &(first as u32)),
                    Slot::Range(1) => kernel.set_arg(n, &(len as u32)),
                    Slot::Range(2) => kernel.set_arg(n, &(rows as u32)),
                    Slot::Range(_) => kernel.set_arg(n, &(stride as u32)),
                    Slot::Dat(k) => kernel.set_arg(n, &self.dats[self.dat_of(l, k)].buf.get()),
                    Slot::DatStride(k) => kernel.set_arg(n, &self.dats[self.dat_of(l, k)].stride()),
                    Slot::MapValues(k) | Slot::StarIdx(k) => {
                        let ArgKind::Dat {
                            via: Via::Map(m, _) | Via::Star(m),
                            ..
                        } = l.args[k].kind
                        else {
                            unreachable!()
                        };
                        let mi = self.part.map_index(m).expect("a map");
                        kernel.set_arg(n, &self.maps[mi].values.get())
                    }
                    Slot::StarStart(k) => {
                        let ArgKind::Dat {
                            via: Via::Star(m), ..
                        } = l.args[k].kind
                        else {
                            unreachable!()
                        };
                        let mi = self.part.map_index(m).expect("a map");
                        kernel.set_arg(n, &self.maps[mi].start.as_ref().expect("row starts").get())
                    }
                    Slot::Strides(s) => {
                        let st = set.block.as_ref().map_or([1, 0, 0], |b| b.strides());
                        kernel.set_arg(n, &(st[1 + s as usize] as i64))
                    }
                    Slot::Const(k, c) => {
                        let ArgKind::Global { global, .. } = l.args[k].kind else {
                            unreachable!()
                        };
                        let g = &self.globals[self
                            .globals
                            .iter()
                            .position(|x| x.decl.name == global.name)
                            .expect("a global")];
                        match global.kind {
                            GlobalKind::Const(ElemType::I32) => kernel.set_arg(n, &g.i[c]),
                            _ => kernel.set_arg(n, &g.f[c]),
                        }
                    }
                    Slot::Accumulator(k) => {
                        let ArgKind::Global { global, .. } = l.args[k].kind else {
                            unreachable!()
                        };
                        let g = &self.globals[self
                            .globals
                            .iter()
                            .position(|x| x.decl.name == global.name)
                            .expect("a global")];
                        kernel.set_arg(n, &g.slots.as_ref().expect("slots").get())
                    }
                    Slot::Blocks(1) => kernel.set_arg(n, &blocks.map_or(0, |b| b.first)),
                    Slot::Stage(g, 0) => kernel.set_arg_local_buffer(
                        n,
                        blocks.and_then(|b| b.staged.get(g)).map_or(8, |x| x.bytes),
                    ),
                    Slot::Stage(g, p) => kernel.set_arg(
                        n,
                        &blocks.and_then(|b| b.staged.get(g)).map_or(unused, |x| {
                            if p == 1 {
                                x.start.get()
                            } else {
                                x.targets.get()
                            }
                        }),
                    ),
                    Slot::StageIndex(k) => kernel.set_arg(
                        n,
                        &blocks
                            .and_then(|b| {
                                b.staged.iter().find_map(|x| {
                                    x.args
                                        .iter()
                                        .position(|&a| a == k)
                                        .map(|p| x.index[p].get())
                                })
                            })
                            .unwrap_or(unused),
                    ),
                    Slot::Blocks(s) => kernel.set_arg(
                        n,
                        &blocks.map_or(unused, |b| match s {
                            0 => b.blocks,
                            2 => b.thread_colour,
                            3 => b.thread_colours,
                            _ => b.starts,
                        }),
                    ),
                }
            };
            r.map_err(|e| cl_error(&format!("loop `{}`: argument {n}", l.name), e))?;
        }
        let global = [gx, gy];
        let local = [wx, 1];
        // SAFETY: every argument is set; sizes are multiples of the group.
        let event = unsafe {
            self.queue.enqueue_nd_range_kernel(
                kernel.get(),
                2,
                ptr::null(),
                global.as_ptr(),
                local.as_ptr(),
                &[],
            )
        }
        .map_err(|e| cl_error(&format!("launching loop `{}`", l.name), e))?;
        self.pending.push(l.name, event);
        Ok(())
    }
}
