//! TCM: thread cluster memory scheduling (Kim, Papamichael, Mutlu and Harchol-Balter,
//! MICRO 2010).
//!
//! Time is divided into quanta (paper: 1M cycles; here `quantum` DRAM cycles, default
//! 1,000,000). At the end of each quantum threads are clustered by the memory
//! intensity they showed in it: sorted from least to most intense, threads join the
//! *latency-sensitive* cluster while their cumulative bandwidth use stays within
//! `cluster_thresh` of the total (paper: 4/24), the rest form the
//! *bandwidth-sensitive* cluster. Latency-sensitive threads always have priority over
//! bandwidth-sensitive ones and are ranked by intensity (lightest first). Inside the
//! bandwidth-sensitive cluster ranks are reshuffled every `shuffle_interval` cycles
//! (paper: 800): threads are ordered by *niceness* (high bank-level parallelism is
//! nice, high row-buffer locality is not) and the order is rotated each interval so
//! every thread gets the top rank in turn, with a seeded random shuffle instead when
//! the cluster's niceness values are all equal (the paper's fallback for similar
//! threads); the ranking computed at a quantum boundary holds for a whole shuffle
//! interval. Request order: (1) higher thread rank, (2) row hit, (3) oldest.
//!
//! Simplifications: memory intensity is requests per quantum (the controller sees no
//! instruction counts, so not MPKI); bandwidth use is requests served; each controller
//! clusters from its own observations (no meta-controller); the first quantum treats
//! every thread as latency-sensitive.

use crate::cache::mshr::IntMap;
use crate::dram::channel::CommandKind;
use crate::dram::scheduler::{Candidate, MemScheduler, QueuedRequest};

#[derive(Debug, Clone, Default)]
struct ThreadStat {
    requests: u64,
    served: u64,
    hits: u64,
    blp_samples: u64,
    blp_sum: u64,
}

/// The TCM policy of one controller.
#[derive(Debug, Clone)]
pub struct Tcm {
    /// Quantum length (DRAM cycles).
    pub quantum: u64,
    /// Share of bandwidth the latency-sensitive cluster may use.
    pub cluster_thresh: f64,
    /// Cycles between rank shuffles of the bandwidth-sensitive cluster.
    pub shuffle_interval: u64,
    stats: IntMap<u32, ThreadStat>,
    /// Rank per thread (higher wins).
    rank: IntMap<u32, u64>,
    bw_cluster: Vec<u32>,
    bw_base: u64,
    quantum_end: u64,
    next_shuffle: u64,
    rotation: usize,
    random_shuffle: bool,
    rng: u64,
    bank_seen: IntMap<u64, ()>,
}

impl Tcm {
    /// TCM with the paper's parameters and a shuffle seed.
    pub fn new(seed: u64) -> Self {
        Tcm::with_params(1_000_000, 4.0 / 24.0, 800, seed)
    }

    /// TCM with explicit parameters.
    pub fn with_params(
        quantum: u64,
        cluster_thresh: f64,
        shuffle_interval: u64,
        seed: u64,
    ) -> Self {
        Tcm {
            quantum: quantum.max(1),
            cluster_thresh,
            shuffle_interval: shuffle_interval.max(1),
            stats: IntMap::default(),
            rank: IntMap::default(),
            bw_cluster: Vec::new(),
            bw_base: 0,
            quantum_end: quantum.max(1),
            next_shuffle: shuffle_interval.max(1),
            rotation: 0,
            random_shuffle: false,
            rng: seed ^ 0x2545_f491_4f6c_dd1d,
            bank_seen: IntMap::default(),
        }
    }

    /// Threads currently in the bandwidth-sensitive cluster.
    pub fn bandwidth_cluster(&self) -> &[u32] {
        &self.bw_cluster
    }

    fn next_rand(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn recluster(&mut self) {
        let mut threads: Vec<(u64, u32)> =
            self.stats.iter().map(|(&t, s)| (s.requests, t)).collect();
        threads.sort_unstable();
        let total: u64 = self.stats.values().map(|s| s.served.max(s.requests)).sum();
        let budget = (total as f64 * self.cluster_thresh) as u64;
        self.rank.clear();
        self.bw_cluster.clear();
        let mut used = 0u64;
        let n = threads.len() as u64;
        // Latency-sensitive ranks sit above every bandwidth-sensitive rank.
        self.bw_base = 0;
        let mut latency = Vec::new();
        for &(_, t) in &threads {
            let s = &self.stats[&t];
            let bw = s.served.max(s.requests);
            if used + bw <= budget {
                used += bw;
                latency.push(t);
            } else {
                self.bw_cluster.push(t);
            }
        }
        for (i, &t) in latency.iter().enumerate() {
            self.rank.insert(t, 2 * n + (n - i as u64));
        }
        // Niceness = BLP rank - RBL rank; nicer threads first.
        let mut nice: Vec<(i64, u32)> = self
            .bw_cluster
            .iter()
            .map(|&t| {
                let s = &self.stats[&t];
                let blp = (s.blp_sum * 1000).checked_div(s.blp_samples).unwrap_or(0);
                let rbl = (s.hits * 1000).checked_div(s.served).unwrap_or(0);
                (blp as i64 - rbl as i64, t)
            })
            .collect();
        nice.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.random_shuffle = nice.windows(2).all(|w| w[0].0 == w[1].0) && nice.len() > 1;
        self.bw_cluster = nice.into_iter().map(|(_, t)| t).collect();
        self.rotation = 0;
        self.apply_bw_ranks();
        for s in self.stats.values_mut() {
            *s = ThreadStat::default();
        }
    }

    fn apply_bw_ranks(&mut self) {
        let n = self.bw_cluster.len();
        for i in 0..n {
            let t = self.bw_cluster[(i + self.rotation) % n];
            self.rank.insert(t, (n - i) as u64);
        }
    }

    fn shuffle(&mut self) {
        let n = self.bw_cluster.len();
        if n < 2 {
            return;
        }
        if self.random_shuffle {
            for i in (1..n).rev() {
                let j = (self.next_rand() % (i as u64 + 1)) as usize;
                self.bw_cluster.swap(i, j);
            }
        } else {
            self.rotation = (self.rotation + 1) % n;
        }
        self.apply_bw_ranks();
    }
}

impl MemScheduler for Tcm {
    fn name(&self) -> &'static str {
        "tcm"
    }

    fn wants_prepare(&self) -> bool {
        true
    }

    fn prepare(&mut self, now: u64, queued: &mut [QueuedRequest]) {
        if now >= self.quantum_end {
            self.recluster();
            while self.quantum_end <= now {
                self.quantum_end += self.quantum;
            }
            // the fresh ranking (nicest bandwidth-sensitive thread on top) holds
            // for a whole shuffle interval
            self.next_shuffle = now + self.shuffle_interval;
        }
        if now >= self.next_shuffle {
            self.shuffle();
            while self.next_shuffle <= now {
                self.next_shuffle += self.shuffle_interval;
            }
        }
        // Sample each thread's bank-level parallelism: banks it has requests in.
        self.bank_seen.clear();
        for r in queued.iter() {
            self.bank_seen
                .insert(((r.source as u64) << 32) | r.bank as u64, ());
        }
        let mut per: IntMap<u32, u64> = IntMap::default();
        for &k in self.bank_seen.keys() {
            *per.entry((k >> 32) as u32).or_insert(0) += 1;
        }
        for (t, b) in per {
            let s = self.stats.entry(t).or_default();
            s.blp_samples += 1;
            s.blp_sum += b;
        }
    }

    fn on_arrival(&mut self, _now: u64, req: &mut QueuedRequest) {
        self.stats.entry(req.source).or_default().requests += 1;
    }

    fn on_complete(&mut self, _now: u64, req: &QueuedRequest) {
        let s = self.stats.entry(req.source).or_default();
        s.served += 1;
        if matches!(req.first_cmd, Some(CommandKind::Rd) | Some(CommandKind::Wr)) {
            s.hits += 1;
        }
    }

    fn priority(&mut self, _now: u64, c: &Candidate<'_>) -> Option<u64> {
        let rank = self
            .rank
            .get(&c.req.source)
            .copied()
            .unwrap_or(u32::MAX as u64);
        if c.command == CommandKind::Pre && c.bank_has_hits {
            return None;
        }
        let hit = matches!(c.command, CommandKind::Rd | CommandKind::Wr);
        Some((rank << 1) | hit as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(source: u32, bank: u32, seq: u64) -> QueuedRequest {
        QueuedRequest {
            seq,
            arrival: seq,
            source,
            is_write: false,
            addr: seq * 64,
            bank,
            row: 0,
            column: 0,
            tag: seq,
            sched_state: 0,
            first_cmd: None,
            in_service: false,
        }
    }

    fn prio(t: &mut Tcm, r: &QueuedRequest, command: CommandKind) -> Option<u64> {
        t.priority(
            0,
            &Candidate {
                req: r,
                command,
                row_hit: matches!(command, CommandKind::Rd | CommandKind::Wr),
                oldest_in_bank: false,
                bank_has_hits: false,
                hits_since_act: 0,
            },
        )
    }

    /// Feeds `n` served requests of `thread` (no row hits).
    fn load(t: &mut Tcm, thread: u32, n: u64) {
        for i in 0..n {
            let mut r = req(thread, (i % 8) as u32, i);
            t.on_arrival(0, &mut r);
            r.first_cmd = Some(CommandKind::Act);
            t.on_complete(0, &r);
        }
    }

    #[test]
    fn paper_parameters_by_default() {
        let t = Tcm::new(1);
        assert_eq!(t.quantum, 1_000_000);
        assert_eq!(t.shuffle_interval, 800);
        assert!((t.cluster_thresh - 4.0 / 24.0).abs() < 1e-12);
    }

    /// Light threads (few requests per quantum, the controller's stand-in for low
    /// MPKI) form the latency-sensitive cluster and beat heavy threads even when
    /// the heavy thread's request is a row hit.
    #[test]
    fn light_threads_are_latency_sensitive_and_served_first() {
        let mut t = Tcm::with_params(1000, 0.25, 100, 7);
        load(&mut t, 0, 10); // light
        load(&mut t, 1, 10); // light
        load(&mut t, 2, 200); // heavy
        load(&mut t, 3, 300); // heavy
        t.prepare(1000, &mut []);
        // total 520, budget 130: threads 0 and 1 (20) fit, 2 does not
        assert_eq!(
            {
                let mut b = t.bandwidth_cluster().to_vec();
                b.sort();
                b
            },
            vec![2, 3]
        );
        let light = req(0, 0, 1);
        let lighter_rank = prio(&mut t, &light, CommandKind::Act).unwrap();
        let heavy_hit = prio(&mut t, &req(3, 0, 0), CommandKind::Rd).unwrap();
        let heavy2_hit = prio(&mut t, &req(2, 0, 0), CommandKind::Rd).unwrap();
        assert!(lighter_rank > heavy_hit && lighter_rank > heavy2_hit);
        // inside the latency-sensitive cluster the lighter thread ranks higher
        let mut t = Tcm::with_params(1000, 0.5, 100, 7);
        load(&mut t, 0, 5);
        load(&mut t, 1, 20);
        load(&mut t, 2, 200);
        t.prepare(1000, &mut []);
        assert!(
            prio(&mut t, &req(0, 0, 0), CommandKind::Act)
                > prio(&mut t, &req(1, 0, 0), CommandKind::Act)
        );
    }

    /// The bandwidth-sensitive ranking rotates every shuffle interval so each
    /// thread holds the top rank once per cycle of intervals, starting with the
    /// nicest (highest bank-level parallelism, lowest row-buffer locality).
    #[test]
    fn bandwidth_cluster_ranks_rotate_each_shuffle_interval() {
        let mut t = Tcm::with_params(1000, 0.0, 100, 7);
        // thread 5: BLP 4 banks, no hits (nicest); 6: BLP 2; 7: BLP 1 (least nice)
        for (thread, banks) in [(5u32, 4u32), (6, 2), (7, 1)] {
            let mut q: Vec<QueuedRequest> = (0..banks).map(|b| req(thread, b, b as u64)).collect();
            t.prepare(0, &mut q);
            load(&mut t, thread, 50);
        }
        t.prepare(1000, &mut []);
        assert_eq!(t.bandwidth_cluster(), &[5, 6, 7]);
        let top = |t: &mut Tcm| {
            (5..8u32)
                .max_by_key(|&th| prio(t, &req(th, 0, 0), CommandKind::Act).unwrap())
                .unwrap()
        };
        assert_eq!(top(&mut t), 5);
        let mut tops = vec![];
        for k in 1..=3u64 {
            // next_shuffle was 100 and is now past; each call crosses one interval
            t.prepare(1000 + k * 100, &mut []);
            tops.push(top(&mut t));
        }
        assert_eq!(tops, vec![6, 7, 5]);
    }
}
