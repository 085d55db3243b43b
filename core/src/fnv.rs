//! FNV-1a, the hash of the tables keyed by names a cluster chose: object identities while a
//! bundle is read, the values a message lists, a manifest's objects in `fit`. These keys are
//! short, and SipHash (std's default) cost more than the lookups it served; its resistance to
//! chosen keys buys nothing here, where every table either compares the keys it finds equal or
//! falls back to a reader that does.

/// FNV-1a 64 as a [`std::hash::Hasher`] (use with `BuildHasherDefault<Fnv>`).
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}
