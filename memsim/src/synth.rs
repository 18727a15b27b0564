//! Deterministic synthetic per-core record streams (benchmarks, tests, examples).
//!
//! Patterns:
//! - `Stream`: each core walks its own 256 MB region sequentially in `stride`-byte
//!   steps (consecutive lines, so consecutive DRAM rows/banks under page interleaving);
//! - `SameBank`: every access of every core goes to a new row of one memory bank
//!   (addresses `k * row_stride` for the mapping's row stride), the worst case for
//!   BLP;
//! - `Random`: uniformly random 8-byte words in a 1 GB footprint;
//! - `Mixed`: 3 of 4 records stream, 1 of 4 is random (the benchmark workload).
//!
//! Gaps are drawn uniformly from `0..=max_gap`, one in `write_every` records is a store
//! (0 = never). A 64-bit LCG seeded from `seed` and the core id makes streams
//! reproducible.

use crate::core::{Op, OpKind, RecordSource};

/// Access pattern of a synthetic workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Sequential walk per core.
    Stream,
    /// All accesses to one memory bank, new row each time.
    SameBank,
    /// Uniform random words.
    Random,
    /// 3/4 stream, 1/4 random.
    Mixed,
}

impl Pattern {
    /// Parses `stream`, `same-bank`, `random` or `mixed`.
    pub fn parse(s: &str) -> Option<Pattern> {
        match s {
            "stream" => Some(Pattern::Stream),
            "same-bank" => Some(Pattern::SameBank),
            "random" => Some(Pattern::Random),
            "mixed" => Some(Pattern::Mixed),
            _ => None,
        }
    }
}

/// Parameters of a synthetic workload.
#[derive(Clone, Copy, Debug)]
pub struct SynthParams {
    /// Pattern.
    pub pattern: Pattern,
    /// Cores.
    pub cores: u32,
    /// Records per core.
    pub records_per_core: u64,
    /// Largest gap.
    pub max_gap: u32,
    /// One store every this many records (0: loads only).
    pub write_every: u32,
    /// Stream step in bytes.
    pub stride: u64,
    /// Bytes between two rows of the same memory bank (for `SameBank`).
    pub row_stride: u64,
    /// Seed.
    pub seed: u64,
}

#[derive(Clone, Debug)]
struct CoreGen {
    left: u64,
    rng: u64,
    pos: u64,
    n: u64,
}

/// A [`RecordSource`] generating records on the fly (no memory per record).
#[derive(Clone, Debug)]
pub struct SynthSource {
    p: SynthParams,
    gens: Vec<CoreGen>,
}

#[inline]
fn lcg(x: &mut u64) -> u64 {
    *x = x
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *x ^ (*x >> 29)
}

impl SynthSource {
    /// A generator for `p`.
    pub fn new(p: SynthParams) -> Self {
        let gens = (0..p.cores)
            .map(|c| CoreGen {
                left: p.records_per_core,
                rng: p.seed ^ ((c as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
                pos: 0,
                n: 0,
            })
            .collect();
        SynthSource { p, gens }
    }

    /// Total records over all cores.
    pub fn total(&self) -> u64 {
        self.p.records_per_core * self.p.cores as u64
    }
}

impl RecordSource for SynthSource {
    fn next_op(&mut self, core: u32) -> Result<Option<Op>, crate::manycore::SimError> {
        let p = self.p;
        let Some(g) = self.gens.get_mut(core as usize) else {
            return Ok(None);
        };
        if g.left == 0 {
            return Ok(None);
        }
        g.left -= 1;
        g.n += 1;
        let r = lcg(&mut g.rng);
        let gap = if p.max_gap == 0 {
            0
        } else {
            (r % (p.max_gap as u64 + 1)) as u32
        };
        let kind = if p.write_every > 0 && g.n % p.write_every as u64 == 0 {
            OpKind::Write
        } else {
            OpKind::Read
        };
        let region = (core as u64) << 28;
        let random = |r: u64| ((r >> 7) % (1 << 27)) * 8;
        let addr = match p.pattern {
            Pattern::Stream => {
                g.pos += p.stride;
                region + (g.pos % (1 << 28))
            }
            Pattern::SameBank => {
                g.pos += 1;
                // distinct rows per core and per access, one bank
                ((g.pos + ((core as u64) << 12)) % (1 << 17)) * p.row_stride
            }
            Pattern::Random => random(lcg(&mut g.rng)),
            Pattern::Mixed => {
                if r % 4 == 3 {
                    random(lcg(&mut g.rng))
                } else {
                    g.pos += p.stride;
                    region + (g.pos % (1 << 28))
                }
            }
        };
        Ok(Some(Op { gap, kind, addr }))
    }
}
