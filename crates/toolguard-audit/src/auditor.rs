//! The [`Auditor`]: opens a log (plain or zstd), picks how it is read
//! (line by line, a document, a text) and hands each session's report on.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use toolguard_core::config::{Config, LoudFailureConfig};
use toolguard_core::engine::{Engine, Scanner};

use crate::detect::{Format, Shape};
use crate::options::AuditOptions;
use crate::replay::Run;
use crate::report::SessionReport;
use crate::{lines, openhands_v1, session, zstd};

/// Stored errors per file; the rest are only counted (a binary file would
/// otherwise produce one error per "line").
pub const MAX_ERRORS: usize = 100;

/// Calls listed per session timeline; later calls are only counted
/// (`timeline.omitted`), so a huge log keeps a bounded report.
pub const MAX_TIMELINE_CALLS: usize = 10_000;

/// Progress is reported after at least this many more input bytes.
const PROGRESS_STEP: u64 = 4 << 20;

/// The UTF-8 byte order mark, skipped at the start of an input.
pub(crate) const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// Audits logs; each file starts with fresh chains.
pub struct Auditor {
    config: Config,
    /// The engine of DSH logs and generic traces (the configured shell tools).
    base: Engine,
    /// The engines of formats with shell tools of their own (Claude Code,
    /// Codex, OTLP, the trajectory formats): they also scan those; made on
    /// first use, by [`Format::ALL`] index.
    extra: [Option<Engine>; Format::ALL.len()],
    pub(crate) preview_chars: usize,
    pub(crate) options: AuditOptions,
}

impl Auditor {
    pub fn new(config: &Config) -> Result<Self, toolguard_core::Error> {
        Ok(Self {
            config: config.clone(),
            base: Engine::new(config)?,
            extra: Default::default(),
            preview_chars: config.repeat.arguments_preview_chars,
            options: AuditOptions::default(),
        })
    }

    pub fn set_options(&mut self, options: AuditOptions) {
        self.options = options;
    }

    /// A fresh auditor with the same config and limits (one per worker
    /// thread of [`parallel::audit_batch`]).
    pub fn fork(&self) -> Result<Self, toolguard_core::Error> {
        let mut auditor = Self::new(&self.config)?;
        auditor.options = self.options.clone();
        Ok(auditor)
    }

    /// Each format with shell tools of its own gets an engine of its own
    /// (DSH and traces share the base one).
    fn slot(format: Format) -> Option<usize> {
        match format {
            Format::Auto | Format::Dsh | Format::Trace => None,
            _ => Format::ALL.iter().position(|f| *f == format),
        }
    }

    pub(crate) fn engine(&mut self, format: Format) -> &mut Engine {
        let Some(slot) = Self::slot(format) else {
            return &mut self.base;
        };
        let (config, base) = (&self.config, &self.base);
        self.extra[slot].get_or_insert_with(|| {
            // Every format's shell tools are in the core's one default list.
            let loud: LoudFailureConfig = config.loud_failure.clone();
            // The rules compiled once already (in `new`), so this cannot fail;
            // were it to, the base scanner still guards.
            let scanner = Scanner::new(&loud).map_or_else(|_| base.scanner(), Arc::new);
            let mut engine = Engine::with_scanner(&config.repeat, scanner);
            engine.set_loops(config.loops.as_ref());
            engine
        })
    }

    /// Audit one file; problems opening or reading it land in the report.
    /// One report per session: most files hold one, an evaluation output
    /// (one session per line) holds many. See [`Auditor::audit_path_each`].
    pub fn audit_path(
        &mut self,
        path: &Path,
        format: Format,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Vec<SessionReport> {
        let mut reports = Vec::new();
        self.audit_path_each(path, format, progress, &mut |r| reports.push(r));
        reports
    }

    /// Audit one file, handing each session's report to `emit` as it is
    /// done, in file order (at least one report per file).
    pub fn audit_path_each(
        &mut self,
        path: &Path,
        format: Format,
        progress: &mut dyn FnMut(u64, u64),
        emit: &mut dyn FnMut(SessionReport),
    ) {
        let name = path.to_string_lossy().into_owned();
        if matches!(format, Format::Auto | Format::OpenHandsV1)
            && openhands_v1::is_persisted_state(path)
        {
            let report = self.audit_persisted_conversation(name, path);
            progress(report.bytes, report.bytes);
            return emit(report);
        }
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) => return emit(SessionReport::unreadable(name, format, e)),
        };
        let total = file.metadata().map(|m| m.len()).unwrap_or(0);
        let counted = Rc::new(Cell::new(0u64));
        let reader = Counting {
            inner: file,
            count: counted.clone(),
        };
        let mut next_report = PROGRESS_STEP;
        let mut tick = |_: u64| {
            let done = counted.get();
            if done >= next_report {
                next_report = done + PROGRESS_STEP;
                progress(done, total);
            }
        };
        // Sessions a line carry their line's bytes; the last report gets the
        // rest of the file, so the reports' bytes add up to the file's.
        let mut held: Option<SessionReport> = None;
        let mut told = 0u64;
        self.audit_reader_each(name, reader, format, &mut tick, &mut |report| {
            if let Some(done) = held.replace(report) {
                told += done.bytes;
                emit(done);
            }
        });
        if let Some(mut report) = held {
            report.bytes = counted.get().saturating_sub(told);
            emit(report);
        }
        progress(counted.get(), total);
    }

    /// An OpenHands SDK conversation folder, named by its `base_state.json`:
    /// its event files, in order, are one session.
    fn audit_persisted_conversation(&mut self, name: String, path: &Path) -> SessionReport {
        let mut report = SessionReport::new(name, Format::OpenHandsV1);
        let read = openhands_v1::persisted_document(path, self.options.max_line_bytes).and_then(
            |(document, bytes)| {
                report.bytes = bytes;
                report.decoded_bytes = bytes;
                openhands_v1::read(&document)
            },
        );
        match read {
            Ok(read) => session::audit_whole_session(self, report, read),
            Err(message) => {
                report.error(None, message);
                report
            }
        }
    }

    /// Audit a byte stream (plain or zstd); one report per session.
    pub fn audit_reader<R: Read>(
        &mut self,
        name: String,
        reader: R,
        format: Format,
        tick: &mut dyn FnMut(u64),
    ) -> Vec<SessionReport> {
        let mut reports = Vec::new();
        self.audit_reader_each(name, reader, format, tick, &mut |r| reports.push(r));
        reports
    }

    /// Audit a byte stream (plain or zstd), handing each session's report
    /// to `emit` in file order. `tick` runs after each line.
    pub fn audit_reader_each<R: Read>(
        &mut self,
        name: String,
        reader: R,
        format: Format,
        tick: &mut dyn FnMut(u64),
        emit: &mut dyn FnMut(SessionReport),
    ) {
        let mut report = SessionReport::new(name, format);
        let mut buffered = BufReader::with_capacity(256 << 10, reader);
        let compressed = match buffered.fill_buf() {
            Ok(head) => head.starts_with(&zstd::MAGIC),
            Err(e) => {
                report.error(None, format!("cannot read: {e}"));
                return emit(report);
            }
        };
        report.compressed = compressed;
        let mut lines: Box<dyn BufRead> = if compressed {
            Box::new(BufReader::with_capacity(
                256 << 10,
                zstd::ZstdFrames::new(buffered),
            ))
        } else {
            Box::new(buffered)
        };
        // A UTF-8 byte order mark (PowerShell and Windows editors write one)
        // is no part of the log, and JSON parsers refuse it: skip it.
        if matches!(lines.fill_buf(), Ok(head) if head.starts_with(UTF8_BOM)) {
            lines.consume(UTF8_BOM.len());
        }
        // A NUL byte in the first block: a binary file, not a log (as git decides).
        let shape = match lines.fill_buf() {
            Ok(head) if head.contains(&0) => {
                report.error(
                    None,
                    "not a text log (binary data in the first bytes), skipped".to_owned(),
                );
                return emit(report);
            }
            Ok(head) => session::shape_of(format, head),
            Err(e) => {
                report.error(Some(1), format!("cannot read further: {e}"));
                return emit(report);
            }
        };
        if shape != Shape::Lines {
            // A whole document or text: read at once, bounded like a line.
            return session::audit_whole(self, report, &mut *lines, format, shape, tick, emit);
        }
        self.audit_lines(report, &mut *lines, format, tick, emit);
    }

    /// The line-by-line reading of a file (JSONL, plain or decoded zstd).
    pub(crate) fn audit_lines(
        &mut self,
        mut report: SessionReport,
        lines: &mut dyn BufRead,
        format: Format,
        tick: &mut dyn FnMut(u64),
        emit: &mut dyn FnMut(SessionReport),
    ) {
        let limit = self.options.max_line_bytes;
        let mut run = Run::new(self, format);
        let mut line = Vec::with_capacity(4096);
        let mut number = 0u64;
        loop {
            line.clear();
            match lines::read_line(lines, &mut line, limit) {
                Ok(lines::Line::End) => break,
                Ok(lines::Line::Read { bytes, complete }) => {
                    number += 1;
                    report.decoded_bytes += bytes;
                    if let Some(value) = run.line(&mut report, number, &line, complete) {
                        // One session on this line: its own report, its own bytes.
                        report.decoded_bytes -= bytes;
                        run.session_line(&report, number, bytes, &value, emit);
                    }
                    tick(number);
                    if run.foreign {
                        break;
                    }
                }
                Ok(lines::Line::TooLong { bytes }) => {
                    number += 1;
                    report.decoded_bytes += bytes;
                    report.error(
                        Some(number),
                        format!(
                            "line of {bytes} bytes is longer than the limit of {limit} bytes (--max-line-bytes), skipped"
                        ),
                    );
                    tick(number);
                }
                Err(e) => {
                    report.error(Some(number + 1), format!("cannot read further: {e}"));
                    break;
                }
            }
        }
        report.lines = number;
        let sessions = run.sessions;
        run.finish(&mut report);
        // A file of sessions a line has given their reports already; its
        // own is added only to carry what went wrong around them.
        if sessions == 0 || report.error_count > 0 {
            report.session = sessions;
            emit(report);
        }
    }
}

/// Counts the bytes pulled from the file, for progress.
struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}
