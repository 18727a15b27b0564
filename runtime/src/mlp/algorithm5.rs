//! Algorithm 5 proper (MLP-first, CLP-first, Balanced) and its data
//! structures: group bank sets, the pool, bucket queues, the group index and
//! the Balanced SD moments (module docs of [`crate::mlp`]).

use super::*;

/// Fast hasher for the grouping keys (bank-set words): FxHash-style multiply.
#[derive(Default)]
struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Algorithm 5 proper (MLP-first, CLP-first, Balanced); see the module doc.
#[inline(always)]
pub(super) fn algorithm5(
    inst: &IbInstance,
    opts: &MlpOptions,
    dag: Option<&UnitDag>,
) -> IbSchedule {
    let m = inst.blocks.len();
    let n = inst.cores;
    let w = inst.window;
    // Primary / secondary roles.
    let swap = opts.scheme == Scheme::ClpFirst;
    let (pb, sb) = if swap {
        (inst.llc_banks, inst.mem_banks)
    } else {
        (inst.mem_banks, inst.llc_banks)
    };
    let (pw, sw) = (bankset::words_for(pb), bankset::words_for(sb));
    let kw = pw + sw;
    // Group IBs by their (primary set, secondary set); groups are numbered in
    // order of first appearance.
    let mut keys = vec![0u64; m * kw];
    for (i, b) in inst.blocks.iter().enumerate() {
        let (pc, sc) = if swap {
            (&b.llc, &b.mem)
        } else {
            (&b.mem, &b.llc)
        };
        let key = &mut keys[i * kw..(i + 1) * kw];
        for (bank, &c) in pc.iter().enumerate() {
            if c > 0 {
                key[bank / 64] |= 1 << (bank % 64);
            }
        }
        for (bank, &c) in sc.iter().enumerate() {
            if c > 0 {
                key[pw + bank / 64] |= 1 << (bank % 64);
            }
        }
    }
    let mut key_to_group: HashMap<&[u64], u32, BuildHasherDefault<WordHasher>> = HashMap::default();
    let mut group_of = vec![0u32; m];
    let mut reps: Vec<usize> = Vec::new(); // first IB of each group
    for i in 0..m {
        let g = *key_to_group
            .entry(&keys[i * kw..(i + 1) * kw])
            .or_insert_with(|| {
                reps.push(i);
                reps.len() as u32 - 1
            });
        group_of[i] = g;
    }
    let ng = reps.len();
    let mut prim = Vec::with_capacity(ng * pw);
    let mut sec = Vec::with_capacity(ng * sw);
    for &i in &reps {
        prim.extend_from_slice(&keys[i * kw..i * kw + pw]);
        sec.extend_from_slice(&keys[i * kw + pw..(i + 1) * kw]);
    }
    drop(key_to_group);
    drop(keys);
    let sets = [Sets::new(prim, pw, pb), Sets::new(sec, sw, sb)];
    // Sparse per-IB vectors for the SD rule: SD of (c ⊎ x)·η needs only Σx, Σx² and
    // the dot product c·x over x's non-zeros.
    let sparse = if opts.scheme == Scheme::Balanced {
        Some((
            SparseVecs::new(inst.blocks.iter().map(|b| &b.mem[..])),
            SparseVecs::new(inst.blocks.iter().map(|b| &b.llc[..])),
        ))
    } else {
        None
    };
    // Availability (DAG): in-degrees and successors (CSR).
    let mut indeg = vec![0u32; m];
    let mut succ_off = vec![0usize; if dag.is_some() { m + 1 } else { 0 }];
    let mut succ: Vec<u32> = Vec::new();
    if let Some(d) = dag {
        for (v, deg) in indeg.iter_mut().enumerate() {
            *deg = d.preds(v).len() as u32;
            for &u in d.preds(v) {
                succ_off[u as usize + 1] += 1;
            }
        }
        for v in 0..m {
            succ_off[v + 1] += succ_off[v];
        }
        succ = vec![0; succ_off[m]];
        let mut fill = succ_off.clone();
        for v in 0..m {
            for &u in d.preds(v) {
                succ[fill[u as usize]] = v as u32;
                fill[u as usize] += 1;
            }
        }
    }
    let mut pool = Pool::new(m, ng, &group_of, &indeg, dag.is_some());
    let mut index = Index::new(&sets, ng);
    for gi in 0..ng {
        if pool.first(gi).is_some() {
            index.group_filled(&sets, gi);
        }
    }

    let mut windows = Vec::new();
    let mut betas = Vec::new();
    let mut seq: Vec<u32> = Vec::with_capacity(m);
    let mut left = m;
    let mut quota = core_quotas(m, n);
    let mut g_prim = vec![0u64; pw];
    let mut g_sec = vec![0u64; sw];
    let mut l_prim = vec![0u64; pw];
    let mut l_sec = vec![0u64; sw];
    while left > 0 {
        // inter-core vectors of this step
        g_prim.iter_mut().for_each(|x| *x = 0);
        g_sec.iter_mut().for_each(|x| *x = 0);
        index.queues[G_PRIM].live = false;
        index.queues[G_SEC].live = false;
        let mut step = Vec::with_capacity(n);
        for quota_c in quota.iter_mut() {
            let cap = w.min(*quota_c);
            let mut win: Vec<usize> = Vec::with_capacity(cap);
            l_prim.iter_mut().for_each(|x| *x = 0);
            l_sec.iter_mut().for_each(|x| *x = 0);
            index.queues[L_PRIM].live = false;
            index.queues[L_SEC].live = false;
            let mut beta = 1.0f64;
            let mut mlp_done = false;
            while win.len() < cap {
                let Some(head) = pool.head() else { break };
                let pick: u32 = if win.is_empty() {
                    head
                } else if win.len() == 1 && opts.scheme == Scheme::Balanced {
                    // SD rule against the first IB of the window, over one
                    // representative (lowest available id) per group.
                    let (sm, sl) = sparse.as_ref().expect("balanced has sparse vectors");
                    let cur = &inst.blocks[win[0]];
                    let cm = Moments::of(&cur.mem);
                    let cl = Moments::of(&cur.llc);
                    let mut best: Option<(f64, u32, f64, f64)> = None;
                    for gi in 0..ng {
                        let Some(x) = pool.first(gi) else { continue };
                        let sdm = sm.sd_with(x as usize, &cur.mem, cm, opts.eta_mem);
                        let sdc = sl.sd_with(x as usize, &cur.llc, cl, opts.eta_llc);
                        let v = sdm + sdc;
                        let better = match best {
                            None => true,
                            Some((bv, bx, ..)) => v < bv - 1e-9 || (v <= bv + 1e-9 && x < bx),
                        };
                        if better {
                            best = Some((v, x, sdm, sdc));
                        }
                    }
                    let (_, x, sdm, sdc) = best.expect("pool not empty");
                    beta = if sdm + sdc > 0.0 {
                        sdm / (sdm + sdc)
                    } else {
                        0.5
                    };
                    x
                } else {
                    let mut chosen = None;
                    if !mlp_done {
                        if (bankset::count(&g_prim) as f64) >= beta * pb as f64 - 1e-9 {
                            mlp_done = true;
                        } else {
                            chosen = index
                                .lazy_pick(G_PRIM, &sets, &pool, &g_prim)
                                .or_else(|| index.lazy_pick(L_PRIM, &sets, &pool, &l_prim));
                            if chosen.is_none() {
                                mlp_done = true;
                            }
                        }
                    }
                    if chosen.is_none() {
                        chosen = index
                            .lazy_pick(G_SEC, &sets, &pool, &g_sec)
                            .or_else(|| index.lazy_pick(L_SEC, &sets, &pool, &l_sec));
                    }
                    chosen.unwrap_or(head)
                };
                // take `pick` (always the lowest available IB of its group)
                let gi = group_of[pick as usize] as usize;
                pool.take(gi, pick);
                if pool.first(gi).is_none() {
                    index.group_emptied(&sets, gi);
                }
                let (gp, gs) = (sets[0].set(gi), sets[1].set(gi));
                bankset::or_into(&mut g_prim, gp);
                bankset::or_into(&mut l_prim, gp);
                bankset::or_into(&mut g_sec, gs);
                bankset::or_into(&mut l_sec, gs);
                win.push(pick as usize);
                seq.push(pick);
                if dag.is_some() {
                    for &s2 in &succ[succ_off[pick as usize]..succ_off[pick as usize + 1]] {
                        indeg[s2 as usize] -= 1;
                        if indeg[s2 as usize] == 0 {
                            let g2 = group_of[s2 as usize] as usize;
                            let was_empty = pool.first(g2).is_none();
                            pool.release(g2, s2);
                            if was_empty {
                                index.group_filled(&sets, g2);
                                // back into every live queue with its size as upper bound
                                for h in [G_PRIM, L_PRIM, G_SEC, L_SEC] {
                                    let q = &mut index.queues[h];
                                    if q.live {
                                        q.push(sets[h / 2].size[g2], g2);
                                    }
                                }
                            }
                        }
                    }
                }
                left -= 1;
            }
            *quota_c -= win.len();
            betas.push(beta);
            step.push(win);
        }
        windows.push(step);
    }
    IbSchedule {
        windows,
        beta: betas,
        seq,
    }
}

const G_PRIM: usize = 0;
const L_PRIM: usize = 1;
const G_SEC: usize = 2;
const L_SEC: usize = 3;

/// Bank sets of the groups in one role (primary or secondary), flat words.
struct Sets {
    words: Vec<u64>,
    stride: usize,
    banks: usize,
    size: Vec<usize>,
}

impl Sets {
    fn new(words: Vec<u64>, stride: usize, banks: usize) -> Sets {
        let size = words.chunks(stride).map(bankset::count).collect();
        Sets {
            words,
            stride,
            banks,
            size,
        }
    }
    #[inline(always)]
    fn set(&self, g: usize) -> &[u64] {
        &self.words[g * self.stride..(g + 1) * self.stride]
    }
}

/// The available IBs: a bitset with a cursor for the lowest one (the head of
/// the pool) and, per group, its available members lowest first (a cursor into
/// the sorted member list without a DAG; a min-heap with one, where members
/// become available in dependence order).
struct Pool {
    bits: Vec<u64>,
    cursor: usize,
    members: Vec<u32>,
    member_off: Vec<usize>,
    next: Vec<usize>,
    heaps: Vec<BinaryHeap<Reverse<u32>>>,
}

impl Pool {
    fn new(m: usize, ng: usize, group_of: &[u32], indeg: &[u32], with_dag: bool) -> Pool {
        let mut bits = vec![0u64; m.div_ceil(64)];
        let mut member_off = vec![0usize; ng + 1];
        let mut members = Vec::new();
        let mut heaps = Vec::new();
        if with_dag {
            heaps = vec![BinaryHeap::new(); ng];
            for i in 0..m {
                if indeg[i] == 0 {
                    bits[i / 64] |= 1 << (i % 64);
                    heaps[group_of[i] as usize].push(Reverse(i as u32));
                }
            }
        } else {
            for &g in group_of {
                member_off[g as usize + 1] += 1;
            }
            for g in 0..ng {
                member_off[g + 1] += member_off[g];
            }
            members = vec![0u32; m];
            let mut fill = member_off.clone();
            for i in 0..m {
                let g = group_of[i] as usize;
                members[fill[g]] = i as u32;
                fill[g] += 1;
                bits[i / 64] |= 1 << (i % 64);
            }
        }
        Pool {
            bits,
            cursor: 0,
            next: member_off[..ng].to_vec(),
            members,
            member_off,
            heaps,
        }
    }

    /// Lowest available IB.
    #[inline]
    fn head(&mut self) -> Option<u32> {
        while self.cursor < self.bits.len() {
            let x = self.bits[self.cursor];
            if x != 0 {
                return Some((self.cursor * 64) as u32 + x.trailing_zeros());
            }
            self.cursor += 1;
        }
        None
    }

    /// Lowest available IB of group `g`.
    #[inline]
    fn first(&self, g: usize) -> Option<u32> {
        if self.heaps.is_empty() {
            let k = self.next[g];
            (k < self.member_off[g + 1]).then(|| self.members[k])
        } else {
            self.heaps[g].peek().map(|r| r.0)
        }
    }

    /// Removes `ib`, which must be `first(g)`.
    fn take(&mut self, g: usize, ib: u32) {
        debug_assert_eq!(self.first(g), Some(ib));
        if self.heaps.is_empty() {
            self.next[g] += 1;
        } else {
            self.heaps[g].pop();
        }
        self.bits[ib as usize / 64] &= !(1 << (ib % 64));
    }

    /// Makes `ib` (of group `g`) available (DAG only).
    fn release(&mut self, g: usize, ib: u32) {
        self.heaps[g].push(Reverse(ib));
        self.bits[ib as usize / 64] |= 1 << (ib % 64);
        self.cursor = self.cursor.min(ib as usize / 64);
    }
}

/// Bucket queue of (gain upper bound, group) entries, popped in the order of a
/// max-heap on (gain, lowest group first): gains are at most the number of
/// banks, so each gain value has a bitset over the groups. Equal entries are
/// stored once (a duplicate never changes which group the lazy greedy returns).
#[derive(Clone)]
struct Buckets {
    gw: usize,
    bits: Vec<u64>,
    len: Vec<u32>,
    lo: Vec<usize>,
    total: usize,
    top: usize,
    live: bool,
}

impl Buckets {
    fn new(max_key: usize, groups: usize) -> Buckets {
        let gw = groups.div_ceil(64).max(1);
        Buckets {
            gw,
            bits: vec![0; (max_key + 1) * gw],
            len: vec![0; max_key + 1],
            lo: vec![0; max_key + 1],
            total: 0,
            top: 0,
            live: false,
        }
    }

    #[inline]
    fn push(&mut self, key: usize, g: usize) {
        let wi = key * self.gw + g / 64;
        let bit = 1u64 << (g % 64);
        if self.bits[wi] & bit == 0 {
            self.bits[wi] |= bit;
            self.len[key] += 1;
            self.total += 1;
            self.top = self.top.max(key);
            self.lo[key] = self.lo[key].min(g / 64);
        }
    }

    #[inline]
    fn remove(&mut self, key: usize, g: usize) {
        let wi = key * self.gw + g / 64;
        let bit = 1u64 << (g % 64);
        if self.bits[wi] & bit != 0 {
            self.bits[wi] &= !bit;
            self.len[key] -= 1;
            self.total -= 1;
        }
    }

    /// Largest key present.
    #[inline]
    fn peek_key(&mut self) -> Option<usize> {
        if self.total == 0 {
            return None;
        }
        while self.len[self.top] == 0 {
            self.top -= 1;
        }
        Some(self.top)
    }

    /// Removes and returns the entry with the largest key, lowest group first.
    #[inline]
    fn pop(&mut self) -> Option<(usize, usize)> {
        let key = self.peek_key()?;
        let row = &mut self.bits[key * self.gw..(key + 1) * self.gw];
        let mut k = self.lo[key];
        while row[k] == 0 {
            k += 1;
        }
        self.lo[key] = k;
        let g = k * 64 + row[k].trailing_zeros() as usize;
        row[k] &= row[k] - 1;
        self.len[key] -= 1;
        self.total -= 1;
        Some((key, g))
    }

    fn clear(&mut self) {
        self.bits.iter_mut().for_each(|x| *x = 0);
        self.len.iter_mut().for_each(|x| *x = 0);
        self.total = 0;
        self.top = 0;
    }

    fn copy_from(&mut self, o: &Buckets) {
        self.bits.copy_from_slice(&o.bits);
        self.len.copy_from_slice(&o.len);
        self.lo.copy_from_slice(&o.lo);
        self.total = o.total;
        self.top = o.top;
    }
}

/// The selection index: for each covered vector (inter/intra-core ×
/// primary/secondary) a lazy queue of group gains, plus per role the template
/// queue every new queue starts from (each non-empty group keyed by its size) and
/// the union of the non-empty groups' sets (per-bank group counts).
struct Index {
    queues: [Buckets; 4],
    templates: [Buckets; 2],
    bank_groups: [Vec<u32>; 2],
    union: [Vec<u64>; 2],
}

impl Index {
    fn new(sets: &[Sets; 2], ng: usize) -> Index {
        let b = |r: usize| Buckets::new(sets[r].banks, ng);
        Index {
            queues: [b(0), b(0), b(1), b(1)],
            templates: [b(0), b(1)],
            bank_groups: [vec![0; sets[0].banks], vec![0; sets[1].banks]],
            union: [vec![0; sets[0].stride], vec![0; sets[1].stride]],
        }
    }

    // `r` (0 = primary, 1 = secondary) indexes `sets` and three per-resource fields.
    #[allow(clippy::needless_range_loop)]
    fn group_filled(&mut self, sets: &[Sets; 2], g: usize) {
        for r in 0..2 {
            self.templates[r].push(sets[r].size[g], g);
            for (wi, &x) in sets[r].set(g).iter().enumerate() {
                let mut x = x;
                while x != 0 {
                    let b = wi * 64 + x.trailing_zeros() as usize;
                    x &= x - 1;
                    self.bank_groups[r][b] += 1;
                    if self.bank_groups[r][b] == 1 {
                        self.union[r][wi] |= 1 << (b % 64);
                    }
                }
            }
        }
    }

    // `r` (0 = primary, 1 = secondary) indexes `sets` and three per-resource fields.
    #[allow(clippy::needless_range_loop)]
    fn group_emptied(&mut self, sets: &[Sets; 2], g: usize) {
        for r in 0..2 {
            self.templates[r].remove(sets[r].size[g], g);
            for (wi, &x) in sets[r].set(g).iter().enumerate() {
                let mut x = x;
                while x != 0 {
                    let b = wi * 64 + x.trailing_zeros() as usize;
                    x &= x - 1;
                    self.bank_groups[r][b] -= 1;
                    if self.bank_groups[r][b] == 0 {
                        self.union[r][wi] &= !(1 << (b % 64));
                    }
                }
            }
        }
    }

    /// Lazy greedy (gains only shrink while `covered` grows): the lowest available
    /// IB of the group adding most bits to `covered`, or None when nothing adds a
    /// bit. A queue is built (copied from its role's template) on first use after
    /// its vector was reset.
    #[inline]
    fn lazy_pick(
        &mut self,
        h: usize,
        sets: &[Sets; 2],
        pool: &Pool,
        covered: &[u64],
    ) -> Option<u32> {
        let r = h / 2;
        let q = &mut self.queues[h];
        if !q.live {
            q.copy_from(&self.templates[r]);
            q.live = true;
        }
        if q.total == 0 {
            return None;
        }
        if bankset::count_new(&self.union[r], covered) == 0 {
            // No available group adds a bit: the lazy greedy would pop and drop
            // every entry.
            q.clear();
            return None;
        }
        while let Some((_, gi)) = q.pop() {
            let Some(first) = pool.first(gi) else {
                continue; // re-pushed when it gets an available IB again
            };
            let gain = bankset::count_new(sets[r].set(gi), covered);
            if gain == 0 {
                continue; // covered only grows while this queue lives
            }
            let top = q.peek_key().unwrap_or(0);
            q.push(gain, gi);
            if gain >= top {
                return Some(first);
            }
        }
        None
    }
}

/// (Σc, Σc²) of a count vector.
#[derive(Clone, Copy)]
struct Moments(f64, f64);

impl Moments {
    fn of(c: &[u32]) -> Moments {
        c.iter().fold(Moments(0.0, 0.0), |m, &x| {
            let x = x as f64;
            Moments(m.0 + x, m.1 + x * x)
        })
    }
}

/// Non-zeros of every IB's count vector (CSR) with Σx and Σx².
struct SparseVecs {
    off: Vec<usize>,
    idx: Vec<u32>,
    val: Vec<f64>,
    sum: Vec<f64>,
    sumsq: Vec<f64>,
}

impl SparseVecs {
    fn new<'a>(vs: impl Iterator<Item = &'a [u32]>) -> Self {
        let mut s = SparseVecs {
            off: vec![0],
            idx: Vec::new(),
            val: Vec::new(),
            sum: Vec::new(),
            sumsq: Vec::new(),
        };
        for v in vs {
            let start = s.idx.len();
            for (i, &c) in v.iter().enumerate() {
                if c > 0 {
                    s.idx.push(i as u32);
                    s.val.push(c as f64);
                }
            }
            let nz = &s.val[start..];
            s.sum.push(nz.iter().sum());
            s.sumsq.push(nz.iter().map(|x| x * x).sum());
            s.off.push(s.idx.len());
        }
        s
    }

    /// Population SD of (c + x_ib)·η, equal to `sd_of_sum(c, x_ib, η)`.
    fn sd_with(&self, ib: usize, c: &[u32], cm: Moments, eta: f64) -> f64 {
        let n = c.len() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let (cs, css) = (cm.0, cm.1);
        let r = self.off[ib]..self.off[ib + 1];
        let dot: f64 = self.idx[r.clone()]
            .iter()
            .zip(&self.val[r])
            .map(|(&i, &x)| c[i as usize] as f64 * x)
            .sum();
        let sum = cs + self.sum[ib];
        let sumsq = css + 2.0 * dot + self.sumsq[ib];
        let var = (sumsq / n - (sum / n).powi(2)).max(0.0);
        var.sqrt() * eta
    }
}
