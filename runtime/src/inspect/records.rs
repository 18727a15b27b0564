//! The compact access records of irregular inspections (16 bytes each, for
//! the §4.4.6 dependence check) and [`RecordPool`], which keeps their
//! buffers (and the check's scratch) from one inspection to the next.

/// Bytes of one record as inline recorders write it ([`InlineRecs`]).
pub const REC_BYTES: usize = 16;

/// One recorded access, 16 bytes: address, slab, size (low 31 bits) and the
/// write flag (bit 31). `repr(C)`: inline recorders write records of checked
/// reads themselves ([`InlineRecs`]).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(super) struct Rec {
    pub(super) addr: u64,
    pub(super) unit: u32,
    pub(super) size_w: u32,
}

pub(super) const WRITE_BIT: u32 = 1 << 31;

/// Record buffers of finished inspections, for the next ones: a region
/// that records millions of checked accesses per inspection otherwise
/// page-faults its buffer in afresh each time (gauss_seidel's first two
/// colours paid 4 ms of 5.5 for it, the later ones reused freed memory).
/// At most [`RecordPool::MAX_BUFFERS`] buffers and [`RecordPool::MAX_BYTES`]
/// bytes are kept; larger ones are freed.
#[derive(Debug, Default)]
pub struct RecordPool {
    pub(super) bufs: std::sync::Mutex<(Vec<Vec<Rec>>, usize)>,
    pub(super) scratch: std::sync::Mutex<Vec<DepScratch>>,
}

/// Working arrays of the dependence check ([`SlabRecorder::dependences`]):
/// per written granule its last writer and the head of its reader list,
/// and the pool of list nodes.
#[derive(Debug, Default)]
pub(super) struct DepScratch {
    pub(super) state: Vec<[u32; 2]>,
    pub(super) pool: Vec<(u32, u32)>,
}

impl RecordPool {
    /// Buffers kept at most (one per recorder of an inspection on up to 64
    /// cores: every recorder of a trace-mode inspection on 16 virtual cores
    /// gets a kept one).
    pub const MAX_BUFFERS: usize = 64;
    /// Bytes of record buffers kept at most (over all buffers).
    pub const MAX_BYTES: usize = 64 << 20;
    /// Bytes of a dependence check's working arrays kept at most (two sets).
    pub const MAX_SCRATCH_BYTES: usize = 32 << 20;

    /// The largest buffer kept, empty (a new one when none is).
    pub(super) fn take(&self) -> Vec<Rec> {
        let mut g = self.bufs.lock().unwrap_or_else(|e| e.into_inner());
        let (bufs, bytes) = &mut *g;
        let i = (0..bufs.len()).max_by_key(|&i| bufs[i].capacity());
        match i {
            Some(i) => {
                let v = bufs.swap_remove(i);
                *bytes -= v.capacity() * REC_BYTES;
                v
            }
            None => Vec::new(),
        }
    }

    /// Keeps `v`'s allocation for a later [`RecordPool::take`] if it fits.
    pub(super) fn put(&self, mut v: Vec<Rec>) {
        let size = v.capacity() * REC_BYTES;
        if size == 0 {
            return;
        }
        v.clear();
        let mut g = self.bufs.lock().unwrap_or_else(|e| e.into_inner());
        let (bufs, bytes) = &mut *g;
        if bufs.len() < Self::MAX_BUFFERS && *bytes + size <= Self::MAX_BYTES {
            *bytes += size;
            bufs.push(v);
        }
    }

    /// Working arrays of a dependence check, kept or new.
    pub(super) fn take_scratch(&self) -> DepScratch {
        let mut g = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        g.pop().unwrap_or_default()
    }

    /// Keeps the working arrays of a dependence check (two sets, up to
    /// [`RecordPool::MAX_SCRATCH_BYTES`] each).
    pub(super) fn put_scratch(&self, sc: DepScratch) {
        let size = sc.state.capacity() * 8 + sc.pool.capacity() * 8;
        let mut g = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        if g.len() < 2 && size <= Self::MAX_SCRATCH_BYTES {
            g.push(sc);
        }
    }

    /// Bytes of the record buffers kept.
    pub fn bytes(&self) -> usize {
        self.bufs.lock().unwrap_or_else(|e| e.into_inner()).1
    }
}
