//! Memory-request schedulers: which queued request gets the command bus.
//!
//! The controller calls [`MemScheduler::priority`] for every queued request
//! whose next command (ACT, PRE, RD or WR, as its bank's state requires) may be
//! issued this cycle, and issues the command of the request with the highest
//! priority; ties go to the oldest request (lowest `seq`). `None` means "not
//! eligible now". Schedulers may keep their own state (hooks for arrival,
//! command issue and completion, and a `prepare` pass over all queued requests
//! before each decision, e.g. for PAR-BS batching or TCM clustering), and each
//! request carries a scheduler-private word ([`QueuedRequest::sched_state`]).
//!
//! * [`Fcfs`]: requests of a bank are served strictly in arrival order; across
//!   banks the oldest ready request goes first.
//! * [`FrFcfs`] (Rixner et al., ISCA 2000; the default of Tables 4.2 and 5.2):
//!   row hits first, then the oldest. A precharge that would close a row with
//!   pending hits is not issued — unless `row_hit_cap` hits were already served
//!   since the row was opened (DRAMsim3 uses 4 to bound starvation; 0 = no cap).
//!   Between banks either row hits then age (`bank_arbitration = "oldest"`) or
//!   round-robin from the bank after the last command (`"round-robin"`, DRAMsim3).

use crate::config::{BankArbitration, SchedulerKind};

use super::channel::CommandKind;

/// A request waiting in a controller (the scheduler's view).
#[derive(Debug, Clone)]
pub struct QueuedRequest {
    /// Arrival order within the channel (unique, increasing).
    pub seq: u64,
    /// Arrival cycle.
    pub arrival: u64,
    /// Source (core or thread) id.
    pub source: u32,
    /// True for writes.
    pub is_write: bool,
    /// Burst-aligned address.
    pub addr: u64,
    /// Bank inside the channel.
    pub bank: u32,
    /// Row.
    pub row: u32,
    /// Column (in bursts).
    pub column: u32,
    /// Caller's tag, returned on completion.
    pub tag: u64,
    /// Scheduler-private state (0 on arrival).
    pub sched_state: u64,
    /// The first command issued on this request's behalf, once there is one.
    pub first_cmd: Option<CommandKind>,
    /// Whether the bank is serving this request (ACT issued for it, or column command).
    pub in_service: bool,
}

/// A request whose next command is ready this cycle.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// The request.
    pub req: &'a QueuedRequest,
    /// The command it needs next.
    pub command: CommandKind,
    /// True if its row is open in its bank (the command is RD/WR).
    pub row_hit: bool,
    /// True if it is the oldest queued request of its bank.
    pub oldest_in_bank: bool,
    /// True if some queued request of the bank hits the open row.
    pub bank_has_hits: bool,
    /// Column commands served since the bank's row was opened.
    pub hits_since_act: u32,
}

/// A request-scheduling policy of a memory controller.
pub trait MemScheduler: Send {
    /// Name (kebab-case, as in the config).
    fn name(&self) -> &'static str;

    /// Priority of a ready candidate (larger wins; ties go to the oldest), or
    /// `None` if it must not be served now.
    fn priority(&mut self, now: u64, c: &Candidate<'_>) -> Option<u64>;

    /// Whether [`prepare`](Self::prepare) must be called before each decision.
    fn wants_prepare(&self) -> bool {
        false
    }

    /// True if [`priority`](Self::priority) depends on a candidate only through
    /// its command, bank, `row_hit`, `oldest_in_bank`, `bank_has_hits` and
    /// `hits_since_act` (never on the request's age, source or state) and does
    /// not change the scheduler's state. The controller may then evaluate, per
    /// bank, only the oldest request of each command class (plus the bank's
    /// first eligible request), which gives the same decision as evaluating
    /// every request. Default: false (every ready request is evaluated).
    fn class_uniform(&self) -> bool {
        false
    }

    /// Called before each decision with every queued request, oldest first.
    fn prepare(&mut self, _now: u64, _queued: &mut [QueuedRequest]) {}

    /// A request arrived.
    fn on_arrival(&mut self, _now: u64, _req: &mut QueuedRequest) {}

    /// A command was issued for `req`.
    fn on_command(&mut self, _now: u64, _req: &QueuedRequest, _cmd: CommandKind) {}

    /// `req`'s column command was issued; it leaves the queue.
    fn on_complete(&mut self, _now: u64, _req: &QueuedRequest) {}
}

/// First come, first served (in order per bank).
#[derive(Debug, Clone, Default)]
pub struct Fcfs;

impl MemScheduler for Fcfs {
    fn name(&self) -> &'static str {
        "fcfs"
    }
    #[inline]
    fn priority(&mut self, _now: u64, c: &Candidate<'_>) -> Option<u64> {
        c.oldest_in_bank.then_some(0)
    }
    fn class_uniform(&self) -> bool {
        true
    }
}

/// First ready, first come first served.
#[derive(Debug, Clone, Default)]
pub struct FrFcfs {
    /// Hits served after which a pending conflict may close the row (0 = never).
    pub row_hit_cap: u32,
    /// Order between banks.
    pub arbitration: BankArbitration,
    /// Banks per channel (for round-robin).
    pub banks: u32,
    /// Bank of the last command (round-robin pointer).
    pub last_bank: u32,
}

impl MemScheduler for FrFcfs {
    fn name(&self) -> &'static str {
        "fr-fcfs"
    }
    #[inline]
    fn priority(&mut self, _now: u64, c: &Candidate<'_>) -> Option<u64> {
        let capped = self.row_hit_cap > 0 && c.hits_since_act >= self.row_hit_cap;
        if c.command == CommandKind::Pre && c.bank_has_hits && !capped {
            return None;
        }
        match self.arbitration {
            BankArbitration::Oldest => Some(u64::from(
                matches!(c.command, CommandKind::Rd | CommandKind::Wr) && !capped,
            )),
            BankArbitration::RoundRobin => {
                // distance after the last bank: 1 is served first; inside a bank the
                // oldest ready request wins (hits are the only ready ones unless capped)
                let n = self.banks.max(1);
                let dist = (c.req.bank + n - self.last_bank - 1) % n;
                Some((n - dist) as u64)
            }
        }
    }
    fn on_command(&mut self, _now: u64, req: &QueuedRequest, _cmd: CommandKind) {
        self.last_bank = req.bank;
    }
    fn class_uniform(&self) -> bool {
        true
    }
}

/// Build the scheduler a DRAM config names, for a channel of `banks` banks.
pub fn build(cfg: &crate::config::DramConfig, banks: u32) -> Box<dyn MemScheduler> {
    match build_policy(cfg, banks) {
        Policy::Fcfs(s) => Box::new(s),
        Policy::FrFcfs(s) => Box::new(s),
        Policy::Dyn(s) => s,
    }
}

/// The controller's scheduler: the built-in policies by value, so that their
/// per-candidate [`MemScheduler::priority`] is a direct, inlined call on the
/// scheduling hot path, and any other policy behind a trait object. Every
/// method forwards to the policy's [`MemScheduler`] implementation.
pub(crate) enum Policy {
    Fcfs(Fcfs),
    FrFcfs(FrFcfs),
    Dyn(Box<dyn MemScheduler>),
}

/// [`build`] as a [`Policy`].
pub(crate) fn build_policy(cfg: &crate::config::DramConfig, banks: u32) -> Policy {
    match cfg.scheduler {
        SchedulerKind::Fcfs => Policy::Fcfs(Fcfs),
        SchedulerKind::FrFcfs => Policy::FrFcfs(FrFcfs {
            row_hit_cap: cfg.row_hit_cap,
            arbitration: cfg.bank_arbitration,
            banks,
            last_bank: 0,
        }),
    }
}

macro_rules! forward {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            Policy::Fcfs($s) => $e,
            Policy::FrFcfs($s) => $e,
            Policy::Dyn($s) => $e,
        }
    };
}

impl Policy {
    #[inline(always)]
    pub(crate) fn priority(&mut self, now: u64, c: &Candidate<'_>) -> Option<u64> {
        forward!(self, s => s.priority(now, c))
    }
    pub(crate) fn wants_prepare(&self) -> bool {
        forward!(self, s => s.wants_prepare())
    }
    pub(crate) fn class_uniform(&self) -> bool {
        forward!(self, s => s.class_uniform())
    }
    pub(crate) fn prepare(&mut self, now: u64, queued: &mut [QueuedRequest]) {
        forward!(self, s => s.prepare(now, queued))
    }
    #[inline]
    pub(crate) fn on_arrival(&mut self, now: u64, req: &mut QueuedRequest) {
        forward!(self, s => s.on_arrival(now, req))
    }
    #[inline]
    pub(crate) fn on_command(&mut self, now: u64, req: &QueuedRequest, cmd: CommandKind) {
        forward!(self, s => s.on_command(now, req, cmd))
    }
    #[inline]
    pub(crate) fn on_complete(&mut self, now: u64, req: &QueuedRequest) {
        forward!(self, s => s.on_complete(now, req))
    }
}
