//! LaPerm's Figure 4 worked example (digest §2.7), dispatch by dispatch, for the
//! four policies. 4 SMs holding one TB each; parent kernel P0-P7; P2 launches
//! C0-C1, P4 launches C2-C5; every TB runs one round (SMX0..3 get one dispatch
//! each, one per cycle); launches take no time and children are visible from the
//! round after their parent's dispatch.

use super::laperm::{Laperm, LapermConfig, Scheme};
use crate::gpu::dp::ParentInfo;
use crate::gpu::sched::{DispatchUnit, RoundRobin, TbDispatchPolicy};

/// One unit of the example: name prefix, first label index, TBs, parent TB index.
struct Unit {
    prefix: char,
    base: u64,
    tbs: u64,
    parent: Option<u64>,
}

/// Runs the example; returns per round the label dispatched to SMX0..3.
fn run(policy: &mut dyn TbDispatchPolicy, rounds: usize) -> Vec<[String; 4]> {
    let units = [
        Unit {
            prefix: 'P',
            base: 0,
            tbs: 8,
            parent: None,
        },
        Unit {
            prefix: 'C',
            base: 0,
            tbs: 2,
            parent: Some(2),
        },
        Unit {
            prefix: 'C',
            base: 2,
            tbs: 4,
            parent: Some(4),
        },
    ];
    let mut next = [0u64; 3];
    // round and SM of each parent TB's dispatch
    let mut parent_at: Vec<Option<(usize, u32)>> = vec![None; 8];
    let mut out = Vec::new();
    for round in 0..rounds {
        let mut row: [String; 4] = Default::default();
        for (s, cell) in row.iter_mut().enumerate() {
            let now = (round * 4 + s) as u64;
            // visible units with TBs left, FCFS (launch order)
            let mut view = Vec::new();
            let mut which = Vec::new();
            for (i, u) in units.iter().enumerate() {
                let parent = match u.parent {
                    None => None,
                    Some(p) => match parent_at[p as usize] {
                        Some((r, sm)) if r < round => Some(ParentInfo {
                            kernel: 0,
                            tb: p,
                            warp: 0,
                            lane: 0,
                            sm,
                        }),
                        _ => continue,
                    },
                };
                if next[i] == u.tbs {
                    continue;
                }
                view.push(DispatchUnit {
                    kernel: i as u32,
                    record: i as u32,
                    group: false,
                    parent,
                    depth: parent.is_some() as u32,
                    left: u.tbs - next[i],
                    tbs: u.tbs,
                });
                which.push(i);
            }
            // the SM whose turn it is has just freed its TB (one round each)
            let mut fits = |_u: usize, sm: usize| sm == s;
            let pick = if policy.wants_units() {
                policy.select_unit(&view, 4, &mut fits, now)
            } else {
                policy.select(view.len(), 4, &mut fits)
            };
            if let Some((v, sm)) = pick {
                assert_eq!(sm, s);
                let i = which[v];
                let tb = next[i];
                next[i] += 1;
                if i == 0 {
                    parent_at[tb as usize] = Some((round, sm as u32));
                }
                policy.on_dispatch(i as u32, tb, sm, now);
                *cell = format!("{}{}", units[i].prefix, units[i].base + tb);
            } else {
                *cell = "-".into();
            }
        }
        out.push(row);
    }
    out
}

fn rows(table: &[&str]) -> Vec<[String; 4]> {
    table
        .iter()
        .map(|r| {
            let v: Vec<String> = r.split_whitespace().map(String::from).collect();
            [v[0].clone(), v[1].clone(), v[2].clone(), v[3].clone()]
        })
        .collect()
}

fn laperm(s: Scheme) -> Laperm {
    Laperm::new(s, LapermConfig::new(true))
}

#[test]
fn fig4_round_robin() {
    let got = run(&mut RoundRobin::default(), 6);
    let want = rows(&[
        "P0 P1 P2 P3",
        "P4 P5 P6 P7",
        "C0 C1 C2 C3",
        "C4 C5 - -",
        "- - - -",
        "- - - -",
    ]);
    assert_eq!(got, want);
}

#[test]
fn fig4_tb_pri_moves_children_a_round_earlier() {
    let got = run(&mut laperm(Scheme::TbPri), 6);
    let want = rows(&[
        "P0 P1 P2 P3",
        "C0 C1 P4 P5",
        "C2 C3 C4 C5",
        "P6 P7 - -",
        "- - - -",
        "- - - -",
    ]);
    assert_eq!(got, want);
}

#[test]
fn fig4_smx_bind_leaves_sms_idle() {
    let got = run(&mut laperm(Scheme::SmxBind), 6);
    let want = rows(&[
        "P0 P1 P2 P3",
        "P4 P5 C0 P6",
        "C2 P7 C1 -",
        "C3 - - -",
        "C4 - - -",
        "C5 - - -",
    ]);
    assert_eq!(got, want);
}

#[test]
fn fig4_adaptive_bind_steals_from_smx0() {
    let mut p = laperm(Scheme::AdaptiveBind);
    let got = run(&mut p, 6);
    let want = rows(&[
        "P0 P1 P2 P3",
        "P4 P5 C0 P6",
        "C2 P7 C1 C3",
        "C4 C5 - -",
        "- - - -",
        "- - - -",
    ]);
    assert_eq!(got, want);
    // C3 (SMX3) and C5 (SMX1) were stolen from SMX0's queue
    let s = p.stats();
    assert_eq!((s.stolen, s.bound, s.parents), (2, 4, 8));
}
