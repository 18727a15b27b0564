//! Table 5.1 of the dissertation: the MLP-versus-CLP trade-off. IB0 is scheduled
//! first; MLP-first then takes IB1 (MLP 4, CLP 2), CLP-first takes IB2 (CLP 4) and
//! Balanced takes IB3 by the standard-deviation rule of §5.5.6
//! (SD(IB0⊎IB1)=1+3.317, SD(IB0⊎IB2)=1.871+1, SD(IB0⊎IB3)=1.225+0.707 with η=1).

use weft_runtime::bankset::{BankSet, WeightedBanks};
use weft_runtime::mlp::{schedule_ibs, BlockVectors, IbInstance, MlpOptions, Scheme};

fn table51() -> IbInstance {
    let b = |mem: [u32; 4], llc: [u32; 4]| BlockVectors {
        mem: mem.to_vec(),
        llc: llc.to_vec(),
    };
    IbInstance {
        cores: 1,
        window: 2,
        mem_banks: 4,
        llc_banks: 4,
        blocks: vec![
            b([0, 1, 3, 0], [2, 0, 4, 0]),
            b([1, 2, 0, 1], [2, 0, 4, 0]),
            b([0, 0, 2, 2], [0, 2, 0, 4]),
            b([2, 2, 0, 0], [0, 3, 0, 3]),
        ],
    }
}

fn mlp_clp(inst: &IbInstance, w: &[usize]) -> (usize, usize) {
    let mut m = BankSet::new(4);
    let mut c = BankSet::new(4);
    for &i in w {
        m.union_with(
            &WeightedBanks {
                counts: inst.blocks[i].mem.clone(),
            }
            .to_set(),
        );
        c.union_with(
            &WeightedBanks {
                counts: inst.blocks[i].llc.clone(),
            }
            .to_set(),
        );
    }
    (m.count(), c.count())
}

#[test]
fn table_5_1_schemes() {
    let inst = table51();
    let run = |scheme| {
        schedule_ibs(
            &inst,
            &MlpOptions {
                scheme,
                ..Default::default()
            },
            None,
        )
        .unwrap()
    };
    let mlp = run(Scheme::MlpFirst);
    assert_eq!(mlp.windows[0][0], vec![0, 1]);
    assert_eq!(mlp_clp(&inst, &mlp.windows[0][0]), (4, 2));
    let clp = run(Scheme::ClpFirst);
    assert_eq!(clp.windows[0][0], vec![0, 2]);
    assert_eq!(mlp_clp(&inst, &clp.windows[0][0]), (3, 4));
    let bal = run(Scheme::Balanced);
    assert_eq!(bal.windows[0][0], vec![0, 3]);
    assert_eq!(mlp_clp(&inst, &bal.windows[0][0]), (3, 4));
    // beta = SD_m / (SD_m + SD_c) of IB0 ⊎ IB3 = 1.2247 / (1.2247 + 0.7071)
    let want = 1.5f64.sqrt() / (1.5f64.sqrt() + 0.5f64.sqrt());
    assert!((bal.beta[0] - want).abs() < 1e-9, "beta {}", bal.beta[0]);
    assert_eq!(mlp.beta[0], 1.0);
    // second windows hold the rest
    for s in [&mlp, &clp, &bal] {
        assert_eq!(s.windows.len(), 2);
        let mut all: Vec<usize> = s.windows.iter().flatten().flatten().copied().collect();
        all.sort();
        assert_eq!(all, vec![0, 1, 2, 3]);
    }
}

#[test]
fn table_5_1_eta_weights_change_balanced_choice() {
    // With LLC latency dominating, the LLC balance decides: IB2 and IB3 both give
    // LLC (2,2,4,4)/(2,3,4,3); IB3 remains best. With memory latency dominating,
    // IB1 (mem (1,3,3,1), SD 1) beats IB3 (mem SD 1.225).
    let inst = table51();
    let s = schedule_ibs(
        &inst,
        &MlpOptions {
            scheme: Scheme::Balanced,
            eta_mem: 100.0,
            eta_llc: 1.0,
        },
        None,
    )
    .unwrap();
    assert_eq!(s.windows[0][0], vec![0, 1]);
}
