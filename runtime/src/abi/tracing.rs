//! Trace mode calls of instrumented programs (the simulated runs of §4.5.1
//! and §5.6.1): accesses, read runs, compute gaps, finishing the trace and
//! flushing the statistics, with the limits of their arguments (record
//! sizes, spans that can be memory).

use super::*;
use std::ffi::c_void;

/// Addresses at or above this bound cannot be part of a program's memory
/// (57-bit virtual addresses, the largest x86-64 and AArch64 offer): a
/// reported span that reaches it, or wraps around the address space, is an
/// error ([`check_span`]).
pub const ADDRESS_LIMIT: u64 = 1 << 57;

/// Largest access a trace record holds (its size field is one byte).
pub const TRACE_MAX_SIZE: u32 = 255;

/// Checks that the `bytes` bytes from `addr` can be memory of the program:
/// the span does not wrap around the address space and ends below
/// [`ADDRESS_LIMIT`] (0 bytes are always fine).
pub(crate) fn check_span(addr: u64, bytes: u64) -> std::result::Result<(), String> {
    if bytes == 0 {
        return Ok(());
    }
    match addr.checked_add(bytes - 1) {
        Some(end) if end < ADDRESS_LIMIT => Ok(()),
        _ => Err(format!(
            "{bytes} bytes from {addr:#x} do not fit below the address limit {ADDRESS_LIMIT:#x}"
        )),
    }
}

/// Checks a trace access's `size` and `is_write` (0 or 1).
pub(super) fn check_trace_access(size: u32, is_write: u32) -> AbiResult<()> {
    if is_write > 1 {
        return Err((
            Status::Invalid,
            format!("is_write {is_write} is not 0 (read) or 1 (write)"),
        ));
    }
    if size > TRACE_MAX_SIZE {
        return Err((
            Status::Invalid,
            format!("access of {size} bytes: a trace record holds at most {TRACE_MAX_SIZE}"),
        ));
    }
    Ok(())
}

/// Trace mode: records an access for the current virtual core (no-op otherwise).
/// `gap` = non-memory instructions since the caller's previous report.
#[no_mangle]
pub extern "C" fn weft_trace_access(
    addr: *const c_void,
    size: u32,
    is_write: u32,
    gap: u32,
) -> i32 {
    guard(|| {
        check_trace_access(size, is_write)?;
        global()?
            .trace_access(addr as u64, size, is_write == 1, gap)
            .map_err(rt_err)
    })
}

/// Trace mode: records `n` reads of `size` bytes at `addr`, `addr + size`,
/// ..., each `gap` non-memory instructions after the previous one, for the
/// current virtual core (what a loop that loads an array element by element
/// records; compilers call it for the index loads of an inspector's
/// [`weft_inspect_gather`], which the runtime performs). A no-op when
/// `WEFT_TRACE` is not set.
#[no_mangle]
pub extern "C" fn weft_trace_reads(addr: *const c_void, n: u64, size: u32, gap: u32) -> i32 {
    guard(|| {
        check_trace_access(size, 0)?;
        if size == 0 && n > 0 {
            return Err((Status::Invalid, format!("{n} reads of 0 bytes")));
        }
        let span = n.checked_mul(size as u64).ok_or(u64::MAX);
        check_span(addr as u64, span.unwrap_or_else(|e| e))
            .map_err(|m| (Status::Invalid, format!("{n} reads of {size} bytes: {m}")))?;
        global()?
            .trace_reads(addr as u64, n, size, gap)
            .map_err(rt_err)
    })
}

/// Trace mode: adds `n` non-memory instructions to the current virtual core.
#[no_mangle]
pub extern "C" fn weft_trace_compute(n: u32) -> i32 {
    guard(|| {
        global()?.trace_compute(n);
        Ok(())
    })
}

/// Flushes and closes the trace (also done at exit); safe to call twice.
#[no_mangle]
pub extern "C" fn weft_trace_finish() -> i32 {
    guard(|| global()?.trace_finish().map_err(rt_err))
}

/// Writes the statistics to `WEFT_STATS` now (also done at exit).
#[no_mangle]
pub extern "C" fn weft_stats_flush() -> i32 {
    guard(|| global()?.write_stats().map_err(rt_err))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spans that wrap around the address space or reach past
    /// [`ADDRESS_LIMIT`] are errors; empty spans never are.
    #[test]
    fn impossible_spans_are_errors() {
        assert!(check_span(0x1000, 4096).is_ok());
        assert!(check_span(u64::MAX, 0).is_ok());
        assert!(check_span(ADDRESS_LIMIT - 8, 8).is_ok());
        assert!(check_span(ADDRESS_LIMIT - 8, 9).is_err());
        assert!(check_span(0x1000, u64::MAX).is_err());
        assert!(check_span(u64::MAX, 2).is_err());
    }

    /// Trace accesses take `is_write` 0 or 1 and at most 255 bytes.
    #[test]
    fn trace_access_arguments() {
        assert!(check_trace_access(255, 1).is_ok());
        assert_eq!(check_trace_access(8, 9).unwrap_err().0, Status::Invalid);
        assert_eq!(check_trace_access(256, 0).unwrap_err().0, Status::Invalid);
    }
}
