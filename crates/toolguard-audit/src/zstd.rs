//! A streaming reader over a concatenation of zstd frames.
//!
//! DSH's JSONL backend writes one checksummed frame for the header line and
//! one per append batch; ruzstd's `StreamingDecoder` reads only one frame, so
//! this drives its `FrameDecoder` frame after frame (skippable frames skipped,
//! checksums checked), one block at a time.
//!
//! A log cut mid-write ends in an incomplete frame. DSH keeps the complete
//! records of such a frame, and so do we: the frame's compressed bytes are
//! kept while it is decoded (memory: one append batch, at most
//! [`KEEP_LIMIT`]; a larger frame is not recoverable), and on a cut the
//! blocks before it are decoded again behind a synthetic empty last block,
//! which releases the data the decoder still held back as its window. That
//! second pass streams too (a small cut frame may decode to gigabytes), so
//! memory stays at the kept bytes plus the decoder's window.

use std::io::{self, BufRead, Cursor, Read};

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

/// The first four bytes of every zstd frame (little endian 0xFD2FB528).
pub const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// An empty raw block flagged last (`Last_Block = 1`, `Raw_Block`, size 0),
/// then room for a checksum the recovered frame will not be checked against.
const CLOSING_BLOCK: [u8; 7] = [0x01, 0x00, 0x00, 0, 0, 0, 0];

/// Compressed bytes kept per frame for recovery (one file compressed as a
/// single huge frame must still stream).
pub const KEEP_LIMIT: usize = 64 << 20;

pub struct ZstdFrames<R: BufRead> {
    source: R,
    decoder: FrameDecoder,
    /// A frame has been started and not fully drained.
    in_frame: bool,
    frames: u64,
    /// Compressed bytes of the current frame, and how many of them end a whole block.
    frame_bytes: Vec<u8>,
    whole_blocks: usize,
    /// False once the frame outgrew [`KEEP_LIMIT`].
    keeping: bool,
    /// Decoded bytes of the current frame handed out so far.
    delivered: usize,
    /// The second pass over a cut frame, served before the error is.
    recovery: Option<Recovery>,
    failure: Option<io::Error>,
}

/// A cut frame's whole blocks decoded again; the first `skip` bytes were handed out already.
struct Recovery {
    decoder: FrameDecoder,
    source: Cursor<Vec<u8>>,
    skip: usize,
    broken: bool,
}

/// A reader that keeps a copy of what it reads.
struct Keep<'a, R> {
    inner: &'a mut R,
    kept: &'a mut Vec<u8>,
    on: bool,
}

impl<R: Read> Read for Keep<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if self.on {
            self.kept.extend_from_slice(&buf[..n]);
        }
        Ok(n)
    }
}

impl<R: BufRead> ZstdFrames<R> {
    pub fn new(source: R) -> Self {
        Self {
            source,
            decoder: FrameDecoder::new(),
            in_frame: false,
            frames: 0,
            frame_bytes: Vec::new(),
            whole_blocks: 0,
            keeping: true,
            delivered: 0,
            recovery: None,
            failure: None,
        }
    }

    /// Start the next frame; `false` at a clean end of input.
    fn next_frame(&mut self) -> io::Result<bool> {
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            self.frame_bytes.clear();
            self.keeping = true;
            self.delivered = 0;
            let mut keep = Keep {
                inner: &mut self.source,
                kept: &mut self.frame_bytes,
                on: true,
            };
            match self.decoder.reset(&mut keep) {
                Ok(()) => {
                    self.frames += 1;
                    self.in_frame = true;
                    self.whole_blocks = self.frame_bytes.len();
                    return Ok(true);
                }
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let skipped =
                        io::copy(&mut (&mut self.source).take(length.into()), &mut io::sink())?;
                    if skipped < u64::from(length) {
                        return Err(truncated(self.frames + 1));
                    }
                }
                Err(_) if self.source.fill_buf()?.is_empty() => {
                    return Err(truncated(self.frames + 1));
                }
                Err(e) => return Err(invalid(self.frames + 1, e)),
            }
        }
    }

    /// Start the second pass over a cut frame's whole blocks.
    fn recover(&mut self) -> Option<Recovery> {
        if !self.keeping {
            return None;
        }
        let mut bytes = std::mem::take(&mut self.frame_bytes);
        bytes.truncate(self.whole_blocks);
        bytes.extend_from_slice(&CLOSING_BLOCK);
        let mut source = Cursor::new(bytes);
        let mut decoder = FrameDecoder::new();
        decoder.reset(&mut source).ok()?;
        Some(Recovery {
            decoder,
            source,
            skip: self.delivered,
            broken: false,
        })
    }

    fn serve_recovered(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(r) = &mut self.recovery {
            loop {
                while !r.broken && r.decoder.can_collect() < buf.len() && !r.decoder.is_finished() {
                    if r.decoder
                        .decode_blocks(&mut r.source, BlockDecodingStrategy::UptoBlocks(1))
                        .is_err()
                    {
                        r.broken = true;
                    }
                }
                let n = r.decoder.read(buf)?;
                if n == 0 {
                    break;
                }
                if r.skip == 0 {
                    return Ok(n);
                }
                let dropped = n.min(r.skip);
                r.skip -= dropped;
                if dropped < n {
                    buf.copy_within(dropped..n, 0);
                    return Ok(n - dropped);
                }
            }
            self.recovery = None;
        }
        match self.failure.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

fn truncated(frame: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("zstd frame {frame} is truncated (the log was cut mid-write)"),
    )
}

fn invalid(frame: u64, e: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("zstd frame {frame} is corrupt: {e}"),
    )
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.failure.is_some() {
            return self.serve_recovered(buf);
        }
        loop {
            if !self.in_frame && !self.next_frame()? {
                return Ok(0);
            }
            // Decode block by block until enough is collectable, noting where
            // each whole block ends (the recovery point if the next one is cut).
            while self.decoder.can_collect() < buf.len() && !self.decoder.is_finished() {
                let mut keep = Keep {
                    inner: &mut self.source,
                    kept: &mut self.frame_bytes,
                    on: self.keeping,
                };
                match self
                    .decoder
                    .decode_blocks(&mut keep, BlockDecodingStrategy::UptoBlocks(1))
                {
                    Ok(_) if self.frame_bytes.len() > KEEP_LIMIT => {
                        self.keeping = false;
                        self.frame_bytes = Vec::new();
                    }
                    Ok(_) => self.whole_blocks = self.frame_bytes.len(),
                    Err(e) => {
                        self.in_frame = false;
                        let at_end = self
                            .source
                            .fill_buf()
                            .map(|b| b.is_empty())
                            .unwrap_or(false);
                        if !at_end {
                            return Err(invalid(self.frames, e));
                        }
                        self.recovery = self.recover();
                        self.failure = Some(truncated(self.frames));
                        return self.serve_recovered(buf);
                    }
                }
            }
            let n = self.decoder.read(buf)?;
            self.delivered += n;
            if n > 0 {
                return Ok(n);
            }
            if self.decoder.is_finished() {
                self.in_frame = false;
                if let (Some(stored), Some(computed)) = (
                    self.decoder.get_checksum_from_data(),
                    self.decoder.get_calculated_checksum(),
                ) {
                    if stored != computed {
                        return Err(invalid(self.frames, "content checksum mismatch"));
                    }
                }
            }
        }
    }
}
