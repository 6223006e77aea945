//! Session-log reading for `toolguard audit` (DSH JSONL, zstd, generic traces).
