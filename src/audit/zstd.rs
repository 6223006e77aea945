//! A streaming reader over a concatenation of zstd frames.
//!
//! DSH's JSONL backend writes one checksummed frame for the header line and
//! one per append batch; ruzstd's `StreamingDecoder` reads only one frame, so
//! this drives its `FrameDecoder` frame after frame (skippable frames skipped,
//! checksums checked), holding at most one frame window in memory.

use std::io::{self, BufRead, Read};

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

/// The first four bytes of every zstd frame (little endian 0xFD2FB528).
pub const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

pub struct ZstdFrames<R: BufRead> {
    source: R,
    decoder: FrameDecoder,
    /// A frame has been started and not fully drained.
    in_frame: bool,
    frames: u64,
}

impl<R: BufRead> ZstdFrames<R> {
    pub fn new(source: R) -> Self {
        Self {
            source,
            decoder: FrameDecoder::new(),
            in_frame: false,
            frames: 0,
        }
    }

    /// Frames started so far (for error messages).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Start the next frame; `false` at a clean end of input.
    fn next_frame(&mut self) -> io::Result<bool> {
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            match self.decoder.reset(&mut self.source) {
                Ok(()) => {
                    self.frames += 1;
                    self.in_frame = true;
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
                Err(e) => return Err(invalid(self.frames + 1, e)),
            }
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
        loop {
            if !self.in_frame && !self.next_frame()? {
                return Ok(0);
            }
            // Same loop as ruzstd's StreamingDecoder: decode until enough is collectable.
            while self.decoder.can_collect() < buf.len() && !self.decoder.is_finished() {
                let wanted = buf.len() - self.decoder.can_collect();
                if let Err(e) = self
                    .decoder
                    .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBytes(wanted))
                {
                    let eof = matches!(
                        &e,
                        FrameDecoderError::FailedToReadBlockHeader(_)
                            | FrameDecoderError::FailedToReadBlockBody(_)
                            | FrameDecoderError::FailedToReadChecksum(_)
                    ) && self
                        .source
                        .fill_buf()
                        .map(|b| b.is_empty())
                        .unwrap_or(false);
                    // Hand out what was decoded before the cut; report the cut next call.
                    let n = self.decoder.read(buf)?;
                    if n > 0 {
                        return Ok(n);
                    }
                    self.in_frame = false;
                    return Err(if eof {
                        truncated(self.frames)
                    } else {
                        invalid(self.frames, e)
                    });
                }
            }
            let n = self.decoder.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            if self.decoder.is_finished() {
                if let (Some(stored), Some(computed)) = (
                    self.decoder.get_checksum_from_data(),
                    self.decoder.get_calculated_checksum(),
                ) {
                    if stored != computed {
                        self.in_frame = false;
                        return Err(invalid(self.frames, "content checksum mismatch"));
                    }
                }
                self.in_frame = false;
            }
        }
    }
}
