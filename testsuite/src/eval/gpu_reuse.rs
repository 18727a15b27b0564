//! The reuse characterisation of a GPU run's L1 trace (LaPerm Fig. 2, LASER
//! §3.3; `weft gpusim reuse` and the `gpu-sched` study's reuse cells): the
//! recorder run, the text report and the CDF plot.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::reuse::{characterise, Recorder, ReuseReport, Trace};
use weft_memsim::gpu::workload::Workload;
use weft_memsim::gpu::{GpuOptions, GpuSim};

/// Errors of a reuse run.
pub type ReuseError = Box<dyn std::error::Error + Send + Sync>;

/// Runs `wl` on `cfg` with a trace recorder and characterises the trace.
pub fn trace_reuse(
    cfg: &MachineConfig,
    wl: Arc<Workload>,
    opts: &GpuOptions,
    reads_only: bool,
) -> Result<ReuseReport, ReuseError> {
    let mut sim = GpuSim::build(cfg, wl, opts)?;
    let rec = Recorder::default();
    sim.set_l1_hook(Box::new(rec.clone()));
    sim.run(|_| {})?;
    let events = rec.events.lock().map_err(|_| "trace lock")?;
    let trace = Trace::tag(&events, sim.dispatches(), sim.kernels(), reads_only);
    let l1 = cfg.l1.size_bytes / cfg.l1.line_bytes as u64;
    let l2 = cfg.llc.size_bytes / cfg.llc.line_bytes as u64;
    Ok(characterise(&trace, l1, l2))
}

/// The reuse report as text (`weft gpusim reuse`).
pub fn reuse_text(x: &ReuseReport) -> String {
    let mut r = String::new();
    let h = |n: &str, v: &weft_memsim::gpu::reuse::ratios::Histogram, r: &mut String| {
        let _ = writeln!(
            r,
            "{n:<26} n {:>7}  mean {:.3}  high {:.3}  bins {:?}",
            v.n, v.mean, v.high, v.bins
        );
    };
    let _ = writeln!(
        r,
        "accesses {}  footprint {} blocks  kernels {}",
        x.accesses, x.footprint_blocks, x.kernels
    );
    h("kernel self", &x.kernel_self, &mut r);
    h("kernel parent-child", &x.kernel_parent_child, &mut r);
    h("kernel sibling", &x.kernel_sibling, &mut r);
    h("WG self", &x.wg_self, &mut r);
    h("WG intra-kernel", &x.wg_intra_kernel, &mut r);
    h("WG parent-child", &x.wg_parent_child, &mut r);
    h("WG sibling", &x.wg_sibling, &mut r);
    h("wavefront self", &x.wavefront_self, &mut r);
    h("wavefront inter", &x.wavefront_inter, &mut r);
    let _ = writeln!(
        r,
        "chains: kernel (max {}, mean {:.1}), WG (max {}, mean {:.1})",
        x.kernel_chain.0, x.kernel_chain.1, x.wg_chain.0, x.wg_chain.1
    );
    let a = &x.aggregate;
    let _ = writeln!(
        r,
        "aggregate reuse: self-kernel {:.3}, parent-child {:.3}, sibling {:.3}",
        a.self_kernel, a.parent_child, a.sibling
    );
    for (n, d) in [
        ("self", &x.distance_self),
        ("parent-child", &x.distance_parent_child),
        ("sibling", &x.distance_sibling),
    ] {
        let _ = writeln!(
            r,
            "reuse distance {n:<13} n {:>7}  median {:>6}  > L1 {:.3}  > L2 {:.3}",
            d.n, d.median, d.beyond_l1, d.beyond_l2
        );
    }
    let l = &x.laperm;
    let _ = writeln!(r, "LaPerm shared footprint: parent-child {:.3} ({} parents), child-sibling {:.3} ({} children), parent-parent {:.3}", l.parent_child, l.parents, l.child_sibling, l.children, l.parent_parent);
    r
}

/// The CDFs of the kernel- and WG-level ratio histograms (SVG) at `path`.
pub fn plot_reuse(x: &ReuseReport, path: &Path) -> std::io::Result<()> {
    let series = [
        ("kernel parent-child", &x.kernel_parent_child, "#1f77b4"),
        ("kernel sibling", &x.kernel_sibling, "#ff7f0e"),
        ("WG parent-child", &x.wg_parent_child, "#2ca02c"),
        ("WG intra-kernel", &x.wg_intra_kernel, "#d62728"),
        ("wavefront inter", &x.wavefront_inter, "#9467bd"),
    ];
    let (w, h) = (420.0, 220.0);
    let mut o = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"10\">\n", h + 30.0 + 12.0 * series.len() as f64);
    let _ = writeln!(
        o,
        "<rect x=\"40\" y=\"10\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"gray\"/>",
        w - 60.0,
        h - 20.0
    );
    for (i, (name, hist, colour)) in series.iter().enumerate() {
        let pts: Vec<String> = hist
            .cdf()
            .iter()
            .enumerate()
            .map(|(b, c)| {
                format!(
                    "{:.1},{:.1}",
                    40.0 + (b as f64 + 1.0) / 10.0 * (w - 60.0),
                    h - 10.0 - c * (h - 20.0)
                )
            })
            .collect();
        let _ = writeln!(
            o,
            "<polyline fill=\"none\" stroke=\"{colour}\" points=\"40,{} {}\"/>",
            h - 10.0,
            pts.join(" ")
        );
        let _ = writeln!(
            o,
            "<text x=\"40\" y=\"{}\" fill=\"{colour}\">{name} (n = {})</text>",
            h + 12.0 * (i as f64 + 1.0),
            hist.n
        );
    }
    let _ = writeln!(
        o,
        "<text x=\"2\" y=\"14\">CDF</text><text x=\"{}\" y=\"{}\">reuse ratio (0.1 bins)</text>",
        w - 160.0,
        h + 2.0
    );
    o.push_str("</svg>\n");
    std::fs::write(path, o)
}
