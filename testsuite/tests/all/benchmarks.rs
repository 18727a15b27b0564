//! Every benchmark compiles at -O1 and -O0 and gives the same checksum at its quick
//! size (a differing checksum points at undefined behaviour or order dependence),
//! reports its working set, and passes its own correctness check.

use rayon::prelude::*;
use weft_testsuite::bench::{self, RunSize};

use crate::common::{built_o0, built_o1, exe};

#[test]
fn quick_runs_match_between_o0_and_o1() {
    let o1 = built_o1();
    let o0 = built_o0();
    let failures: Vec<String> = bench::all()
        .par_iter()
        .filter_map(|b| {
            let args = b.args(RunSize::Quick);
            let run =
                |exes: &std::collections::HashMap<&str, Result<std::path::PathBuf, String>>,
                 level: &str| {
                    match exes.get(b.name) {
                        Some(Ok(p)) => {
                            bench::run(p, &args).map_err(|e| format!("{} {level}: {e}", b.name))
                        }
                        Some(Err(e)) => Err(format!("{} {level}: compile error: {e}", b.name)),
                        None => Err(format!("{} {level}: not built", b.name)),
                    }
                };
            let r1 = match run(&o1.exes, "-O1") {
                Ok(r) => r,
                Err(e) => return Some(e),
            };
            let r0 = match run(&o0.exes, "-O0") {
                Ok(r) => r,
                Err(e) => return Some(e),
            };
            if r1.stdout != r0.stdout {
                return Some(format!(
                    "{}: -O1 and -O0 outputs differ\n-O1:\n{}\n-O0:\n{}",
                    b.name, r1.stdout, r0.stdout
                ));
            }
            match r1.working_set_bytes {
                Some(ws) if ws > 0 => {}
                _ => {
                    return Some(format!(
                        "{}: no working set on stderr:\n{}",
                        b.name, r1.stderr
                    ))
                }
            }
            if r1.seconds.is_none() {
                return Some(format!("{}: no time on stderr:\n{}", b.name, r1.stderr));
            }
            None
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn quick_runs_are_repeatable() {
    // same binary, same arguments, twice: identical stdout (no uninitialised reads
    // showing up, no time-dependent output)
    for name in ["carey", "moldyn", "radix"] {
        let b = bench::by_name(name).unwrap();
        let args = b.args(RunSize::Quick);
        let a = bench::run(exe(name), &args).unwrap();
        let c = bench::run(exe(name), &args).unwrap();
        assert_eq!(a.stdout, c.stdout, "{name}");
    }
}

fn stdout_of(name: &str, args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    bench::run(exe(name), &args).unwrap().stdout
}

fn hex_value(stdout: &str, key: &str) -> f64 {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("no '{key}' in\n{stdout}"));
    let s = line.trim();
    // "%a" output: [-]0x1.<hex>p<exp>
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let s = s.strip_prefix("0x").expect("hex float");
    let (mant, exp) = s.split_once('p').expect("exponent");
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let mut v = u64::from_str_radix(int, 16).unwrap() as f64;
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16).unwrap() as f64 * scale;
        scale /= 16.0;
    }
    let v = v * 2f64.powi(exp.parse::<i32>().unwrap());
    if neg {
        -v
    } else {
        v
    }
}

#[test]
fn radix_output_is_sorted() {
    assert!(stdout_of("radix", &["--quick"]).contains("sorted: yes"));
}

#[test]
fn fft_matches_direct_dft() {
    let out = stdout_of("fft", &["--quick", "--output"]);
    let err: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("dft_check_max_error: "))
        .expect("dft check line")
        .trim()
        .parse()
        .unwrap();
    assert!(err < 1e-9, "FFT differs from the DFT by {err}");
}

#[test]
fn sparse_cholesky_solves_generated_and_real_systems() {
    let quick = stdout_of("stun", &["--quick"]);
    assert!(hex_value(&quick, "solve_max_error:") < 1e-10, "{quick}");
    let data = bench::data_dir();
    let m = data.join("suitesparse/bcsstk13.mtx");
    let out = stdout_of("stun", &["--input", m.to_str().unwrap()]);
    assert!(out.contains("rows 2003 nnz(A lower) 42943"), "{out}");
    // bcsstk13 has condition number ~1e10, so allow a looser bound
    assert!(hex_value(&out, "solve_max_error:") < 1e-6, "{out}");
}

#[test]
fn iterative_solvers_reduce_their_residual() {
    // more iterations must give a smaller residual (the solvers really solve)
    let few = hex_value(
        &stdout_of("hpcg", &["--quick", "--iters", "2"]),
        "residual_norm2:",
    );
    let many = hex_value(
        &stdout_of("hpcg", &["--quick", "--iters", "20"]),
        "residual_norm2:",
    );
    assert!(many < few * 1e-3, "hpcg: {few} -> {many}");
    let few = hex_value(
        &stdout_of("gauss_seidel", &["--quick", "--iters", "2"]),
        "residual_norm2:",
    );
    let many = hex_value(
        &stdout_of("gauss_seidel", &["--quick", "--iters", "20"]),
        "residual_norm2:",
    );
    assert!(many < few * 0.5, "gauss_seidel: {few} -> {many}");
    let few = hex_value(
        &stdout_of("gmres", &["--quick", "--iters", "1"]),
        "estimated_residual:",
    );
    let many = hex_value(
        &stdout_of("gmres", &["--quick", "--iters", "6"]),
        "estimated_residual:",
    );
    assert!(many < few * 1e-2, "gmres: {few} -> {many}");
    let few = hex_value(
        &stdout_of("minife", &["--quick", "--iters", "2"]),
        "residual_norm2:",
    );
    let many = hex_value(
        &stdout_of("minife", &["--quick", "--iters", "20"]),
        "residual_norm2:",
    );
    assert!(many < few * 1e-6, "minife: {few} -> {many}");
}

#[test]
fn every_variant_input_runs() {
    let failures: Vec<String> = bench::all()
        .par_iter()
        .flat_map(|b| b.variants.iter().map(move |v| (b, v)).collect::<Vec<_>>())
        .filter_map(|(b, v)| {
            // one iteration is enough to exercise the loader and the kernels
            let mut args = b.variant_args(v.name).unwrap();
            args.extend(["--iters".to_string(), "1".to_string()]);
            bench::run(exe(b.name), &args)
                .err()
                .map(|e| format!("{} [{}]: {e}", b.name, v.name))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn registered_input_files_exist() {
    for b in bench::all() {
        for p in b.input_paths() {
            assert!(p.is_file(), "{}: input {} missing", b.name, p.display());
        }
    }
}

#[test]
fn bad_arguments_are_rejected() {
    let e = exe("mxm");
    for args in [
        &["--size"][..],
        &["--size", "abc"],
        &["--iters", "0"],
        &["--bogus"],
    ] {
        let out = std::process::Command::new(e).args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?} accepted");
        assert!(!out.stderr.is_empty());
    }
    let out = std::process::Command::new(exe("gmres"))
        .args(["--input", "/nonexistent/file.mtx"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open"));
}

#[test]
fn ir_path_gives_the_same_checksum() {
    // emit_ir + compile_support_object + link (the path the optimizer uses) must
    // produce the same program as a direct compile
    let dir = tempfile::tempdir().unwrap();
    let opts = bench::CompileOptions::default();
    let support = bench::compile_support_object(dir.path(), &opts).unwrap();
    for name in ["hpcg", "mxm"] {
        let b = bench::by_name(name).unwrap();
        let ll = bench::emit_ir(b, dir.path(), &opts).unwrap();
        let text = std::fs::read_to_string(&ll).unwrap();
        assert!(text.contains("define"), "{name}: no functions in IR");
        assert!(
            text.contains("@kernel_"),
            "{name}: no kernel_ functions in IR"
        );
        let linked = bench::link(
            &[ll, support.clone()],
            &[],
            &dir.path().join(format!("{name}-ir")),
            &opts,
        )
        .unwrap();
        let args = b.args(RunSize::Quick);
        let via_ir = bench::run(&linked, &args).unwrap();
        let direct = bench::run(exe(name), &args).unwrap();
        assert_eq!(via_ir.stdout, direct.stdout, "{name}");
    }
}

#[test]
fn every_benchmark_marks_its_parallel_kernels_in_the_ir() {
    // WB_PARALLEL kernels appear in @llvm.global.annotations with "weft.parallel"
    let dir = tempfile::tempdir().unwrap();
    let opts = bench::CompileOptions::default();
    let failures: Vec<String> = bench::all()
        .par_iter()
        .filter_map(|b| {
            let ll = match bench::emit_ir(b, dir.path(), &opts) {
                Ok(p) => p,
                Err(e) => return Some(format!("{}: {e}", b.name)),
            };
            let text = std::fs::read_to_string(&ll).unwrap();
            let ann = text
                .lines()
                .find(|l| l.starts_with("@llvm.global.annotations"))
                .unwrap_or("");
            if !text.contains("c\"weft.parallel\\00\"") || !ann.contains("@kernel_") {
                return Some(format!("{}: no weft.parallel kernel annotation", b.name));
            }
            None
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
