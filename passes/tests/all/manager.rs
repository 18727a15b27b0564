//! Pass manager: registry, pipeline errors, remarks, dumps, timing.

use inkwell::context::Context;
use weft_passes::{PassError, PassManager, PipelineConfig};

const SAXPY: &str = r#"
define void @k(i64 %n, ptr noalias %y, ptr noalias %x) {
entry:
  %g = icmp sgt i64 %n, 0
  br i1 %g, label %pre, label %exit
pre:
  br label %body
body:
  %i = phi i64 [ 0, %pre ], [ %i.next, %body ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %vx = load double, ptr %px
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %vy = load double, ptr %py
  %s = fadd double %vx, %vy
  store double %s, ptr %py
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i.next, %n
  br i1 %c, label %done, label %body
done:
  br label %exit
exit:
  ret void
}
"#;

fn cfg() -> PipelineConfig {
    PipelineConfig {
        verify_each: true,
        ..PipelineConfig::new()
    }
}

#[test]
fn unknown_pass_lists_valid_names() {
    let e = PassManager::parse("parallel-for,no-such-pass", cfg())
        .err()
        .expect("error");
    let s = e.to_string();
    assert!(matches!(e, PassError::UnknownPass { .. }));
    assert!(s.contains("no-such-pass"), "{s}");
    for n in weft_passes::registry::names() {
        assert!(s.contains(n), "{s} should list {n}");
    }
}

#[test]
fn bad_options_are_named() {
    let e = PassManager::parse("insert-inspector<slab=abc>", cfg())
        .err()
        .expect("error");
    assert!(e.to_string().contains("slab"), "{e}");
    let e = PassManager::parse("insert-inspector<bogus=1>", cfg())
        .err()
        .expect("error");
    let s = e.to_string();
    assert!(
        s.contains("bogus") && s.contains("valid options: slab"),
        "{s}"
    );
    let e = PassManager::parse("parallel-for<", cfg())
        .err()
        .expect("error");
    assert!(matches!(e, PassError::BadPipeline { .. }), "{e}");
}

#[test]
fn none_is_empty_and_default_parses() {
    assert!(PassManager::parse("none", cfg())
        .unwrap()
        .pass_names()
        .is_empty());
    let pm = PassManager::parse(weft_passes::DEFAULT_PIPELINE, cfg()).unwrap();
    assert_eq!(pm.pass_names(), vec!["insert-inspector", "parallel-for"]);
}

#[test]
fn parallel_for_transforms_and_reports() {
    let ctx = Context::create();
    let m = weft_frontend::parse_ir(&ctx, SAXPY, "saxpy.ll").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut c = cfg();
    c.dump_dir = Some(dir.path().to_path_buf());
    let pm = PassManager::parse("parallel-for,instrument-trace", c).unwrap();
    let r = pm.run(&m).unwrap();
    assert_eq!(r.timings.len(), 2);
    assert!(r.timings.iter().all(|t| t.changed));
    let text = m.print_to_string().to_string();
    assert!(
        text.contains("call i32 @weft_parallel_for(i64 0, i64 %weft.tc, ptr @k.weft.body.0"),
        "{text}"
    );
    // The body is instrumented: 2 loads + 1 store, plus the context loads of its entry.
    let body = text
        .split("define internal void @k.weft.body.0")
        .nth(1)
        .unwrap();
    assert!(body.matches("@weft_trace_access(").count() >= 3, "{body}");
    assert!(r
        .remarks
        .iter()
        .any(|x| x.message.contains("executor form")));
    assert!(dir.path().join("00-parallel-for-before.ll").is_file());
    assert!(dir.path().join("01-instrument-trace-after.ll").is_file());
}

#[test]
fn instrument_trace_gaps_are_counted() {
    let ctx = Context::create();
    let m = weft_frontend::parse_ir(&ctx, SAXPY, "saxpy.ll").unwrap();
    PassManager::parse("instrument-trace", cfg())
        .unwrap()
        .run(&m)
        .unwrap();
    let text = m.print_to_string().to_string();
    // In `body`: phi (not counted), gep (1) then load x: gap 1 + the latch tail
    // carried over the back edge (add, icmp, br = 3) = 4; then gep (1) before
    // load y; then fadd (1) before the store.
    assert!(
        text.contains("@weft_trace_access(ptr %px, i32 8, i32 0, i32 4)"),
        "{text}"
    );
    assert!(
        text.contains("@weft_trace_access(ptr %py, i32 8, i32 0, i32 1)"),
        "{text}"
    );
    assert!(
        text.contains("@weft_trace_access(ptr %py, i32 8, i32 1, i32 1)"),
        "{text}"
    );
}

#[test]
fn instrument_trace_selects_functions() {
    let ctx = Context::create();
    let m = weft_frontend::parse_ir(&ctx, SAXPY, "saxpy.ll").unwrap();
    PassManager::parse("instrument-trace<only=other*>", cfg())
        .unwrap()
        .run(&m)
        .unwrap();
    assert!(!m
        .print_to_string()
        .to_string()
        .contains("weft_trace_access("));
}

/// The schedule key of a proven-parallel loop holds what its inspector reads
/// (index arrays), not the data arrays it only reports: SpMV's context is
/// (rowptr, y, n, val, col, x), and only rowptr and col decide the schedule.
/// A loop that needs the dependence check keeps every base its inspector uses
/// (the DAG depends on how the arrays lie relative to each other).
/// Filetest input `name` (relative to `testsuite/filetests`) after `pipeline`.
fn optimized_filetest<'ctx>(
    ctx: &'ctx Context,
    name: &str,
    pipeline: &str,
) -> inkwell::module::Module<'ctx> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/filetests");
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    let m = weft_frontend::parse_ir(ctx, &text, name).unwrap();
    PassManager::parse(pipeline, cfg())
        .unwrap()
        .run(&m)
        .unwrap();
    m
}

#[test]
fn schedule_keys_leave_out_data_arrays_of_proven_parallel_loops() {
    // (inputs without and with the data-array rule, and the number of words
    // of the key passed to the runtime: the used live-ins only)
    let run_with = |name: &str, pipeline: &str| {
        let ctx = Context::create();
        let m = optimized_filetest(&ctx, name, pipeline);
        let f = m.get_function("kernel.weft.inspect.0").expect("inspector");
        let n = f.get_first_basic_block().map_or(0, |b| {
            let mut k = 0;
            let mut i = b.get_first_instruction();
            while let Some(x) = i {
                k += (x.get_opcode() == inkwell::values::InstructionOpcode::Load) as usize;
                i = x.get_next_instruction();
            }
            k
        });
        let all = weft_passes::inspector::inspector_inputs(f, n, false).unwrap();
        let keyed = weft_passes::inspector::inspector_inputs(f, n, true).unwrap();
        let text = m.print_to_string().to_string();
        let call = text
            .split("call i32 @weft_region_select(")
            .nth(1)
            .expect("region select call");
        let words: usize = call
            .split("ptr %weft.key, i32 ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .expect("key length")
            .parse()
            .unwrap();
        let stores = text.matches("ptr %weft.key, i32 0, i32 ").count();
        (all, keyed, words, stores)
    };
    let run = |name: &str| run_with(name, "insert-inspector");
    let trues = |v: &[bool]| v.iter().filter(|u| **u).count();
    let (all, keyed, words, stores) = run("insert-inspector/spmv.ll");
    assert_eq!(all, [true, true, false, true, true, true]);
    assert_eq!(keyed, [true, false, false, false, true, false]);
    assert_eq!((words, stores), (2, 2));
    // `data-key=true`: the data arrays stay in the key (only the unused `n` is out).
    let (_, _, words, stores) = run_with(
        "insert-inspector/spmv.ll",
        "insert-inspector<data-key=true>",
    );
    assert_eq!((words, stores), (5, 5));
    // scatter: y[dst[e]] += w[e] * x[src[e]] needs the dependence check, so
    // only the live-ins its inspector does not read at all are left out.
    let (all, keyed, words, stores) = run("insert-inspector/scatter.ll");
    assert_ne!(all, keyed);
    assert_eq!((words, stores), (trues(&all), trues(&all)));
}

#[test]
fn inner_streams_become_one_range_report_before_their_loop() {
    // (range reports, report calls in the block of the inner loop's phi)
    let run = |name: &str, pipeline: &str| {
        let ctx = Context::create();
        let m = optimized_filetest(&ctx, name, pipeline);
        let f = m.get_function("kernel.weft.inspect.0").expect("inspector");
        let text = inkwell::values::AnyValue::print_to_string(&f).to_string();
        let ranges = text.matches("%weft.stream.bytes").count() / 2;
        // The inner loop: the block whose phi steps the CSR index (`indvars`).
        let inner = text
            .split("\n\n")
            .find(|b| b.contains("for.body6:") || b.contains("= phi i64 [ %indvars.iv.next"))
            .unwrap_or("");
        (ranges, inner.matches("@weft.inspect.report_line").count())
    };
    // SpMV: val[j] and col[j] before the loop, only x[col[j]] inside.
    assert_eq!(run("insert-inspector/spmv.ll", "insert-inspector"), (2, 1));
    assert_eq!(
        run(
            "insert-inspector/spmv.ll",
            "insert-inspector<streams=false>"
        ),
        (0, 3)
    );
    // A one-level edge loop (the parallel loop is the only loop): nothing to hoist.
    assert_eq!(run("insert-inspector/scatter.ll", "insert-inspector").0, 0);
    // Bad option values are errors.
    assert!(PassManager::parse("insert-inspector<streams=maybe>", cfg()).is_err());
}

/// Issue #38, item 9: option, machine and link errors say what is wrong and do
/// not carry the "LLVM:" prefix of a failed LLVM call.
#[test]
fn option_machine_and_link_errors_do_not_blame_llvm() {
    for p in [
        "strip-mine<max-ibs=0>",
        "ib-schedule<max-ibs=0>",
        "cluster-misses<max-ibs=0>",
    ] {
        let e = PassManager::parse(p, cfg()).err().expect(p);
        let s = e.to_string();
        assert!(matches!(e, PassError::BadOption { .. }), "{s}");
        assert!(s.ends_with("option `max-ibs`: must be positive"), "{s}");
    }
    let ctx = Context::create();
    let m = weft_frontend::parse_ir(&ctx, SAXPY, "saxpy.ll").unwrap();
    let c = PipelineConfig {
        machine: Some("garbage".into()),
        ..cfg()
    };
    let e = PassManager::parse("strip-mine", c)
        .unwrap()
        .run(&m)
        .expect_err("a bad machine is an error");
    let s = e.to_string();
    assert!(matches!(e, PassError::Machine { .. }), "{s}");
    assert!(s.starts_with("machine config `garbage`: "), "{s}");
    let e = weft_passes::link::find_runtime(Some(std::path::Path::new("/nonexistent/rt.a")))
        .unwrap_err();
    let s = e.to_string();
    assert!(matches!(e, PassError::Link(_)), "{s}");
    assert_eq!(s, "link: runtime library /nonexistent/rt.a does not exist");
}
