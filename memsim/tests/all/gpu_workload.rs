//! The GPU workload language (issue 30 item 6): parse errors with positions,
//! hand-computed expression values, generators, graph inputs, the BFS/SSSP
//! pre-pass, every shipped workload, and mutated inputs that must never panic.

use std::io::Write;

use weft_memsim::gpu::workload::{
    self, builtin, builtin_names, builtin_text, parse, parse_with, Builtin, Expr, HostStep, Limits,
    MemKind, Op, Options, SimpleEnv, Space, Workload,
};

fn err(text: &str) -> String {
    parse(text, "t.toml").unwrap_err().to_string()
}

fn func<'a>(w: &'a Workload, name: &str) -> &'a workload::Function {
    w.function(w.function_id(name).unwrap())
}

#[test]
fn toml_syntax_error_has_line_and_column() {
    let e = err("[[function]]\nname = \"f\"\nbody = 3 3\n");
    assert!(e.starts_with("t.toml:3:"), "{e}");
}

#[test]
fn body_errors_point_into_the_body() {
    // The body starts on line 4 (after `'''` and its newline); `nope` is on the
    // body's second line, column 7.
    let text = "[[function]]\nname = \"f\"\nbody = '''\nx = 1\ny = x+nope\n'''\n";
    assert_eq!(err(text), "t.toml:5:7: unknown name `nope`");
    // A body on the same line as its quotes: column counts from the line start.
    let text = "[[function]]\nname = \"f\"\nbody = 'alu 2; frob 3'\n";
    assert_eq!(err(text), "t.toml:3:16: unknown statement `frob`");
    let text = "[[function]]\nname = \"f\"\nbody = 'load.q32 1'\n";
    assert!(err(text).starts_with("t.toml:3:9: `load.q32`: unknown space"));
}

#[test]
fn section_errors_point_at_the_value() {
    let text = "[[buffer]]\nname = \"b\"\nlen = \"missing * 2\"\n";
    assert_eq!(err(text), "t.toml:3:8: unknown name `missing`");
    let text = "[[function]]\nname = \"f\"\nblock = [2048]\nbody = ''\n";
    assert!(
        err(text).starts_with("t.toml:3:9: block must"),
        "{}",
        err(text)
    );
    let text = "[[function]]\nname = \"f\"\nparams = [\"a\"]\nbody = ''\n[[app]]\nname = \"x\"\ncmds = 'launch f grid=[1]'\n";
    assert_eq!(
        err(text),
        "t.toml:7:9: a launch needs `args={..}` for the kernel's parameters"
    );
}

/// Evaluate the `Let`s of a one-function workload in order, with lane builtins.
fn run_lets(body: &str, tid: i64) -> Vec<i64> {
    let text = format!(
        "[defs]\nK = 10\n[[table]]\nname = \"T\"\nvalues = [5, 6, 7]\n[[function]]\nname = \"f\"\nparams = [\"p\"]\nbody = '''\n{body}\n'''\n"
    );
    let w = parse(&text, "t").unwrap();
    let f = func(&w, "f");
    let mut env = SimpleEnv {
        vars: vec![0; f.num_vars()],
        params: vec![100],
        ..SimpleEnv::default()
    };
    env.builtins[Builtin::TidX as usize] = tid;
    let mut out = Vec::new();
    for op in &f.body {
        let Op::Let { var, expr } = op else {
            panic!("not a let: {op:?}")
        };
        let v = expr.eval(&env, &w.tables);
        env.vars[var.0 as usize] = v;
        out.push(v);
    }
    out
}

#[test]
fn expressions_evaluate_as_hand_computed() {
    let v = run_lets(
        "a = 2 + 3 * 4 - 10 / 3\n\
         b = (2 + 3) * 4 % 7\n\
         c = 1 << 4 | 3 & 1\n\
         d = -7 / 2\n\
         e = -7 % 2\n\
         f = 5 / 0 + 5 % 0\n\
         g = ceil(10, 4) + ceil(8, 4) + ceil(-3, 2) + ceil(3, 0)\n\
         h = min(4, -2, 9) + max(4, -2, 9)\n\
         i = select(tid.x > 3, 100, 200) + (3 < 4) + (3 == 4) + !0\n\
         j = p + K + T[1] + T[9] + len(T)\n\
         k = -1 >> 1\n\
         l = 9223372036854775807 + 1\n\
         m = a * b - c",
        5,
    );
    let min = i64::MIN;
    // a = 2 + 12 - 3; b = 20 % 7; c = 16 | 1; g = 3 + 2 + ceil(-3, 2) (= -1) + 0;
    // i = 100 + 1 + 0 + 1; j = 100 + 10 + 6 + 0 + 3; m = 11 * 6 - 17.
    assert_eq!(v, vec![11, 6, 17, -3, -1, 0, 4, 7, 102, 119, -1, min, 49]);
}

/// `popc` counts set bits of the 64-bit value; `activemask` is a lane builtin,
/// refused in host commands.
#[test]
fn popc_and_activemask() {
    let v = run_lets(
        "a = popc(7) + popc(0)\nb = popc(-1)\nc = popc(activemask & 6)",
        0,
    );
    assert_eq!(v, vec![3, 64, 0]);
    let e = parse(
        "[[function]]\nname = \"f\"\nbody = 'alu 1'\n[[app]]\nname = \"a\"\ncmds = 'launch f grid=[activemask]'\n",
        "t",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("only in kernel bodies"), "{e}");
}

#[test]
fn table_addresses_and_loaded_values() {
    let text = "[[table]]\nname = \"T\"\nelem_bytes = 8\nvalues = [-1, 2, 3]\n\
                [[buffer]]\nname = \"B\"\nlen = 10\n\
                [[function]]\nname = \"f\"\nbody = '''\nx = &T[2]\ny = &B[3]\nv = load.g64 T[1]\nstore.g32.nc B[x]\n'''\n";
    let w = parse(text, "t").unwrap();
    let t = w.tables.get("T").unwrap();
    let b = w.tables.get("B").unwrap();
    assert_eq!(t.base % 256, 0);
    assert_eq!(b.base % 256, 0);
    assert!(b.base >= t.base + 24);
    let f = func(&w, "f");
    let env = SimpleEnv::default();
    let Op::Let { expr, .. } = &f.body[0] else {
        panic!()
    };
    assert_eq!(expr.eval(&env, &w.tables), t.base as i64 + 16);
    let Op::Let { expr, .. } = &f.body[1] else {
        panic!()
    };
    assert_eq!(expr.eval(&env, &w.tables), b.base as i64 + 12);
    // `load T[1]` addresses element 1; the engine reads its value with value_at.
    let Op::Mem(m) = &f.body[2] else { panic!() };
    assert_eq!(m.kind, MemKind::Load);
    assert_eq!(
        (m.space, m.bits, m.dest.is_some()),
        (Space::Global, 64, true)
    );
    let a = m.addr.eval(&env, &w.tables) as u64;
    assert_eq!(w.tables.value_at(a, 64), 2);
    assert_eq!(w.tables.value_at(t.base, 64), -1);
    assert_eq!(w.tables.value_at(t.base, 8), -1);
    assert_eq!(w.tables.value_at(b.base + 4, 32), 0);
    assert_eq!(w.tables.value_at(t.base + 24, 32), 0);
    let Op::Mem(m) = &f.body[3] else { panic!() };
    assert!(m.nc && !m.bypass_l1 && m.kind == MemKind::Store);
}

#[test]
fn guards_loops_launches_and_shared_arrays() {
    let text = r#"
[[function]]
name = "child"
block = [32]
params = ["n"]
body = 'alu 1'

[[function]]
name = "parent"
block = [64]
shared = [{ name = "S", len = 16 }, { name = "S8", elem_bytes = 8, len = 2 }]
body = '''
x = gtid
store.s32 S[tid.x] if x < 10
load.s64 S8[1]
loop i in 0..x { fp 2 ilp=2 }
launch.agg child grid=[ceil(x, 32)] args={n=x}
   stream=per_cta if x > 5 workload=x
   else { alu 3 }
bar
'''
"#;
    let w = parse(text, "t").unwrap();
    let f = func(&w, "parent");
    assert_eq!(f.smem_bytes, 16 * 4 + 2 * 8);
    assert_eq!(f.body.len(), 6);
    let Op::If { then_, .. } = &f.body[1] else {
        panic!()
    };
    let Op::Mem(m) = &then_[0] else { panic!() };
    let mut env = SimpleEnv::default();
    env.builtins[Builtin::TidX as usize] = 3;
    assert_eq!(m.addr.eval(&env, &w.tables), 12);
    let Op::Mem(m) = &f.body[2] else { panic!() };
    assert_eq!(m.addr, Expr::Const(64 + 8));
    let Op::Loop { body, .. } = &f.body[3] else {
        panic!()
    };
    assert!(matches!(body[0], Op::Unit { n: 2, ilp: 2, .. }));
    let Op::Launch(l) = &f.body[4] else { panic!() };
    assert_eq!(l.function, w.function_id("child").unwrap());
    assert_eq!(l.block[0], Expr::Const(32));
    assert_eq!(l.args.len(), 1);
    assert_eq!(l.else_.len(), 1);
    assert_eq!(f.body[5], Op::Bar);
}

fn write_temp(ext: &str, text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(ext).tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[test]
fn bfs_frontiers_of_a_hand_graph_and_host_unroll() {
    // 1-based edge list: 1-2, 1-3, 2-4, 3-4, 4-5, 6-7 (0-based: 0-1, 0-2, 1-3, 2-3, 3-4, 5-6).
    let g = write_temp(".edges", "1 2\n1 3\n2 4\n3 4\n4 5\n6 7\n");
    let text = format!(
        "[[graph]]\nfile = '{}'\nbfs = {{ source = 0 }}\n\
         [[function]]\nname = \"k\"\nparams = [\"lvl\", \"n\"]\nbody = 'v = load.g32 frontier(lvl)[gtid] if gtid < n'\n\
         [[app]]\nname = \"a\"\ncmds = '''\nrepeat l in 0..count(frontier) {{\n launch k grid=[ceil(len(frontier(l)), 2)] block=[2] args={{lvl=l, n=len(frontier(l))}}\n wait\n}}\n'''\n",
        g.path().display()
    );
    let w = parse(&text, "t").unwrap();
    let t = &w.tables;
    assert_eq!(
        t.get("row_ptr").unwrap().values(),
        &[0, 2, 4, 6, 9, 10, 11, 12]
    );
    assert_eq!(
        t.get("bfs_level").unwrap().values(),
        &[0, 1, 1, 2, 3, -1, -1]
    );
    let f: Vec<&[i64]> = (0..4)
        .map(|k| t.get(&format!("frontier_L{k}")).unwrap().values())
        .collect();
    assert_eq!(f, vec![&[0][..], &[1, 2], &[3], &[4]]);
    assert_eq!(t.scalar("frontier_count"), Some(4));
    let steps = w.apps[0].unroll(&w, 1000).unwrap();
    let grids: Vec<_> = steps[0]
        .1
        .iter()
        .filter_map(|s| match s {
            HostStep::Launch(l) => Some((l.grid[0], l.args.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        grids,
        vec![
            (1, vec![0, 1]),
            (1, vec![1, 2]),
            (1, vec![2, 1]),
            (1, vec![3, 1])
        ]
    );
    assert_eq!(steps[0].1.len(), 8);
}

#[test]
fn rmat_is_deterministic_and_degrees_sum_to_edges() {
    let text = "[[graph]]\nrmat = { scale = 10, edges = 8192, seed = 3 }\n";
    let a = parse(text, "t").unwrap();
    let b = parse(text, "t").unwrap();
    assert_eq!(a.tables, b.tables);
    let rp = a.tables.get("row_ptr").unwrap().values();
    let ci = a.tables.get("col_idx").unwrap().values();
    assert_eq!(rp.len(), 1025);
    let degree_sum: i64 = rp.windows(2).map(|w| w[1] - w[0]).sum();
    assert_eq!(degree_sum, ci.len() as i64);
    assert_eq!(a.tables.scalar("edges"), Some(ci.len() as i64));
    // Symmetrised, no self-loops, no duplicates: an even count of directed edges.
    assert_eq!(ci.len() % 2, 0);
    assert!(ci.len() > 8192 && ci.len() <= 16384, "{}", ci.len());
    let other = parse(&text.replace("seed = 3", "seed = 4"), "t").unwrap();
    assert_ne!(a.tables, other.tables);
}

#[test]
fn every_shipped_workload_parses_builds_and_unrolls() {
    for name in builtin_names() {
        let w = builtin(name, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        let app = w.app(name).unwrap_or_else(|| panic!("{name}: no app"));
        let steps = app.unroll(&w, 1 << 20).unwrap();
        let launches = steps[0]
            .1
            .iter()
            .filter(|s| matches!(s, HostStep::Launch(_)))
            .count();
        assert!(launches >= 1, "{name}");
    }
    // BFS over the default R-MAT graph reaches more than one level.
    let w = builtin("bfs", None).unwrap();
    assert!(w.tables.scalar("frontier_count").unwrap() > 2);
    assert!(builtin("nope", None)
        .unwrap_err()
        .to_string()
        .contains("bfs, sssp"));
}

#[test]
fn graph_argument_replaces_the_shipped_graph() {
    let g = write_temp(
        ".mtx",
        "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 2\n4 3\n",
    );
    let w = builtin("bfs", Some(g.path())).unwrap();
    assert_eq!(w.tables.scalar("vertices"), Some(4));
    assert_eq!(w.tables.scalar("edges"), Some(6));
    // The source is the highest-degree vertex (lowest id among ties): vertex 1.
    assert_eq!(w.tables.scalar("bfs_source"), Some(1));
    assert_eq!(w.tables.scalar("frontier_count"), Some(3));
    let e = builtin("stream", Some(g.path())).unwrap_err().to_string();
    assert!(e.contains("no [[graph]]"), "{e}");
    let bad = write_temp(
        ".mtx",
        "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n3 1\n",
    );
    let e = builtin("bfs", Some(bad.path())).unwrap_err().to_string();
    assert!(e.contains("out of range"), "{e}");
}

#[test]
fn limits_give_clear_errors() {
    let e = err("[[table]]\nname = \"t\"\ngen = { kind = \"range\", len = 100000000000 }\n");
    assert!(e.contains("len is 100000000000"), "{e}");
    let e = err("[[graph]]\nrmat = { scale = 30, edges = 10 }\n");
    assert!(e.contains("vertices"), "{e}");
    let deep = format!(
        "[[function]]\nname = \"f\"\nbody = 'x = {}1{}'\n",
        "(".repeat(100),
        ")".repeat(100)
    );
    assert!(err(&deep).contains("nesting deeper than 32"));
    let many = format!(
        "[[function]]\nname = \"f\"\nbody = '{}'\n",
        "if 1 { ".repeat(40)
    );
    assert!(err(&many).contains("nesting deeper"));
    let big = "#".repeat(2 << 20);
    assert!(err(&big).contains("bytes of text"));
}

/// A small deterministic byte mutator (no external fuzzing engine in the test).
fn mutate(text: &[u8], seed: u64) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut out = text.to_vec();
    let edits = 1 + next() % 4;
    const BYTES: &[u8] = b"09{}[]()=.,'\"\n #-+*/<>&|!~_axyz\xff";
    for _ in 0..edits {
        if out.is_empty() {
            break;
        }
        let i = (next() % out.len() as u64) as usize;
        match next() % 4 {
            0 => out[i] = BYTES[(next() % BYTES.len() as u64) as usize],
            1 => {
                out.remove(i);
            }
            2 => out.insert(i, BYTES[(next() % BYTES.len() as u64) as usize]),
            _ => {
                // Duplicate a short run (repeats digits and brackets).
                let j = (i + 1 + (next() % 8) as usize).min(out.len());
                let run = out[i..j].to_vec();
                out.splice(i..i, run);
            }
        }
    }
    out
}

#[test]
fn mutated_shipped_workloads_never_panic() {
    let g = write_temp(".edges", "0 1\n1 2\n2 3\n3 0\n0 2\n");
    let small = Limits {
        max_table_len: 1 << 16,
        max_total_elems: 1 << 18,
        max_vertices: 1 << 12,
        max_edges: 1 << 14,
        max_host_steps: 1 << 12,
        ..Limits::default()
    };
    let mut ok = 0;
    for name in builtin_names() {
        let text = builtin_text(name).unwrap();
        let opts = Options {
            graph: text.contains("[[graph]]").then(|| g.path().to_path_buf()),
            limits: small.clone(),
            ..Options::default()
        };
        for seed in 0..600 {
            let m = mutate(text.as_bytes(), seed);
            let m = String::from_utf8_lossy(&m);
            // Errors are fine; panics fail the test. Successful parses must unroll
            // without panicking as well.
            if let Ok(w) = parse_with(&m, "fuzz", &opts) {
                ok += 1;
                for app in &w.apps {
                    let _ = app.unroll(&w, small.max_host_steps);
                }
            }
        }
    }
    // Most single edits inside comments or whitespace still parse.
    assert!(ok > 100, "{ok}");
}

#[test]
fn host_unroll_is_bounded() {
    let text = "[[function]]\nname = \"k\"\nbody = 'alu 1'\n\
                [[app]]\nname = \"a\"\ncmds = 'repeat i in 0..1000000000000 { repeat j in 0..0 { } }'\n\
                [[app]]\nname = \"b\"\ncmds = 'repeat i in 0..100 { launch k grid=[i - 50] block=[32] }'\n";
    let w = parse(text, "t").unwrap();
    let e = w.apps[0].unroll(&w, 1000).unwrap_err().to_string();
    assert!(e.contains("more than 1000 repeat iterations"), "{e}");
    // Launches with an empty grid are dropped: i = 51..99 launch.
    let s = w.apps[1].unroll(&w, 1000).unwrap();
    assert_eq!(s[0].1.len(), 49);
    let e = w.apps[1].unroll(&w, 10).unwrap_err().to_string();
    assert!(e.contains("more than 10"), "{e}");
}

/// Every op example of docs/gpu-workloads.md parses, in one body.
#[test]
fn documented_op_examples_parse() {
    let text = r#"
[defs]
W = 64
[[table]]
name = "row_ptr"
values = [0, 1, 2]
[[table]]
name = "centers"
values = [1, 2]
[[buffer]]
name = "parent"
len = 16
[[buffer]]
name = "tex"
len = 16
[[buffer]]
name = "dist"
len = 16
[[buffer]]
name = "counter"
len = 1
[[function]]
name = "child"
block = [32]
params = ["beg", "deg", "level"]
body = 'exit if gtid >= deg'
[[function]]
name = "k"
params = ["src", "n", "u", "level"]
shared = [{ name = "As", len = 256 }]
body = '''
alu 4
fp 8 ilp=2
sfu 1
dp 2
v = load.g32 row_ptr[u]
x = tid.x
y = tid.y
load.g32 src + (y * W + x) * 4
store.g32 parent[u]
store.s32 As[y * 16 + x]
load.s32 As[x]
load.l32 tid.x * 4
load.c32 centers[x]
load.t32 tex[x]
load.g32.nc tex[x]
load.g64.bypass_l1 tex[x]
atomic.min.g32 dist[u]
old = atomic.add counter[0]
beg = v
deg = v - 1
lu = v
store.g32 parent[u] if lu == level + 1
if gtid < n { alu 1 } else if gtid < 2 * n { fp 1 } else { sfu 1 }
loop i in beg..deg { alu 1 }
bar
launch.cdp child grid=[ceil(deg, 32)] block=[32] args={beg=beg, deg=deg, level=level}
    stream=unique if deg > 128 workload=deg
    else loop i in 0..deg { u2 = load.g32 row_ptr[beg + i]; store.g32 parent[u2] }
sync_children
exit if gtid >= n
'''
[[app]]
name = "a"
cmds = '''
repeat level in 0..2 {
  launch k grid=[1] args={src=&tex[0], n=4, u=1, level=level}
  wait
}
memcpy 4096
device_sync
'''
"#;
    let w = parse(text, "doc").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(func(&w, "k").body.len(), 28);
    let steps = w.apps[0].unroll(&w, 100).unwrap();
    assert_eq!(steps[0].1.len(), 6);
}

/// Random token soups in a kernel body and a host program: errors, never panics.
#[test]
fn random_bodies_never_panic() {
    const VOCAB: &[&str] = &[
        "if",
        "else",
        "loop",
        "in",
        "..",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        "=",
        "+",
        "-",
        "*",
        "/",
        "%",
        "<<",
        ">>",
        "&",
        "&&",
        "|",
        "!",
        "~",
        "<",
        ">=",
        "==",
        ",",
        ";",
        "\n",
        "load.g32",
        "store.s32",
        "atomic.add",
        "atomic.cas.g64",
        "launch.cdp",
        "launch.auto",
        "c",
        "grid",
        "block",
        "args",
        "stream",
        "unique",
        "workload",
        "x",
        "y",
        "T",
        "F",
        "As",
        "0",
        "1",
        "7",
        "9223372036854775807",
        "alu",
        "fp",
        "ilp",
        "bar",
        "exit",
        "sync_children",
        "len",
        "count",
        "min",
        "select",
        "ceil",
        "hash",
        "rand",
        "gtid",
        "tid.x",
        "p",
        "repeat",
        "wait",
        "launch",
        "memcpy",
        "device_sync",
    ];
    let head = "[[table]]\nname = \"T\"\nvalues = [1, 2, 3]\n\
                [[graph]]\ncomplete = 3\nbfs = { source = 0, family = \"F\" }\n\
                [[function]]\nname = \"c\"\nparams = [\"p\"]\nbody = 'alu 1'\n";
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut ok = 0;
    for _ in 0..3000 {
        let n = 1 + next() % 40;
        let soup: Vec<&str> = (0..n)
            .map(|_| VOCAB[(next() % VOCAB.len() as u64) as usize])
            .collect();
        let soup = soup.join(" ");
        let text = format!(
            "{head}[[function]]\nname = \"k\"\nparams = [\"p\"]\nshared = [{{ name = \"As\", len = 4 }}]\nbody = '''\n{soup}\n'''\n\
             [[app]]\nname = \"a\"\ncmds = '''\n{soup}\n'''\n"
        );
        match parse(&text, "soup") {
            Ok(w) => {
                ok += 1;
                let _ = w.apps[0].unroll(&w, 1000);
            }
            Err(e) => assert!(e.to_string().starts_with("soup:"), "{e}"),
        }
    }
    // A few soups are valid in both places (an empty program, `;`, newlines).
    assert!(ok >= 1, "{ok}");
}

/// Mutated graph files: errors, never panics.
#[test]
fn mutated_graph_files_never_panic() {
    use weft_memsim::gpu::workload::graph::{parse as parse_graph, Format};
    let inputs = [
        (
            Format::MatrixMarket,
            "%%MatrixMarket matrix coordinate real symmetric\n% c\n4 4 3\n2 1 1.5\n3 2 -2\n4 3 1e3\n",
        ),
        (Format::Metis, "% c\n4 3 1\n2 5\n1 5 3 2\n2 2\n\n"),
        (Format::EdgeList, "# c\n1 2\n2 3\n3 4\n4 1\n"),
    ];
    let small = Limits {
        max_vertices: 1 << 12,
        max_edges: 1 << 12,
        ..Limits::default()
    };
    let mut ok = 0;
    for (fmt, text) in inputs {
        for seed in 0..2000 {
            let m = mutate(text.as_bytes(), seed);
            let m = String::from_utf8_lossy(&m);
            if let Ok(g) = parse_graph(&m, fmt, true, None, &small) {
                ok += 1;
                assert_eq!(*g.row_ptr.last().unwrap() as usize, g.col_idx.len());
                assert!(g.col_idx.iter().all(|&v| (v as usize) < g.vertices()));
            }
        }
    }
    assert!(ok > 100, "{ok}");
}

#[test]
fn keywords_and_names_cannot_be_assigned() {
    let f = |body: &str| {
        err(&format!("[[table]]\nname = \"T\"\nvalues = [1]\n[[function]]\nname = \"f\"\nparams = [\"p\"]\nbody = '{body}'\n"))
    };
    assert_eq!(f("if = 3"), "t.toml:7:9: `if` is a reserved word");
    assert_eq!(f("p = 3"), "t.toml:7:9: cannot assign to parameter `p`");
    assert_eq!(f("T = 3"), "t.toml:7:9: `T` is a table, not a variable");
    assert_eq!(f("gtid = 3"), "t.toml:7:9: `gtid` is a reserved word");
    assert_eq!(
        f("tid.x = 3"),
        "t.toml:7:9: cannot assign to constant `tid.x`"
    );
    assert_eq!(f("x = x + 1"), "t.toml:7:13: unknown name `x`");
}

#[test]
fn defines_replace_defs_and_refuse_unknown_names() {
    // a table's `len` follows the constant: 40 elements at N = 40
    let text =
        "[defs]\nN = 8\nM = 3\n[[table]]\nname = \"T\"\ngen = { kind = \"range\", len = \"N\" }\n";
    let opts = |d: &[(&str, i64)]| Options {
        defines: d.iter().map(|&(k, v)| (k.to_string(), v)).collect(),
        ..Options::default()
    };
    let w = parse_with(text, "t.toml", &opts(&[])).unwrap();
    assert_eq!(w.tables.scalar("N"), Some(8));
    let id = w.tables.id("T").unwrap();
    assert_eq!(w.tables.len_of(id), 8);
    // the last value of a name wins; the other constants keep theirs
    let w = parse_with(text, "t.toml", &opts(&[("N", 20), ("N", 40)])).unwrap();
    assert_eq!(w.tables.scalar("N"), Some(40));
    assert_eq!(w.tables.scalar("M"), Some(3));
    assert_eq!(w.tables.len_of(id), 40);
    // a name the file does not define is an error naming the ones it does
    let e = parse_with(text, "t.toml", &opts(&[("n", 4)]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no constant `n`") && e.contains("M, N"), "{e}");
    // a shipped app at another size: the join's probe table follows `nr`
    let w = workload::builtin_with("join_uniform", &opts(&[("nr", 1000)])).unwrap();
    let r = w.tables.id("r_key").unwrap();
    assert_eq!(w.tables.len_of(r), 1000);
}
