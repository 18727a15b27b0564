//! The README's quick start and every program under `examples/` run as documented
//! (issue 39), so neither can drift from the tool.
//!
//! Every fenced block of `README.md` opened with ```` ```sh quickstart ```` runs in
//! bash (`set -euo pipefail`) in a scratch folder that sees the repository's
//! `examples/`, with the `weft` binary under test first on `PATH`; the
//! ```` ```text ```` block that follows it is its expected output: each of its lines
//! must match a line of the output (stdout and stderr together), in order, where
//! `...` stands for any text and a number matches within 10% (simulated figures move
//! a little with the code layout). The examples run on their built-in small inputs and
//! their key output is checked; the Rust examples (cargo examples of the root
//! package) are compiled into this test and called in-process.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A quick-start block: its shell commands and the expected output after it.
#[derive(Debug, PartialEq)]
struct Block {
    commands: String,
    expected: Option<String>,
}

/// The ```` ```sh quickstart ```` blocks of `markdown`, each with the text of the
/// next fenced block when that one is a ```` ```text ```` block.
fn quickstart_blocks(markdown: &str) -> Vec<Block> {
    // (info string, body) of every fenced block, in order
    let mut fences: Vec<(String, String)> = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in markdown.lines() {
        let t = line.trim_start();
        match open.take() {
            None => {
                if let Some(info) = t.strip_prefix("```") {
                    open = Some((info.trim().to_string(), String::new()));
                }
            }
            Some((info, mut body)) => {
                if t.starts_with("```") {
                    fences.push((info, body));
                } else {
                    body.push_str(line);
                    body.push('\n');
                    open = Some((info, body));
                }
            }
        }
    }
    assert!(open.is_none(), "unclosed fenced block in the README");
    let mut blocks = Vec::new();
    for (i, (info, body)) in fences.iter().enumerate() {
        if info.split_whitespace().collect::<Vec<_>>() == ["sh", "quickstart"] {
            let expected = fences
                .get(i + 1)
                .filter(|(next, _)| next == "text")
                .map(|(_, text)| text.clone());
            blocks.push(Block {
                commands: body.clone(),
                expected,
            });
        }
    }
    blocks
}

/// A piece of a line: a number, a run of whitespace, `...` (patterns only), or any
/// other character.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Space,
    Any,
    Char(char),
}

fn tokens(s: &str, pattern: bool) -> Vec<Tok> {
    let chars: Vec<char> = s.trim_end().chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if pattern && chars[i..].starts_with(&['.', '.', '.']) {
            out.push(Tok::Any);
            i += 3;
        } else if c.is_whitespace() {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            out.push(Tok::Space);
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            out.push(Tok::Num(text.parse().unwrap()));
        } else {
            out.push(Tok::Char(c));
            i += 1;
        }
    }
    out
}

/// Numbers printed by a simulation move a little when code or data move in the
/// binary (docs/performance.md: about 1%); 10%, or 0.5 for small values, is slack
/// enough for that and still catches a changed result.
fn close(want: f64, got: f64) -> bool {
    (want - got).abs() <= (0.1 * want.abs().max(got.abs())).max(0.5)
}

fn match_toks(p: &[Tok], l: &[Tok]) -> bool {
    match p.split_first() {
        None => l.is_empty(),
        Some((Tok::Any, rest)) => (0..=l.len()).any(|k| match_toks(rest, &l[k..])),
        Some((t, rest)) => match l.split_first() {
            Some((u, lrest)) => {
                let same = match (t, u) {
                    (Tok::Num(a), Tok::Num(b)) => close(*a, *b),
                    _ => t == u,
                };
                same && match_toks(rest, lrest)
            }
            None => false,
        },
    }
}

/// True when `line` matches `pattern`: `...` in the pattern stands for any text, runs
/// of whitespace match any runs of whitespace, and numbers match within [`close`].
fn line_matches(pattern: &str, line: &str) -> bool {
    match_toks(&tokens(pattern, true), &tokens(line, false))
}

/// Checks that every non-empty line of `expected` matches a line of `output`, in order.
fn check_output(expected: &str, output: &str, what: &str) {
    let mut lines = output.lines();
    for want in expected.lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            lines.any(|got| line_matches(want, got)),
            "{what}: no output line (after the previous match) matches\n  {want}\noutput:\n{output}"
        );
    }
}

/// Runs `script` in bash in `dir` with the weft under test first on PATH; returns
/// stdout and stderr together, panicking with them on a failure.
fn run_script(script: &str, dir: &Path) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_weft")).parent().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("set -euo pipefail\nexec 2>&1\n{script}"))
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).unwrap())
        .output()
        .expect("bash");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{script}\nfailed:\n{text}");
    text
}

fn clang_missing() -> bool {
    if Command::new("clang-19").arg("--version").output().is_err() {
        eprintln!("SKIPPED: clang-19 not found");
        return true;
    }
    false
}

#[test]
fn fenced_blocks_and_patterns_are_parsed() {
    let md = "x\n```sh quickstart\na\nb\n```\n\n```text\nout ...\n```\n```sh\nc\n```\n\
              ```sh quickstart\nd\n```\n```sh\ne\n```\n";
    assert_eq!(
        quickstart_blocks(md),
        vec![
            Block {
                commands: "a\nb\n".into(),
                expected: Some("out ...\n".into())
            },
            Block {
                commands: "d\n".into(),
                expected: None
            },
        ]
    );
    assert!(line_matches("time: ... s", "time: 0.25 s"));
    assert!(line_matches("a ... b ... c", "a 1 b 2 c"));
    assert!(!line_matches("a ... b ... c", "a 1 c 2 b"));
    assert!(!line_matches("time: ... s", "time: 0.25 ms!"));
    assert!(line_matches("exact", "exact  "));
    assert!(!line_matches("exact", "exactly"));
    // numbers within 10% (0.5 for small ones), whitespace runs of any length
    assert!(line_matches("cycles   260475", "cycles 270000"));
    assert!(!line_matches("cycles   260475", "cycles 300000"));
    assert!(line_matches("blp (= mlp)  1.008", "blp (= mlp)        1.4"));
    assert!(!line_matches(
        "cells ok 2, failed 0",
        "cells ok 2, failed 1"
    ));
    assert!(line_matches(
        "machine table5.2",
        "machine            table5.2"
    ));
}

#[test]
fn readme_quickstart_runs_as_shown() {
    if clang_missing() {
        return;
    }
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let blocks = quickstart_blocks(&readme);
    assert!(blocks.len() >= 3, "the quick start has three uses");
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(repo().join("examples"), dir.path().join("examples")).unwrap();
    for b in &blocks {
        let out = run_script(&b.commands, dir.path());
        let expected = b.expected.as_deref().unwrap_or_else(|| {
            panic!(
                "no ```text block with the expected output after\n{}",
                b.commands
            )
        });
        check_output(expected, &out, &b.commands);
    }
    // the example's own header documents the same commands as the quick start
    let header = std::fs::read_to_string(repo().join("examples/own_kernel/gather.c")).unwrap();
    let commands: String = blocks.iter().map(|b| b.commands.as_str()).collect();
    for cmd in header
        .lines()
        .filter_map(|l| l.trim_start_matches([' ', '*']).strip_prefix("weft "))
    {
        assert!(
            commands.contains(&format!("weft {cmd}")),
            "gather.c documents `weft {cmd}`, which the README's quick start does not run"
        );
    }
}

#[test]
fn c_runtime_example_links_and_runs() {
    if clang_missing() {
        return;
    }
    let lib = weft_passes::link::find_runtime(None).expect("libweft_runtime.a");
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("spmv");
    let out = Command::new("clang-19")
        .arg("-O2")
        .arg(repo().join("examples/spmv_runtime.c"))
        .arg(format!("-I{}", repo().join("runtime/include").display()))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).env("WEFT_CORES", "4").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    check_output(
        "mean banks per slot: original ..., scheduled ...\nexecutor: 5 runs, max |y - y_ref| = 0\nOK",
        &text,
        "spmv_runtime",
    );
}

// The Rust examples are compiled into this test from their files, so they run
// whatever target filter `cargo test` was given; their `main`s stay unused here.
#[allow(dead_code)]
#[path = "../../examples/schedule_slabs.rs"]
mod schedule_slabs;
#[allow(dead_code)]
#[path = "../../examples/trace_blp.rs"]
mod trace_blp;

fn printed(f: impl FnOnce(&mut Vec<u8>) -> Result<(), Box<dyn std::error::Error>>) -> String {
    let mut out = Vec::new();
    f(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The number after `key` in `line`.
fn number_after(line: &str, key: &str) -> f64 {
    let rest = &line[line.find(key).unwrap_or_else(|| panic!("{key} in {line}")) + key.len()..];
    let num: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    num.parse().unwrap()
}

#[test]
fn rust_scheduler_example_beats_the_original_order() {
    let out = printed(|o| schedule_slabs::run(o));
    let mean = |who: &str| {
        let line = out.lines().find(|l| l.contains(who)).expect(who);
        number_after(line, "mean")
    };
    assert_eq!(mean("original order"), 2.0, "{out}");
    assert!(mean("Algorithm 4") > 6.0, "{out}");
}

#[test]
fn rust_simulator_example_measures_blp() {
    let out = printed(|o| trace_blp::run(None, o));
    let blp = |who: &str| {
        let line = out.lines().find(|l| l.starts_with(who)).expect(who);
        number_after(line, "BLP")
    };
    assert_eq!(blp("one_bank.trace"), 1.0, "{out}");
    assert!(blp("spread.trace") > 4.0, "{out}");
}
