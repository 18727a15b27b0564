//! Memory traces: the binary per-core trace of DESIGN.md and the text forms.
//!
//! **Binary** (little-endian, versioned):
//!
//! ```text
//! header  (16 bytes): magic b"WEFTTRC\0" | u32 version (= 2) | u32 core count
//! record  (16 bytes): u64 address | u32 gap | u16 core | u8 kind (0 = R, 1 = W, 2 = B) | u8 size
//! ```
//!
//! `gap` is the number of non-memory instructions the core executed since its
//! previous record. Kind `B` (version 2) is a **barrier**: the core waits until
//! its earlier instructions have retired and every core of the trace has
//! reached its barrier with the same ordinal (or finished its stream). Its
//! address field holds a [`BarrierPhase`] tag (0 = none), its size is 0. The
//! runtime writes one for every virtual core where the program forks or joins
//! a parallel region, and around its inspections, tagged so that the
//! simulator can time the phases.
//! Version 1 traces (no barriers) are still read. [`TraceWriter`] and [`TraceReader`] stream: the reader keeps
//! one fixed buffer (64 KiB) and never loads the file, so traces of 10^8 records
//! cost the same memory as traces of ten. Errors say which record is bad.
//!
//! **Text, DRAM-only** (the form DRAMsim3 and Ramulator read):
//! `<cycle> <R|W> <hex address>` per line, `#` starts a comment. `cycle` is the
//! DRAM-clock cycle at which the request is offered ([`TextTraceReader`]).
//!
//! **Text, per core**: `<core> <gap> <R|W> <hex address> [size]` per line, the
//! readable twin of the binary form ([`CoreTextReader`]; size defaults to 8),
//! and `<core> <gap> B [phase]` for a barrier (phase tag, decimal, default 0).
//!
//! Text errors carry the source name and the 1-based line number.

use crate::limits::{MAX_LINE_BYTES, MAX_TRACE_CYCLE};
use std::io::{self, BufRead, Read, Write};

/// Magic bytes at the start of a binary trace.
pub const MAGIC: [u8; 8] = *b"WEFTTRC\0";
/// Binary format version written (and the newest read).
pub const VERSION: u32 = 2;
/// Oldest binary format version read (version 1: no barrier records).
pub const MIN_VERSION: u32 = 1;
/// Bytes of the binary header.
pub const HEADER_BYTES: usize = 16;
/// Bytes of one binary record.
pub const RECORD_BYTES: usize = 16;

/// Errors reading or writing a trace.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// Underlying I/O error.
    #[error("{source_name}: I/O error: {error}")]
    Io {
        /// The trace's name (file path).
        source_name: String,
        /// The error.
        error: io::Error,
    },
    /// The file does not start with `WEFTTRC\0`.
    #[error("{source_name}: not a weft binary trace (bad magic {found:02x?})")]
    BadMagic {
        /// The trace's name.
        source_name: String,
        /// The first bytes found.
        found: Vec<u8>,
    },
    /// Unsupported version.
    #[error(
        "{source_name}: unsupported trace version {found} (this build reads versions {MIN_VERSION} to {VERSION})"
    )]
    BadVersion {
        /// The trace's name.
        source_name: String,
        /// The version in the header.
        found: u32,
    },
    /// The file ends inside the header.
    #[error("{source_name}: truncated header ({got} of {HEADER_BYTES} bytes)")]
    TruncatedHeader {
        /// The trace's name.
        source_name: String,
        /// Bytes present.
        got: usize,
    },
    /// The file ends inside a record.
    #[error("{source_name}: truncated record {record} ({got} of {RECORD_BYTES} bytes)")]
    TruncatedRecord {
        /// The trace's name.
        source_name: String,
        /// 0-based record index.
        record: u64,
        /// Bytes present.
        got: usize,
    },
    /// A record field is out of range.
    #[error("{source_name}: record {record}: {message}")]
    BadRecord {
        /// The trace's name.
        source_name: String,
        /// 0-based record index.
        record: u64,
        /// What is wrong.
        message: String,
    },
    /// A text line does not parse.
    #[error("{source_name}:{line}: {message}")]
    Syntax {
        /// The trace's name.
        source_name: String,
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// The trace holds no record.
    #[error("{source_name}: the trace is empty: no records ({expected})")]
    Empty {
        /// The trace's name.
        source_name: String,
        /// What a record looks like.
        expected: String,
    },
    /// Writing a record whose core is not below the header's core count.
    #[error("record core {core} is not below the trace's core count {cores}")]
    CoreOutOfRange {
        /// The record's core.
        core: u16,
        /// The header's core count.
        cores: u32,
    },
}

/// Read, write, or barrier (a record that is not an access).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store.
    Write,
    /// A barrier across all cores of the trace (module docs).
    Barrier,
}

impl AccessKind {
    /// Binary code (0 = read, 1 = write, 2 = barrier).
    pub fn code(self) -> u8 {
        match self {
            AccessKind::Read => 0,
            AccessKind::Write => 1,
            AccessKind::Barrier => 2,
        }
    }

    /// From the binary code.
    pub fn from_code(c: u8) -> Option<Self> {
        match c {
            0 => Some(AccessKind::Read),
            1 => Some(AccessKind::Write),
            2 => Some(AccessKind::Barrier),
            _ => None,
        }
    }

    /// True for writes.
    pub fn is_write(self) -> bool {
        self == AccessKind::Write
    }

    /// True for barriers.
    pub fn is_barrier(self) -> bool {
        self == AccessKind::Barrier
    }

    /// Parse `R`/`W`/`B` (also `READ`, `WRITE`, `RD`, `WR`, `BARRIER`, any case).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_uppercase().as_str() {
            "R" | "RD" | "READ" | "LOAD" => Some(AccessKind::Read),
            "W" | "WR" | "WRITE" | "STORE" => Some(AccessKind::Write),
            "B" | "BARRIER" => Some(AccessKind::Barrier),
            _ => None,
        }
    }

    /// `'R'`, `'W'` or `'B'`.
    pub fn letter(self) -> char {
        match self {
            AccessKind::Read => 'R',
            AccessKind::Write => 'W',
            AccessKind::Barrier => 'B',
        }
    }
}

/// What a barrier starts or ends, carried in its record's address field so the
/// simulator can time program phases (all cores meet at both ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u64)]
pub enum BarrierPhase {
    /// No phase information.
    None = 0,
    /// Start of a runtime inspection (inspector, bank maps, scheduling).
    InspectStart = 1,
    /// End of a runtime inspection.
    InspectEnd = 2,
    /// Start (fork) of a parallel region's execution.
    RegionStart = 3,
    /// End (join) of a parallel region's execution.
    RegionEnd = 4,
}

impl BarrierPhase {
    /// From a barrier record's address field; unknown tags are `None`.
    pub fn from_tag(t: u64) -> Self {
        match t {
            1 => BarrierPhase::InspectStart,
            2 => BarrierPhase::InspectEnd,
            3 => BarrierPhase::RegionStart,
            4 => BarrierPhase::RegionEnd,
            _ => BarrierPhase::None,
        }
    }
}

/// One record of a per-core trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Record {
    /// Issuing core.
    pub core: u16,
    /// Read or write.
    pub kind: AccessKind,
    /// Access size in bytes.
    pub size: u8,
    /// Byte address.
    pub addr: u64,
    /// Non-memory instructions since this core's previous record.
    pub gap: u32,
}

impl Record {
    /// The 16-byte little-endian encoding.
    pub fn to_bytes(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[0..8].copy_from_slice(&self.addr.to_le_bytes());
        b[8..12].copy_from_slice(&self.gap.to_le_bytes());
        b[12..14].copy_from_slice(&self.core.to_le_bytes());
        b[14] = self.kind.code();
        b[15] = self.size;
        b
    }
}

/// Streaming writer of the binary trace.
pub struct TraceWriter<W: Write> {
    out: io::BufWriter<W>,
    cores: u32,
    records: u64,
}

fn io_err(name: &str) -> impl Fn(io::Error) -> TraceError + '_ {
    move |error| TraceError::Io {
        source_name: name.to_string(),
        error,
    }
}

impl<W: Write> TraceWriter<W> {
    /// Write the header for a trace of `cores` cores.
    pub fn new(w: W, cores: u32) -> Result<Self, TraceError> {
        let mut out = io::BufWriter::with_capacity(1 << 16, w);
        let mut h = [0u8; HEADER_BYTES];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&cores.to_le_bytes());
        out.write_all(&h).map_err(io_err("trace writer"))?;
        Ok(TraceWriter {
            out,
            cores,
            records: 0,
        })
    }

    /// Append one record (its core must be below the header's core count).
    pub fn write(&mut self, r: &Record) -> Result<(), TraceError> {
        if r.core as u32 >= self.cores {
            return Err(TraceError::CoreOutOfRange {
                core: r.core,
                cores: self.cores,
            });
        }
        self.out
            .write_all(&r.to_bytes())
            .map_err(io_err("trace writer"))?;
        self.records += 1;
        Ok(())
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Flush and return the inner writer.
    pub fn finish(self) -> Result<W, TraceError> {
        self.out.into_inner().map_err(|e| TraceError::Io {
            source_name: "trace writer".into(),
            error: e.into_error(),
        })
    }
}

/// Streaming reader of the binary trace: an iterator of `Result<Record, TraceError>`.
/// After the first error the iterator ends.
pub struct TraceReader<R: Read> {
    inner: R,
    name: String,
    cores: u32,
    version: u32,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    record: u64,
    done: bool,
}

const READ_BUF: usize = 1 << 16;

/// Read until `buf` is full or EOF; returns bytes read.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

impl<R: Read> TraceReader<R> {
    /// Read and check the header; `name` (e.g. the file path) appears in errors.
    pub fn new(mut inner: R, name: impl Into<String>) -> Result<Self, TraceError> {
        let name = name.into();
        let mut h = [0u8; HEADER_BYTES];
        let got = fill(&mut inner, &mut h).map_err(io_err(&name))?;
        if got >= 8 && h[0..8] != MAGIC || got < 8 && h[..got] != MAGIC[..got] {
            return Err(TraceError::BadMagic {
                source_name: name,
                found: h[..got.min(8)].to_vec(),
            });
        }
        if got < HEADER_BYTES {
            return Err(TraceError::TruncatedHeader {
                source_name: name,
                got,
            });
        }
        let version = u32::from_le_bytes(h[8..12].try_into().expect("4 bytes"));
        if !(MIN_VERSION..=VERSION).contains(&version) {
            return Err(TraceError::BadVersion {
                source_name: name,
                found: version,
            });
        }
        let cores = u32::from_le_bytes(h[12..16].try_into().expect("4 bytes"));
        Ok(TraceReader {
            inner,
            name,
            cores,
            version,
            buf: vec![0u8; READ_BUF].into_boxed_slice(),
            pos: 0,
            end: 0,
            record: 0,
            done: false,
        })
    }

    /// Core count from the header.
    pub fn cores(&self) -> u32 {
        self.cores
    }

    /// Format version from the header.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Records returned so far.
    pub fn records_read(&self) -> u64 {
        self.record
    }

    fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        if self.end - self.pos < RECORD_BYTES {
            // Move the partial tail to the front and refill.
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
            let n = fill(&mut self.inner, &mut self.buf[self.end..]).map_err(io_err(&self.name))?;
            self.end += n;
            if self.end == 0 {
                if self.record == 0 {
                    return Err(TraceError::Empty {
                        source_name: self.name.clone(),
                        expected: format!(
                            "a binary trace has {RECORD_BYTES}-byte records after its header"
                        ),
                    });
                }
                return Ok(None);
            }
            if self.end < RECORD_BYTES {
                return Err(TraceError::TruncatedRecord {
                    source_name: self.name.clone(),
                    record: self.record,
                    got: self.end,
                });
            }
        }
        let b = &self.buf[self.pos..self.pos + RECORD_BYTES];
        let addr = u64::from_le_bytes(b[0..8].try_into().expect("8 bytes"));
        let gap = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
        let core = u16::from_le_bytes(b[12..14].try_into().expect("2 bytes"));
        let kind_code = b[14];
        let size = b[15];
        self.pos += RECORD_BYTES;
        let kind = AccessKind::from_code(kind_code)
            .filter(|k| !k.is_barrier() || self.version >= 2)
            .ok_or_else(|| TraceError::BadRecord {
                source_name: self.name.clone(),
                record: self.record,
                message: format!(
                    "unknown record kind {kind_code} (0 = read, 1 = write, 2 = barrier from version 2 on; this trace is version {})",
                    self.version
                ),
            })?;
        if core as u32 >= self.cores {
            return Err(TraceError::BadRecord {
                source_name: self.name.clone(),
                record: self.record,
                message: format!(
                    "core {core} is not below the header's core count {}",
                    self.cores
                ),
            });
        }
        self.record += 1;
        Ok(Some(Record {
            core,
            kind,
            size,
            addr,
            gap,
        }))
    }
}

impl<R: Read> Iterator for TraceReader<R> {
    type Item = Result<Record, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// One request of a DRAM-only text trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimedRequest {
    /// DRAM cycle at which the request is offered.
    pub cycle: u64,
    /// Read or write.
    pub kind: AccessKind,
    /// Byte address.
    pub addr: u64,
}

fn parse_hex(s: &str) -> Option<u64> {
    let t = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if t.is_empty() {
        return None;
    }
    u64::from_str_radix(t, 16).ok()
}

/// A record of a text trace: parsed from one line.
pub trait TextRecord: Sized {
    /// The form of a line, for messages (e.g. `<cycle> <R|W> <hex address>`).
    const FORM: &'static str;
    /// Parses the content of line `line` (comment removed, trimmed) of `name`.
    fn parse(name: &str, line: u64, s: &str) -> Result<Self, TraceError>;
}

impl TextRecord for TimedRequest {
    const FORM: &'static str = "<cycle> <R|W> <hex address>";
    fn parse(name: &str, line: u64, s: &str) -> Result<Self, TraceError> {
        parse_dram_line(name, line, s)
    }
}

impl TextRecord for Record {
    const FORM: &'static str = "<core> <gap> <R|W> <hex address> [size]";
    fn parse(name: &str, line: u64, s: &str) -> Result<Self, TraceError> {
        parse_core_line(name, line, s)
    }
}

/// Streaming reader of a text trace: one record per line, `#` comments, at most
/// [`MAX_LINE_BYTES`] bytes per line (a longer line is an error, so that a file
/// without newlines cannot exhaust memory), at least one record (an empty trace
/// is an error). An iterator of `Result<T, TraceError>` that ends after the
/// first error.
pub struct TextReader<R: BufRead, T: TextRecord> {
    inner: R,
    name: String,
    line_no: u64,
    buf: Vec<u8>,
    records: u64,
    done: bool,
    _record: std::marker::PhantomData<T>,
}

/// Reader of the DRAM-only text trace `<cycle> <R|W> <hex address>`.
pub type TextTraceReader<R> = TextReader<R, TimedRequest>;
/// Reader of the per-core text trace `<core> <gap> <R|W> <hex address> [size]`.
pub type CoreTextReader<R> = TextReader<R, Record>;

impl<R: BufRead, T: TextRecord> TextReader<R, T> {
    /// Read from `inner`; `name` (e.g. the file path) appears in errors.
    pub fn new(inner: R, name: impl Into<String>) -> Self {
        TextReader {
            inner,
            name: name.into(),
            line_no: 0,
            buf: Vec::new(),
            records: 0,
            done: false,
            _record: std::marker::PhantomData,
        }
    }

    /// The next record, `None` at the end.
    fn next_record(&mut self) -> Result<Option<T>, TraceError> {
        loop {
            self.buf.clear();
            let limit = MAX_LINE_BYTES as u64 + 1;
            let n = Read::take(&mut self.inner, limit)
                .read_until(b'\n', &mut self.buf)
                .map_err(io_err(&self.name))?;
            if n == 0 {
                if self.records == 0 {
                    return Err(TraceError::Empty {
                        source_name: self.name.clone(),
                        expected: format!("a text trace has lines `{}`", T::FORM),
                    });
                }
                return Ok(None);
            }
            self.line_no += 1;
            let ends_line = self.buf.last() == Some(&b'\n');
            if !ends_line && n as u64 == limit {
                return Err(syntax(
                    &self.name,
                    self.line_no,
                    format!(
                        "line longer than the limit of {MAX_LINE_BYTES} bytes (is this a text trace?)"
                    ),
                ));
            }
            let text = std::str::from_utf8(&self.buf).map_err(|_| {
                syntax(
                    &self.name,
                    self.line_no,
                    "not valid UTF-8 text (is this a binary trace?)".into(),
                )
            })?;
            let content = text.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let r = T::parse(&self.name, self.line_no, content)?;
            self.records += 1;
            return Ok(Some(r));
        }
    }
}

impl<R: BufRead, T: TextRecord> Iterator for TextReader<R, T> {
    type Item = Result<T, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.next_record();
        if !matches!(r, Ok(Some(_))) {
            self.done = true;
        }
        r.transpose()
    }
}

fn syntax(name: &str, line: u64, message: String) -> TraceError {
    TraceError::Syntax {
        source_name: name.to_string(),
        line,
        message,
    }
}

fn parse_dram_line(name: &str, line: u64, s: &str) -> Result<TimedRequest, TraceError> {
    let mut it = s.split_whitespace();
    let (Some(c), Some(op), Some(a)) = (it.next(), it.next(), it.next()) else {
        return Err(syntax(
            name,
            line,
            format!("expected `<cycle> <R|W> <hex address>`, got `{s}`"),
        ));
    };
    if let Some(extra) = it.next() {
        return Err(syntax(
            name,
            line,
            format!("unexpected extra field `{extra}`"),
        ));
    }
    let cycle: u64 = c.parse().map_err(|_| {
        syntax(
            name,
            line,
            format!("cycle `{c}` is not a non-negative integer"),
        )
    })?;
    if cycle > MAX_TRACE_CYCLE {
        return Err(syntax(
            name,
            line,
            format!(
                "cycle {cycle} exceeds the limit {MAX_TRACE_CYCLE} (2^36) of a DRAM-only trace"
            ),
        ));
    }
    let kind = AccessKind::parse(op)
        .filter(|k| !k.is_barrier())
        .ok_or_else(|| {
            syntax(
                name,
                line,
                format!(
                    "unknown operation `{op}` (expected R or W; a DRAM-only trace has no barriers)"
                ),
            )
        })?;
    let addr = parse_hex(a).ok_or_else(|| {
        syntax(
            name,
            line,
            format!("address `{a}` is not a hexadecimal number"),
        )
    })?;
    Ok(TimedRequest { cycle, kind, addr })
}

fn parse_core_line(name: &str, line: u64, s: &str) -> Result<Record, TraceError> {
    let f: Vec<&str> = s.split_whitespace().collect();
    let barrier = f.len() >= 3 && AccessKind::parse(f[2]) == Some(AccessKind::Barrier);
    if f.len() != 4 && f.len() != 5 && !barrier {
        return Err(syntax(
            name,
            line,
            format!(
                "expected `<core> <gap> <R|W> <hex address> [size]` or `<core> <gap> B`, got `{s}`"
            ),
        ));
    }
    let core: u16 = f[0].parse().map_err(|_| {
        syntax(
            name,
            line,
            format!("core `{}` is not an integer in 0..65535", f[0]),
        )
    })?;
    let gap: u32 = f[1].parse().map_err(|_| {
        syntax(
            name,
            line,
            format!("gap `{}` is not an integer in 0..2^32", f[1]),
        )
    })?;
    let kind = AccessKind::parse(f[2]).ok_or_else(|| {
        syntax(
            name,
            line,
            format!("unknown operation `{}` (expected R, W or B)", f[2]),
        )
    })?;
    if kind.is_barrier() {
        let phase = match f.len() {
            3 => 0,
            4 => f[3].parse::<u64>().map_err(|_| {
                syntax(
                    name,
                    line,
                    format!("barrier phase `{}` is not a non-negative integer", f[3]),
                )
            })?,
            _ => {
                return Err(syntax(
                    name,
                    line,
                    format!("a barrier is `<core> <gap> B [phase]`, got `{s}`"),
                ))
            }
        };
        return Ok(Record {
            core,
            kind,
            size: 0,
            addr: phase,
            gap,
        });
    }
    let addr = parse_hex(f[3]).ok_or_else(|| {
        syntax(
            name,
            line,
            format!("address `{}` is not a hexadecimal number", f[3]),
        )
    })?;
    let size = match f.get(4) {
        Some(t) => t.parse().map_err(|_| {
            syntax(
                name,
                line,
                format!("size `{t}` is not an integer in 0..255"),
            )
        })?,
        None => 8,
    };
    Ok(Record {
        core,
        kind,
        size,
        addr,
        gap,
    })
}

/// True if `prefix` (the first bytes of a file) starts a binary trace.
pub fn is_binary(prefix: &[u8]) -> bool {
    prefix.len() >= 8 && prefix[..8] == MAGIC
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(i: u64) -> Record {
        Record {
            core: (i % 3) as u16,
            kind: if i % 2 == 0 {
                AccessKind::Read
            } else {
                AccessKind::Write
            },
            size: 8,
            addr: i * 0x40 + 0x1000_0000_0000,
            gap: (i * 7) as u32,
        }
    }

    #[test]
    fn binary_round_trip_across_buffer_boundary() {
        let mut w = TraceWriter::new(Vec::new(), 3).unwrap();
        let n = (READ_BUF / RECORD_BYTES) as u64 * 2 + 5;
        for i in 0..n {
            w.write(&rec(i)).unwrap();
        }
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len(), HEADER_BYTES + n as usize * RECORD_BYTES);
        let r = TraceReader::new(&bytes[..], "t").unwrap();
        assert_eq!(r.cores(), 3);
        let got: Vec<Record> = r.map(|x| x.unwrap()).collect();
        assert_eq!(got.len() as u64, n);
        for (i, g) in got.iter().enumerate() {
            assert_eq!(*g, rec(i as u64));
        }
    }

    #[test]
    fn exact_layout() {
        let mut w = TraceWriter::new(Vec::new(), 2).unwrap();
        w.write(&Record {
            core: 1,
            kind: AccessKind::Write,
            size: 4,
            addr: 0x0102030405060708,
            gap: 9,
        })
        .unwrap();
        let b = w.finish().unwrap();
        assert_eq!(&b[..8], b"WEFTTRC\0");
        assert_eq!(&b[8..16], &[2, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(&b[16..], &[8, 7, 6, 5, 4, 3, 2, 1, 9, 0, 0, 0, 1, 0, 1, 4]);
    }

    #[test]
    fn binary_errors() {
        let mut w = TraceWriter::new(Vec::new(), 1).unwrap();
        assert!(matches!(
            w.write(&rec(1)),
            Err(TraceError::CoreOutOfRange { .. })
        ));
        w.write(&Record { core: 0, ..rec(0) }).unwrap();
        w.write(&Record { core: 0, ..rec(2) }).unwrap();
        let mut b = w.finish().unwrap();
        b.truncate(b.len() - 3);
        let items: Vec<_> = TraceReader::new(&b[..], "f.trc").unwrap().collect();
        assert_eq!(items.len(), 2);
        let e = items[1].as_ref().unwrap_err();
        assert!(
            matches!(
                e,
                TraceError::TruncatedRecord {
                    record: 1,
                    got: 13,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("f.trc") && e.to_string().contains("record 1"));

        assert!(matches!(
            TraceReader::new(&b"WEFTTRX\0abcdabcd"[..], "x"),
            Err(TraceError::BadMagic { .. })
        ));
        assert!(matches!(
            TraceReader::new(&b"WEFT"[..], "x"),
            Err(TraceError::TruncatedHeader { got: 4, .. })
        ));
        let mut v = b.clone();
        v[8] = 3;
        assert!(matches!(
            TraceReader::new(&v[..], "x"),
            Err(TraceError::BadVersion { found: 3, .. })
        ));
        // The first record of `b` with header byte / record byte `at` set to `x`.
        let first = |at: usize, x: u8| {
            let mut v = b.clone();
            v[at] = x;
            TraceReader::new(&v[..], "x").unwrap().next().unwrap()
        };
        // Version 1 is read, but has no barrier kind.
        let mut v = b.clone();
        v[8] = 1;
        assert_eq!(TraceReader::new(&v[..], "x").unwrap().count(), 2);
        v[16 + 14] = 2;
        let e = TraceReader::new(&v[..], "x")
            .unwrap()
            .next()
            .unwrap()
            .unwrap_err();
        assert!(e.to_string().contains("version 1"), "{e}");
        assert_eq!(first(16 + 14, 2).unwrap().kind, AccessKind::Barrier);
        let e = first(16 + 14, 7).unwrap_err();
        assert!(matches!(e, TraceError::BadRecord { record: 0, .. }), "{e}");
    }

    #[test]
    fn dram_text() {
        let t = "# header\n0 R 0x40\n\n  5 W 80 # tail comment\n7 read 0XfF\n";
        let v: Vec<_> = TextTraceReader::new(t.as_bytes(), "a.txt")
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(
            v,
            vec![
                TimedRequest {
                    cycle: 0,
                    kind: AccessKind::Read,
                    addr: 0x40
                },
                TimedRequest {
                    cycle: 5,
                    kind: AccessKind::Write,
                    addr: 0x80
                },
                TimedRequest {
                    cycle: 7,
                    kind: AccessKind::Read,
                    addr: 0xff
                },
            ]
        );
        for (bad, msg) in [
            ("0 R 0x40\n1 X 0x40\n", "a.txt:2: unknown operation `X`"),
            ("0 R\n", "a.txt:1: expected"),
            ("-1 R 0\n", "a.txt:1: cycle `-1`"),
            ("1 R 0xzz\n", "a.txt:1: address `0xzz`"),
            ("1 R 0 5\n", "a.txt:1: unexpected extra field"),
        ] {
            let e = TextTraceReader::new(bad.as_bytes(), "a.txt")
                .find_map(|r| r.err())
                .unwrap();
            assert!(e.to_string().starts_with(msg), "{e} vs {msg}");
        }
        let e = TextTraceReader::new(&b"0 R 0x40\n\xff\xfe\n"[..], "b")
            .find_map(|r| r.err())
            .unwrap();
        assert!(e.to_string().starts_with("b:2:"), "{e}");
    }

    #[test]
    fn core_text() {
        let t = "0 10 R 0x1000\n3 0 W 2000 64\n";
        let v: Vec<_> = CoreTextReader::new(t.as_bytes(), "c")
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(
            v[0],
            Record {
                core: 0,
                kind: AccessKind::Read,
                size: 8,
                addr: 0x1000,
                gap: 10
            }
        );
        assert_eq!(
            v[1],
            Record {
                core: 3,
                kind: AccessKind::Write,
                size: 64,
                addr: 0x2000,
                gap: 0
            }
        );
        let e = CoreTextReader::new(&b"0 x R 0\n"[..], "c")
            .next()
            .unwrap()
            .unwrap_err();
        assert!(e.to_string().starts_with("c:1: gap"), "{e}");
        // Barriers: `<core> <gap> B [phase]`.
        let v: Vec<_> = CoreTextReader::new(&b"2 5 B\n1 0 barrier 3\n"[..], "c")
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(
            (v[0].kind, v[0].core, v[0].gap, v[0].addr),
            (AccessKind::Barrier, 2, 5, 0)
        );
        assert_eq!(BarrierPhase::from_tag(v[1].addr), BarrierPhase::RegionStart);
        for bad in ["0 0 B 1 2\n", "0 0 B x\n"] {
            let e = CoreTextReader::new(bad.as_bytes(), "c")
                .next()
                .unwrap()
                .unwrap_err();
            assert!(e.to_string().contains("barrier"), "{e}");
        }
        let e = TextTraceReader::new(&b"5 B 0x40\n"[..], "d")
            .next()
            .unwrap()
            .unwrap_err();
        assert!(e.to_string().contains("no barriers"), "{e}");
    }
}

/// Synthetic DRAM-only traces for benchmarks and tests (deterministic).
pub mod synthetic {
    use super::{AccessKind, TimedRequest};

    /// `n` reads of consecutive 64-byte lines, all offered at cycle 0.
    pub fn streaming(n: u64) -> impl Iterator<Item = TimedRequest> {
        (0..n).map(|i| TimedRequest {
            cycle: 0,
            kind: AccessKind::Read,
            addr: i * 64,
        })
    }

    /// `n` reads of uniformly random 64-byte lines below `capacity` bytes, all
    /// offered at cycle 0 (xorshift64 from `seed`, which must be non-zero).
    pub fn random(n: u64, capacity: u64, seed: u64) -> impl Iterator<Item = TimedRequest> {
        let mut x = seed.max(1);
        (0..n).map(move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            TimedRequest {
                cycle: 0,
                kind: AccessKind::Read,
                addr: (x % capacity.max(64)) & !63,
            }
        })
    }
}
