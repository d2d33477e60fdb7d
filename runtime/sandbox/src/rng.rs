//! A small deterministic random generator (SplitMix64).
//!
//! Seed data must be identical for the same seed on every machine and every build, so the sandbox
//! carries its own generator instead of depending on a crate whose algorithm may change.

/// SplitMix64: fast, well distributed, and trivially reproducible.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// A generator derived from a seed and a label, so that independent streams (one per product,
    /// organization, record type) do not shift when another stream draws more numbers.
    pub fn derived(seed: u64, label: &str) -> Self {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
        for b in label.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        Rng(h)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; returns 0 when `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// Uniform in `min..=max`.
    pub fn range_i64(&mut self, min: i64, max: i64) -> i64 {
        let (lo, hi) = if min <= max { (min, max) } else { (max, min) };
        let span = (hi - lo) as u64 + 1;
        lo + self.below(span) as i64
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_labels_separate_streams() {
        let a: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::derived(42, "banking");
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::derived(42, "banking");
                move |_| r.next_u64()
            })
            .collect();
        let c = Rng::derived(42, "billing").next_u64();
        assert_eq!(a, b);
        assert_ne!(a[0], c);
    }

    #[test]
    fn range_stays_inside_bounds() {
        let mut r = Rng::new(7);
        for _ in 0..1000 {
            let v = r.range_i64(-90, 30);
            assert!((-90..=30).contains(&v));
        }
    }
}
