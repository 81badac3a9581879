//! The sections of an MSH file and a reader of one section's body as
//! records of values: lines of whitespace-separated numbers in ASCII
//! files, packed numbers in binary ones. The same code reads both: a
//! record is a line of text, or nothing (the next values) in binary.
//!
//! Every value read remembers where it was (the line, or the byte offset
//! in a binary body), so a message names the place at fault.

use std::path::Path;

use crate::poly::MeshError;

/// One `$Name ... $EndName` section.
#[derive(Clone, Copy, Debug)]
pub(super) struct Section<'a> {
    /// The name, without `$`.
    pub name: &'a str,
    /// The 1-based line of `$Name`.
    pub line: usize,
    /// Everything between the line `$Name` and the line `$EndName`, less
    /// the newline that ends the last line.
    pub data: &'a [u8],
    /// Where `data` starts in the file.
    pub offset: usize,
}

impl<'a> Section<'a> {
    /// The first line of the body (text in every encoding: 2.2's counts)
    /// and the rest, as its own section.
    pub fn split_first_line(&self) -> (Section<'a>, Section<'a>) {
        let end = self
            .data
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(self.data.len());
        let rest = (end + 1).min(self.data.len());
        (
            Section {
                data: &self.data[..end],
                ..*self
            },
            Section {
                line: self.line + 1,
                data: &self.data[rest..],
                offset: self.offset + rest,
                ..*self
            },
        )
    }
}

/// Splits a file into its sections (text lines `$Name` and `$EndName`
/// around each body, whatever its encoding).
pub(super) fn sections<'a>(bytes: &'a [u8], path: &Path) -> Result<Vec<Section<'a>>, MeshError> {
    let mut out = Vec::new();
    let (mut pos, mut line) = (0, 1);
    let bad = |line: usize, message: String| MeshError::Parse {
        path: path.into(),
        line,
        field: "sections".into(),
        message,
    };
    loop {
        while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
            line += usize::from(bytes[pos] == b'\n');
            pos += 1;
        }
        if pos == bytes.len() {
            return Ok(out);
        }
        let end = find(bytes, pos, b"\n").unwrap_or(bytes.len());
        let head = String::from_utf8_lossy(&bytes[pos..end]);
        let head = head.trim();
        let Some(name) = head.strip_prefix('$').filter(|n| !n.is_empty()) else {
            return Err(bad(
                line,
                format!("expected a section (`$Name`), found `{}`", brief(head)),
            ));
        };
        let name_bytes = &bytes[pos + 1..pos + 1 + name.len()];
        let name = std::str::from_utf8(name_bytes).unwrap_or("?");
        if name.starts_with("End") {
            return Err(bad(line, format!("`${name}` closes no section")));
        }
        let mut marker = b"\n$End".to_vec();
        marker.extend_from_slice(name.as_bytes());
        let Some(close) = find(bytes, end, &marker) else {
            return Err(bad(line, format!("`${name}` has no `$End{name}` after it")));
        };
        let start = (end + 1).min(close);
        out.push(Section {
            name,
            line,
            data: &bytes[start..close],
            offset: start,
        });
        let next = find(bytes, close + 1, b"\n").map_or(bytes.len(), |e| e + 1);
        line += bytes[pos..next].iter().filter(|&&b| b == b'\n').count();
        pos = next;
    }
}

/// The first place at or after `from` where `what` occurs.
fn find(bytes: &[u8], from: usize, what: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(what.len())
        .position(|w| w == what)
        .map(|p| p + from)
}

/// At most 40 characters of `s`, for a message.
pub(super) fn brief(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push_str(" ...");
    }
    out
}

/// How a binary file packs its numbers (from `$MeshFormat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Packing {
    /// The int `1` after the header was big-endian.
    pub big_endian: bool,
    /// Bytes of a `size_t` (4.1's tags and counts): the header's data size.
    pub size_t: usize,
}

/// Where a value was read, for messages.
#[derive(Clone, Copy, Debug)]
pub(super) struct Loc {
    line: usize,
    byte: Option<usize>,
}

/// A reader of one section's body.
pub(super) struct Body<'a> {
    path: &'a Path,
    section: &'a str,
    at: Loc,
    kind: Kind<'a>,
}

enum Kind<'a> {
    Text {
        /// The non-empty lines: number and text (trimmed).
        lines: Vec<(usize, &'a str)>,
        next: usize,
        /// What is left of the current line.
        rest: &'a str,
    },
    Binary {
        data: &'a [u8],
        pos: usize,
        offset: usize,
        pack: Packing,
    },
}

impl<'a> Body<'a> {
    /// The body of `s` as lines of text.
    pub fn text(path: &'a Path, s: &Section<'a>) -> Result<Body<'a>, MeshError> {
        let mut lines = Vec::new();
        for (k, l) in s.data.split(|&b| b == b'\n').enumerate() {
            let line = s.line + 1 + k;
            let text = std::str::from_utf8(l).map_err(|_| MeshError::Parse {
                path: path.into(),
                line,
                field: format!("${}", s.name),
                message: "not text (the header says ASCII: is this a binary file?)".into(),
            })?;
            let text = text.trim();
            if !text.is_empty() {
                lines.push((line, text));
            }
        }
        Ok(Body {
            path,
            section: s.name,
            at: Loc {
                line: s.line,
                byte: None,
            },
            kind: Kind::Text {
                lines,
                next: 0,
                rest: "",
            },
        })
    }

    /// The body of `s` as packed numbers.
    pub fn binary(path: &'a Path, s: &Section<'a>, pack: Packing) -> Body<'a> {
        Body {
            path,
            section: s.name,
            at: Loc {
                line: s.line,
                byte: Some(s.offset),
            },
            kind: Kind::Binary {
                data: s.data,
                pos: 0,
                offset: s.offset,
                pack,
            },
        }
    }

    /// Whether the body is binary.
    pub fn is_binary(&self) -> bool {
        matches!(self.kind, Kind::Binary { .. })
    }

    /// Bytes of a `size_t` (binary), 1 for text: for [`Self::room`].
    pub fn size_bytes(&self) -> usize {
        match self.kind {
            Kind::Binary { pack, .. } => pack.size_t,
            Kind::Text { .. } => 1,
        }
    }

    /// Where the last value (or record) was read.
    pub fn here(&self) -> Loc {
        self.at
    }

    /// An error at the last value read.
    pub fn err(&self, message: impl Into<String>) -> MeshError {
        self.err_at(self.at, message)
    }

    /// An error at `at`.
    pub fn err_at(&self, at: Loc, message: impl Into<String>) -> MeshError {
        MeshError::Parse {
            path: self.path.into(),
            line: at.line,
            field: match at.byte {
                Some(b) => format!("${}, byte {b}", self.section),
                None => format!("${}", self.section),
            },
            message: message.into(),
        }
    }

    /// Starts the next record: the next line of text (the current one
    /// must be used up), nothing in binary. False when the body has no
    /// more.
    pub fn record(&mut self) -> Result<bool, MeshError> {
        match &mut self.kind {
            Kind::Text { lines, next, rest } => {
                if let Some(t) = rest.split_whitespace().next() {
                    let t = brief(t);
                    return Err(
                        self.err(format!("`{t}` after the values that belong on this line"))
                    );
                }
                let Some(&(line, text)) = lines.get(*next) else {
                    return Ok(false);
                };
                *next += 1;
                *rest = text;
                self.at = Loc { line, byte: None };
                Ok(true)
            }
            Kind::Binary {
                data, pos, offset, ..
            } => {
                self.at.byte = Some(*offset + *pos);
                Ok(*pos < data.len())
            }
        }
    }

    /// How many more records of `lines_each` lines (text; 0: values left
    /// on this line) or `bytes_each` bytes (binary) the body can hold.
    pub fn room(&self, lines_each: usize, bytes_each: usize) -> u64 {
        match &self.kind {
            Kind::Text { lines, next, rest } => match lines_each {
                0 => rest.split_whitespace().count() as u64,
                n => ((lines.len() - next) / n) as u64,
            },
            Kind::Binary { data, pos, .. } => ((data.len() - pos) / bytes_each.max(1)) as u64,
        }
    }

    /// Checks that nothing follows `what` (what the counts declared).
    pub fn finish(&mut self, what: &str) -> Result<(), MeshError> {
        match &self.kind {
            Kind::Text { lines, next, rest } => {
                let extra = match rest.split_whitespace().next() {
                    Some(t) => Some((self.at.line, t)),
                    None => lines.get(*next).copied(),
                };
                if let Some((line, t)) = extra {
                    self.at = Loc { line, byte: None };
                    return Err(self.err(format!("`{}` after {what}", brief(t))));
                }
            }
            Kind::Binary {
                data, pos, offset, ..
            } => {
                let left = data[*pos..]
                    .iter()
                    .filter(|b| !b.is_ascii_whitespace())
                    .count();
                if left > 0 {
                    self.at.byte = Some(offset + pos);
                    return Err(self.err(format!("{} more bytes after {what}", data.len() - pos)));
                }
            }
        }
        Ok(())
    }

    /// The next word of the current line (text only).
    fn word(&mut self, what: &str) -> Result<&'a str, MeshError> {
        let Kind::Text { rest, .. } = &mut self.kind else {
            unreachable!("a word of a binary body");
        };
        let r = rest.trim_start();
        let end = r.find(char::is_whitespace).unwrap_or(r.len());
        let (w, tail) = r.split_at(end);
        *rest = tail;
        if w.is_empty() {
            return Err(self.err(format!("{what}: missing (the line ends before it)")));
        }
        Ok(w)
    }

    /// The rest of the current line, trimmed (text only: names).
    pub fn rest_of_line(&mut self) -> &'a str {
        match &mut self.kind {
            Kind::Text { rest, .. } => std::mem::take(rest).trim(),
            Kind::Binary { .. } => "",
        }
    }

    /// The next `n` bytes of a binary body, in the file's byte order
    /// turned little-endian.
    fn bytes<const N: usize>(&mut self, what: &str) -> Result<[u8; N], MeshError> {
        let Kind::Binary {
            data,
            pos,
            offset,
            pack,
        } = &mut self.kind
        else {
            unreachable!("bytes of a text body");
        };
        let at = *offset + *pos;
        self.at.byte = Some(at);
        let Some(b) = data.get(*pos..*pos + N) else {
            let message = format!(
                "{what}: the section ends at byte {} before it",
                *offset + data.len()
            );
            return Err(self.err(message));
        };
        *pos += N;
        let mut out = [0; N];
        out.copy_from_slice(b);
        if pack.big_endian {
            out.reverse();
        }
        Ok(out)
    }

    /// An int (binary: 4 bytes).
    pub fn int(&mut self, what: &str) -> Result<i64, MeshError> {
        if self.is_binary() {
            return Ok(i32::from_le_bytes(self.bytes::<4>(what)?).into());
        }
        let w = self.word(what)?;
        w.parse()
            .map_err(|_| self.err(format!("{what}: `{}` is not an integer", brief(w))))
    }

    /// A count or tag (binary: a `size_t` of the header's data size).
    pub fn size(&mut self, what: &str) -> Result<u64, MeshError> {
        if let Kind::Binary { pack, .. } = self.kind {
            return Ok(if pack.size_t == 4 {
                u32::from_le_bytes(self.bytes::<4>(what)?).into()
            } else {
                u64::from_le_bytes(self.bytes::<8>(what)?)
            });
        }
        let w = self.word(what)?;
        w.parse().map_err(|_| {
            self.err(format!(
                "{what}: `{}` is not a whole number of 0 or more",
                brief(w)
            ))
        })
    }

    /// A finite floating-point number (binary: 8 bytes).
    pub fn float(&mut self, what: &str) -> Result<f64, MeshError> {
        let v = if self.is_binary() {
            f64::from_le_bytes(self.bytes::<8>(what)?)
        } else {
            let w = self.word(what)?;
            w.parse::<f64>()
                .map_err(|_| self.err(format!("{what}: `{}` is not a number", brief(w))))?
        };
        if !v.is_finite() {
            return Err(self.err(format!("{what}: {v} is not a finite number")));
        }
        Ok(v)
    }
}
