//! Address traces tagged with kernel, TB, warp and parent (digest §8.4
//! "Locality"): the input of the offline reuse analysis. A [`Recorder`] installed
//! as the engine's L1 hook keeps every global L1 access (the coalesced 128 B line,
//! as GPGPU-Sim's memory traces); [`Trace::tag`] joins the events with the
//! dispatch log (global TB id -> kernel record and TB index) and the kernels'
//! parent records. A DTBL group is a kernel record of its own, with its parent.
//! Invariant: accesses keep the simulation order.

use crate::gpu::dp::ParentInfo;
use crate::gpu::engine::Dispatch;
use crate::gpu::frontend::Kernel;
use crate::gpu::l1::{L1Event, L1Observer};
use std::sync::{Arc, Mutex};

/// One line access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Line (128 B block) number.
    pub line: u64,
    /// Kernel record.
    pub kernel: u32,
    /// TB (work-group) index in its kernel's grid.
    pub tb: u64,
    /// Global warp (wavefront) id.
    pub warp: u32,
    /// SM.
    pub sm: u32,
    /// A store.
    pub write: bool,
}

/// A tagged trace with the kernels' parents.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Accesses in simulation order.
    pub accesses: Vec<Access>,
    /// Parent of each kernel record (`None`: host launch), by id.
    pub parents: Vec<Option<ParentInfo>>,
}

impl Trace {
    /// Tags L1 `events` with the TB indices of `dispatches` and the parents of
    /// `kernels`; `reads_only` keeps loads only.
    pub fn tag(
        events: &[L1Event],
        dispatches: &[Dispatch],
        kernels: &[Kernel],
        reads_only: bool,
    ) -> Trace {
        let accesses = events
            .iter()
            .filter(|e| !(reads_only && e.write))
            .map(|e| {
                let d = &dispatches[e.who.tb as usize];
                Access {
                    line: e.line,
                    kernel: d.kernel,
                    tb: d.index,
                    warp: e.who.warp,
                    sm: e.sm,
                    write: e.write,
                }
            })
            .collect();
        Trace {
            accesses,
            parents: kernels.iter().map(|k| k.parent).collect(),
        }
    }

    /// Direct parent kernel of kernel record `k`.
    pub fn parent_kernel(&self, k: u32) -> Option<u32> {
        self.parents
            .get(k as usize)
            .copied()
            .flatten()
            .map(|p| p.kernel)
    }
}

/// An L1 hook that keeps every event (share the handle, read it after the run).
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// The events so far.
    pub events: Arc<Mutex<Vec<L1Event>>>,
}

impl L1Observer for Recorder {
    fn on_access(&mut self, e: &L1Event) {
        self.events.lock().expect("trace lock").push(*e);
    }
}
