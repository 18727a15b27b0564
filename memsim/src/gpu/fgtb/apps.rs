//! The LonestarGPU-like workloads of the FGTB study (`gpu-seeds.md` §6.4) and
//! their co-runs.
//!
//! Each app is a template (`apps/<name>.toml`) of topology-driven kernels with
//! Table I's grid, block, register and shared-memory shapes, over one shared
//! R-MAT graph (`apps/prelude.toml`): a TB walks the contiguous region of
//! vertices its block index selects, so its density (R-MAT's low ids are the
//! dense corner) drives its memory-throttle stalls and, for MST and SGD, its fp
//! work; inner loops run over the vertex's edges (density-dependent trip
//! counts). BFS and SSSP are one long invocation with several sweeps (phases
//! inside one TB's lifetime); DMR and MST alternate two kernels; PTA and SGD are
//! pipelines of short kernels on one stream, so a block index meets the same
//! region at every invocation. `sgemm` is a Parboil-like compute-bound
//! co-runner. A co-run is one workload of several apps, each on its own stream.
//!
//! Placeholders: `@V@` vertices, `@SEED@` the R-MAT seed, `@DIV@` divides the
//! grids (Table I's grids fill 80 SMs; a smaller machine takes a proportional
//! share), `@ROUNDS@` invocations of the multi-kernel apps, `@SWEEPS@` sweeps of
//! the single-kernel ones.

use crate::gpu::workload::{self, Workload};

const PRELUDE: &str = include_str!("apps/prelude.toml");

/// The apps: name and template.
pub const APPS: [(&str, &str); 7] = [
    ("bfs", include_str!("apps/bfs.toml")),
    ("sssp", include_str!("apps/sssp.toml")),
    ("dmr", include_str!("apps/dmr.toml")),
    ("mst", include_str!("apps/mst.toml")),
    ("pta", include_str!("apps/pta.toml")),
    ("sgd", include_str!("apps/sgd.toml")),
    ("sgemm", include_str!("apps/sgemm.toml")),
];

/// The LonestarGPU apps (the co-runner `sgemm` excluded).
pub const LONESTAR: [&str; 6] = ["bfs", "sssp", "dmr", "mst", "pta", "sgd"];

/// Sizes of a workload instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    /// R-MAT vertices (edges are 100,000).
    pub vertices: u32,
    /// R-MAT seed.
    pub seed: u64,
    /// Grid divisor.
    pub div: u32,
    /// Invocations of the multi-kernel apps.
    pub rounds: u32,
    /// Sweeps of BFS and SSSP.
    pub sweeps: u32,
}

impl Default for Scale {
    fn default() -> Self {
        Scale {
            vertices: 20_000,
            seed: 7,
            div: 10,
            rounds: 4,
            sweeps: 2,
        }
    }
}

/// The text of a workload running `apps` together (one stream each).
pub fn text(apps: &[&str], s: &Scale) -> Result<String, String> {
    let mut t = String::from(PRELUDE);
    for a in apps {
        let body = APPS
            .iter()
            .find(|(n, _)| n == a)
            .map(|(_, b)| *b)
            .ok_or_else(|| {
                let names: Vec<&str> = APPS.iter().map(|(n, _)| *n).collect();
                format!("no FGTB app `{a}` (apps: {})", names.join(", "))
            })?;
        t.push('\n');
        t.push_str(body);
    }
    Ok(t.replace("@V@", &s.vertices.to_string())
        .replace("@SEED@", &s.seed.to_string())
        .replace("@DIV@", &s.div.max(1).to_string())
        .replace("@ROUNDS@", &s.rounds.max(1).to_string())
        .replace("@SWEEPS@", &s.sweeps.max(1).to_string()))
}

/// The workload running `apps` together at scale `s`.
pub fn build(apps: &[&str], s: &Scale) -> workload::Result<Workload> {
    let origin = format!("fgtb:{}", apps.join("+"));
    let t = text(apps, s).map_err(|msg| workload::Error::Invalid {
        origin: origin.clone(),
        msg,
    })?;
    workload::parse(&t, &origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every app parses alone and with the co-runner, with Table I's shapes.
    #[test]
    fn apps_parse_with_table_one_shapes() {
        let s = Scale {
            vertices: 5000,
            ..Scale::default()
        };
        let shapes = [
            ("bfs_topo", 128, 32, 0),
            ("sssp_topo", 256, 32, 0),
            ("dmr_refine", 512, 32, 0),
            ("mst_find", 256, 34, 0),
            ("pta_prop", 991, 28, 200),
            ("sgd_step", 16, 26, 68),
        ];
        for (a, (f, threads, regs, smem)) in LONESTAR.iter().zip(shapes) {
            let w = build(&[a, "sgemm"], &s).unwrap_or_else(|e| panic!("{a}: {e}"));
            assert_eq!(w.apps.len(), 2);
            let f = w.functions.iter().find(|x| x.name == f).unwrap();
            assert_eq!(
                (f.threads_per_block(), f.regs_per_thread, f.smem_bytes),
                (threads, regs, smem)
            );
        }
        assert!(build(&["nope"], &s).is_err());
    }
}
