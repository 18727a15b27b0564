//! `weft sim`: the DRAM thread (`--threads 2`) prints the statistics of a one-thread
//! run, `--perturb` follows its seed, bad thread counts are refused, and `weft bench sim --repeat` reports a median;
//! `weft bench gpusim`'s rate factors and `weft gpusim --kernel-order`.

fn sim(args: &[&str]) -> (bool, String, String) {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/memsim/tests/golden/manycore/shared4.trace"
    );
    let out = crate::weft()
        .args(["sim", "--machine", "table5.2", "--trace", trace, "--quiet"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_dram_thread_prints_the_same_statistics() {
    let (ok1, one, e1) = sim(&["--json", "--threads", "1"]);
    let (ok2, two, e2) = sim(&["--json", "--threads", "2"]);
    assert!(ok1 && ok2, "{e1}{e2}");
    let v: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert!(v["cycles"].as_u64().unwrap() > 0);
    assert_eq!(one, two);
}

/// `--perturb 0` is the plain run; a perturbed run is a function of its seed
/// and differs from the plain one (the golden trace reaches DRAM).
#[test]
fn perturbed_runs_follow_their_seed() {
    let (ok, plain, e) = sim(&["--json"]);
    assert!(ok, "{e}");
    let (_, zero, _) = sim(&["--json", "--perturb", "0", "--seed", "7"]);
    assert_eq!(plain, zero);
    let (ok, a, e) = sim(&["--json", "--perturb", "8", "--seed", "2"]);
    assert!(ok, "{e}");
    let (_, b, _) = sim(&["--json", "--perturb", "8", "--seed", "2"]);
    assert_eq!(a, b);
    assert_ne!(a, plain);
    let (ok, _, err) = sim(&["--perturb", "x"]);
    assert!(!ok && err.contains("--perturb"), "{err}");
}

#[test]
fn thread_counts_other_than_one_or_two_are_refused() {
    let (ok, _, err) = sim(&["--threads", "3"]);
    assert!(!ok);
    assert!(err.contains("--threads"), "{err}");
    assert!(err.contains("1..=2") || err.contains("1..3"), "{err}");
}

/// `weft bench sim --repeat`: the median of the runs, with their range; the
/// runs must agree (the command fails otherwise).
#[test]
fn bench_sim_repeats_report_the_median_and_range() {
    let bench = |records: &str, repeat: &str| {
        crate::weft()
            .args([
                "bench",
                "sim",
                "--json",
                "--records",
                records,
                "--repeat",
                repeat,
            ])
            .output()
            .unwrap()
    };
    let out = bench("20000", "3");
    let v = crate::json_of(&out);
    assert_eq!(v["runs"], 3);
    let rate = |k: &str| v[k].as_f64().unwrap();
    let (lo, mid, hi) = (
        rate("records_per_second_min"),
        rate("records_per_second"),
        rate("records_per_second_max"),
    );
    assert!(lo > 0.0 && lo <= mid && mid <= hi, "{v}");
    assert!(!bench("1000", "0").status.success());
}

/// `weft bench gpusim`: the rate is IPC times simulated cycles per second, and
/// `--dram-thread` simulates the same run (same cycles and instructions) on two
/// host threads.
#[test]
fn bench_gpusim_reports_the_rates_factors_and_a_dram_thread_run() {
    let bench = |extra: &[&str]| {
        let out = crate::weft()
            .args([
                "bench",
                "gpusim",
                "--json",
                "--graph",
                "graphs/USPowerGrid.edges",
            ])
            .args(extra)
            .output()
            .unwrap();
        crate::json_of(&out).as_array().unwrap().clone()
    };
    let one = bench(&[]);
    let two = bench(&["--dram-thread"]);
    assert_eq!(one.len(), 2);
    for (a, b) in one.iter().zip(&two) {
        assert_eq!(a["app"], b["app"]);
        assert_eq!(a["cycles"], b["cycles"]);
        assert_eq!(a["warp_instructions"], b["warp_instructions"]);
        assert_eq!(
            (a["host_threads"].as_u64(), b["host_threads"].as_u64()),
            (Some(1), Some(2))
        );
        assert!(b["cpu_seconds"].is_null(), "{b}");
        for r in [a, b] {
            let f = |k: &str| r[k].as_f64().unwrap();
            let ipc = f("warp_instructions") / f("cycles");
            assert!((f("ipc") - ipc).abs() < 1e-9 * ipc.max(1.0), "{r}");
            let product = f("ipc") * f("simulated_cycles_per_second");
            let rate = f("warp_instructions_per_second");
            assert!((product - rate).abs() <= 1e-6 * rate, "{r}");
        }
    }
}

/// `weft gpusim --kernel-order`: under `rotate` the children of a parent grid
/// of several waves start while the parent still has TBs to place, so they
/// wait far less than under `fcfs` (the default), doing the same work; an
/// unknown order is refused. `--define nr=...` on the shipped app runs what the
/// edited copy runs, and a name the workload does not define is refused.
#[test]
fn gpusim_kernel_order_rotate_starts_children_before_the_parent_is_placed() {
    let dir = tempfile::tempdir().unwrap();
    let template = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/memsim/src/gpu/workload/apps/join_gaussian.toml"
    ))
    .unwrap();
    // 1,024 parent TBs of 64 threads: about five waves on the 13 SMXs
    let wl = dir.path().join("join4.toml");
    std::fs::write(&wl, template.replace("\nnr = 16384\n", "\nnr = 65536\n")).unwrap();
    let run = |order: &str| {
        let out = crate::weft()
            .args(["gpusim", "--machine", "k20-spawn", "--workload"])
            .arg(&wl)
            .args(["--dp", "threshold=32", "--kernel-order", order])
            .args(["--json", "--quiet", "--threads", "1"])
            .output()
            .unwrap();
        crate::json_of(&out)
    };
    let (f, r) = (run("fcfs"), run("rotate"));
    let dp = |v: &serde_json::Value, k: &str| v["dp"][k].as_f64().unwrap();
    // `--define` does what the edited copy does
    let out = crate::weft()
        .args(["gpusim", "--machine", "k20-spawn", "--app", "join_gaussian"])
        .args([
            "-D",
            "nr=65_536",
            "--dp",
            "threshold=32",
            "--kernel-order",
            "fcfs",
        ])
        .args(["--json", "--quiet", "--threads", "1"])
        .output()
        .unwrap();
    let d = crate::json_of(&out);
    assert_eq!(d["cycles"], f["cycles"]);
    assert_eq!(d["dp"], f["dp"]);
    assert!(dp(&f, "child_kernels") > 100.0, "{}", f["dp"]);
    for k in ["child_kernels", "inline", "requests"] {
        assert_eq!(dp(&f, k), dp(&r, k), "{k}");
    }
    assert!(
        dp(&r, "avg_wait_cycles") < 0.6 * dp(&f, "avg_wait_cycles"),
        "rotate {} against fcfs {}",
        dp(&r, "avg_wait_cycles"),
        dp(&f, "avg_wait_cycles")
    );
    // refused with a message that names the cause
    let refused = |args: &[&str], why: &str| {
        let out = crate::weft()
            .args(["gpusim", "--machine", "k20-spawn"])
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} was accepted");
        assert!(err.contains(why), "{err}");
    };
    refused(
        &["--app", "stream", "--kernel-order", "lifo"],
        "expected fcfs or rotate",
    );
    refused(
        &["--app", "join_gaussian", "-D", "probes=4"],
        "no constant `probes`",
    );
}
