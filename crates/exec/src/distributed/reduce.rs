//! The one collective of an iteration: an `MPI_Allreduce` of a fixed-size
//! record with a user-defined, commutative merge.
//!
//! The record holds exact (`bitrep`) sums, whose merge is integer addition
//! of their limbs: associative and commutative, so every reduction tree
//! gives the same bits and the residue and forces equal the serial run's.
//! The record is one element of an `MPI_Type_contiguous` byte type, so MPI
//! never splits it when it pipelines a reduction.

use std::os::raw::{c_int, c_void};

use bitrep::SumF64;
use mpi::ffi;
use qflow_lskum::forces::ForceSums;
use qflow_lskum::Vec4;

use super::halo::{check, Comm};
use crate::BadPoint;

const S: usize = SumF64::BYTES;
/// Offsets in the record.
const SUM_SQ: usize = 0;
const H: usize = S;
const V: usize = 2 * S;
const M: usize = 3 * S;
const FLAGS: usize = (4 * S).div_ceil(8) * 8;
const BAD_STAGE: usize = FLAGS + 8;
const BAD_POINT: usize = BAD_STAGE + 8;
const BAD_RANK: usize = BAD_POINT + 8;
const BAD_XY: usize = BAD_RANK + 8;
/// Bytes of a record.
pub(crate) const RECORD: usize = BAD_XY + 6 * 8;

const NONE: u64 = u64::MAX;
const FLAG_STOP: u64 = 1;

/// What one rank contributes to, and what all ranks get from, the
/// iteration's reduction.
#[derive(Clone, Debug, Default)]
pub(crate) struct Record {
    pub sum_sq: SumF64,
    pub forces: ForceSums,
    pub stop: bool,
    pub bad: Option<BadPoint>,
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn get_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn get_sum(b: &[u8], at: usize) -> SumF64 {
    let a: &[u8; S] = b[at..at + S].try_into().expect("a sum");
    // Only this module writes records; the flag byte is always valid.
    SumF64::from_bytes(a).expect("a valid exact sum")
}

impl Record {
    pub(crate) fn encode(&self, b: &mut [u8; RECORD]) {
        b.fill(0);
        b[SUM_SQ..SUM_SQ + S].copy_from_slice(&self.sum_sq.to_bytes());
        b[H..H + S].copy_from_slice(&self.forces.h.to_bytes());
        b[V..V + S].copy_from_slice(&self.forces.v.to_bytes());
        b[M..M + S].copy_from_slice(&self.forces.m.to_bytes());
        put_u64(b, FLAGS, if self.stop { FLAG_STOP } else { 0 });
        match &self.bad {
            None => {
                put_u64(b, BAD_STAGE, NONE);
                put_u64(b, BAD_POINT, NONE);
            }
            Some(p) => {
                put_u64(b, BAD_STAGE, p.stage as u64);
                put_u64(b, BAD_POINT, p.point as u64);
                put_u64(b, BAD_RANK, p.rank as u64);
                for (k, v) in [p.x, p.y, p.state[0], p.state[1], p.state[2], p.state[3]]
                    .iter()
                    .enumerate()
                {
                    put_u64(b, BAD_XY + 8 * k, v.to_bits());
                }
            }
        }
    }

    pub(crate) fn decode(b: &[u8]) -> Record {
        let forces = ForceSums {
            h: get_sum(b, H),
            v: get_sum(b, V),
            m: get_sum(b, M),
        };
        let f = |k: usize| f64::from_bits(get_u64(b, BAD_XY + 8 * k));
        let bad = (get_u64(b, BAD_STAGE) != NONE).then(|| BadPoint {
            stage: get_u64(b, BAD_STAGE) as usize,
            point: get_u64(b, BAD_POINT) as usize,
            rank: get_u64(b, BAD_RANK) as usize,
            x: f(0),
            y: f(1),
            state: [f(2), f(3), f(4), f(5)] as Vec4,
        });
        Record {
            sum_sq: get_sum(b, SUM_SQ),
            forces,
            stop: get_u64(b, FLAGS) & FLAG_STOP != 0,
            bad,
        }
    }

    /// Merges `other` into `self`: sums added, stop requests or-ed, the bad
    /// point of lowest (stage, point number) kept.
    pub(crate) fn merge(&mut self, other: &Record) {
        self.sum_sq.merge(&other.sum_sq);
        self.forces.merge(&other.forces);
        self.stop |= other.stop;
        self.bad = match (self.bad, other.bad) {
            (Some(a), Some(b)) => Some(if (b.stage, b.point) < (a.stage, a.point) {
                b
            } else {
                a
            }),
            (a, b) => a.or(b),
        };
    }
}

/// The MPI reduction operator: `inout[k] = merge(in[k], inout[k])`.
unsafe extern "C" fn merge_records(
    invec: *mut c_void,
    inoutvec: *mut c_void,
    len: *mut c_int,
    _datatype: *mut ffi::MPI_Datatype,
) {
    let n = *len as usize;
    let a = std::slice::from_raw_parts(invec as *const u8, n * RECORD);
    let b = std::slice::from_raw_parts_mut(inoutvec as *mut u8, n * RECORD);
    for k in 0..n {
        let mut acc = Record::decode(&b[k * RECORD..(k + 1) * RECORD]);
        acc.merge(&Record::decode(&a[k * RECORD..(k + 1) * RECORD]));
        let out: &mut [u8; RECORD] = (&mut b[k * RECORD..(k + 1) * RECORD])
            .try_into()
            .expect("a record");
        acc.encode(out);
    }
}

/// The reduction's datatype, operator and buffers, made once.
pub(crate) struct Reducer {
    datatype: ffi::MPI_Datatype,
    op: ffi::MPI_Op,
    send: Box<[u8; RECORD]>,
    recv: Box<[u8; RECORD]>,
    comm: Comm,
}

unsafe impl Send for Reducer {}

impl Reducer {
    /// Collective (duplicates `MPI_COMM_WORLD`).
    pub(crate) fn new() -> Reducer {
        let mut datatype: ffi::MPI_Datatype = unsafe { ffi::RSMPI_DATATYPE_NULL };
        let mut op = ffi::MPI_Op(std::ptr::null_mut());
        unsafe {
            check(
                ffi::MPI_Type_contiguous(RECORD as c_int, ffi::RSMPI_UINT8_T, &mut datatype),
                "MPI_Type_contiguous",
            );
            check(ffi::MPI_Type_commit(&mut datatype), "MPI_Type_commit");
            check(
                ffi::MPI_Op_create(Some(merge_records), 1, &mut op),
                "MPI_Op_create",
            );
        }
        Reducer {
            datatype,
            op,
            send: Box::new([0; RECORD]),
            recv: Box::new([0; RECORD]),
            comm: Comm::dup_world(),
        }
    }

    /// All ranks' records merged (collective).
    pub(crate) fn all_reduce(&mut self, mine: &Record) -> Record {
        mine.encode(&mut self.send);
        check(
            unsafe {
                ffi::MPI_Allreduce(
                    self.send.as_ptr() as *const c_void,
                    self.recv.as_mut_ptr() as *mut c_void,
                    1,
                    self.datatype,
                    self.op,
                    self.comm.raw(),
                )
            },
            "MPI_Allreduce",
        );
        Record::decode(&self.recv[..])
    }
}

impl Drop for Reducer {
    fn drop(&mut self) {
        unsafe {
            ffi::MPI_Op_free(&mut self.op);
            ffi::MPI_Type_free(&mut self.datatype);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_merge_in_any_order() {
        let mut parts = Vec::new();
        for r in 0..5usize {
            let mut rec = Record::default();
            for k in 0..100 {
                rec.sum_sq.add(((r * 100 + k) as f64).sin() * 1e-7);
                rec.forces.h.add((k as f64).cos());
            }
            if r == 3 || r == 1 {
                rec.bad = Some(BadPoint {
                    stage: 2,
                    point: 10 * r,
                    x: 0.5,
                    y: -0.25,
                    state: [f64::NAN, 1.0, 2.0, -3.0],
                    rank: r,
                });
            }
            rec.stop = r == 4;
            parts.push(rec);
        }
        let mut buf = [0u8; RECORD];
        let mut merge = |order: &[usize]| {
            let mut acc = Record::default();
            for &i in order {
                parts[i].encode(&mut buf);
                acc.merge(&Record::decode(&buf));
            }
            acc
        };
        let a = merge(&[0, 1, 2, 3, 4]);
        let b = merge(&[4, 2, 0, 3, 1]);
        assert_eq!(a.sum_sq.to_bytes(), b.sum_sq.to_bytes());
        assert_eq!(a.forces.h.to_bytes(), b.forces.h.to_bytes());
        assert!(a.stop && b.stop);
        assert_eq!(a.bad.unwrap().point, 10);
        assert_eq!(b.bad.unwrap().rank, 1);
        assert!(b.bad.unwrap().state[0].is_nan());
    }
}
