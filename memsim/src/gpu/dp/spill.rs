//! DTBL's AGT spill read through the memory model (digest §1.1 "an AGT miss adds a
//! global-memory access when the AG is scheduled", §1.7 "issue a real 20 B read"):
//! the front end's side. A marked kernel whose NAGEI group holds an overflowed entry
//! is blocked ([`super::dtbl::Dtbl::blocked`]) until the entry's line, read by the SM of
//! the launching thread through the crossbar, L2 and DRAM, returns; the engine issues
//! the reads ([`FrontEnd::take_agt_reads`]) and routes their completions
//! ([`super::dtbl::is_agt_token`]) to [`FrontEnd::agt_read_done`].

use crate::gpu::frontend::FrontEnd;

impl FrontEnd {
    /// Queues the read of every overflowed AGT entry that a marked kernel waits
    /// for (its NAGEI group, once its native TBs are out) and that was not asked
    /// for yet, with up to `agt_prefetch - 1` overflowed entries after it along
    /// the Next chain; the requester is the SM of the group's launching thread.
    pub(crate) fn request_agt_loads(&mut self, t: u64) {
        let Some(u) = self.dp.as_mut() else {
            return;
        };
        let Some(d) = u.dtbl.as_ref() else {
            return;
        };
        let ahead = u.g.device_launch.agt_prefetch.max(1);
        let want: Vec<(u32, u64)> = d
            .marked()
            .filter_map(|k| match d.pending_load(k) {
                Some(r @ super::dtbl::AgeRef::Global(_)) => Some(d.unloaded_from(r, ahead)),
                _ => None,
            })
            .flatten()
            .map(|i| (i, d.entry_group(super::dtbl::AgeRef::Global(i))))
            .collect();
        for (i, group) in want {
            if u.agt_requested.contains_key(&i) {
                continue;
            }
            let sm = self.kernels[group as usize].parent.map_or(0, |p| p.sm);
            u.agt_requested.insert(i, t);
            u.agt_out.push((sm, i));
        }
    }

    /// AGT entry reads to issue now: (requesting SM, byte address, token).
    pub fn take_agt_reads(&mut self) -> Vec<(u32, u64, u64)> {
        let Some(u) = self.dp.as_mut() else {
            return Vec::new();
        };
        let bytes = u.g.device_launch.agt_entry_bytes;
        std::mem::take(&mut u.agt_out)
            .into_iter()
            .map(|(sm, i)| {
                (
                    sm,
                    super::dtbl::spill_addr(i, bytes),
                    super::dtbl::AGT_TOKEN | i as u64,
                )
            })
            .collect()
    }

    /// An entry read (`token`) the memory side refused: issue it again later.
    pub fn retry_agt_read(&mut self, sm: u32, token: u64) {
        if let Some(u) = self.dp.as_mut() {
            u.agt_out.push((sm, (token & 0xFFFF_FFFF) as u32));
        }
    }

    /// The entry read `token` returned at `t`: its group may be scheduled.
    pub fn agt_read_done(&mut self, token: u64, t: u64) {
        let Some(u) = self.dp.as_mut() else {
            return;
        };
        let i = (token & 0xFFFF_FFFF) as u32;
        let Some(since) = u.agt_requested.remove(&i) else {
            return;
        };
        u.stats.agt_spill_reads += 1;
        u.stats.agt_spill_cycles += t - since;
        if let Some(d) = u.dtbl.as_mut() {
            d.set_loaded(super::dtbl::AgeRef::Global(i));
        }
    }
}
