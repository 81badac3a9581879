//! The fast reader of well-formed `new_grid.dat` texts: the file cut at
//! line ends into one stretch per thread, parsed straight into the mesh's
//! arrays ([`parse_fast`]); [`super::parse`] falls back to the reader line
//! by line for anything else (and its messages).

use super::super::PolyMesh;
/// Reads a well-formed `new_grid.dat` text on `threads` threads, or
/// `None` if the text is anything else (then [`super::parse`] reads it line by
/// line, for the message). It takes numbers in the forms OP2's files have
/// (indices and flags as plain digits, coordinates as `-123.456`, or any
/// form `f64::from_str` reads), fields between spaces, tabs or `\r`, blank
/// lines anywhere; the whole text must be ASCII.
///
/// Two passes over the text, both cut at line ends into one stretch per
/// thread: the first counts each stretch's non-blank lines, so that each
/// knows where its lines go (which section, which element); the second
/// parses the stretches straight into the mesh's arrays, with nothing
/// allocated per line.
pub fn parse_fast(text: &[u8], threads: usize) -> Option<PolyMesh> {
    let mut head = Cursor { b: text, i: 0 };
    head.skip_blank();
    let mut counts = [0usize; 4];
    for c in &mut counts {
        *c = usize::try_from(head.digits(u32::MAX as u64 + 1)?).ok()?;
    }
    head.end_of_line()?;
    let [nn, nc, ne, nb] = counts;
    // (Row starts are `u32`: four per cell.)
    if nc > u32::MAX as usize / 4 {
        return None;
    }
    let body = &text[head.i..];
    let mut stretches = split_at_lines(body, threads.max(1));
    let lines: Vec<usize> = on_threads(&mut stretches, |s| count_nonblank(s));
    if lines.iter().sum::<usize>() != nn.checked_add(nc)?.checked_add(ne)?.checked_add(nb)? {
        return None;
    }
    // The counts are now bounded by the text's lines, and so are these.
    let mut x = vec![[0.0f64; 2]; nn];
    let mut cell_nodes = vec![0u32; 4 * nc];
    let mut edge_nodes = vec![[0u32; 2]; ne];
    let mut edge_cells = vec![[0u32; 2]; ne];
    let mut bedge_nodes = vec![[0u32; 2]; nb];
    let mut bedge_cell = vec![0u32; nb];
    let mut bound = vec![0i32; nb];
    let mut parts = Vec::with_capacity(stretches.len());
    {
        let (mut rx, mut rc) = (&mut x[..], &mut cell_nodes[..]);
        let (mut ren, mut rec) = (&mut edge_nodes[..], &mut edge_cells[..]);
        let (mut rbn, mut rbc, mut rbf) =
            (&mut bedge_nodes[..], &mut bedge_cell[..], &mut bound[..]);
        // Element `k` of the file (0-based, after the header) is node `k`,
        // then cell `k - nn`, and so on: each stretch takes its share of
        // each section in turn.
        let ends = [nn, nn + nc, nn + nc + ne, nn + nc + ne + nb];
        let mut first = 0;
        for (s, &n) in stretches.iter().zip(&lines) {
            let last = first + n;
            let share = |k: usize| {
                let lo = if k == 0 { 0 } else { ends[k - 1] };
                last.min(ends[k]).saturating_sub(first.max(lo))
            };
            let (nb_here, ne_here) = (share(3), share(2));
            parts.push(Stretch {
                text: s,
                x: take(&mut rx, share(0)),
                cells: take(&mut rc, 4 * share(1)),
                edge_nodes: take(&mut ren, ne_here),
                edge_cells: take(&mut rec, ne_here),
                bedge_nodes: take(&mut rbn, nb_here),
                bedge_cell: take(&mut rbc, nb_here),
                bound: take(&mut rbf, nb_here),
            });
            first = last;
        }
    }
    let ok = on_threads(&mut parts, |p| p.parse(nn as u64, nc as u64).is_some());
    if !ok.iter().all(|&k| k) {
        return None;
    }
    drop(parts);
    Some(PolyMesh {
        x,
        cell_start: (0..=nc as u32).map(|c| 4 * c).collect(),
        cell_nodes,
        edge_nodes,
        edge_cells,
        bedge_nodes,
        bedge_cell,
        bound,
    })
}

/// The first `n` elements of `*rest`, which keeps the others.
fn take<'a, T>(rest: &mut &'a mut [T], n: usize) -> &'a mut [T] {
    let (a, b) = std::mem::take(rest).split_at_mut(n);
    *rest = b;
    a
}

/// `text` cut into `n` stretches of about equal length, each ending at a
/// line end (or the text's end).
fn split_at_lines(text: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..=n {
        let mut end = (text.len() * k / n).max(start);
        if k < n {
            end = match text[end..].iter().position(|&b| b == b'\n') {
                Some(p) => end + p + 1,
                None => text.len(),
            };
        } else {
            end = text.len();
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// `f` of each item, the first on this thread and the others on threads
/// of their own.
fn on_threads<T: Send, R: Send>(items: &mut [T], f: impl Fn(&mut T) -> R + Sync) -> Vec<R> {
    match items {
        [] => Vec::new(),
        [one] => vec![f(one)],
        [first, rest @ ..] => std::thread::scope(|s| {
            let f = &f;
            let handles: Vec<_> = rest.iter_mut().map(|t| s.spawn(move || f(t))).collect();
            let mut out = vec![f(first)];
            out.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a reader thread")),
            );
            out
        }),
    }
}

/// A field separator inside a line (`\r` included: `str::lines` drops it
/// before a line end, `split_whitespace` anywhere else).
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

/// The lines of `text` with anything but blanks on them.
fn count_nonblank(text: &[u8]) -> usize {
    let (mut n, mut filled) = (0, false);
    for &b in text {
        if b == b'\n' {
            n += filled as usize;
            filled = false;
        } else {
            filled |= !is_blank(b);
        }
    }
    n + filled as usize
}

/// One thread's stretch of the text and the places its elements go.
struct Stretch<'a> {
    text: &'a [u8],
    x: &'a mut [[f64; 2]],
    cells: &'a mut [u32],
    edge_nodes: &'a mut [[u32; 2]],
    edge_cells: &'a mut [[u32; 2]],
    bedge_nodes: &'a mut [[u32; 2]],
    bedge_cell: &'a mut [u32],
    bound: &'a mut [i32],
}

impl Stretch<'_> {
    /// Parses the stretch's lines into its places (`nn` nodes and `nc`
    /// cells in the mesh), or `None` at the first thing not well formed.
    fn parse(&mut self, nn: u64, nc: u64) -> Option<()> {
        let mut p = Cursor { b: self.text, i: 0 };
        let index = |p: &mut Cursor, n: u64| p.digits(n).map(|v| v as u32);
        for x in self.x.iter_mut() {
            p.skip_blank();
            *x = [p.float()?, p.float()?];
            p.end_of_line()?;
        }
        for c in self.cells.chunks_exact_mut(4) {
            p.skip_blank();
            for v in c {
                *v = index(&mut p, nn)?;
            }
            p.end_of_line()?;
        }
        for (n, c) in self.edge_nodes.iter_mut().zip(self.edge_cells.iter_mut()) {
            p.skip_blank();
            *n = [index(&mut p, nn)?, index(&mut p, nn)?];
            *c = [index(&mut p, nc)?, index(&mut p, nc)?];
            p.end_of_line()?;
        }
        for b in 0..self.bedge_nodes.len() {
            p.skip_blank();
            self.bedge_nodes[b] = [index(&mut p, nn)?, index(&mut p, nn)?];
            self.bedge_cell[b] = index(&mut p, nc)?;
            self.bound[b] = p.flag()?;
            p.end_of_line()?;
        }
        p.skip_blank();
        (p.i == p.b.len()).then_some(())
    }
}

/// A place in the text.
pub(super) struct Cursor<'a> {
    pub(super) b: &'a [u8],
    pub(super) i: usize,
}

impl<'a> Cursor<'a> {
    /// Past blanks and line ends: to the start of the next field on a
    /// non-blank line.
    fn skip_blank(&mut self) {
        while self.i < self.b.len() && (is_blank(self.b[self.i]) || self.b[self.i] == b'\n') {
            self.i += 1;
        }
    }

    /// Past the blanks after the line's last field and its end, or `None`
    /// if another field follows.
    fn end_of_line(&mut self) -> Option<()> {
        while self.i < self.b.len() && is_blank(self.b[self.i]) {
            self.i += 1;
        }
        match self.b.get(self.i) {
            None => Some(()),
            Some(b'\n') => {
                self.i += 1;
                Some(())
            }
            Some(_) => None,
        }
    }

    /// The next field on the line: the bytes up to a blank or the line's
    /// end, `None` if there are none.
    fn field(&mut self) -> Option<&'a [u8]> {
        while self.i < self.b.len() && is_blank(self.b[self.i]) {
            self.i += 1;
        }
        let start = self.i;
        while self.i < self.b.len() && !is_blank(self.b[self.i]) && self.b[self.i] != b'\n' {
            self.i += 1;
        }
        (self.i > start).then(|| &self.b[start..self.i])
    }

    /// A field of plain digits (at most ten) whose value is below `n`.
    fn digits(&mut self, n: u64) -> Option<u64> {
        let f = self.field()?;
        if f.len() > 10 {
            return None;
        }
        let mut v = 0u64;
        for &d in f {
            if !d.is_ascii_digit() {
                return None;
            }
            v = 10 * v + (d - b'0') as u64;
        }
        (v < n).then_some(v)
    }

    /// A boundary flag: digits with an optional `-`.
    fn flag(&mut self) -> Option<i32> {
        let f = self.field()?;
        let (neg, d) = match f {
            [b'-', d @ ..] => (true, d),
            d => (false, d),
        };
        if d.is_empty() || d.len() > 9 || !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let v = d.iter().fold(0i32, |v, &c| 10 * v + (c - b'0') as i32);
        Some(if neg { -v } else { v })
    }

    /// A finite coordinate, to the bit what `f64::from_str` gives (a
    /// negative zero made the zero).
    pub(super) fn float(&mut self) -> Option<f64> {
        let f = self.field()?;
        let v = match decimal(f) {
            Some(v) => v,
            None => std::str::from_utf8(f).ok()?.parse::<f64>().ok()?,
        };
        // (`+ 0.0`: a negative zero read as the zero, as line by line.)
        v.is_finite().then_some(v + 0.0)
    }
}

/// `-ddd.ddd` (sign and either part optional, digits on at least one
/// side) of at most 19 digits whose value without its point is at most
/// 2^53 and has at most 22 decimals: the case where the correctly rounded
/// value is one IEEE division of two exact doubles (Clinger's fast path),
/// as `f64::from_str` rounds. `None` for anything else.
pub(super) fn decimal(f: &[u8]) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let (neg, f) = match f {
        [b'-', f @ ..] => (true, f),
        f => (false, f),
    };
    let (int, frac) = match f.iter().position(|&b| b == b'.') {
        Some(p) => (&f[..p], &f[p + 1..]),
        None => (f, &f[f.len()..]),
    };
    let digits = int.len() + frac.len();
    if digits == 0 || digits > 19 || frac.len() > 22 {
        return None;
    }
    let mut m = 0u64;
    for &d in int.iter().chain(frac) {
        if !d.is_ascii_digit() {
            return None;
        }
        m = 10 * m + (d - b'0') as u64;
    }
    if m > 1 << 53 {
        return None;
    }
    let v = m as f64 / POW10[frac.len()];
    Some(if neg { -v } else { v })
}
