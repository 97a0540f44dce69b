//! Test support shared by the fuzz properties of the journal and shard manifest readers (test
//! builds only): how many cases the long run takes, and the byte mutations.

use proptest::sample::Index;

/// Cases per property in the long run: `REUSESIM_FUZZ_CASES`, default 20,000 (CI runs the
/// long run too, so the default stays moderate).
pub(crate) fn long_fuzz_cases() -> u32 {
    std::env::var("REUSESIM_FUZZ_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(20_000)
}

/// Applies `edits` to `bytes`: kind 0 changes a byte (`flip`: xor with the odd byte, else
/// replace it), kind 1 inserts one, any other kind truncates there.
pub(crate) fn mutate(bytes: &mut Vec<u8>, edits: Vec<(Index, u8, u8)>, flip: bool) {
    for (at, byte, kind) in edits {
        let pos = at.index(bytes.len().max(1)).min(bytes.len());
        match kind {
            0 if pos < bytes.len() && flip => bytes[pos] ^= byte | 1,
            0 if pos < bytes.len() => bytes[pos] = byte,
            1 => bytes.insert(pos, byte),
            _ => bytes.truncate(pos),
        }
    }
}
