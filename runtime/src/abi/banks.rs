//! The machine's bank mapping and Algorithm 4 (§4.4.4) on explicit bank
//! maps, for tools and tests: `weft_bank_of`, `weft_num_banks`,
//! `weft_schedule_slabs`.

use super::*;
use crate::bankmap::AddressMap;
use std::ffi::c_void;

/// Writes the memory-side and LLC-side values `f` gives for the machine to
/// `out_mem` and `out_llc` (both non-null).
pub(super) fn machine_pair(
    out_mem: *mut u32,
    out_llc: *mut u32,
    f: impl FnOnce(&crate::machine::Machine) -> (usize, usize),
) -> std::result::Result<(), (Status, String)> {
    let (mem, llc) = (
        out_ref(out_mem, "output pointer")?,
        out_ref(out_llc, "output pointer")?,
    );
    let m = global()?.machine().map_err(rt_err)?;
    let (a, b) = f(&m);
    (*mem, *llc) = (a as u32, b as u32);
    Ok(())
}

/// Memory and LLC bank of an address under the machine's mapping.
#[no_mangle]
pub extern "C" fn weft_bank_of(
    addr: *const c_void,
    out_mem_bank: *mut u32,
    out_llc_bank: *mut u32,
) -> i32 {
    guard(|| {
        let a = addr as u64;
        machine_pair(out_mem_bank, out_llc_bank, |m| {
            (m.mem_bank(a), m.llc_bank(a))
        })
    })
}

/// Number of memory banks and LLC banks of the machine.
#[no_mangle]
pub extern "C" fn weft_num_banks(out_mem_banks: *mut u32, out_llc_banks: *mut u32) -> i32 {
    guard(|| {
        machine_pair(out_mem_banks, out_llc_banks, |m| {
            (m.num_mem_banks(), m.num_llc_banks())
        })
    })
}

/// Algorithm 4 on explicit bank-maps. `slabs_per_core[c]` = M_c; `bankmaps` holds
/// ⌈banks/64⌉ words per slab (bit b of word b/64 = bank b), slabs core-major.
/// Writes `out_order[t * cores + c]` = slab of core c at slot t (-1 = idle) for
/// t < *out_slots, and `out_coverage[t]` = banks covered at slot t; both arrays
/// must hold max(M_c) slots.
#[no_mangle]
pub extern "C" fn weft_schedule_slabs(
    cores: u32,
    banks: u32,
    slabs_per_core: *const u32,
    bankmaps: *const u64,
    out_order: *mut i32,
    out_coverage: *mut u32,
    out_slots: *mut u32,
) -> i32 {
    guard(|| {
        if slabs_per_core.is_null()
            || bankmaps.is_null()
            || out_order.is_null()
            || out_coverage.is_null()
            || out_slots.is_null()
        {
            return Err(null("a pointer argument"));
        }
        if cores == 0 || banks == 0 || cores > 1 << 16 {
            return Err((
                Status::Invalid,
                format!("cores {cores} / banks {banks} out of range"),
            ));
        }
        // SAFETY: the caller passes `cores` counts.
        let counts = unsafe { std::slice::from_raw_parts(slabs_per_core, cores as usize) };
        let words = crate::bankset::words_for(banks as usize);
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        // SAFETY: the caller passes `total * words` words.
        let maps = unsafe { std::slice::from_raw_parts(bankmaps, total * words) };
        let mut slabs = Vec::with_capacity(cores as usize);
        let mut g = 0;
        for &m in counts {
            let mut list = Vec::with_capacity(m as usize);
            for _ in 0..m {
                let mut s = crate::bankset::BankSet::new(banks as usize);
                for b in 0..banks as usize {
                    if maps[g * words + b / 64] >> (b % 64) & 1 == 1 {
                        s.insert(b);
                    }
                }
                list.push(s);
                g += 1;
            }
            slabs.push(list);
        }
        let inst = crate::blp::SlabInstance::new(banks as usize, slabs).map_err(rt_err)?;
        let s = crate::blp::schedule_blp(&inst, &crate::blp::BlpOptions::default(), None)
            .map_err(rt_err)?;
        let t_max = counts.iter().copied().max().unwrap_or(0) as usize;
        if s.slots.len() > t_max {
            return Err((Status::Internal, "schedule longer than expected".into()));
        }
        for (t, row) in s.slots.iter().enumerate() {
            for (c, k) in row.iter().enumerate() {
                // SAFETY: out_order holds t_max * cores entries.
                unsafe { *out_order.add(t * cores as usize + c) = k.map_or(-1, |k| k as i32) };
            }
            // SAFETY: out_coverage holds t_max entries.
            unsafe { *out_coverage.add(t) = s.coverage[t] as u32 };
        }
        // SAFETY: checked non-null.
        unsafe { *out_slots = s.slots.len() as u32 };
        Ok(())
    })
}
