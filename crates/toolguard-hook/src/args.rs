//! The command line (`--config`, `--help`) and the environment's deadline
//! of one invocation, decided before the event is read.

use crate::answer::{Answer, Failure};

/// Default of `TOOLGUARD_HOOK_TIMEOUT_MS`.
pub(crate) const HOOK_TIMEOUT_MS: f64 = 5_000.0;

/// `toolguard hook --help`.
pub const USAGE: &str = "usage: toolguard hook [--config <file.json|file.yaml>]
       toolguard hook --native-path   (prints the native hook executable to
       register instead of `toolguard hook`: no Node start per event)
Reads one Claude Code / Codex hook event (JSON) on stdin. Register it for the
PostToolUse, PostToolUseFailure, UserPromptSubmit and SessionEnd events (and
PreToolUse to refuse calls that continue a loop, with \"loops\": {\"deny\": N}).
The config file is a GuardConfig ({repeat?, loudFailure?, loops?, exactMode?})
in JSON or YAML; TOOLGUARD_CONFIG names it too. Check it first with: toolguard
check-config FILE (the hook's errors go to stderr, which Claude Code does not
show).
State: $TOOLGUARD_STATE_DIR, else $XDG_STATE_HOME/toolguard, else
<tmpdir>/toolguard-<uid>.
Deadline: TOOLGUARD_HOOK_TIMEOUT_MS (default 5000) for the input and the
session lock.";

/// The environment as the hook reads it (the process's, or one a caller gives).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// What to do before reading the event: answer at once (`--help`, a bad
/// command line: stdin is never read), or read it within `timeout_ms`.
#[derive(Debug, PartialEq)]
pub enum Start {
    Answer(Answer),
    Read {
        config: Option<String>,
        timeout_ms: f64,
    },
}

/// The command line and the deadline of one invocation.
pub fn start(args: &[String], env: Env) -> Start {
    let flags = match parse_flags(args) {
        Ok(flags) => flags,
        Err(Failure(reason)) => {
            let usage = USAGE.lines().next().unwrap_or_default();
            return Start::Answer(Answer::failed(&format!("{reason} ({usage})")));
        }
    };
    if flags.help {
        return Start::Answer(Answer {
            code: 0,
            stdout: format!("{USAGE}\n").into_bytes(),
            stderr: String::new(),
        });
    }
    let timeout_ms = timeout_of(env).unwrap_or(HOOK_TIMEOUT_MS);
    // `--config`, else `$TOOLGUARD_CONFIG`; an empty path is none.
    let config = flags
        .config
        .or_else(|| env("TOOLGUARD_CONFIG"))
        .filter(|p| !p.is_empty());
    Start::Read { config, timeout_ms }
}

/// `TOOLGUARD_HOOK_TIMEOUT_MS` when it is set to a positive number; `None`
/// when it is unset or unusable.
pub(crate) fn timeout_of(env: Env) -> Option<f64> {
    let ms = number_of(&env("TOOLGUARD_HOOK_TIMEOUT_MS")?);
    (ms.is_finite() && ms > 0.0).then_some(ms)
}

/// A number from an environment variable (trimmed; anything that is not a
/// plain decimal number is NaN, which falls back to the default).
pub(crate) fn number_of(text: &str) -> f64 {
    text.trim().parse::<f64>().unwrap_or(f64::NAN)
}

/// The command line of `toolguard hook`.
#[derive(Debug, Default, PartialEq)]
struct Flags {
    config: Option<String>,
    help: bool,
}

/// `parseCommandLine(argv, HOOK_OPTIONS)`: node:util's `parseArgs` (strict,
/// positionals allowed) over `--config <file>` and `--help`/`-h`, with the
/// messages ts/cli/args.mts makes of its errors.
fn parse_flags(args: &[String]) -> Result<Flags, Failure> {
    let mut flags = Flags::default();
    let unknown = |option: &str| {
        // args.mts names the flag by its text up to a quote or a space.
        let flag = option.split(['\'', ' ']).next().unwrap_or_default();
        Failure(format!("unknown option {flag}"))
    };
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg == "--" {
            break; // the rest are positionals
        }
        if arg.len() < 2 || !arg.starts_with('-') {
            continue; // a positional (`-` too)
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) if !name.is_empty() => (name, Some(value)),
                _ => (long, None),
            };
            match (name, inline) {
                ("config", Some(value)) => flags.config = Some(value.to_owned()),
                ("config", None) => match args.get(i) {
                    // parseArgs: a next argument that looks like an option is ambiguous, not a value.
                    Some(value) if !(value.len() > 1 && value.starts_with('-')) => {
                        flags.config = Some(value.clone());
                        i += 1;
                    }
                    _ => return Err(Failure("--config needs a value".into())),
                },
                ("help", None) => flags.help = true,
                // parseArgs names the option `'-h, --help'`, and args.mts its first word.
                ("help", Some(_)) => return Err(Failure("-h, takes no value".into())),
                _ => {
                    return Err(unknown(if inline.is_some() {
                        &arg[..2 + name.len()]
                    } else {
                        arg
                    }))
                }
            }
        } else {
            // A short option or a group of them: only `-h` exists.
            for c in arg[1..].chars() {
                if c != 'h' {
                    return Err(unknown(&format!("-{c}")));
                }
                flags.help = true;
            }
        }
    }
    Ok(flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_of_env_text() {
        assert_eq!(number_of(" 250 "), 250.0);
        assert_eq!(number_of("1e3"), 1000.0);
        assert!(number_of("").is_nan());
        assert!(number_of("5ms").is_nan());
    }

    #[test]
    fn command_line_as_parse_args() {
        let parse = |args: &[&str]| {
            parse_flags(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>()).map_err(|e| e.0)
        };
        let flags = |config: Option<&str>, help| {
            Ok(Flags {
                config: config.map(Into::into),
                help,
            })
        };
        assert_eq!(
            parse(&["--config", "c.yaml", "x"]),
            flags(Some("c.yaml"), false)
        );
        assert_eq!(
            parse(&["--config=a=b", "--config", "-"]),
            flags(Some("-"), false)
        );
        assert_eq!(parse(&["-hh", "--", "--bogus"]), flags(None, true));
        assert_eq!(parse(&["--bogus=1"]), Err("unknown option --bogus".into()));
        assert_eq!(parse(&["--=x"]), Err("unknown option --=x".into()));
        assert_eq!(parse(&["-h=1"]), Err("unknown option -=".into()));
        assert_eq!(
            parse(&["--config", "--help"]),
            Err("--config needs a value".into())
        );
        assert_eq!(
            parse(&["--help", "--config"]),
            Err("--config needs a value".into())
        );
        assert_eq!(parse(&["--help="]), Err("-h, takes no value".into()));
    }
}
