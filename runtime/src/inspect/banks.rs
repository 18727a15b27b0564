//! Where an address's bank comes from during inspection: [`BankTable`], a
//! lookup table over the address bits that select the memory bank (exact for
//! `weft-memsim`'s bit-field mappings; §4.4.2 bank maps), and [`LineFilter`],
//! the optional miss predictor (a small set-associative tag array of the
//! lines touched last) whose predicted hits set no bank bit.

use crate::machine::Machine;
use weft_memsim::addrmap::Field;

/// Exact address → memory-bank lookup: the bank depends only on the address
/// bits of the channel, rank, bank-group and bank fields, which lie in
/// `[lsb, lsb + span)`; the table holds the bank of every value of those bits.
/// Spans over [`BankTable::MAX_SPAN`] bits fall back to the mapper.
#[derive(Clone, Debug)]
pub struct BankTable {
    pub(super) lsb: u32,
    pub(super) mask: u64,
    /// Shared: every recorder of an inspection holds a copy of the table.
    pub(super) table: std::sync::Arc<[u16]>,
    pub(super) machine: Option<std::sync::Arc<Machine>>,
    /// Lowest address bit of any bank field (capped at
    /// [`BankTable::MAX_BLOCK_SHIFT`]): every aligned block of
    /// `2^block_shift` bytes lies in one bank.
    pub(super) block_shift: u32,
}

impl BankTable {
    /// Widest bank-bit span tabulated (2^16 entries of 2 bytes).
    pub const MAX_SPAN: u32 = 16;

    /// Largest [`BankTable::block_shift`] (a machine with a single bank: any
    /// block lies in it).
    pub const MAX_BLOCK_SHIFT: u32 = 32;

    /// Log2 of the largest aligned block of addresses that always lies in
    /// one memory bank: the lowest address bit of the channel, rank,
    /// bank-group and bank fields (11 on `table5.2`, 2 KB; 12 on `table4.2`).
    pub fn block_shift(&self) -> u32 {
        self.block_shift
    }

    /// Table for `machine`'s DRAM mapping.
    pub fn new(machine: &std::sync::Arc<Machine>) -> BankTable {
        let dram = &machine.mapper().dram;
        let (mut lo, mut hi, mut pos) = (u32::MAX, 0u32, 0u32);
        for (f, bits) in dram.fields() {
            if matches!(
                f,
                Field::Channel | Field::Rank | Field::BankGroup | Field::Bank
            ) && bits > 0
            {
                lo = lo.min(pos);
                hi = hi.max(pos + bits);
            }
            pos += bits;
        }
        if lo == u32::MAX {
            // A single bank.
            return BankTable {
                lsb: 0,
                mask: 0,
                table: std::sync::Arc::from([0u16]),
                machine: None,
                block_shift: Self::MAX_BLOCK_SHIFT,
            };
        }
        let block_shift = lo.min(Self::MAX_BLOCK_SHIFT);
        let span = hi - lo;
        if span > Self::MAX_SPAN || machine.mapper().num_mem_banks() > u16::MAX as u32 {
            return BankTable {
                lsb: 0,
                mask: 0,
                table: std::sync::Arc::from([]),
                machine: Some(machine.clone()),
                block_shift,
            };
        }
        let table: Vec<u16> = (0..1u64 << span)
            .map(|v| machine.mapper().mem_bank(v << lo) as u16)
            .collect();
        let table = table.into();
        BankTable {
            lsb: lo,
            mask: (1u64 << span) - 1,
            table,
            machine: None,
            block_shift,
        }
    }

    /// The lookup as `(table, lsb, mask)`: the bank of `addr` is
    /// `table[(addr >> lsb) & mask]`. `None` when the bank bits are too wide
    /// for a table and the mapper decides.
    pub fn lookup(&self) -> Option<(&[u16], u32, u64)> {
        match self.machine {
            None => Some((&self.table, self.lsb, self.mask)),
            Some(_) => None,
        }
    }

    /// Memory bank of byte address `addr`.
    #[inline(always)]
    pub fn bank(&self, addr: u64) -> usize {
        match &self.machine {
            None => self.table[((addr >> self.lsb) & self.mask) as usize] as usize,
            Some(m) => m.mapper().mem_bank(addr) as usize,
        }
    }
}

/// Predicts which cache lines of a slab still sit in the caches: a
/// set-associative tag array with [`LineFilter::WAYS`] ways and LRU
/// replacement (move to front) over the lines touched last, in the order the
/// inspector reports them. A touched line that is in the array is a predicted
/// hit; any other is a predicted miss and is inserted, evicting its set's
/// least recently touched line. Sets are selected by the low bits of the line
/// number, as in the caches it models. No allocation after construction.
#[derive(Clone, Debug)]
pub struct LineFilter {
    /// `WAYS` tags per set, most recent first; a tag is the line number + 1
    /// (0 = empty way).
    pub(super) tags: Vec<u64>,
    pub(super) set_mask: u64,
}

impl LineFilter {
    /// Ways per set.
    pub const WAYS: usize = 4;

    /// A filter of about `lines` lines: the number of sets is `lines / WAYS`
    /// rounded to the nearest power of two (at least one set).
    pub fn new(lines: usize) -> LineFilter {
        let want = (lines / Self::WAYS).max(1);
        let up = want.next_power_of_two();
        let sets = if up - want > want - up / 2 {
            up / 2
        } else {
            up
        };
        LineFilter {
            tags: vec![0; sets * Self::WAYS],
            set_mask: sets as u64 - 1,
        }
    }

    /// Lines the filter holds at most.
    pub fn capacity(&self) -> usize {
        self.tags.len()
    }

    /// Touches cache line number `line`: `true` if it was in the filter
    /// (predicted hit). Either way it becomes its set's most recent line.
    #[inline]
    pub fn touch(&mut self, line: u64) -> bool {
        let s = (line & self.set_mask) as usize * Self::WAYS;
        let set = &mut self.tags[s..s + Self::WAYS];
        let t = line.wrapping_add(1);
        if set[0] == t {
            return true;
        }
        let pos = set[1..].iter().position(|&x| x == t);
        let end = pos.map_or(Self::WAYS - 1, |w| w + 1);
        set.copy_within(0..end, 1);
        set[0] = t;
        pos.is_some()
    }
}
