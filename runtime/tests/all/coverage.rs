//! Greedy (Algorithm 4) versus original order versus the exact optimum, mean banks
//! covered per slot on random instances (printed; run with `--nocapture`).

use super::{random_instance, Rng};
use weft_runtime::blp::{original_order, schedule_blp, BlpOptions, CoreOrder};
use weft_runtime::optimal::{optimal_schedule, DEFAULT_BUDGET};

#[test]
fn greedy_original_optimal_mean_coverage() {
    let mut rng = Rng(2024);
    let (p, m, q) = (4, 4, 10);
    let n = 40;
    let (mut g_sum, mut f_sum, mut o_sum, mut opt_sum) = (0.0, 0.0, 0.0, 0.0);
    let mut worst_gap: f64 = 0.0;
    for _ in 0..n {
        let inst = random_instance(&mut rng, p, m, q, 3);
        let g = schedule_blp(&inst, &BlpOptions::default(), None).unwrap();
        let f = schedule_blp(
            &inst,
            &BlpOptions {
                core_order: CoreOrder::Flexibility,
                ..Default::default()
            },
            None,
        )
        .unwrap();
        let o = original_order(&inst);
        let opt = optimal_schedule(&inst, DEFAULT_BUDGET).unwrap();
        let (gm, fm, om, optm) = (
            g.mean_coverage(),
            f.mean_coverage(),
            o.mean_coverage(),
            opt.mean_coverage(),
        );
        assert!(optm + 1e-12 >= gm && optm + 1e-12 >= om && optm + 1e-12 >= fm);
        worst_gap = worst_gap.max((optm - gm) / optm);
        g_sum += gm;
        f_sum += fm;
        o_sum += om;
        opt_sum += optm;
    }
    let k = n as f64;
    println!(
        "random instances: {n} x (P={p}, M={m}, Q={q}, 1-3 banks/slab): mean banks/slot \
         original {:.3}, greedy {:.3}, greedy-flexibility {:.3}, optimal {:.3}; \
         greedy gap to optimal {:.2}% (worst instance {:.2}%)",
        o_sum / k,
        g_sum / k,
        f_sum / k,
        opt_sum / k,
        100.0 * (opt_sum - g_sum) / opt_sum,
        100.0 * worst_gap
    );
    assert!(
        g_sum > o_sum,
        "greedy must beat the original order on average"
    );
    assert!(opt_sum >= g_sum);
}
