//! Property test of privatisation (issue 35 part 3, `weft_frontend::privatize`;
//! `docs/parallelism.md`): random loops over a temporary object (a local
//! array, a global array or a global scalar) that each iteration fills and
//! then reads, with the counter-examples mixed in: a read before the fill, a
//! partial or conditional fill, a read of the temporary after the loop, rows
//! of the output that overlap. Every loop weft reports parallel, directly or
//! once privatised, is checked by brute force on the generated program's
//! accesses; the plain cases (full unconditional fill, no read first, nothing
//! live after a local temporary, disjoint rows) must be found parallel.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;

/// The temporary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Temp {
    /// `int t[W]` in the function (an `alloca`).
    Local,
    /// `int GT[W]` at file scope.
    GlobalArray,
    /// `int G` at file scope (clang keeps it in a register in the loop).
    GlobalScalar,
}

#[derive(Debug, Clone)]
struct Case {
    /// Trip count of an enclosing loop `i0`, if any (2..=4).
    outer: Option<u32>,
    /// Trip count of the loop `i` whose iterations use the temporary (5..=8;
    /// below every `j` loop's, `w - 3` or more, so trip counts tell the
    /// loops apart).
    n: u32,
    /// Elements of the temporary and of a row of `in` (12..=16).
    w: u32,
    temp: Temp,
    /// Elements filled per iteration (`w` or fewer).
    fill: u32,
    /// The fill stores only where `in` is positive.
    cond: bool,
    /// The iteration reads `T[0]` before filling.
    read_first: bool,
    /// The use loop reads `T[w-1-j]` (covered, but not by the same offset).
    reversed: bool,
    /// `T[w-1]` is read after the loops.
    live_after: bool,
    /// Row stride of `out` (`w + 1`: disjoint rows; less: rows overlap).
    stride: u32,
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::option::of(2u32..=4),
        5u32..=8,
        12u32..=16,
        prop_oneof![
            Just(Temp::Local),
            Just(Temp::GlobalArray),
            Just(Temp::GlobalScalar)
        ],
        // bias towards the plain pattern: each counter-example about 1 in 4
        (0u32..4, 0u32..4, 0u32..4, 0u32..4, 0u32..4, 0u32..4),
    )
        .prop_map(|(outer, n, w, temp, (f, c, r, v, a, s))| Case {
            outer,
            n,
            w,
            temp,
            fill: if f == 0 { w - 3 } else { w },
            cond: c == 0,
            read_first: r == 0,
            reversed: v == 0,
            live_after: a == 0,
            stride: if s == 0 { w - 2 } else { w + 1 },
        })
}

impl Case {
    fn t(&self, idx: &str) -> String {
        match self.temp {
            Temp::Local => format!("t[{idx}]"),
            Temp::GlobalArray => format!("GT[{idx}]"),
            Temp::GlobalScalar => "G".into(),
        }
    }

    fn to_c(&self) -> String {
        let (w, s) = (self.w, self.stride);
        let mut c = format!("int G;\nint GT[{w}];\n");
        c += "void k(const int *restrict in, int *restrict out) {\n";
        if self.temp == Temp::Local {
            c += &format!("  int t[{w}];\n");
            if self.read_first || self.live_after {
                // (no read of an uninitialised element)
                c += &format!("  for (long j = 0; j < {w}; j++) t[j] = (int)j;\n");
            }
        }
        let row = match self.outer {
            Some(o) => {
                c += &format!("  for (long i0 = 0; i0 < {o}; i0++)\n");
                format!("(i0 * {} + i)", self.n)
            }
            None => "i".into(),
        };
        c += &format!("  for (long i = 0; i < {}; i++) {{\n", self.n);
        if self.read_first {
            c += &format!("    out[{row} * {s} + {w}] = {};\n", self.t("0"));
        }
        let guard = |x: &str| {
            if self.cond {
                format!("if ({x} > 0) ")
            } else {
                String::new()
            }
        };
        if self.temp == Temp::GlobalScalar {
            let x = format!("in[{row} * {w}]");
            c += &format!("    {}G = {x} * 3 + 1;\n", guard(&x));
        } else {
            let x = format!("in[{row} * {w} + j]");
            c += &format!(
                "    for (long j = 0; j < {}; j++) {}{} = {x} * 3 + (int)j;\n",
                self.fill,
                guard(&x),
                self.t("j")
            );
        }
        let rd = if self.reversed {
            format!("{} - j", w - 1)
        } else {
            "j".into()
        };
        c += &format!(
            "    for (long j = 0; j < {w}; j++) out[{row} * {s} + j] = {} + in[{row} * {w} + j];\n",
            self.t(&rd)
        );
        c += "  }\n";
        if self.live_after {
            c += &format!("  out[0] = {};\n", self.t(&(w - 1).to_string()));
        }
        c += "}\n";
        c
    }

    /// The input the brute force assumes (mixed signs, so conditional fills
    /// skip some elements).
    fn input(x: i64) -> i64 {
        (x * 7919 + 13) % 11 - 5
    }

    /// Accesses `(object, location, write)` of iteration `(i0, i)` in order;
    /// object 0 is `out`, 1 the temporary (`in` is only read).
    fn trace(&self, i0: i64, i: i64) -> Vec<(u8, i64, bool)> {
        let (n, w, s) = (self.n as i64, self.w as i64, self.stride as i64);
        let r = i0 * n + i;
        let scalar = self.temp == Temp::GlobalScalar;
        let at = |j: i64| if scalar { 0 } else { j };
        let mut v = Vec::new();
        if self.read_first {
            v.push((1, 0, false));
            v.push((0, r * s + w, true));
        }
        if scalar {
            if !self.cond || Self::input(r * w) > 0 {
                v.push((1, 0, true));
            }
        } else {
            for j in 0..self.fill as i64 {
                if !self.cond || Self::input(r * w + j) > 0 {
                    v.push((1, j, true));
                }
            }
        }
        for j in 0..w {
            v.push((1, at(if self.reversed { w - 1 - j } else { j }), false));
            v.push((0, r * s + j, true));
        }
        v
    }

    /// Whether the temporary's value after loop `level` (0: `i0`, 1: `i`)
    /// may be read: always for a global (the analysis cannot see the rest of
    /// the program), after the nest when `live_after`, and after the `i`
    /// loop by the next `i0` iteration's read-first.
    fn live(&self, level: usize) -> bool {
        self.temp != Temp::Local
            || self.live_after
            || (level == 1 && self.outer.is_some() && self.read_first)
    }

    /// Brute force: may the iterations of loop `level` run in parallel, the
    /// temporary private to each when that is what it takes?
    fn parallel_by_brute_force(&self, level: usize) -> bool {
        let outer = self.outer.unwrap_or(1) as i64;
        // Groups of iterations that run as one loop: per i0 for the i loop.
        let groups: Vec<Vec<Vec<(u8, i64, bool)>>> = if level == 0 {
            vec![(0..outer)
                .map(|i0| (0..self.n as i64).flat_map(|i| self.trace(i0, i)).collect())
                .collect()]
        } else {
            (0..outer)
                .map(|i0| (0..self.n as i64).map(|i| self.trace(i0, i)).collect())
                .collect()
        };
        let mut plain = true;
        let mut private = true;
        for iters in &groups {
            // (object, location) -> every (iteration, write) there.
            let mut seen: HashMap<(u8, i64), Vec<(usize, bool)>> = HashMap::new();
            for (it, tr) in iters.iter().enumerate() {
                for &(o, loc, wr) in tr {
                    let e = seen.entry((o, loc)).or_default();
                    if e.iter().any(|&(it2, w2)| it2 != it && (wr || w2)) {
                        if o == 0 {
                            return false;
                        }
                        plain = false;
                    }
                    e.push((it, wr));
                }
            }
            // Private copies: no read of a location this iteration did not
            // write first, and when the value is live, the last iteration
            // writes every location any iteration writes.
            let mut all = HashSet::new();
            let mut last = HashSet::new();
            for tr in iters {
                let mut mine = HashSet::new();
                for &(_, loc, wr) in tr.iter().filter(|a| a.0 == 1) {
                    if wr {
                        mine.insert(loc);
                    } else if !mine.contains(&loc) {
                        private = false;
                    }
                }
                all.extend(mine.iter().copied());
                last = mine;
            }
            if self.live(level) && !all.is_subset(&last) {
                private = false;
            }
        }
        plain || private
    }

    /// The pattern privatisation is for: weft must find it.
    fn plain_pattern(&self) -> bool {
        self.fill == self.w
            && !self.cond
            && !self.read_first
            && !self.reversed
            && (self.temp != Temp::Local || !self.live_after)
            && self.stride > self.w
    }
}

fn cases() -> u32 {
    std::env::var("WEFT_PROP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
        * 2
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), .. ProptestConfig::default() })]
    #[test]
    fn random_private_temporaries(c in case()) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.c");
        let src = c.to_c();
        std::fs::write(&p, &src).unwrap();
        let ctx = inkwell::context::Context::create();
        let m = weft_frontend::load_module(&ctx, &p, &Default::default()).unwrap();
        let a = weft_frontend::ModuleAnalysis::new(&m);
        let f = a.function("k").unwrap();
        // The i0 and i loops, told apart from the j loops by trip count.
        let level_of = |trip: &str| -> Option<usize> {
            if c.outer.is_some_and(|o| trip == o.to_string()) {
                Some(0)
            } else if trip == c.n.to_string() {
                Some(1)
            } else {
                None
            }
        };
        let mut found = [false; 2];
        for l in &f.forest.loops {
            let ivs = f.loop_ivs(l.id);
            let Some(trip) = ivs.trip_count.as_ref().map(|t| t.render(&f.symbols)) else {
                continue;
            };
            let Some(level) = level_of(&trip) else { continue };
            let d = &f.deps[l.id.index()];
            let private = weft_frontend::privatize::privatize(f, l.id);
            let parallel = d.parallel || private.is_ok();
            found[level] |= parallel;
            if parallel {
                prop_assert!(
                    c.parallel_by_brute_force(level),
                    "level {} reported parallel ({}) but the brute force disagrees:\n{}",
                    level,
                    match &private {
                        Ok(p) => format!("privatised {:?}", p.private.iter().map(|x| &x.name).collect::<Vec<_>>()),
                        Err(_) => "directly".into(),
                    },
                    src
                );
            }
        }
        if c.plain_pattern() {
            prop_assert!(found[1], "plain pattern: i loop not parallel:\n{}", src);
            if c.outer.is_some() {
                prop_assert!(found[0], "plain pattern: outer loop not parallel:\n{}", src);
            }
        }
    }
}
