//! The state directory and files, byte-compatible with the Node hook
//! (ts/adapters/hooks.mts): same directory, same file names, same `O_EXCL`
//! lock and rename protocol, same sweep. Node and native hook processes can
//! take turns on one session.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};

use crate::js::Js;
use crate::Failure;

const DAY_MS: f64 = 86_400_000.0;
const SWEEP_EVERY_MS: f64 = 3_600_000.0;
/// A lock older than this belongs to a crashed process.
const STALE_LOCK_MS: f64 = 10_000.0;
/// How long to wait for a session lock (bounded further by the hook deadline).
pub const LOCK_WAIT: Duration = Duration::from_millis(5_000);

/// The lock this process holds, so the deadline watchdog can release it before exiting.
pub static HELD_LOCK: Mutex<Option<PathBuf>> = Mutex::new(None);

pub fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

fn mtime_ms(path: &Path) -> io::Result<f64> {
    let modified = fs::metadata(path)?.modified()?;
    Ok(modified
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0))
}

/// This process's uid (`process.getuid()`), where there is one.
pub fn uid() -> Option<u32> {
    #[cfg(unix)]
    {
        // SAFETY: getuid() has no preconditions and cannot fail.
        Some(unsafe { libc::getuid() })
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Node's `os.tmpdir()`: `$TMPDIR`, `$TMP`, `$TEMP`, else `/tmp`, without a trailing slash.
fn node_tmpdir(env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    #[cfg(unix)]
    {
        let dir = ["TMPDIR", "TMP", "TEMP"]
            .iter()
            .find_map(|k| env(k).filter(|v| !v.is_empty()))
            .unwrap_or_else(|| "/tmp".into());
        let trimmed = if dir.len() > 1 {
            dir.strip_suffix('/').unwrap_or(&dir)
        } else {
            &dir
        };
        PathBuf::from(trimmed)
    }
    #[cfg(not(unix))]
    {
        let _ = env;
        std::env::temp_dir()
    }
}

/// The documented state directory: `$TOOLGUARD_STATE_DIR`, else
/// `$XDG_STATE_HOME/toolguard`, else `<os tmpdir>/toolguard-<uid>`.
pub fn state_dir(env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    if let Some(dir) = env("TOOLGUARD_STATE_DIR").filter(|v| !v.is_empty()) {
        return dir.into();
    }
    if let Some(xdg) = env("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        return Path::new(&xdg).join("toolguard");
    }
    let user = uid().map_or_else(|| "user".to_owned(), |u| u.to_string());
    node_tmpdir(env).join(format!("toolguard-{user}"))
}

/// Create `dir` and its missing parents one level at a time (mode 0700).
/// Not a recursive create that retries: on a file system that answers
/// ENOENT for a directory whose parent exists (/proc) that never ends.
fn make_dir(dir: &Path) -> Result<(), Failure> {
    let mut missing = Vec::new();
    let mut d = dir;
    loop {
        match fs::metadata(d) {
            Ok(meta) if meta.is_dir() => break,
            Ok(_) => return Err(Failure(format!("{} is not a directory", d.display()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing.push(d);
                match d.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => d = parent,
                    _ => break,
                }
            }
            Err(e) => return Err(Failure(format!("{}: {e}", d.display()))),
        }
    }
    for d in missing.into_iter().rev() {
        let mut builder = fs::DirBuilder::new();
        #[cfg(unix)]
        builder.mode(0o700);
        if let Err(e) = builder.create(d) {
            if e.kind() != io::ErrorKind::AlreadyExists {
                return Err(Failure(format!(
                    "cannot create the state directory {}: {e}",
                    dir.display()
                )));
            }
        }
    }
    Ok(())
}

/// Create the directory, and refuse one another user owns: a shared tmpdir
/// lets another user create it first and read or forge chains. The error
/// says what to do, and does not say "set" a variable that is set.
pub fn ensure_dir(dir: &Path, env: &dyn Fn(&str) -> Option<String>) -> Result<(), Failure> {
    make_dir(dir)?;
    #[cfg(unix)]
    {
        let owner = fs::metadata(dir)
            .map_err(|e| Failure(format!("{}: {e}", dir.display())))?
            .uid();
        if let Some(me) = uid() {
            if owner != me {
                let hint = if env("TOOLGUARD_STATE_DIR").is_some_and(|v| !v.is_empty()) {
                    "point TOOLGUARD_STATE_DIR at a directory of your own"
                } else {
                    "set TOOLGUARD_STATE_DIR to a directory of your own"
                };
                return Err(Failure(format!(
                    "state directory {} belongs to uid {owner}, not to this user (uid {me}); {hint}",
                    dir.display()
                )));
            }
        }
    }
    #[cfg(not(unix))]
    let _ = env;
    Ok(())
}

/// Remove state, lock and temp files untouched for `ttl_days`, at most once
/// an hour per directory (the `.swept` marker's mtime says when).
pub fn sweep(dir: &Path, ttl_days: f64) -> Result<usize, Failure> {
    let now = now_ms();
    let marker = dir.join(".swept");
    if let Ok(m) = mtime_ms(&marker) {
        if now - m < SWEEP_EVERY_MS {
            return Ok(0);
        }
    }
    let io = |e: io::Error| Failure(format!("{}: {e}", marker.display()));
    // Truncating re-creation updates the mtime, as writeFileSync + utimesSync do.
    File::create(&marker).map_err(io)?;
    let mut removed = 0;
    let entries = fs::read_dir(dir).map_err(|e| Failure(format!("{}: {e}", dir.display())))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !(name.ends_with(".json") || name.ends_with(".lock") || name.ends_with(".tmp")) {
            continue;
        }
        let path = entry.path();
        // Raced with another sweeper or writer: skip.
        if let Ok(m) = mtime_ms(&path) {
            if now - m > ttl_days * DAY_MS && fs::remove_file(&path).is_ok() {
                removed += 1;
            }
        }
    }
    Ok(removed)
}

/// Base64url without padding, as Node's `Buffer#toString('base64url')`.
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// FNV-1a, 64-bit, over UTF-16 code units: only names files for over-long ids.
fn fnv1a64(units: &[u16]) -> String {
    let mut hash: u64 = 0xcbf29ce484222325;
    for &u in units {
        hash ^= u as u64;
        hash = hash.wrapping_mul(0x100000001b3);
    }
    format!("{hash:016x}")
}

/// The state file name of a chain id (given as the UTF-16 units JavaScript
/// holds): base64url of its UTF-8 (lone surrogates as U+FFFD, as `Buffer`
/// encodes them) when short enough, else a hash and the length. A
/// subagent's hashed name (`<session>\0<agent>`) starts with its session's
/// hash, so SessionEnd finds it.
pub fn state_file_name(chain_id: &[u16]) -> String {
    let encoded = base64url(String::from_utf16_lossy(chain_id).as_bytes());
    if encoded.len() <= 160 {
        return format!("s-{encoded}.json");
    }
    // `chainId.split('\0')[0]`
    match chain_id.iter().position(|&u| u == 0) {
        None => format!("h-{}-{}.json", fnv1a64(chain_id), chain_id.len()),
        Some(end) => format!(
            "h-{}-{}-{}.json",
            fnv1a64(&chain_id[..end]),
            fnv1a64(chain_id),
            chain_id.len()
        ),
    }
}

/// `Buffer.from(text, 'base64url')`: Node decodes leniently — either
/// alphabet, other characters skipped, `=` ends the data, a lone trailing
/// character dropped.
fn base64_decode(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    let (mut bits, mut n) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => continue,
        };
        bits = bits << 6 | v as u32;
        n += 1;
        if n == 4 {
            out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8, bits as u8]);
            (bits, n) = (0, 0);
        }
    }
    match n {
        2 => out.push((bits >> 4) as u8),
        3 => out.extend_from_slice(&[(bits >> 10) as u8, (bits >> 2) as u8]),
        _ => {}
    }
    out
}

/// Whether state directory entry `name` holds a subagent chain of `session`
/// (`<session>\0<agent>`), as the Node hook's `isSubagentFile` decides: a
/// short name decodes to it; a hashed one starts with the session's hash and
/// has four `-`-separated parts (which its `.lock` and `.tmp` files have too).
pub fn is_subagent_file(name: &str, session: &[u16]) -> bool {
    if let Some(encoded) = name
        .strip_prefix("s-")
        .and_then(|rest| rest.strip_suffix(".json"))
    {
        let decoded = base64_decode(encoded);
        let text = String::from_utf8_lossy(&decoded);
        let mut units = text.encode_utf16();
        return session
            .iter()
            .chain(std::iter::once(&0))
            .all(|&u| units.next() == Some(u));
    }
    name.starts_with(&format!("h-{}-", fnv1a64(session))) && name.split('-').count() == 4
}

/// Run `f` holding `<file>.lock` (created with `O_EXCL`; a stale one is
/// broken). Gives up at `deadline`.
pub fn with_lock<T>(
    file: &Path,
    deadline: Instant,
    f: impl FnOnce() -> Result<T, Failure>,
) -> Result<T, Failure> {
    let mut lock = file.as_os_str().to_owned();
    lock.push(".lock");
    let lock = PathBuf::from(lock);
    let mut attempt: u64 = 0;
    loop {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        options.mode(0o600);
        match options.open(&lock) {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                match mtime_ms(&lock) {
                    Ok(m) if now_ms() - m > STALE_LOCK_MS => {
                        let _ = fs::remove_file(&lock);
                        attempt += 1;
                        continue;
                    }
                    Ok(_) => {}
                    Err(_) => {
                        attempt += 1;
                        continue; // released meanwhile
                    }
                }
                if Instant::now() > deadline {
                    return Err(Failure(format!("timed out waiting for {}", lock.display())));
                }
                std::thread::sleep(Duration::from_millis((2 + attempt * 2).min(25)));
                attempt += 1;
            }
            Err(e) => return Err(Failure(format!("{}: {e}", lock.display()))),
        }
    }
    *HELD_LOCK.lock().unwrap_or_else(|p| p.into_inner()) = Some(lock.clone());
    let result = f();
    // Broken as stale by another process: nothing left to release.
    let _ = fs::remove_file(&lock);
    *HELD_LOCK.lock().unwrap_or_else(|p| p.into_inner()) = None;
    result
}

/// The saved state: `{"v":1,"kind":"engine","chain":{"digest"?,"count"?,"loops"?}}`
/// — what the Node hook writes of `GuardEngine.chainState` (the repeat
/// chain's digest and run length, and the loop detectors' window as the
/// core's opaque string). Members this hook does not know (newer hooks'
/// state) are kept and written back unchanged, so a native call between two
/// Node calls does not drop them.
#[derive(Debug, Default)]
pub struct Saved {
    /// The `chain` member when the file holds a v1 engine state.
    pub chain: Option<ChainFields>,
    /// Other top-level members, in file order.
    pub rest: Vec<(String, Js)>,
}

#[derive(Debug, Default)]
pub struct ChainFields {
    /// `None`: the member is absent (JavaScript's `undefined`).
    pub digest: Option<Js>,
    pub count: Option<Js>,
    pub loops: Option<Js>,
    /// `chain` is `null` or absent: `restoreChain` cannot read it.
    pub missing: bool,
    /// Other members of `chain`, in file order.
    pub rest: Vec<(String, Js)>,
}

/// Read a state file; an absent or unreadable one is no state (`readJson`).
pub fn read_saved(file: &Path) -> Saved {
    let Some(Js::Obj(members)) = fs::read_to_string(file)
        .ok()
        .and_then(|t| Js::parse(&t).ok())
    else {
        return Saved::default();
    };
    let v1 = members.iter().any(|(k, v)| k == "v" && *v == Js::Num(1.0))
        && members
            .iter()
            .any(|(k, v)| k == "kind" && v.as_str() == Some("engine"));
    if !v1 {
        // Another format: the Node hook ignores it and overwrites it, so do we.
        return Saved::default();
    }
    let mut saved = Saved::default();
    let mut chain = ChainFields {
        missing: true,
        ..ChainFields::default()
    };
    for (key, value) in members {
        match key.as_str() {
            "v" | "kind" => {}
            "chain" => {
                chain = ChainFields::default();
                match value {
                    Js::Null => chain.missing = true,
                    Js::Obj(members) => {
                        for (k, v) in members {
                            match k.as_str() {
                                "digest" => chain.digest = Some(v),
                                "count" => chain.count = Some(v),
                                "loops" => chain.loops = Some(v),
                                _ => chain.rest.push((k, v)),
                            }
                        }
                    }
                    // N-API reads a primitive as an object without these members.
                    _ => {}
                }
            }
            _ => saved.rest.push((key, value)),
        }
    }
    saved.chain = Some(chain);
    saved
}

/// What a saved state holds, checked as `GuardEngine.restoreChain` checks it.
#[derive(Debug, Default, PartialEq)]
pub struct SavedChain {
    /// The repeat chain's `(digest, count)`.
    pub chain: Option<(u128, u64)>,
    /// The loop window (`Engine::loop_state`).
    pub loops: Option<String>,
}

pub fn saved_chain(fields: &ChainFields) -> Result<SavedChain, Failure> {
    if fields.missing {
        return Err(Failure("Cannot convert undefined or null to object".into()));
    }
    // N-API's conversion of each member: absent is none, any other type (null too) an error.
    let convert = |value: &Option<Js>, member: &str, rust: &str| -> Result<(), Failure> {
        match value {
            Some(Js::Str(_)) if rust == "String" => Ok(()),
            Some(Js::Num(_)) if rust == "f64" => Ok(()),
            None => Ok(()),
            Some(other) => Err(Failure(format!(
                "Failed to convert JavaScript value `{}` into rust type `{rust}` on ChainState.{member}",
                match other {
                    Js::Null => "Null".to_owned(),
                    Js::Bool(b) => format!("Boolean {b} "),
                    Js::Num(n) => format!("Number {} ", toolguard_core::config::js_number(*n)),
                    Js::Str(s) => format!("String {s} "),
                    Js::Arr(_) | Js::Obj(_) => "Object {} ".to_owned(),
                }
            ))),
        }
    };
    convert(&fields.digest, "digest", "String")?;
    convert(&fields.count, "count", "f64")?;
    convert(&fields.loops, "loops", "String")?;
    let mut saved = SavedChain::default();
    if fields.digest.is_some() || fields.count.is_some() {
        let digest = match &fields.digest {
            Some(Js::Str(d)) => Some(d)
                .filter(|d| d.len() == 32)
                .and_then(|d| u128::from_str_radix(d, 16).ok()),
            _ => None,
        }
        .ok_or_else(|| Failure("toolguard: state.digest must be 32 hexadecimal digits".into()))?;
        let count = match fields.count {
            Some(Js::Num(c)) if c.is_finite() && c.fract() == 0.0 && c >= 1.0 => c as u64,
            _ => {
                return Err(Failure(
                    "toolguard: state.count must be an integer >= 1".into(),
                ))
            }
        };
        saved.chain = Some((digest, count));
    }
    if let Some(Js::Str(loops)) = &fields.loops {
        saved.loops = Some(loops.clone());
    }
    Ok(saved)
}

/// The state file text for an engine's state (`{v, kind, chain}`, `chain`
/// as `chainState` gives it: `digest`, `count`, `loops`, each only when
/// set): exactly what the Node hook writes, plus any members kept from the file.
pub fn saved_text(state: &SavedChain, kept: &Saved) -> String {
    let mut chain = Vec::new();
    if let Some((digest, count)) = state.chain {
        chain.push(("digest".to_owned(), Js::Str(format!("{digest:032x}"))));
        chain.push(("count".to_owned(), Js::Num(count as f64)));
    }
    if let Some(loops) = &state.loops {
        chain.push(("loops".to_owned(), Js::Str(loops.clone())));
    }
    if let Some(fields) = &kept.chain {
        chain.extend(fields.rest.iter().cloned());
    }
    let mut members = vec![
        ("v".to_owned(), Js::Num(1.0)),
        ("kind".to_owned(), Js::Str("engine".into())),
        ("chain".to_owned(), Js::Obj(chain)),
    ];
    members.extend(kept.rest.iter().cloned());
    Js::Obj(members).stringify()
}

/// Write `<file>.<pid>.tmp` (0600) and rename it over `file`.
pub fn write_atomic(file: &Path, text: &str) -> Result<(), Failure> {
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let io = |e: io::Error| Failure(format!("{}: {e}", tmp.display()));
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    options.mode(0o600);
    options
        .open(&tmp)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(io)?;
    fs::rename(&tmp, file).map_err(io)
}

/// Delete a state file; an absent one is fine.
pub fn remove(file: &Path) -> Result<(), Failure> {
    match fs::remove_file(file) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(Failure(format!("{}: {e}", file.display())))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_match_node() {
        // Buffer.from(id).toString('base64url') for ids of 1, 2 and 3 bytes mod 3.
        assert_eq!(base64url(b"a"), "YQ");
        assert_eq!(base64url(b"ab"), "YWI");
        assert_eq!(base64url(b"abc"), "YWJj");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        let long: Vec<u16> = "x".repeat(500).encode_utf16().collect();
        let name = state_file_name(&long);
        assert!(
            name.starts_with("h-") && name.ends_with("-500.json"),
            "{name}"
        );
    }

    #[test]
    fn subagent_files_of_a_session() {
        let units = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        let chain = |session: &str, agent: &str| units(&format!("{session}\0{agent}"));
        let short = state_file_name(&chain("sess", "a"));
        assert!(is_subagent_file(&short, &units("sess")));
        assert!(!is_subagent_file(&short, &units("ses")));
        assert!(!is_subagent_file(
            &state_file_name(&units("sess")),
            &units("sess")
        ));
        // A long chain: the session's hash leads, then the chain's, then the length.
        let long = state_file_name(&chain("sess", &"b".repeat(200)));
        let parts: Vec<&str> = long.split('-').collect();
        assert_eq!(parts.len(), 4, "{long}");
        assert_eq!(parts[1], fnv1a64(&units("sess")));
        assert!(is_subagent_file(&long, &units("sess")));
        assert!(!is_subagent_file(&long, &units("other")));
        // As Node decides: a hashed name's lock and temp files have four parts too.
        assert!(is_subagent_file(&format!("{long}.lock"), &units("sess")));
        let session = "s".repeat(300);
        assert_eq!(state_file_name(&units(&session)).split('-').count(), 3);
    }

    #[test]
    fn base64_decodes_as_node_buffer() {
        // Buffer.from(text, 'base64url') on Node 20 and 22.
        for (text, bytes) in [
            ("YWJj", &b"abc"[..]),
            ("YW*Jj", b"abc"),
            ("YW=Jj", b"a"),
            ("YWJjZA===YQ", b"abcd"),
            ("Y", b""),
            ("YWJ", b"ab"),
            ("a+/b", &[0x6b, 0xef, 0xdb]),
            ("-_8", &[0xfb, 0xff]),
        ] {
            assert_eq!(base64_decode(text), bytes, "{text}");
        }
    }

    #[test]
    fn saved_state_round_trips_unknown_members() {
        let kept = Saved {
            chain: Some(ChainFields {
                rest: vec![("loop".into(), Js::Num(2.0))],
                ..ChainFields::default()
            }),
            rest: vec![("window".into(), Js::Arr(vec![]))],
        };
        let state = SavedChain {
            chain: Some((0xab, 3)),
            loops: Some("L1.1.-.-".into()),
        };
        assert_eq!(
            saved_text(&state, &kept),
            r#"{"v":1,"kind":"engine","chain":{"digest":"000000000000000000000000000000ab","count":3,"loops":"L1.1.-.-","loop":2},"window":[]}"#
        );
        let blind = SavedChain {
            chain: Some((1, 1)),
            loops: None,
        };
        assert_eq!(
            saved_text(&blind, &Saved::default()),
            r#"{"v":1,"kind":"engine","chain":{"digest":"00000000000000000000000000000001","count":1}}"#
        );
    }

    #[test]
    fn saved_chains_are_checked_as_restore_chain_checks_them() {
        let fields = |text: &str| {
            let dir =
                std::env::temp_dir().join(format!("toolguard-hook-state-{}", std::process::id()));
            fs::create_dir_all(&dir).unwrap();
            let file = dir.join("s.json");
            fs::write(&file, text).unwrap();
            let saved = read_saved(&file);
            let _ = fs::remove_dir_all(&dir);
            saved.chain.map(|c| saved_chain(&c).map_err(|e| e.0))
        };
        let engine = |chain: &str| format!(r#"{{"v":1,"kind":"engine"{chain}}}"#);
        assert!(fields(r#"{"v":2}"#).is_none(), "another format is no state");
        assert!(fields(&engine("")).unwrap().is_err(), "no chain");
        assert!(fields(&engine(r#","chain":null"#)).unwrap().is_err());
        assert_eq!(
            fields(&engine(r#","chain":{}"#)),
            Some(Ok(SavedChain::default()))
        );
        assert_eq!(
            fields(&engine(r#","chain":"x""#)),
            Some(Ok(SavedChain::default()))
        );
        assert!(fields(&engine(r#","chain":{"loops":null}"#))
            .unwrap()
            .is_err());
        assert!(fields(&engine(r#","chain":{"loops":5}"#)).unwrap().is_err());
        assert!(fields(&engine(r#","chain":{"digest":"ab"}"#))
            .unwrap()
            .is_err());
        assert_eq!(
            fields(&engine(
                r#","chain":{"loops":"L1","digest":"000000000000000000000000000000ab","count":2}"#
            )),
            Some(Ok(SavedChain {
                chain: Some((0xab, 2)),
                loops: Some("L1".into())
            }))
        );
    }
}
