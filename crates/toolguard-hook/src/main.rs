//! `toolguard-hook`: the hook library (lib.rs) as an executable, one process
//! per hook event with no Node start-up. What this shell adds: stdin read
//! with a size bound, a watchdog that fails open at the deadline (a host
//! keeping stdin open, a lock held by a stuck process, a state folder that
//! hangs), panics failing open, and the exit code.

use std::io::{Read, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use toolguard_hook::{
    answer, fail_line, phases, start, state, timeout_answer, Answer, Start, MAX_INPUT,
};

/// Set once the hook has started its answer: the deadline then lets it finish.
static ANSWERED: Mutex<bool> = Mutex::new(false);

fn main() {
    // Phase times on stderr, for tuning (phases.rs); off unless asked.
    if std::env::var_os("TOOLGUARD_HOOK_PHASES").is_some_and(|v| !v.is_empty() && v != "0") {
        phases::enable();
    }
    // A bug must not break the tool call either: fail open, one line, exit 1 (not Rust's 101).
    std::panic::set_hook(Box::new(|info| {
        release_lock();
        let _ =
            std::io::stderr().write_all(fail_line(&format!("internal error: {info}")).as_bytes());
        std::process::exit(1);
    }));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let env = |key: &str| std::env::var(key).ok();
    let (config, timeout_ms) = match start(&args, &env) {
        // `--help` (the only answer with code 0 here) says which hook answered.
        Start::Answer(mut done) if done.code == 0 => {
            done.stdout
                .extend_from_slice(b"(native executable toolguard-hook)\n");
            finish(done)
        }
        Start::Answer(done) => finish(done),
        Start::Read { config, timeout_ms } => (config, timeout_ms),
    };
    phases::mark("args");
    let deadline = Instant::now() + Duration::from_secs_f64(timeout_ms / 1000.0);
    // Without a watchdog thread (none could be started) the hook still runs, unbounded.
    let _ = std::thread::Builder::new().spawn(move || {
        std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
        let answered = ANSWERED.lock().unwrap_or_else(|p| p.into_inner());
        if !*answered {
            release_lock();
            let _ = std::io::stderr().write_all(timeout_answer(timeout_ms).stderr.as_bytes());
            std::process::exit(1);
        }
    });
    phases::mark("watchdog");
    let mut input = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut input);
    phases::mark("stdin");
    let done = match read {
        Ok(_) => answer(config.as_deref(), &input, &env, deadline),
        Err(e) => Answer {
            code: 1,
            stdout: Vec::new(),
            stderr: fail_line(&format!("cannot read the hook input: {e}")),
        },
    };
    finish(done)
}

/// Print the answer and exit with its code (the watchdog no longer interrupts).
fn finish(done: Answer) -> ! {
    let mut answered = ANSWERED.lock().unwrap_or_else(|p| p.into_inner());
    *answered = true;
    let _ = std::io::stderr().write_all(done.stderr.as_bytes());
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&done.stdout).and_then(|_| out.flush());
    phases::mark("answer");
    if let Some(line) = phases::report() {
        let _ = std::io::stderr().write_all(line.as_bytes());
    }
    std::process::exit(done.code);
}

/// The session lock this process holds, removed before a forced exit.
fn release_lock() {
    if let Some(lock) = state::HELD_LOCK
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
    {
        let _ = std::fs::remove_file(lock);
    }
}
