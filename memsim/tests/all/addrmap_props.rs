//! Property tests of the address mapping: bijective on the covered range, and
//! every field extracts exactly the bits the layout gives it.

use proptest::prelude::*;
use weft_memsim::addrmap::{AddressMapping, DramAddr, Field};
use weft_memsim::config::MachineConfig;

/// A random layout: a permutation of the six coordinates with random widths,
/// some split in two, after a burst offset.
fn layout() -> impl Strategy<Value = Vec<(Field, u32)>> {
    let kinds = vec![
        Field::Column,
        Field::BankGroup,
        Field::Bank,
        Field::Rank,
        Field::Channel,
        Field::Row,
    ];
    (
        Just(kinds).prop_shuffle(),
        proptest::collection::vec(0u32..6, 6),
        proptest::collection::vec(any::<bool>(), 6),
        0u32..7,
    )
        .prop_map(|(kinds, widths, split, off)| {
            let mut v = vec![(Field::Offset, off)];
            let mut tail = Vec::new();
            for ((k, w), s) in kinds.into_iter().zip(widths).zip(split) {
                if s && w >= 2 {
                    v.push((k, w / 2));
                    tail.push((k, w - w / 2));
                } else {
                    v.push((k, w));
                }
            }
            v.extend(tail);
            v
        })
}

fn coord(d: &DramAddr, f: Field) -> u32 {
    match f {
        Field::Column => d.column,
        Field::BankGroup => d.bankgroup,
        Field::Bank => d.bank,
        Field::Rank => d.rank,
        Field::Channel => d.channel,
        Field::Row => d.row,
        Field::Offset => 0,
    }
}

proptest! {
    #[test]
    fn decode_encode_bijective(fields in layout(), raw in any::<u64>()) {
        let m = AddressMapping::from_fields(&fields).unwrap();
        let covered = m.covered_bits();
        let off = m.bits(Field::Offset);
        let addr = raw & ((1u64 << covered) - 1);
        let d = m.decode(addr);
        // encode(decode(a)) recovers a up to the burst offset
        prop_assert_eq!(m.encode(&d), addr & !((1u64 << off) - 1));
        // decode(encode(d)) = d
        prop_assert_eq!(m.decode(m.encode(&d)), d);
        // bits above the covered range are ignored
        if covered < 64 {
            prop_assert_eq!(m.decode(raw), m.decode(addr));
        }
    }

    #[test]
    fn fields_extract_as_laid_out(fields in layout(), raw in any::<u64>()) {
        let m = AddressMapping::from_fields(&fields).unwrap();
        let d = m.decode(raw);
        // Walk the layout by hand: each run of bits lands in the next bits of its coordinate.
        let mut pos = 0u32;
        let mut filled = std::collections::HashMap::<Field, u32>::new();
        for &(f, w) in &fields {
            if w == 0 { continue; }
            let bits = (raw >> pos) & ((1u64 << w) - 1);
            let at = *filled.get(&f).unwrap_or(&0);
            if f != Field::Offset {
                prop_assert_eq!((coord(&d, f) >> at) as u64 & ((1u64 << w) - 1), bits);
            }
            filled.insert(f, at + w);
            pos += w;
        }
        for f in [Field::Column, Field::BankGroup, Field::Bank, Field::Rank, Field::Channel, Field::Row] {
            prop_assert!((coord(&d, f) as u64) < (1u64 << m.bits(f)));
        }
        prop_assert!(m.flat_bank(raw) < m.num_banks());
    }

    #[test]
    fn bank_and_channel_shortcuts_agree_with_decode(fields in layout(), raw in any::<u64>()) {
        let m = AddressMapping::from_fields(&fields).unwrap();
        let d = m.decode(raw);
        prop_assert_eq!(m.flat_bank(raw), m.flat_bank_of(&d));
        prop_assert_eq!(m.channel(raw), d.channel);
    }

    #[test]
    fn flat_bank_is_a_bijection_of_bank_coordinates(fields in layout()) {
        let m = AddressMapping::from_fields(&fields).unwrap();
        let w = m.widths();
        let mut seen = vec![false; m.num_banks() as usize];
        for channel in 0..1u32 << w.channel {
            for rank in 0..1u32 << w.rank {
                for bankgroup in 0..1u32 << w.bankgroup {
                    for bank in 0..1u32 << w.bank {
                        let d = DramAddr { channel, rank, bankgroup, bank, row: 0, column: 0 };
                        let b = m.flat_bank(m.encode(&d)) as usize;
                        prop_assert!(!seen[b]);
                        seen[b] = true;
                    }
                }
            }
        }
        prop_assert!(seen.iter().all(|&s| s));
    }
}

#[test]
fn table52_pages_round_robin_over_all_banks() {
    let c = MachineConfig::preset("table5.2").unwrap();
    let m = weft_memsim::addrmap::BankMapper::from_config(&c).unwrap();
    assert_eq!(m.num_mem_banks(), 32);
    assert_eq!(m.num_llc_banks(), 36);
    // 32 consecutive 2 KB pages touch 32 distinct banks, and the 33rd wraps.
    let banks: std::collections::HashSet<u32> = (0..32u64).map(|p| m.mem_bank(p * 2048)).collect();
    assert_eq!(banks.len(), 32);
    assert_eq!(m.mem_bank(32 * 2048), m.mem_bank(0));
    // Inside a page the bank does not change.
    assert_eq!(m.mem_bank(2047), m.mem_bank(0));
    // Consecutive pages alternate channels first.
    assert_eq!(m.dram.channel(0), 0);
    assert_eq!(m.dram.channel(2048), 1);
    assert_eq!(m.llc_bank(128 * 35), 35);
    assert_eq!(m.llc_bank(128 * 36), 0);
}

#[test]
fn table42_fig42_page_interleaving() {
    let c = MachineConfig::preset("table4.2").unwrap();
    let m = c.dram.mapping().unwrap();
    // Bits 12-13 select the channel, as in Fig. 4.2.
    for ch in 0..4u64 {
        assert_eq!(m.channel(ch << 12), ch as u32);
    }
    // The 4 KB page stays in one bank of one channel.
    assert_eq!(m.flat_bank(0), m.flat_bank(4095));
    assert_eq!(m.num_banks(), 64);
}
