//! What one rank holds of a cloud, and its encoding for the scatter.

use qflow_mesh::geometry::Csr;
use qflow_mesh::partition::PartLayout;
use qflow_mesh::{Cloud, PointKind};
use qflow_lskum::geometry::SurfacePoint;
use qflow_lskum::settings::ForceNormals;
use qflow_lskum::{Geometry, Vec4};

/// One rank's part of a distributed problem: its local points (owned,
/// then ghosts) with their geometry, the state to start from, and its
/// messages.
#[derive(Clone, Debug)]
pub struct LocalPart {
    /// This part's rank.
    pub rank: u32,
    /// Number of ranks.
    pub ranks: u32,
    /// Points in the whole cloud.
    pub global_len: usize,
    /// The cloud index (original numbering, 0-based) of every local point.
    pub global: Vec<u32>,
    /// Owned points whose stencils are wholly owned (local `0..n_interior`).
    pub n_interior: usize,
    /// Owned points (local `0..n_owned`); the rest are ghosts.
    pub n_owned: usize,
    /// The local geometry (stencils of owned points in local indices).
    pub geometry: Geometry,
    /// The primitive state of every local point to start from.
    pub state: Vec<Vec4>,
    /// Ghost blocks: (owner rank, first local index, count).
    pub recv: Vec<(u32, usize, usize)>,
    /// Send lists: (reader rank, local points, offset among its ghosts).
    pub send: Vec<(u32, Vec<u32>, usize)>,
}

impl LocalPart {
    /// The part of `layout` on `cloud` (original numbering): geometry as
    /// [`Geometry::new`] computes it, state from `state` (indexed by cloud
    /// point) or `fill` everywhere.
    pub fn build(
        cloud: &Cloud,
        force_normals: ForceNormals,
        layout: &PartLayout,
        ranks: u32,
        state: Option<&[Vec4]>,
        fill: Vec4,
        scratch: &mut Vec<u32>,
    ) -> LocalPart {
        // Local index of each cloud point of the part, in a reusable
        // cloud-sized scratch array (reset before returning).
        scratch.resize(cloud.len(), u32::MAX);
        for (j, &i) in layout.points.iter().enumerate() {
            scratch[i as usize] = j as u32;
        }
        let geometry = Geometry::part(cloud, force_normals, &layout.points, layout.n_owned, |k| {
            let l = scratch[k as usize];
            debug_assert!(l != u32::MAX, "stencil point {k} is not local");
            l
        });
        for &i in &layout.points {
            scratch[i as usize] = u32::MAX;
        }
        let state = match state {
            Some(s) => layout.points.iter().map(|&i| s[i as usize]).collect(),
            None => vec![fill; layout.points.len()],
        };
        LocalPart {
            rank: layout.part,
            ranks,
            global_len: cloud.len(),
            global: layout.points.clone(),
            n_interior: layout.n_interior,
            n_owned: layout.n_owned,
            geometry,
            state,
            recv: layout
                .recv
                .iter()
                .map(|b| (b.rank, b.start, b.len))
                .collect(),
            send: layout
                .send
                .iter()
                .map(|s| (s.rank, s.points.clone(), s.offset))
                .collect(),
        }
    }

    /// Local points (owned and ghosts).
    pub fn len(&self) -> usize {
        self.global.len()
    }

    /// Whether the part holds no point.
    pub fn is_empty(&self) -> bool {
        self.global.is_empty()
    }

    /// Ghost points.
    pub fn ghosts(&self) -> usize {
        self.len() - self.n_owned
    }

    /// Bytes held by the part (geometry, global indices, message lists).
    pub fn bytes(&self) -> usize {
        self.geometry.bytes()
            + 4 * self.global.len()
            + self.send.iter().map(|s| 4 * s.1.len() + 24).sum::<usize>()
            + 24 * self.recv.len()
    }

    /// The encoding of the part (little endian, lengths as `u64`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let g = &self.geometry;
        let mut e = Enc(Vec::with_capacity(
            self.len() * 120 + g.stencil.idx.len() * 4,
        ));
        e.bytes(MAGIC);
        e.u64(self.rank as u64);
        e.u64(self.ranks as u64);
        e.u64(self.global_len as u64);
        e.u64(self.n_interior as u64);
        e.u64(self.n_owned as u64);
        e.u32s(&self.global);
        for a in [&g.x, &g.y, &g.nx, &g.ny, &g.min_dist] {
            e.f64s(a);
        }
        e.u64(g.kind.len() as u64);
        e.0.extend(g.kind.iter().map(|k| k.code()));
        e.u32s(&g.stencil.start);
        e.u32s(&g.stencil.idx);
        e.u64(g.surface.len() as u64);
        for s in &g.surface {
            e.u64(s.index as u64);
            e.u64(s.shape as u64);
            for v in [s.x, s.y, s.nx, s.ny, s.ds] {
                e.u64(v.to_bits());
            }
        }
        e.u64(self.state.len() as u64);
        for w in &self.state {
            for v in w {
                e.u64(v.to_bits());
            }
        }
        e.u64(self.recv.len() as u64);
        for &(r, start, len) in &self.recv {
            e.u64(r as u64);
            e.u64(start as u64);
            e.u64(len as u64);
        }
        e.u64(self.send.len() as u64);
        for (r, points, offset) in &self.send {
            e.u64(*r as u64);
            e.u64(*offset as u64);
            e.u32s(points);
        }
        e.0
    }

    /// Decodes [`LocalPart::to_bytes`]; `None` if the bytes are not a part.
    pub fn from_bytes(b: &[u8]) -> Option<LocalPart> {
        let mut d = Dec { b, at: 0 };
        if d.take(MAGIC.len())? != MAGIC {
            return None;
        }
        let rank = d.u64()? as u32;
        let ranks = d.u64()? as u32;
        let global_len = d.u64()? as usize;
        let n_interior = d.u64()? as usize;
        let n_owned = d.u64()? as usize;
        let global = d.u32s()?;
        let (x, y, nx, ny, min_dist) = (d.f64s()?, d.f64s()?, d.f64s()?, d.f64s()?, d.f64s()?);
        let nk = d.u64()? as usize;
        let kind = d
            .take(nk)?
            .iter()
            .map(|&c| PointKind::from_code(c as i64))
            .collect::<Option<Vec<_>>>()?;
        let start = d.u32s()?;
        let idx = d.u32s()?;
        let ns = d.u64()? as usize;
        let mut surface = Vec::with_capacity(ns.min(b.len() / 56));
        for _ in 0..ns {
            let index = d.u64()? as u32;
            let shape = d.u64()? as u32;
            let mut v = [0.0; 5];
            for x in &mut v {
                *x = f64::from_bits(d.u64()?);
            }
            surface.push(SurfacePoint {
                index,
                shape,
                x: v[0],
                y: v[1],
                nx: v[2],
                ny: v[3],
                ds: v[4],
            });
        }
        let n_state = d.u64()? as usize;
        let mut state = Vec::with_capacity(n_state.min(b.len() / 32));
        for _ in 0..n_state {
            let mut w = [0.0; 4];
            for x in &mut w {
                *x = f64::from_bits(d.u64()?);
            }
            state.push(w);
        }
        let nr = d.u64()? as usize;
        let mut recv = Vec::with_capacity(nr.min(b.len() / 24));
        for _ in 0..nr {
            recv.push((d.u64()? as u32, d.u64()? as usize, d.u64()? as usize));
        }
        let nsend = d.u64()? as usize;
        let mut send = Vec::with_capacity(nsend.min(b.len() / 24));
        for _ in 0..nsend {
            let r = d.u64()? as u32;
            let offset = d.u64()? as usize;
            send.push((r, d.u32s()?, offset));
        }
        let n = global.len();
        let consistent = d.at == b.len()
            && [
                x.len(),
                y.len(),
                nx.len(),
                ny.len(),
                min_dist.len(),
                kind.len(),
                state.len(),
            ]
            .iter()
            .all(|&l| l == n)
            && start.len() == n + 1
            && n_interior <= n_owned
            && n_owned <= n;
        consistent.then_some(LocalPart {
            rank,
            ranks,
            global_len,
            global,
            n_interior,
            n_owned,
            geometry: Geometry {
                x,
                y,
                nx,
                ny,
                kind,
                min_dist,
                stencil: Csr { start, idx },
                surface,
            },
            state,
            recv,
            send,
        })
    }
}

const MAGIC: &[u8; 8] = b"QFLOWPRT";

struct Enc(Vec<u8>);

impl Enc {
    fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32s(&mut self, a: &[u32]) {
        self.u64(a.len() as u64);
        for v in a {
            self.0.extend_from_slice(&v.to_le_bytes());
        }
    }
    fn f64s(&mut self, a: &[f64]) {
        self.u64(a.len() as u64);
        for v in a {
            self.0.extend_from_slice(&v.to_le_bytes());
        }
    }
}

struct Dec<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Dec<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.b.get(self.at..end)?;
        self.at = end;
        Some(s)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn u32s(&mut self) -> Option<Vec<u32>> {
        let n = self.u64()? as usize;
        let s = self.take(n.checked_mul(4)?)?;
        Some(
            s.chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        )
    }
    fn f64s(&mut self) -> Option<Vec<f64>> {
        let n = self.u64()? as usize;
        let s = self.take(n.checked_mul(8)?)?;
        Some(
            s.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qflow_mesh::generate::NacaOGrid;
    use qflow_mesh::partition::Partition;

    #[test]
    fn parts_round_trip_through_bytes() {
        let cloud = NacaOGrid {
            section: "naca0012".parse().unwrap(),
            wall_points: 32,
            rings: 8,
            far_field: 8.0,
            stretching: None,
        }
        .generate()
        .unwrap();
        let p = Partition::rcb(&cloud, 3).unwrap();
        let mut scratch = Vec::new();
        for l in p.layouts(&cloud, None) {
            let part = LocalPart::build(
                &cloud,
                ForceNormals::Boundary,
                &l,
                3,
                None,
                [1.0, 0.5, 0.0, 0.7],
                &mut scratch,
            );
            assert!(scratch.iter().all(|&v| v == u32::MAX));
            let b = part.to_bytes();
            let back = LocalPart::from_bytes(&b).unwrap();
            assert_eq!(back.to_bytes(), b);
            assert_eq!(back.geometry.surface, part.geometry.surface);
            assert_eq!(back.send, part.send);
            assert!(LocalPart::from_bytes(&b[..b.len() - 1]).is_none());
        }
    }
}
