//! The renumbering flags behind weft eval's GPART version on generated inputs
//! (`--dump-graph`, `--permute`, see `common/weft_bench.h`): for every ch. 4
//! program at its quick size, the dumped graph has the expected vertex count,
//! the identity permutation leaves the whole output bit-identical, and a
//! scrambling permutation keeps the order-independent results (up to the
//! rounding of sums taken in another order). The dump's GPART order, as the
//! harness computes it, is accepted by the program too.

use std::path::Path;

use weft_testsuite::bench::{self, BenchClass, RunSize};
use weft_testsuite::eval::reorder;

use crate::common::exe;

/// What a renumbered run must keep.
enum Keeps {
    /// A `%a` scalar, to this relative tolerance.
    Rel(&'static str, f64),
    /// A `%a` scalar stays below this bound.
    Below(&'static str, f64),
    /// The first stdout line up to this word (sizes that do not depend on numbering).
    Head(&'static str),
}

/// Per program: vertex count of the quick input's graph, and what it keeps.
const TABLE: &[(&str, usize, Keeps)] = &[
    ("hpcg", 16 * 16 * 16, Keeps::Rel("residual_norm2:", 1e-9)),
    (
        "gmres",
        12 * 12 * 12,
        Keeps::Rel("estimated_residual:", 1e-9),
    ),
    ("minife", 9 * 9 * 9, Keeps::Rel("residual_norm2:", 1e-6)),
    ("moldyn", 12 * 12 * 12, Keeps::Rel("kinetic_energy:", 1e-9)),
    // P A P^T factors with other fill; the solve must stay exact.
    ("stun", 28 * 28, Keeps::Below("solve_max_error:", 1e-10)),
    // Daily draws hash the person number: another realisation, same population.
    ("carey", 16_381, Keeps::Head("days")),
    ("equake", 7_294, Keeps::Rel("energy:", 1e-9)),
    // The greedy colouring follows the numbering, so the sweeps differ.
    ("gauss_seidel", 15_606, Keeps::Head("colours")),
];

fn run(name: &str, args: &[String]) -> String {
    bench::run(exe(name), args)
        .unwrap_or_else(|e| panic!("{name} {args:?}: {e}"))
        .stdout
}

fn write_perm(path: &Path, p: &[u32]) {
    let s: String = p.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(path, s).unwrap();
}

/// A deterministic pseudo-random permutation (Fisher-Yates over an LCG).
fn scramble(n: usize) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n as u32).collect();
    let mut s = 0x2545_f491_4f6c_dd1du64;
    for i in (1..n).rev() {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        p.swap(i, (s >> 33) as usize % (i + 1));
    }
    p
}

fn with(args: &[String], flag: &str, path: &Path) -> Vec<String> {
    let mut a = args.to_vec();
    a.push(flag.into());
    a.push(path.display().to_string());
    a
}

fn hex_float(stdout: &str, key: &str) -> f64 {
    let s = stdout
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("no `{key}` in\n{stdout}"))
        .trim();
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let (mant, exp) = s.strip_prefix("0x").unwrap().split_once('p').unwrap();
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let mut v = u64::from_str_radix(int, 16).unwrap() as f64;
    for (k, c) in frac.chars().enumerate() {
        v += f64::from(c.to_digit(16).unwrap()) / 16f64.powi(k as i32 + 1);
    }
    let v = v * 2f64.powi(exp.parse().unwrap());
    if neg {
        -v
    } else {
        v
    }
}

fn head<'a>(stdout: &'a str, until: &str) -> &'a str {
    let l = stdout.lines().next().unwrap_or("");
    l.split_once(until).map_or(l, |(h, _)| h)
}

#[test]
fn renumbering_flags_on_every_ch4_program() {
    let irregular: Vec<&str> = bench::of_class(BenchClass::Irregular)
        .map(|b| b.name)
        .collect();
    let mut listed: Vec<&str> = TABLE.iter().map(|t| t.0).collect();
    listed.sort_unstable();
    let mut all = irregular.clone();
    all.sort_unstable();
    assert_eq!(listed, all, "every ch. 4 program is in the table");
    let dir = tempfile::tempdir().unwrap();
    for (name, n, keeps) in TABLE {
        let b = bench::by_name(name).unwrap();
        let args = b.args(RunSize::Quick);
        let plain = run(name, &args);

        let graph = dir.path().join(format!("{name}.mtx"));
        let out = std::process::Command::new(exe(name))
            .args(with(&args, "--dump-graph", &graph))
            .output()
            .unwrap();
        assert!(out.status.success(), "{name} --dump-graph: {out:?}");
        assert!(
            out.stdout.is_empty(),
            "{name}: --dump-graph exits before the run"
        );
        let g = reorder::read_mtx_graph(&graph).unwrap();
        assert_eq!(g.len(), *n, "{name}: vertices of the dumped graph");

        let perm = dir.path().join(format!("{name}.perm"));
        write_perm(&perm, &(0..*n as u32).collect::<Vec<_>>());
        assert_eq!(
            run(name, &with(&args, "--permute", &perm)),
            plain,
            "{name}: the identity permutation changes the output"
        );

        write_perm(&perm, &scramble(*n));
        let scrambled = run(name, &with(&args, "--permute", &perm));
        let gpart = dir.path().join(format!("{name}.gpart"));
        reorder::permutation_file(&graph, &gpart, reorder::DEFAULT_CLUSTER).unwrap();
        let reordered = run(name, &with(&args, "--permute", &gpart));
        for (what, out) in [("scrambled", &scrambled), ("GPART", &reordered)] {
            match keeps {
                Keeps::Rel(key, tol) => {
                    let (x, y) = (hex_float(&plain, key), hex_float(out, key));
                    assert!(
                        (x - y).abs() <= tol * x.abs(),
                        "{name} {what}: {key} {x} vs {y}"
                    );
                }
                Keeps::Below(key, bound) => {
                    let y = hex_float(out, key);
                    assert!(y < *bound, "{name} {what}: {key} {y}");
                }
                Keeps::Head(until) => {
                    assert_eq!(head(out, until), head(&plain, until), "{name} {what}")
                }
            }
        }
    }
}

#[test]
fn programs_without_renumbering_refuse_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let perm = dir.path().join("p");
    std::fs::write(&perm, "0\n").unwrap();
    for flag in ["--permute", "--dump-graph"] {
        let out = std::process::Command::new(exe("mxm"))
            .args(["--quick", flag, perm.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "mxm {flag}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("not supported"));
    }
    // A file that is not a permutation is an input error naming the file.
    std::fs::write(&perm, "0\n0\n").unwrap();
    let out = std::process::Command::new(exe("hpcg"))
        .args([
            "--quick",
            "--size",
            "1",
            "--permute",
            perm.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(perm.to_str().unwrap()));
}

#[test]
fn renumbered_packfile_loads_and_keeps_the_spark98_check() {
    // equake --output prints `node w` for w = K * ones (Spark98 smv): under a
    // renumbering, node old's value appears at node new_id[old].
    let dir = tempfile::tempdir().unwrap();
    let src = bench::data_dir().join("spark98/sf10.1.pack");
    let dst = dir.path().join("sf10.1.pack");
    let p = reorder::reorder_file(&src, &dst, 0, reorder::DEFAULT_CLUSTER).unwrap();
    let values = |path: &Path| -> Vec<String> {
        let args = vec![
            "--output".to_string(),
            "--input".into(),
            path.display().to_string(),
        ];
        run("equake", &args)
            .lines()
            .filter(|l| !l.starts_with("checksum"))
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .collect()
    };
    let (before, after) = (values(&src), values(&dst));
    assert_eq!(before.len(), 7_294);
    assert_eq!(after.len(), before.len());
    for (old, v) in before.iter().enumerate() {
        assert_eq!(&after[p[old] as usize], v, "node {old}");
    }
    assert_ne!(p, (0..p.len() as u32).collect::<Vec<_>>());
}
