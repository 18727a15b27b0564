//! Integration tests of the `weft` command line (one binary, see COMMON.md).

mod analyze;
mod cli_passes;
mod differential;
mod readme;
mod schedule;
mod sim;

/// A `weft` command of the binary under test.
fn weft() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_weft"))
}

/// The JSON a successful `weft` run printed; a failed run fails the test with
/// its standard error.
fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
