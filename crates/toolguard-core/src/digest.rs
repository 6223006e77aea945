//! The one digest function behind every fixed-size fingerprint the engine
//! keeps: XXH3, 128-bit for a repeat chain's key and 64-bit for the loop
//! window. These digests are saved (`chainState`, the hook's state files), so
//! the algorithm is part of the state format: the tests pin known values.
//! Also the one fast hasher of the engine's in-memory maps ([`FastHash`]).

use std::hash::{BuildHasherDefault, Hasher};

use twox_hash::{XxHash3_128, XxHash3_64};

/// XXH3-64 of `bytes` (AVX2 when the CPU has it, chosen at run time).
pub fn xxh3_64(bytes: &[u8]) -> u64 {
    XxHash3_64::oneshot(bytes)
}

/// XXH3-128 of `bytes`.
pub fn xxh3_128(bytes: &[u8]) -> u128 {
    XxHash3_128::oneshot(bytes)
}

/// Hash maps keyed by what no model chose: agent ids and tool names from the
/// host, digests already mixed, text windows the scanner looks up on every
/// prefilter hit. A multiply per word (FxHash's) costs a fraction of SipHash
/// on keys this short.
pub type FastHash = BuildHasherDefault<FxHasher>;

#[derive(Default)]
pub struct FxHasher(u64);

const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference XXH3 values (the xxHash test vectors' empty input, and
    /// values the previous implementation, xxhash-rust, gave): a change here
    /// would make every saved state compare unequal.
    #[test]
    fn digests_are_xxh3() {
        assert_eq!(xxh3_64(b""), 0x2d06800538d394c2);
        assert_eq!(xxh3_128(b""), 0x99aa06d3014798d86001c324468d497f);
        assert_eq!(xxh3_64(b"toolguard"), 0xe3bb03430f689aa8);
        assert_eq!(xxh3_128(b"toolguard"), 0x9d40f8cad33a7b3e63a9c2fd3b0eb6d1);
        // Over 240 bytes: the long (SIMD) path.
        let long: String = (0..300).map(|i| format!("line {i}\n")).collect();
        assert_eq!(long.len(), 2590);
        assert_eq!(xxh3_64(long.as_bytes()), 0xeb7166a6d798487b);
        assert_eq!(
            xxh3_128(long.as_bytes()),
            0x298e517447c022f5eb7166a6d798487b
        );
    }
}
