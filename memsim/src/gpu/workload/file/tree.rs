//! `[[tree]]` sections: the recursive (Type II) pre-passes of `workload::trees`
//! (quicksort, Mariani-Silver Mandelbrot, AMR) written as preorder-forest tables.
//!
//! With `name = "t"` the tables are `t_end`, `t_kid_ptr`, `t_kids`, `t_roots`,
//! `t_depth`, `t_work`, `t_sub` and one per payload field (`t_lo`, ...; Mandelbrot
//! adds `t_dwell`, the image's dwells row-major), and the constants `t_nodes`,
//! `t_max_depth` and the generator's sizes (`t_elements`, `t_size`, `t_points`).

use serde::Deserialize;
use toml::Spanned;

use super::Loader;
use crate::gpu::workload::trees::{self, Forest};
use crate::gpu::workload::Result;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct QuicksortSpec {
    arrays: u64,
    n: u64,
    cutoff: u64,
    #[serde(default = "one")]
    seed: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MandelSpec {
    size: u64,
    tile: u64,
    min: u64,
    max_dwell: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AmrSpec {
    grid: u64,
    levels: i64,
    points: i64,
    #[serde(default = "one")]
    seed: u64,
}

fn one() -> u64 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TreeSpec {
    name: Spanned<String>,
    quicksort: Option<QuicksortSpec>,
    mandelbrot: Option<MandelSpec>,
    amr: Option<AmrSpec>,
}

impl Loader<'_> {
    pub(super) fn tree(&mut self, t: &Spanned<TreeSpec>) -> Result<()> {
        let span = t.span();
        let t = t.get_ref();
        self.check_name(&t.name, "tree")?;
        let p = t.name.get_ref().clone();
        let opts = self.opts;
        let l = &opts.limits;
        let max_nodes =
            l.max_table_len
                .min(l.max_total_elems.saturating_sub(self.total_elems)) as usize
                / 8;
        let fail = |l: &Self, m: String| l.at(span.clone(), format!("tree `{p}`: {m}"));
        let mut consts: Vec<(String, i64)> = Vec::new();
        let mut extra: Option<(String, Vec<i64>)> = None;
        let f: Forest = match (&t.quicksort, &t.mandelbrot, &t.amr) {
            (Some(q), None, None) => {
                let total = q.arrays.saturating_mul(q.n);
                if q.arrays == 0 || q.n == 0 || total > l.max_table_len {
                    return Err(fail(
                        self,
                        format!("{total} keys (1 to {})", l.max_table_len),
                    ));
                }
                consts.push((format!("{p}_elements"), total as i64));
                trees::quicksort(q.arrays, q.n, q.cutoff, q.seed, max_nodes)
                    .map_err(|m| fail(self, m))?
            }
            (None, Some(m), None) => {
                let ok = m.size >= 4
                    && m.size.saturating_mul(m.size) <= l.max_table_len
                    && m.tile >= 4
                    && m.size % m.tile == 0
                    && m.tile.is_power_of_two()
                    && (1..=4096).contains(&m.max_dwell)
                    && m.size.saturating_mul(m.size).saturating_mul(m.max_dwell) <= 1 << 28;
                if !ok {
                    return Err(fail(
                        self,
                        "mandelbrot needs size >= 4 (size^2 within the table limit), a power-of-two tile >= 4 dividing size, 1 <= max_dwell <= 4096 and size^2 * max_dwell <= 2^28".into(),
                    ));
                }
                let (f, dw) = trees::mandelbrot(m.size, m.tile, m.min, m.max_dwell, max_nodes)
                    .map_err(|e| fail(self, e))?;
                consts.push((format!("{p}_size"), m.size as i64));
                extra = Some((format!("{p}_dwell"), dw));
                f
            }
            (None, None, Some(a)) => {
                let ok = (1..=4096).contains(&a.grid)
                    && (a.grid * a.grid) as usize <= max_nodes
                    && (0..=24).contains(&a.levels)
                    && (1..=1 << 16).contains(&a.points);
                if !ok {
                    return Err(fail(
                        self,
                        "amr needs 1 <= grid <= 4096 (grid^2 cells within the table limit), 0 <= levels <= 24, 1 <= points <= 65536"
                            .into(),
                    ));
                }
                consts.push((format!("{p}_points"), a.points));
                trees::amr(a.grid, a.levels, a.points, a.seed, max_nodes)
                    .map_err(|m| fail(self, m))?
            }
            _ => {
                return Err(fail(
                    self,
                    "a tree needs exactly one of `quicksort`, `mandelbrot`, `amr`".into(),
                ))
            }
        };
        consts.push((format!("{p}_nodes"), f.nodes() as i64));
        consts.push((format!("{p}_max_depth"), f.max_depth()));
        let Forest {
            end,
            kid_ptr,
            kids,
            roots,
            depth,
            work,
            sub,
            fields,
        } = f;
        for (n, v) in [
            ("end", end),
            ("kid_ptr", kid_ptr),
            ("kids", kids),
            ("roots", roots),
            ("depth", depth),
            ("work", work),
        ] {
            self.add_table(span.clone(), &format!("{p}_{n}"), 4, v)?;
        }
        self.add_table(span.clone(), &format!("{p}_sub"), 8, sub)?;
        for (n, v) in fields {
            self.add_table(span.clone(), &format!("{p}_{n}"), 4, v)?;
        }
        if let Some((n, v)) = extra {
            self.add_table(span.clone(), &n, 4, v)?;
        }
        for (n, v) in consts {
            self.def(span.clone(), n, v)?;
        }
        Ok(())
    }
}
