//! Unit tests of Algorithm 5, LA-MLP and eq. 5.1.
use super::*;

#[test]
fn eq_5_1() {
    assert_eq!(iw_size(1024, 2.0, 4), 128);
    assert_eq!(iw_size(10, 20.0, 4), 1);
}

/// Hand-computed Locality-Aware-MLP choice: 2 cores, W = 2, 4 banks.
/// IB banks: 0 {0}, 1 {0}, 2 {1}, 3 {2,3}, 4 {0}, 5 {1}.
/// Step 0, core 0: 0 (lowest), then the most new banks for g = {0}:
/// IB 3 adds 2 → [0, 3], g = {0,2,3}. Core 1: first IB prefers the
/// successor of its last (none) → lowest 1; then g = {0,2,3}: only IBs 2
/// and 5 add bank 1 (gain 1), lowest id 2 → [1, 2]. Step 1, core 0: last
/// was 3, successor 4 available → 4, and its quota of 3 IBs is reached →
/// [4]. Core 1: last was 2, successor 3 taken → lowest available → [5].
#[test]
fn la_mlp_hand_computed() {
    let b = |banks: &[usize]| {
        let mut mem = vec![0u32; 4];
        for &x in banks {
            mem[x] = 1;
        }
        BlockVectors {
            mem,
            llc: vec![7, 0],
        }
    };
    let i = IbInstance {
        cores: 2,
        window: 2,
        mem_banks: 4,
        llc_banks: 2,
        blocks: vec![b(&[0]), b(&[0]), b(&[1]), b(&[2, 3]), b(&[0]), b(&[1])],
    };
    let o = MlpOptions {
        scheme: Scheme::LaMlp,
        ..Default::default()
    };
    let s = schedule_ibs(&i, &o, None).unwrap();
    assert_eq!(
        s.windows,
        vec![vec![vec![0, 3], vec![1, 2]], vec![vec![4], vec![5]]]
    );
    assert_eq!(s.seq, vec![0, 3, 1, 2, 4, 5]);
    // Row-buffer locality: one core, W = 2, IBs 0 {0}, 1 {0}, 2 {1}, 3 {1}.
    // Step 0: 0, then 2 (adds bank 1). Step 1 starts with 3, the successor
    // of the core's last IB (not the lowest id 1); then 1 adds bank 0.
    let j = IbInstance {
        cores: 1,
        window: 2,
        mem_banks: 4,
        llc_banks: 2,
        blocks: vec![b(&[0]), b(&[0]), b(&[1]), b(&[1])],
    };
    let s = schedule_ibs(&j, &o, None).unwrap();
    assert_eq!(s.windows, vec![vec![vec![0, 2]], vec![vec![3, 1]]]);
}

/// Every scheme gives each core the Default's number of IBs: 7 IBs on 3
/// cores with W = 2 is 3, 2, 2 — without the quota the second step would
/// fill core 0's window to 2 (4 IBs) and leave core 2 with 1.
#[test]
fn every_scheme_keeps_the_default_load_balance() {
    assert_eq!(core_quotas(7, 3), vec![3, 2, 2]);
    assert_eq!(core_quotas(2, 3), vec![1, 1, 0]);
    assert_eq!(core_quotas(5, 0), Vec::<usize>::new());
    let blocks = (0..7)
        .map(|i| BlockVectors {
            mem: (0..4).map(|b| u32::from(b == i % 4)).collect(),
            llc: (0..3).map(|b| u32::from(b == (i * 2) % 3)).collect(),
        })
        .collect();
    let i = IbInstance {
        cores: 3,
        window: 2,
        mem_banks: 4,
        llc_banks: 3,
        blocks,
    };
    for scheme in [
        Scheme::Default,
        Scheme::MlpFirst,
        Scheme::ClpFirst,
        Scheme::Balanced,
        Scheme::LaMlp,
    ] {
        let o = MlpOptions {
            scheme,
            ..Default::default()
        };
        let s = schedule_ibs(&i, &o, None).unwrap();
        let counts: Vec<usize> = s.per_core(3).iter().map(Vec::len).collect();
        assert_eq!(counts, vec![3, 2, 2], "{scheme:?}");
        let mut all: Vec<u32> = s.per_core(3).concat();
        all.sort_unstable();
        assert_eq!(all, (0..7).collect::<Vec<u32>>(), "{scheme:?}");
    }
}

#[test]
fn default_round_robin() {
    let b = BlockVectors {
        mem: vec![1],
        llc: vec![1],
    };
    let i = IbInstance {
        cores: 2,
        window: 2,
        mem_banks: 1,
        llc_banks: 1,
        blocks: vec![b; 6],
    };
    let o = MlpOptions {
        scheme: Scheme::Default,
        ..Default::default()
    };
    let s = schedule_ibs(&i, &o, None).unwrap();
    assert_eq!(
        s.windows,
        vec![vec![vec![0, 2], vec![1, 3]], vec![vec![4], vec![5]]]
    );
}
