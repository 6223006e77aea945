//! Line splitting with a length limit: a hostile log (one 1.5 GB line, or a
//! small zstd file that decodes to one) must not make the audit hold more
//! than the limit. A line past the limit is consumed to its end without
//! being kept, and reported by the caller with its number.

use std::io::{self, BufRead};

pub(crate) enum Line {
    End,
    /// The line (with its `\n`, when `complete`) is in the buffer.
    Read {
        bytes: u64,
        complete: bool,
    },
    /// Longer than the limit: skipped; `bytes` were read and dropped.
    TooLong {
        bytes: u64,
    },
}

/// Read one line into `line` (cleared by the caller), keeping at most `limit` bytes.
pub(crate) fn read_line(
    reader: &mut dyn BufRead,
    line: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Line> {
    let mut total = 0u64;
    let mut too_long = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match (total, too_long) {
                (0, _) => Line::End,
                (bytes, true) => Line::TooLong { bytes },
                (bytes, false) => Line::Read {
                    bytes,
                    complete: false,
                },
            });
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if line.len() + take > limit {
                too_long = true;
                // Give the memory back now: the rest of the line is only counted.
                *line = Vec::new();
            } else {
                line.extend_from_slice(&chunk[..take]);
            }
        }
        total += take as u64;
        reader.consume(take);
        if done {
            return Ok(if too_long {
                Line::TooLong { bytes: total }
            } else {
                Line::Read {
                    bytes: total,
                    complete: true,
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &[u8], limit: usize) -> Vec<String> {
        let mut reader = io::BufReader::with_capacity(7, text);
        let mut line = Vec::new();
        let mut out = Vec::new();
        loop {
            line.clear();
            match read_line(&mut reader, &mut line, limit).unwrap() {
                Line::End => return out,
                Line::Read { bytes, complete } => {
                    assert_eq!(bytes as usize, line.len());
                    assert!(line.len() <= limit);
                    out.push(format!(
                        "{}{}",
                        String::from_utf8_lossy(&line).trim_end(),
                        if complete { "" } else { "|cut" }
                    ));
                }
                Line::TooLong { bytes } => out.push(format!("long {bytes}")),
            }
        }
    }

    #[test]
    fn long_lines_are_skipped_whole_and_the_rest_read() {
        let text = b"ab\nabcdefghijklmnopqrstuvwxyz\nabcdefghij\n\nxyz";
        assert_eq!(split(text, 10), ["ab", "long 27", "long 11", "", "xyz|cut"]);
        assert_eq!(split(text, 11)[2], "abcdefghij");
        // A last line that is too long and has no newline.
        assert_eq!(split(b"a\n0123456789abc", 5), ["a", "long 13"]);
    }
}
