//! Plots (plotters), each written as SVG and PNG: BLP over time (Fig. 4.3),
//! BLP / MLP / CLP and execution-time bars per benchmark and version
//! (Figs. 4.10, 4.12, 5.6, 5.7, 5.10), inspector overhead (Fig. 4.13), the beta
//! distribution (Fig. 5.11) and the sensitivity curves (Fig. 4.15).
//!
//! Text needs a TrueType font (plotters' `ab_glyph` backend has no system font
//! lookup): the first of `$WEFT_FONT` and the usual DejaVu / Liberation paths is
//! registered as `sans-serif`. Without one, plots are skipped and the report
//! says so. A plot with no data is skipped with the reason, never drawn empty.

use super::engine::{EngineOutput, Status};
use super::report::all_betas;
use super::results::{bench_names, main_blp_opt, main_cell, sweep_means, Derived};
use super::versions::{self, Study};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A plot that was drawn.
#[derive(Debug, Clone)]
pub struct PlotInfo {
    /// File stem.
    pub name: String,
    /// Caption.
    pub title: String,
}

/// Plots drawn and skipped.
#[derive(Debug, Clone, Default)]
pub struct PlotSet {
    /// Drawn plots.
    pub drawn: Vec<PlotInfo>,
    /// Files written (SVG and PNG).
    pub files: Vec<PathBuf>,
    /// Skipped plots with the reason.
    pub skipped: Vec<(String, String)>,
}

const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
];

/// Registers a font once; `Err` says why plots cannot have text.
fn ensure_font() -> Result<(), String> {
    static FONT: OnceLock<Result<(), String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let env = std::env::var("WEFT_FONT").ok();
        let candidates = env
            .iter()
            .map(String::as_str)
            .chain(FONT_PATHS.iter().copied());
        for path in candidates {
            if let Ok(bytes) = std::fs::read(path) {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return Ok(());
                }
            }
        }
        Err(format!(
            "no TrueType font found (set WEFT_FONT or install fonts-dejavu-core; looked in {})",
            FONT_PATHS.join(", ")
        ))
    })
    .clone()
}

type DrawResult = Result<(), String>;

fn e<E: std::fmt::Debug>(x: E) -> String {
    format!("{x:?}")
}

/// Draws `fig` on a white `root` and writes it out.
fn draw_on<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, fig: &Figure) -> DrawResult {
    root.fill(&WHITE).map_err(e)?;
    render(&root, fig)?;
    root.present().map_err(e)
}

/// Draws `f` into `<dir>/<name>.svg` and `.png`.
fn both(set: &mut PlotSet, dir: &Path, name: &str, title: &str, size: (u32, u32), fig: &Figure) {
    let svg = dir.join(format!("{name}.svg"));
    let png = dir.join(format!("{name}.png"));
    let r = draw_on(SVGBackend::new(&svg, size).into_drawing_area(), fig)
        .and_then(|()| draw_on(BitMapBackend::new(&png, size).into_drawing_area(), fig));
    match r {
        Ok(()) => {
            set.drawn.push(PlotInfo {
                name: name.into(),
                title: title.into(),
            });
            set.files.push(svg);
            set.files.push(png);
        }
        Err(msg) => set.skipped.push((name.into(), msg)),
    }
}

/// A labelled line: `(label, points)`.
type Line = (String, Vec<(f64, f64)>);

/// A line chart panel.
struct Panel {
    title: String,
    x_desc: String,
    y_desc: String,
    lines: Vec<Line>,
}

/// What a plot file shows.
enum Figure {
    Bars(Bars),
    Panels(Vec<Panel>),
}

fn render<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &Figure) -> DrawResult {
    match fig {
        Figure::Bars(b) => draw_bars(root, b),
        Figure::Panels(ps) => {
            let areas = root.split_evenly((ps.len().max(1), 1));
            for (area, p) in areas.iter().zip(ps) {
                draw_lines(area, p)?;
            }
            Ok(())
        }
    }
}

/// One version's bars: `(label, value per benchmark)`.
type Series = (String, Vec<Option<f64>>);

/// A grouped bar chart: `values[version][bench]`.
struct Bars {
    title: String,
    y_label: String,
    benches: Vec<String>,
    series: Vec<Series>,
}

/// The y axis of a chart of `ys`: always includes 0, padded by a tenth of the
/// span above (and below, when it goes negative).
fn y_range(ys: &[f64]) -> Range<f64> {
    let lo = ys.iter().copied().fold(0.0f64, f64::min);
    let hi = ys.iter().copied().fold(0.0f64, f64::max);
    let pad = ((hi - lo) * 0.1).max(1e-3);
    (lo - if lo < 0.0 { pad } else { 0.0 })..(hi + pad)
}

fn draw_bars<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, b: &Bars) -> DrawResult {
    let all: Vec<f64> = b
        .series
        .iter()
        .flat_map(|s| s.1.iter().flatten().copied())
        .collect();
    let n = b.benches.len();
    let names = b.benches.clone();
    let mut chart = ChartBuilder::on(root)
        .caption(&b.title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), y_range(&all))
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n.max(1))
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 0.05 && i >= 0.0 && (i as usize) < names.len() {
                names[i as usize].clone()
            } else {
                String::new()
            }
        })
        .y_desc(b.y_label.as_str())
        .draw()
        .map_err(e)?;
    let k = b.series.len().max(1) as f64;
    let w = 0.8 / k;
    for (j, (label, vals)) in b.series.iter().enumerate() {
        let color = Palette99::pick(j).to_rgba();
        let rects: Vec<Rectangle<(f64, f64)>> = vals
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let v = (*v)?;
                let x0 = i as f64 - 0.4 + j as f64 * w;
                Some(Rectangle::new(
                    [(x0, 0.0), (x0 + w * 0.95, v)],
                    color.filled(),
                ))
            })
            .collect();
        chart
            .draw_series(rects)
            .map_err(e)?
            .label(label.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(e)?;
    Ok(())
}

fn draw_lines<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, p: &Panel) -> DrawResult {
    let xs = p.lines.iter().flat_map(|l| l.1.iter().map(|p| p.0));
    let ys: Vec<f64> = p
        .lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.1))
        .collect();
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let x1 = if x1 <= x0 { x0 + 1.0 } else { x1 };
    let mut chart = ChartBuilder::on(root)
        .caption(&p.title, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(x0..x1, y_range(&ys))
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(p.x_desc.as_str())
        .y_desc(p.y_desc.as_str())
        .draw()
        .map_err(e)?;
    for (j, (label, pts)) in p.lines.iter().enumerate() {
        let color = Palette99::pick(j).to_rgba();
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(e)?
            .label(label.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 15, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(e)?;
    Ok(())
}

/// Draws `panels` stacked, `panel_height` pixels each, or records why there
/// is no plot when there are none.
fn panel_plot(
    set: &mut PlotSet,
    dir: &Path,
    (name, title): (&str, &str),
    (width, panel_height): (u32, u32),
    panels: Vec<Panel>,
    why_none: &str,
) {
    if panels.is_empty() {
        set.skipped.push((name.into(), why_none.into()));
    } else {
        let h = panel_height * panels.len() as u32;
        both(set, dir, name, title, (width, h), &Figure::Panels(panels));
    }
}

/// What one bar plot of [`bar_plot`] shows.
struct BarSpec {
    /// File stem.
    name: &'static str,
    /// Caption.
    title: &'static str,
    /// Y-axis label.
    y_label: &'static str,
    /// Study whose benchmarks and versions are plotted.
    study: Study,
    /// The bar of one benchmark under one version.
    value: fn(&Derived) -> Option<f64>,
}

/// Ch. 4 bars per benchmark and version (drawn after Fig. 4.3).
const CH4_BARS: [BarSpec; 2] = [
    BarSpec {
        name: "ch4_blp",
        title: "BLP per benchmark and version (Figs. 4.4, 4.10, 4.17a)",
        y_label: "BLP (banks)",
        study: Study::Ch4,
        value: |d| Some(d.blp),
    },
    BarSpec {
        name: "ch4_time",
        title: "Execution-time reduction vs Original, % (Figs. 4.5, 4.12, 4.17b)",
        y_label: "% faster",
        study: Study::Ch4,
        value: |d| d.time_reduction_pct,
    },
];

/// Ch. 5 bars per benchmark and version (Figs. 5.6, 5.7, 5.10).
const CH5_BARS: [BarSpec; 3] = [
    BarSpec {
        name: "ch5_mlp",
        title: "MLP per benchmark and version (Fig. 5.6)",
        y_label: "MLP (banks)",
        study: Study::Ch5,
        value: |d| Some(d.mlp),
    },
    BarSpec {
        name: "ch5_clp",
        title: "CLP per benchmark and version (Fig. 5.7)",
        y_label: "CLP (LLC banks)",
        study: Study::Ch5,
        value: |d| Some(d.clp),
    },
    BarSpec {
        name: "ch5_time",
        title: "Execution-time reduction vs Default, % (Fig. 5.10)",
        y_label: "% faster",
        study: Study::Ch5,
        value: |d| d.time_reduction_pct,
    },
];

/// Every version of the study with at least one bar, over its benchmarks.
fn bars_for(
    out: &EngineOutput,
    derived: &[Derived],
    study: Study,
    f: fn(&Derived) -> Option<f64>,
) -> (Vec<String>, Vec<Series>) {
    let benches = bench_names(out, study);
    let mut series = Vec::new();
    for v in versions::versions(study) {
        let vals: Vec<Option<f64>> = benches
            .iter()
            .map(|b| main_cell(derived, study, b, v.id).and_then(f))
            .collect();
        if vals.iter().any(Option::is_some) {
            series.push((v.label.to_string(), vals));
        }
    }
    (benches, series)
}

fn bar_plot(
    set: &mut PlotSet,
    dir: &Path,
    out: &EngineOutput,
    derived: &[Derived],
    spec: &BarSpec,
) {
    let (benches, series) = bars_for(out, derived, spec.study, spec.value);
    if series.is_empty() {
        set.skipped
            .push((spec.name.into(), "no completed run to plot".into()));
        return;
    }
    let bars = Bars {
        title: spec.title.into(),
        y_label: spec.y_label.into(),
        benches,
        series,
    };
    let width = (200 + 60 * bars.benches.len() as u32 * bars.series.len().max(1) as u32 / 2)
        .clamp(640, 1600);
    both(
        set,
        dir,
        spec.name,
        spec.title,
        (width, 480),
        &Figure::Bars(bars),
    );
}

/// Fig. 4.3: BLP over time, one panel per ch. 4 benchmark, Original vs BLP Optimized.
fn blp_over_time(set: &mut PlotSet, dir: &Path, out: &EngineOutput) {
    let series = |bench: &str, version: &str| -> Option<Line> {
        let r = out.records.iter().find(|r| {
            r.study == Study::Ch4
                && r.bench == bench
                && r.version == version
                && r.point.is_none()
                && r.status == Status::Ok
        })?;
        let s = r.stats.as_ref()?;
        if s.blp_series.is_empty() {
            return None;
        }
        let ep = s.epoch_cycles.max(1) as f64;
        let pts = s.blp_series.iter().enumerate();
        Some((
            r.label.clone(),
            pts.map(|(i, y)| (i as f64 * ep, *y)).collect(),
        ))
    };
    let panels: Vec<Panel> = out
        .benchmarks
        .get("ch4")
        .map(|bs| {
            bs.iter()
                .filter_map(|b| {
                    let lines: Vec<Line> = ["original", "blp-opt"]
                        .iter()
                        .filter_map(|v| series(&b.name, v))
                        .collect();
                    (!lines.is_empty()).then(|| Panel {
                        title: b.name.clone(),
                        x_desc: "cycle".into(),
                        y_desc: "BLP".into(),
                        lines,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    panel_plot(
        set,
        dir,
        (
            "ch4_blp_over_time",
            "BLP over time, Original vs BLP Optimized (Fig. 4.3)",
        ),
        (900, 220),
        panels,
        "no ch. 4 run reported a per-epoch BLP series",
    );
}

/// Fig. 4.13: overhead of BLP Optimized only.
fn overhead(set: &mut PlotSet, dir: &Path, out: &EngineOutput, derived: &[Derived]) {
    let benches = bench_names(out, Study::Ch4);
    let vals: Vec<Option<f64>> = benches
        .iter()
        .map(|b| {
            main_blp_opt(derived)
                .find(|d| &d.bench == b)
                .and_then(|d| d.overhead_pct)
        })
        .collect();
    if vals.iter().any(Option::is_some) {
        let bars = Bars {
            title: "Inspector overhead, % of execution time (Fig. 4.13)".into(),
            y_label: "% of execution".into(),
            benches,
            series: vec![("BLP Optimized".into(), vals)],
        };
        both(
            set,
            dir,
            "ch4_overhead",
            "Inspector overhead (Fig. 4.13)",
            (800, 420),
            &Figure::Bars(bars),
        );
    } else {
        set.skipped.push((
            "ch4_overhead".into(),
            "no BLP Optimized run reported its inspector overhead".into(),
        ));
    }
}

/// Fig. 4.15: BLP Optimized's mean gains at every sweep point, one panel per sweep.
fn sensitivity(set: &mut PlotSet, dir: &Path, derived: &[Derived]) {
    let mut panels = Vec::new();
    for sw in versions::sweeps() {
        let mut blp = Vec::new();
        let mut time = Vec::new();
        for v in &sw.values {
            let Some(m) = sweep_means(derived, sw.id, *v) else {
                continue;
            };
            if let Some(g) = m.blp_gain {
                blp.push((*v as f64, g));
            }
            if let Some(t) = m.time_reduction {
                time.push((*v as f64, t));
            }
        }
        if !blp.is_empty() {
            panels.push(Panel {
                title: sw.label.to_string(),
                x_desc: sw.label.to_string(),
                y_desc: "% vs Original".into(),
                lines: vec![
                    ("BLP gain %".to_string(), blp),
                    ("time reduction %".to_string(), time),
                ],
            });
        }
    }
    panel_plot(
        set,
        dir,
        (
            "ch4_sensitivity",
            "Sensitivity of BLP Optimized (Figs. 4.15, 4.16)",
        ),
        (800, 260),
        panels,
        "no sweep point completed",
    );
}

/// Fig. 5.11: beta histogram in 10 bins.
fn beta_histogram(set: &mut PlotSet, dir: &Path, out: &EngineOutput) {
    let betas = all_betas(&out.records);
    if betas.is_empty() {
        set.skipped.push((
            "ch5_beta".into(),
            "no Balanced run reported beta values".into(),
        ));
        return;
    }
    let mut bins = [0usize; 10];
    for b in &betas {
        let i = ((b.clamp(0.0, 1.0) * 10.0) as usize).min(9);
        bins[i] += 1;
    }
    let bars = Bars {
        title: format!(
            "Beta chosen by Balanced, {} loop nests/windows (Fig. 5.11)",
            betas.len()
        ),
        y_label: "count".into(),
        benches: (0..10)
            .map(|i| format!("{:.1}-{:.1}", i as f64 / 10.0, (i + 1) as f64 / 10.0))
            .collect(),
        series: vec![(
            "Balanced".into(),
            bins.iter().map(|&c| Some(c as f64)).collect(),
        )],
    };
    both(
        set,
        dir,
        "ch5_beta",
        "Distribution of beta (Fig. 5.11)",
        (900, 420),
        &Figure::Bars(bars),
    );
}

/// Draws every plot the data allows under `dir`, in the report's order.
pub fn draw_all(dir: &Path, out: &EngineOutput, derived: &[Derived]) -> PlotSet {
    let mut set = PlotSet::default();
    if let Err(why) = ensure_font() {
        set.skipped.push(("all plots".into(), why));
        return set;
    }
    if let Err(err) = std::fs::create_dir_all(dir) {
        set.skipped.push((
            "all plots".into(),
            format!("cannot create {}: {err}", dir.display()),
        ));
        return set;
    }
    blp_over_time(&mut set, dir, out);
    for spec in &CH4_BARS {
        bar_plot(&mut set, dir, out, derived, spec);
    }
    overhead(&mut set, dir, out, derived);
    sensitivity(&mut set, dir, derived);
    for spec in &CH5_BARS {
        bar_plot(&mut set, dir, out, derived, spec);
    }
    beta_histogram(&mut set, dir, out);
    set
}
