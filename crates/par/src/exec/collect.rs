//! Whole dats between rank 0 and every rank, in the problem's numbering:
//! for outputs and checkpoints.

use crate::decl::{DatDecl, ElemType};
use crate::problem::Values;

use super::Exec;

impl Exec {
    /// The owned values of `dat` from every rank, in the problem's
    /// numbering, on rank 0 (`None` elsewhere). Collective.
    pub fn gather(&mut self, dat: &'static DatDecl) -> Option<Values> {
        let s = &self.part.sets[self.set_index(dat.set)];
        let dim = dat.dim;
        let local = self.local.read(dat);
        // (problem index, values) of every owned element.
        let mut index = Vec::with_capacity(s.owned);
        for r in s.owned_spans() {
            for i in r.clone() {
                index.push((
                    i,
                    s.global_of(i).expect("an owned element is in the problem"),
                ));
            }
        }
        let mut bytes = Vec::with_capacity(index.len() * (4 + 8 * dim));
        for &(i, g) in &index {
            bytes.extend_from_slice(&(g as u32).to_le_bytes());
            match &local {
                Values::F64(v) => v[i * dim..(i + 1) * dim]
                    .iter()
                    .for_each(|x| bytes.extend_from_slice(&x.to_le_bytes())),
                Values::I32(v) => v[i * dim..(i + 1) * dim]
                    .iter()
                    .for_each(|x| bytes.extend_from_slice(&(*x as i64 as u64).to_le_bytes())),
            }
        }
        if self.rank() != 0 {
            self.comm.send(0, &bytes);
            return None;
        }
        let n = s.global_len;
        let mut out = match dat.ty {
            ElemType::F64 => Values::F64(vec![0.0; n * dim]),
            ElemType::I32 => Values::I32(vec![0; n * dim]),
        };
        for r in 0..self.ranks() {
            let b = if r == 0 {
                std::mem::take(&mut bytes)
            } else {
                self.comm.receive(r)
            };
            for rec in b.chunks_exact(4 + 8 * dim) {
                let g = u32::from_le_bytes(rec[..4].try_into().expect("4 bytes")) as usize;
                for c in 0..dim {
                    let w =
                        u64::from_le_bytes(rec[4 + 8 * c..12 + 8 * c].try_into().expect("8 bytes"));
                    match &mut out {
                        Values::F64(v) => v[g * dim + c] = f64::from_bits(w),
                        Values::I32(v) => v[g * dim + c] = w as i64 as i32,
                    }
                }
            }
        }
        Some(out)
    }

    /// Sets `dat` on every rank from rank 0's values in the problem's
    /// numbering (ghosts included; a block's boundary cells outside the
    /// block keep their values). Collective.
    pub fn scatter(&mut self, dat: &'static DatDecl, values: Option<&Values>) {
        let mut bytes = Vec::new();
        if self.rank() == 0 {
            let v = values.expect("rank 0 gives the values");
            match v {
                Values::F64(v) => v
                    .iter()
                    .for_each(|x| bytes.extend_from_slice(&x.to_le_bytes())),
                Values::I32(v) => v
                    .iter()
                    .for_each(|x| bytes.extend_from_slice(&(*x as i64 as u64).to_le_bytes())),
            }
        }
        self.comm.broadcast(0, &mut bytes);
        let all: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        let s = &self.part.sets[self.set_index(dat.set)];
        let dim = dat.dim;
        let mut local = self.local.read(dat);
        for i in 0..s.len {
            let Some(g) = s.global_of(i) else { continue };
            for c in 0..dim {
                let w = all[g * dim + c];
                match &mut local {
                    Values::F64(v) => v[i * dim + c] = f64::from_bits(w),
                    Values::I32(v) => v[i * dim + c] = w as i64 as i32,
                }
            }
        }
        self.local.write(dat, &local);
        let d = self.dat_index(dat);
        self.stale[d] = false;
    }
}
