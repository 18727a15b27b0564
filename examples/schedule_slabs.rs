//! Schedules the slabs of an irregular loop with the runtime's Algorithm 4
//! (dissertation §4.4) through the crate's API, the step the inspector takes at
//! run time: build a bank map per slab from the addresses it touches, then pick,
//! slot by slot, one slab per core so that together they cover as many DRAM banks
//! as possible.
//!
//! The loop here is the worst case for the original order: slab `k` of every core
//! reads the same 512-byte block `k` of an array, so in slot `k` all cores queue on
//! the one or two banks of that block. The schedule runs the blocks of different
//! slabs side by side instead. Printed: banks covered in the first slots and on
//! average, original order against the schedule, on `table5.2`'s banks.
//!
//! `cargo run --example schedule_slabs` (from the repository root)

use std::error::Error;
use std::io::Write;

use weft_runtime::bankset::BankSet;
use weft_runtime::blp::{original_order, schedule_blp, BlpOptions, SlabInstance, SlotSchedule};
use weft_runtime::machine::Machine;

const CORES: usize = 8;
const SLABS_PER_CORE: usize = 16;
const BLOCK_BYTES: u64 = 512;
const ARRAY_BASE: u64 = 0x4000_0000;

fn main() -> Result<(), Box<dyn Error>> {
    run(&mut std::io::stdout().lock())
}

/// Builds the instance, schedules it and prints the comparison to `out`
/// (`tests/all/readme.rs` calls this and checks what it prints).
pub fn run(out: &mut dyn Write) -> Result<(), Box<dyn Error>> {
    let machine = Machine::load("table5.2")?;
    let map = machine.mapper();
    let banks = map.num_mem_banks() as usize;
    // Slab k of core c reads block (k + c / 4) % SLABS_PER_CORE: groups of four
    // cores read the same block in the same slot of the original order.
    let slabs: Vec<Vec<BankSet>> = (0..CORES)
        .map(|c| {
            (0..SLABS_PER_CORE)
                .map(|k| {
                    let block = ((k + c / 4) % SLABS_PER_CORE) as u64;
                    let start = ARRAY_BASE + block * BLOCK_BYTES * 97; // blocks spread out
                    let mut set = BankSet::new(banks);
                    for addr in (start..start + BLOCK_BYTES).step_by(64) {
                        set.insert(map.mem_bank(addr) as usize);
                    }
                    set
                })
                .collect()
        })
        .collect();
    let inst = SlabInstance::new(banks, slabs)?;
    let original = original_order(&inst);
    let blp = schedule_blp(&inst, &BlpOptions::default(), None)?;
    writeln!(
        out,
        "{CORES} cores x {SLABS_PER_CORE} slabs, {banks} DRAM banks ({})",
        machine.name
    )?;
    show(out, "original order", &original)?;
    show(out, "Algorithm 4", &blp)?;
    // every slab runs exactly once, on its own core
    for (c, order) in blp.per_core().iter().enumerate() {
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..inst.slabs_of(c).len()).collect::<Vec<_>>());
    }
    Ok(())
}

fn show(out: &mut dyn Write, name: &str, s: &SlotSchedule) -> std::io::Result<()> {
    let first: Vec<String> = s.coverage.iter().take(8).map(|c| c.to_string()).collect();
    writeln!(
        out,
        "{name:>14}: banks covered per slot {} ..., mean {:.2}",
        first.join(" "),
        s.mean_coverage()
    )
}
