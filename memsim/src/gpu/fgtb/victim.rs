//! The victim queue (`gpu-seeds.md` §6.1): the TB scheduler's list of preempted
//! TBs, searched newest first (LIFO: the most recently preempted TB is the one
//! most likely to find its data still in a cache it shares), with a fixed
//! capacity (1K entries in the paper). While it is full no TB is preempted.

/// A bounded LIFO of preempted TBs.
#[derive(Clone, Debug)]
pub struct VictimQueue<T> {
    items: Vec<T>,
    cap: usize,
    /// Pushes refused because the queue was full.
    pub refused: u64,
    /// Largest occupancy seen.
    pub peak: usize,
}

impl<T> VictimQueue<T> {
    /// An empty queue of `cap` entries.
    pub fn new(cap: usize) -> Self {
        VictimQueue {
            items: Vec::new(),
            cap,
            refused: 0,
            peak: 0,
        }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether it is full (no preemption now).
    pub fn is_full(&self) -> bool {
        self.items.len() >= self.cap
    }

    /// Capacity.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Pushes a victim; gives it back when the queue is full.
    pub fn push(&mut self, v: T) -> Result<(), T> {
        if self.is_full() {
            self.refused += 1;
            return Err(v);
        }
        self.items.push(v);
        self.peak = self.peak.max(self.items.len());
        Ok(())
    }

    /// Removes and returns the newest entry that satisfies `ok`.
    pub fn take_newest(&mut self, mut ok: impl FnMut(&T) -> bool) -> Option<T> {
        let i = self.items.iter().rposition(&mut ok)?;
        Some(self.items.remove(i))
    }

    /// Entries, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> {
        self.items.iter()
    }

    /// Entries, oldest first, mutably (their order and number stay).
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut T> {
        self.items.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LIFO order, capacity, and no push while full.
    #[test]
    fn lifo_order_and_capacity() {
        let mut q = VictimQueue::new(3);
        for v in [10, 11, 12] {
            assert_eq!(q.push(v), Ok(()));
        }
        assert!(q.is_full());
        assert_eq!(q.push(13), Err(13));
        assert_eq!(q.refused, 1);
        // newest first
        assert_eq!(q.take_newest(|_| true), Some(12));
        // newest that fits: 11 does not, 10 does
        assert_eq!(q.take_newest(|&v| v % 2 == 0), Some(10));
        assert_eq!(q.push(14), Ok(()));
        assert_eq!(q.iter().copied().collect::<Vec<_>>(), vec![11, 14]);
        assert_eq!(q.take_newest(|&v| v > 100), None);
        assert_eq!(q.take_newest(|_| true), Some(14));
        assert_eq!(q.take_newest(|_| true), Some(11));
        assert!(q.is_empty());
        assert_eq!(q.peak, 3);
        // capacity 0: never preempts
        let mut z = VictimQueue::new(0);
        assert_eq!(z.push(1), Err(1));
    }
}
