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
//! which releases the data the decoder still held back as its window.

use std::io::{self, BufRead, Read};

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
    /// Recovered tail of a cut frame, served before the error is.
    recovered: Vec<u8>,
    recovered_at: usize,
    failure: Option<io::Error>,
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
            recovered: Vec::new(),
            recovered_at: 0,
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

    /// Decode the whole blocks of a cut frame; the part not yet handed out.
    fn recover(&self) -> Vec<u8> {
        if !self.keeping {
            return Vec::new();
        }
        let mut bytes = self.frame_bytes[..self.whole_blocks].to_vec();
        bytes.extend_from_slice(&CLOSING_BLOCK);
        let mut decoder = FrameDecoder::new();
        let mut source = &bytes[..];
        if decoder.reset(&mut source).is_err()
            || decoder
                .decode_blocks(&mut source, BlockDecodingStrategy::All)
                .is_err()
        {
            return Vec::new();
        }
        let mut all = decoder.collect().unwrap_or_default();
        all.drain(..self.delivered.min(all.len()));
        all
    }

    fn serve_recovered(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = &self.recovered[self.recovered_at..];
        if rest.is_empty() {
            return match self.failure.take() {
                Some(e) => Err(e),
                None => Ok(0),
            };
        }
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.recovered_at += n;
        Ok(n)
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
        if self.failure.is_some() || self.recovered_at < self.recovered.len() {
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
                        self.recovered = self.recover();
                        self.recovered_at = 0;
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
