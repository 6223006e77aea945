//! A collection on every core: files (and Parquet rows) audited by a pool of
//! threads, each with its own [`Auditor`], the reports handed back on the
//! caller's thread in input order.
//!
//! Memory is bounded by a window: a unit of work (a file, or one Parquet
//! row's trajectory) numbered `seq` is only started once every unit before
//! `seq - WINDOW_PER_THREAD * threads` has been handed back, so at most that
//! many reports (each bounded: [`crate::MAX_TIMELINE_CALLS`],
//! [`crate::MAX_ERRORS`]) wait to be put in order, however many inputs there
//! are. Plain threads (`std::thread::scope`) are enough: the work is
//! CPU-bound, one unit at a time per thread, and a file is never split.
//!
//! `--shard i/n` is decided here too ([`shard_of`]), so a file and a Parquet
//! row are shared out by one rule.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::auditor::Auditor;
use crate::detect::Format;
use crate::options::{OptionError, Options};
use crate::parquet;
use crate::report::SessionReport;

/// One input of a batch: where it is, the name the report shows, and the key
/// `--shard` hashes (the path relative to the root it was found under).
#[derive(Debug, Clone)]
pub struct Input {
    pub path: PathBuf,
    pub name: String,
    pub key: String,
}

/// `--shard i/n`: the `index`-th (1-based) of `count` shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// `"i/n"` with `1 <= i <= n`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("--shard must be i/n with 1 <= i <= n, such as 1/4 (got {text:?})");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<u64>().map_err(|_| bad())?,
            n.trim().parse::<u64>().map_err(|_| bad())?,
        );
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Self { index, count })
    }

    /// Whether the unit of this key is in this share.
    pub fn holds(self, key: &str) -> bool {
        shard_of(key, self.count) == self.index
    }
}

/// The 1-based share of `key` among `count`: FNV-1a (64-bit) of its UTF-8
/// bytes, modulo `count`, plus one. A fixed, documented function (not
/// std's randomly seeded hasher) so every machine of a job array splits a
/// collection the same way; docs/audit-at-scale.md states it.
pub fn shard_of(key: &str, count: u64) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in key.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash % count.max(1) + 1
}

/// How a batch runs.
#[derive(Debug, Clone)]
pub struct BatchOptions {
    /// Worker threads (at least 1).
    pub threads: usize,
    pub format: Format,
    pub shard: Option<Shard>,
    /// The Parquet column holding each row's trajectory (`None`: the usual names).
    pub column: Option<String>,
}

impl BatchOptions {
    /// From the JSON text the N-API layer passes:
    /// `{format?, threads?, shard?: "i/n", column?}` (threads 0 or absent:
    /// one per core).
    pub fn from_json(text: &str) -> Result<Self, OptionError> {
        let options = Options::parse(
            text,
            "batch options",
            &["format", "threads", "shard", "column"],
        )?;
        let format = match options.string("format")? {
            None => Format::Auto,
            Some(name) => Format::parse(&name).ok_or_else(|| {
                options.error(
                    "TOOLGUARD_OUT_OF_RANGE",
                    "format",
                    format!(
                        "format must be one of {} (got {name:?})",
                        Format::NAMES.join(", ")
                    ),
                )
            })?,
        };
        let threads = match options.whole("threads")? {
            None | Some(0) => std::thread::available_parallelism().map_or(1, |n| n.get()),
            Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        };
        let shard = match options.string("shard")? {
            None => None,
            Some(text) => Some(
                Shard::parse(&text)
                    .map_err(|message| options.error("TOOLGUARD_OUT_OF_RANGE", "shard", message))?,
            ),
        };
        Ok(Self {
            threads,
            format,
            shard,
            column: options.string("column")?,
        })
    }
}

/// Where a batch stands, for a progress bar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Input files finished, of those in this shard.
    pub files_done: u64,
    pub files_total: u64,
    /// Bytes of the input files read so far, and their total size.
    pub bytes_done: u64,
    pub bytes_total: u64,
    /// Sessions handed back so far (a Parquet file holds many).
    pub sessions: u64,
}

/// What the batch hands its caller, on the caller's thread.
pub enum Event {
    /// The next session in input order: its report's JSON text (priced:
    /// with its waste) and its [`crate::report::SessionFigures`] as JSON,
    /// both made on the worker thread that audited it, so the caller's
    /// thread only writes the one and folds the other.
    Report {
        json: String,
        figures: String,
    },
    Progress(Progress),
}

/// Units started ahead of the oldest one not yet handed back, per thread.
const WINDOW_PER_THREAD: u64 = 8;
/// A progress event at most this often.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// One session to audit.
enum Unit {
    File(usize),
    /// A trajectory from a Parquet row, or the problem reading its file.
    Row(parquet::Row),
    /// The last unit of a Parquet file (counted as a file done).
    FileEnd,
}

struct Done {
    seq: u64,
    /// The unit's sessions as (report, figures) JSON (most files hold one,
    /// an evaluation output one a line; a [`Unit::FileEnd`] marker none).
    json: Vec<(String, String)>,
    /// The input this unit finished, if it was its last.
    file_done: bool,
}

/// Window state shared by the producer and the caller's thread.
struct Window {
    handed_back: Mutex<u64>,
    moved: Condvar,
}

/// Audit `inputs` (files; `*.parquet` files row by row) on `options.threads`
/// threads; `on_event` gets every report in input order and progress now
/// and then. `ControlFlow::Break` from it stops the batch (the units in
/// flight finish, no more start). Each worker has its own auditor, made from
/// `proto`'s config and limits.
pub fn audit_batch(
    proto: &Auditor,
    inputs: &[Input],
    options: &BatchOptions,
    on_event: &mut dyn FnMut(Event) -> ControlFlow<()>,
) -> Result<(), toolguard_core::Error> {
    let threads = options.threads.max(1);
    let chosen: Vec<usize> = (0..inputs.len())
        .filter(|&i| {
            options
                .shard
                .is_none_or(|s| is_parquet(&inputs[i]) || s.holds(&inputs[i].key))
        })
        .collect();
    let sizes: Vec<u64> = inputs
        .iter()
        .map(|i| std::fs::metadata(&i.path).map(|m| m.len()).unwrap_or(0))
        .collect();
    let mut progress = Progress {
        files_total: chosen.len() as u64,
        bytes_total: chosen.iter().map(|&i| sizes[i]).sum(),
        ..Progress::default()
    };
    let mut workers = Vec::with_capacity(threads);
    for _ in 0..threads {
        workers.push(proto.fork()?);
    }
    let window = Window {
        handed_back: Mutex::new(0),
        moved: Condvar::new(),
    };
    let limit = WINDOW_PER_THREAD * threads as u64;
    let stop = AtomicBool::new(false);
    let bytes_done = AtomicU64::new(0);
    let (work_tx, work_rx) = mpsc::sync_channel::<(u64, Unit)>(threads * 2);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<Done>();

    std::thread::scope(|scope| {
        // The producer numbers the units and keeps within the window.
        let producer = {
            let (window, stop, bytes_done) = (&window, &stop, &bytes_done);
            let chosen = &chosen;
            let sizes = &sizes;
            scope.spawn(move || {
                let mut seq = 0u64;
                let mut send = |unit: Unit| -> bool {
                    let mut handed = window.handed_back.lock().unwrap_or_else(|e| e.into_inner());
                    while seq >= *handed + limit && !stop.load(Ordering::Relaxed) {
                        handed = window.moved.wait(handed).unwrap_or_else(|e| e.into_inner());
                    }
                    drop(handed);
                    if stop.load(Ordering::Relaxed) || work_tx.send((seq, unit)).is_err() {
                        return false;
                    }
                    seq += 1;
                    true
                };
                for &i in chosen {
                    if !is_parquet(&inputs[i]) {
                        if !send(Unit::File(i)) {
                            return;
                        }
                        continue;
                    }
                    let mut counted = 0u64;
                    let rows = parquet::rows(&inputs[i], options.column.as_deref(), options.shard);
                    for row in rows {
                        // Progress through a Parquet file: its share of the bytes, by rows.
                        let share = row.bytes_through.min(sizes[i]);
                        bytes_done.fetch_add(share.saturating_sub(counted), Ordering::Relaxed);
                        counted = counted.max(share);
                        if !send(Unit::Row(row)) {
                            return;
                        }
                    }
                    bytes_done.fetch_add(sizes[i].saturating_sub(counted), Ordering::Relaxed);
                    if !send(Unit::FileEnd) {
                        return;
                    }
                }
            })
        };
        for mut auditor in workers {
            let (work_rx, done_tx, bytes_done) = (&work_rx, done_tx.clone(), &bytes_done);
            scope.spawn(move || loop {
                let next = work_rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok((seq, unit)) = next else { return };
                let done = match unit {
                    Unit::FileEnd => Done {
                        seq,
                        json: Vec::new(),
                        file_done: true,
                    },
                    Unit::File(i) => {
                        let input = &inputs[i];
                        let mut last = 0u64;
                        let json = guarded(&mut auditor, input.name.clone(), options.format, |a| {
                            let mut tick = |done: u64, _total: u64| {
                                bytes_done.fetch_add(done.saturating_sub(last), Ordering::Relaxed);
                                last = done;
                            };
                            let mut json = Vec::new();
                            a.audit_path_each(
                                &input.path,
                                options.format,
                                &mut tick,
                                &mut |mut r| {
                                    r.file = input.name.clone();
                                    json.push(r.finished_json());
                                },
                            );
                            json
                        });
                        Done {
                            seq,
                            json,
                            file_done: true,
                        }
                    }
                    Unit::Row(row) => {
                        let name = row.name.clone();
                        let json = guarded(&mut auditor, name, options.format, |a| {
                            let mut json = Vec::new();
                            row.audit(a, options.format, &mut |r| json.push(r.finished_json()));
                            json
                        });
                        Done {
                            seq,
                            json,
                            file_done: false,
                        }
                    }
                };
                if done_tx.send(done).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);

        // The caller's thread: put the reports in order and hand them back.
        let mut pending: BTreeMap<u64, Done> = BTreeMap::new();
        let mut next = 0u64;
        let mut last_progress = Instant::now();
        let mut stopped = false;
        loop {
            let received = done_rx.recv_timeout(PROGRESS_EVERY);
            match received {
                Ok(done) => {
                    pending.insert(done.seq, done);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if stopped {
                continue;
            }
            let before = next;
            while let Some(done) = pending.remove(&next) {
                next += 1;
                progress.files_done += u64::from(done.file_done);
                for (json, figures) in done.json {
                    progress.sessions += 1;
                    if on_event(Event::Report { json, figures }).is_break() {
                        stopped = true;
                        break;
                    }
                }
                if stopped {
                    break;
                }
            }
            if next != before || stopped {
                *window.handed_back.lock().unwrap_or_else(|e| e.into_inner()) = next;
                if stopped {
                    stop.store(true, Ordering::Relaxed);
                    pending.clear();
                }
                window.moved.notify_all();
            }
            if !stopped && last_progress.elapsed() >= PROGRESS_EVERY {
                last_progress = Instant::now();
                progress.bytes_done = bytes_done.load(Ordering::Relaxed).min(progress.bytes_total);
                if on_event(Event::Progress(progress)).is_break() {
                    stopped = true;
                    stop.store(true, Ordering::Relaxed);
                    window.moved.notify_all();
                }
            }
        }
        // Every worker has returned (the channel closed), so has the producer.
        let _ = producer.join();
        if !stopped {
            progress.bytes_done = progress.bytes_total;
            let _ = on_event(Event::Progress(progress));
        }
    });
    Ok(())
}

fn is_parquet(input: &Input) -> bool {
    input
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// Run one unit's audit; a panic (a bug) becomes that session's input error
/// instead of taking the batch down, and the worker gets a fresh auditor
/// (the old one's chains may be half-updated).
fn guarded(
    auditor: &mut Auditor,
    name: String,
    format: Format,
    audit: impl FnOnce(&mut Auditor) -> Vec<(String, String)>,
) -> Vec<(String, String)> {
    match catch_unwind(AssertUnwindSafe(|| audit(auditor))) {
        Ok(report) => report,
        Err(panic) => {
            if let Ok(fresh) = auditor.fork() {
                *auditor = fresh;
            }
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let mut report = SessionReport::new(name, format);
            report.error(
                None,
                format!("internal error while auditing this input (a toolguard bug, please report it): {what}"),
            );
            vec![report.finished_json()]
        }
    }
}
