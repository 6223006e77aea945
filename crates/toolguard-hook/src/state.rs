//! The state directory and files: one small JSON file per session (and per
//! subagent), updated under an `O_EXCL` lock file and replaced by rename, so
//! parallel hook processes (parallel tool calls) never lose or tear an
//! update; files untouched for the TTL are swept. The executable and the
//! Node `toolguard hook` path both run this, so they share the folder and
//! the files.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};

use serde_json::{Map, Value};

use crate::answer::Failure;
use crate::args::Env;

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

/// The temporary folder, read from `env` (the executable's environment, or
/// the one the Node caller passes), so both shells choose the same folder:
/// `$TMPDIR`, `$TMP`, `$TEMP`, else `/tmp` on Unix; `%TEMP%`, `%TMP%`, else
/// the system's on Windows. No trailing separator.
fn tmpdir(env: Env) -> PathBuf {
    #[cfg(unix)]
    let (keys, fallback) = (["TMPDIR", "TMP", "TEMP"].as_slice(), "/tmp".to_owned());
    #[cfg(not(unix))]
    let (keys, fallback) = (
        ["TEMP", "TMP"].as_slice(),
        std::env::temp_dir().to_string_lossy().into_owned(),
    );
    let dir = keys
        .iter()
        .find_map(|k| env(k).filter(|v| !v.is_empty()))
        .unwrap_or(fallback);
    let trimmed = dir.trim_end_matches(['/', std::path::MAIN_SEPARATOR]);
    PathBuf::from(if trimmed.is_empty() { &dir } else { trimmed })
}

/// The documented state directory: `$TOOLGUARD_STATE_DIR`, else
/// `$XDG_STATE_HOME/toolguard`, else `<os tmpdir>/toolguard-<uid>`.
pub fn state_dir(env: Env) -> PathBuf {
    if let Some(dir) = env("TOOLGUARD_STATE_DIR").filter(|v| !v.is_empty()) {
        return dir.into();
    }
    if let Some(xdg) = env("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        return Path::new(&xdg).join("toolguard");
    }
    let user = uid().map_or_else(|| "user".to_owned(), |u| u.to_string());
    tmpdir(env).join(format!("toolguard-{user}"))
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
pub fn ensure_dir(dir: &Path, env: Env) -> Result<(), Failure> {
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

/// Base64url without padding.
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

/// The state file name of a chain id: base64url of its UTF-8 (reversible,
/// so two ids never share a file) when short enough, else a hash and the
/// length (in UTF-16 units, as the names have always counted). A
/// subagent's hashed name (`<session>\0<agent>`) starts with its session's
/// hash, so SessionEnd finds it.
pub fn state_file_name(chain_id: &str) -> String {
    let encoded = base64url(chain_id.as_bytes());
    if encoded.len() <= 160 {
        return format!("s-{encoded}.json");
    }
    let chain_id: Vec<u16> = chain_id.encode_utf16().collect();
    match chain_id.iter().position(|&u| u == 0) {
        None => format!("h-{}-{}.json", fnv1a64(&chain_id), chain_id.len()),
        Some(end) => format!(
            "h-{}-{}-{}.json",
            fnv1a64(&chain_id[..end]),
            fnv1a64(&chain_id),
            chain_id.len()
        ),
    }
}

/// Base64 (either alphabet) decoded leniently: other characters skipped,
/// `=` ends the data, a lone trailing character dropped.
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
/// (`<session>\0<agent>`): a short name decodes to it; a hashed one starts
/// with the session's hash and has four `-`-separated parts (which its
/// `.lock` and `.tmp` files have too).
pub fn is_subagent_file(name: &str, session: &str) -> bool {
    if let Some(encoded) = name
        .strip_prefix("s-")
        .and_then(|rest| rest.strip_suffix(".json"))
    {
        let decoded = base64_decode(encoded);
        return String::from_utf8_lossy(&decoded).starts_with(&format!("{session}\0"));
    }
    let session: Vec<u16> = session.encode_utf16().collect();
    name.starts_with(&format!("h-{}-", fnv1a64(&session))) && name.split('-').count() == 4
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

/// A state file as read: `{"v":1,"kind":"engine","chain":{"digest"?,"count"?,"loops"?,"writes"?,"reported"?}}`
/// — the repeat chain's digest and run length, the loop detectors'
/// window as the core's opaque string, and the paths the agent wrote in the
/// session (its own scripts, `Engine::written_paths`; older files have none). Members this hook does not know (a
/// newer hook's) are kept and written back unchanged.
#[derive(Debug, Default)]
pub struct Saved {
    /// What the `chain` member holds, when the file holds a v1 engine state.
    pub chain: Option<SavedChain>,
    /// The file's members, as read (rewritten with a new `chain`).
    pub members: Map<String, Value>,
}

/// What a saved state holds.
#[derive(Debug, Default, PartialEq)]
pub struct SavedChain {
    /// The repeat chain's `(digest, count)`.
    pub chain: Option<(u128, u64)>,
    /// The loop window (`Engine::loop_state`).
    pub loops: Option<String>,
    /// The paths the agent wrote, oldest first (`Engine::written_paths`).
    pub writes: Vec<String>,
    /// The error lines the user's prompts quoted, oldest first
    /// (`Engine::reported_lines`); `None`: no prompt seen.
    pub reported: Option<Vec<String>>,
}

/// A written path longer than this is not saved (no real path is; it keeps
/// a state file small: the core keeps at most `SessionWrites::CAP` paths).
pub const MAX_SAVED_PATH: usize = 4096;

/// Read a state file; an absent, unreadable or other-format one is no state
/// (it is overwritten). A v1 engine state whose members are not what this
/// hook writes is an error (fail open: the call passes unguarded).
pub fn read_saved(file: &Path) -> Result<Saved, Failure> {
    let Some(Value::Object(members)) = fs::read_to_string(file)
        .ok()
        .and_then(|t| serde_json::from_str(&crate::event::replace_lone_surrogates(&t)).ok())
    else {
        return Ok(Saved::default());
    };
    if members.get("v") != Some(&Value::from(1))
        || members.get("kind") != Some(&Value::from("engine"))
    {
        return Ok(Saved::default());
    }
    let bad = |what: &str| Failure(format!("toolguard: {} in {}", what, file.display()));
    let Some(Value::Object(chain)) = members.get("chain") else {
        return Err(bad("state.chain must be an object"));
    };
    let mut saved = SavedChain::default();
    match (chain.get("digest"), chain.get("count")) {
        (None, None) => {}
        (Some(Value::String(d)), Some(count)) => {
            let digest = Some(d)
                .filter(|d| d.len() == 32)
                .and_then(|d| u128::from_str_radix(d, 16).ok())
                .ok_or_else(|| bad("state.digest must be 32 hexadecimal digits"))?;
            let count = count
                .as_u64()
                .filter(|&c| c >= 1)
                .ok_or_else(|| bad("state.count must be an integer >= 1"))?;
            saved.chain = Some((digest, count));
        }
        _ => return Err(bad("state.digest and state.count go together")),
    }
    match chain.get("loops") {
        None => {}
        Some(Value::String(loops)) => saved.loops = Some(loops.clone()),
        Some(_) => return Err(bad("state.loops must be a string")),
    }
    match chain.get("writes") {
        None => {}
        Some(Value::Array(paths)) => {
            for path in paths {
                match path {
                    Value::String(p) => saved.writes.push(p.clone()),
                    _ => return Err(bad("state.writes must be an array of strings")),
                }
            }
        }
        Some(_) => return Err(bad("state.writes must be an array of strings")),
    }
    match chain.get("reported") {
        None => {}
        Some(Value::Array(lines)) => {
            let mut kept = Vec::with_capacity(lines.len());
            for line in lines {
                match line {
                    Value::String(l) => kept.push(l.clone()),
                    _ => return Err(bad("state.reported must be an array of strings")),
                }
            }
            saved.reported = Some(kept);
        }
        Some(_) => return Err(bad("state.reported must be an array of strings")),
    }
    Ok(Saved {
        chain: Some(saved),
        members,
    })
}

/// The state file text for an engine's state (`chain`: `digest`, `count`,
/// `loops`, each only when set), with any other members kept from the file.
pub fn saved_text(state: &SavedChain, kept: &Saved) -> String {
    let mut chain = match kept.members.get("chain") {
        Some(Value::Object(chain)) => chain.clone(),
        _ => Map::new(),
    };
    for key in ["digest", "count", "loops", "writes", "reported"] {
        chain.remove(key);
    }
    if let Some((digest, count)) = state.chain {
        chain.insert("digest".into(), format!("{digest:032x}").into());
        chain.insert("count".into(), count.into());
    }
    if let Some(loops) = &state.loops {
        chain.insert("loops".into(), loops.clone().into());
    }
    let writes: Vec<Value> = state
        .writes
        .iter()
        .filter(|p| p.len() <= MAX_SAVED_PATH)
        .map(|p| Value::from(p.as_str()))
        .collect();
    if !writes.is_empty() {
        chain.insert("writes".into(), Value::Array(writes));
    }
    if let Some(lines) = &state.reported {
        let lines = lines.iter().map(|l| Value::from(l.as_str())).collect();
        chain.insert("reported".into(), Value::Array(lines));
    }
    let mut members = kept.members.clone();
    members.insert("v".into(), 1.into());
    members.insert("kind".into(), "engine".into());
    members.insert("chain".into(), Value::Object(chain));
    Value::Object(members).to_string()
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
    fn file_names() {
        assert_eq!(base64url(b"a"), "YQ");
        assert_eq!(base64url(b"ab"), "YWI");
        assert_eq!(base64url(b"abc"), "YWJj");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        let name = state_file_name(&"x".repeat(500));
        assert!(
            name.starts_with("h-") && name.ends_with("-500.json"),
            "{name}"
        );
    }

    #[test]
    fn subagent_files_of_a_session() {
        let chain = |session: &str, agent: &str| format!("{session}\0{agent}");
        let short = state_file_name(&chain("sess", "a"));
        assert!(is_subagent_file(&short, "sess"));
        assert!(!is_subagent_file(&short, "ses"));
        assert!(!is_subagent_file(&state_file_name("sess"), "sess"));
        // A long chain: the session's hash leads, then the chain's, then the length.
        let long = state_file_name(&chain("sess", &"b".repeat(200)));
        let parts: Vec<&str> = long.split('-').collect();
        assert_eq!(parts.len(), 4, "{long}");
        assert!(is_subagent_file(&long, "sess"));
        assert!(!is_subagent_file(&long, "other"));
        assert!(is_subagent_file(&format!("{long}.lock"), "sess"));
        assert_eq!(state_file_name(&"s".repeat(300)).split('-').count(), 3);
    }

    #[test]
    fn base64_decodes_leniently() {
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
    fn saved_states_are_checked_and_keep_unknown_members() {
        let dir = std::env::temp_dir().join(format!("toolguard-hook-state-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("s.json");
        let read = |text: &str| {
            fs::write(&file, text).unwrap();
            read_saved(&file)
                .map(|s| {
                    let text = saved_text(
                        &SavedChain {
                            chain: Some((0xab, 3)),
                            loops: None,
                            writes: vec!["repro.py".into(), "x".repeat(MAX_SAVED_PATH + 1)],
                            reported: None,
                        },
                        &s,
                    );
                    (s.chain, text)
                })
                .map_err(|e| e.0)
        };
        let engine = |chain: &str| format!(r#"{{"v":1,"kind":"engine"{chain}}}"#);
        assert_eq!(
            read(r#"{"v":2}"#).unwrap().0,
            None,
            "another format is no state"
        );
        assert!(read(&engine("")).is_err(), "no chain");
        assert!(read(&engine(r#","chain":{"loops":5}"#)).is_err());
        assert!(read(&engine(r#","chain":{"digest":"ab","count":1}"#)).is_err());
        let (chain, text) = read(&engine(
            r#","chain":{"loops":"L1","digest":"000000000000000000000000000000ab","count":2,"x":1},"y":[]"#,
        ))
        .unwrap();
        assert_eq!(
            chain,
            Some(SavedChain {
                chain: Some((0xab, 2)),
                loops: Some("L1".into()),
                writes: Vec::new(),
                reported: None,
            })
        );
        assert_eq!(
            text,
            r#"{"chain":{"count":3,"digest":"000000000000000000000000000000ab","writes":["repro.py"],"x":1},"kind":"engine","v":1,"y":[]}"#
        );
        assert!(read(&engine(r#","chain":{"writes":"a.py"}"#)).is_err());
        assert!(read(&engine(r#","chain":{"writes":[1]}"#)).is_err());
        assert!(read(&engine(r#","chain":{"reported":"x"}"#)).is_err());
        let (chain, _) = read(&engine(r#","chain":{"reported":[" valueerror bad "]}"#)).unwrap();
        assert_eq!(
            chain.unwrap().reported,
            Some(vec![" valueerror bad ".into()])
        );
        let (chain, _) = read(&engine(r#","chain":{"writes":["a.py","b/c.sh"]}"#)).unwrap();
        assert_eq!(chain.unwrap().writes, ["a.py", "b/c.sh"]);
        let _ = fs::remove_dir_all(&dir);
    }
}
