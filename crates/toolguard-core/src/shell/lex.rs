//! The tokenizer and list parser: a command line → pipelines of simple
//! commands (words, redirections, heredoc bodies), never failing.
//!
//! Hand-written rather than a parser crate (evaluated: `brush-parser` 0.4,
//! MIT, pure Rust — ~90 crates with proc macros and a C build step through
//! `stacker`, into a hook that starts once per tool call; and it rejects
//! half-valid input — an unclosed quote, a heredoc cut short — which agents
//! send often and which we must still model). The guard needs words,
//! operators, redirections and heredocs, not expansion: quotes are removed,
//! `$(…)`/backticks/`${…}` are kept as text inside their word, and anything
//! unexpected degrades to a word. Every loop advances at least one byte, the
//! input is cut at [`super::MAX_INPUT`] bytes and at most
//! [`super::MAX_COMMANDS`] simple commands are kept, so the work is linear
//! and bounded.

/// How a pipeline is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joiner {
    /// The first pipeline of the line (or of a subshell/group).
    Start,
    /// `;` or a newline.
    Seq,
    And,
    Or,
    /// After a pipeline sent to the background with `&`.
    AfterBackground,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The file descriptor redirected (1 for `>`, 2 for `2>`, 0 for `<`;
    /// `&>` is recorded as 1 with `both`).
    pub fd: u32,
    /// `>`/`>>`/`>|`/`&>`: output to a file; `<`: input from a file.
    pub output: bool,
    pub append: bool,
    /// `&>`/`&>>`: stdout and stderr.
    pub both: bool,
    /// The target word (`/dev/null`, a path, or `&1` for a dup).
    pub target: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawCommand {
    /// Words with quotes removed; env assignments `A=b` before the program
    /// are in `assignments`.
    pub words: Vec<String>,
    pub assignments: Vec<String>,
    pub redirects: Vec<Redirect>,
    /// The body of a `<<`/`<<<` heredoc feeding this command.
    pub heredoc: Option<String>,
    pub heredoc_fd_ok: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawPipeline {
    pub joiner: Joiner,
    pub stages: Vec<RawCommand>,
    /// Ended by `&`.
    pub background: bool,
    /// Nesting depth in `( … )` / `{ … }` / `$( … )`-free groups.
    pub depth: u32,
    /// `! pipeline`.
    pub negated: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(String),
    /// `|`, `|&`, `||`, `&&`, `&`, `;`, `;;`, newline, `(`, `)`.
    Op(&'static str),
    Redir(Redirect),
    /// A heredoc operator whose body is read at the next newline.
    Heredoc {
        strip_tabs: bool,
    },
    HereString,
}

/// Reads `s` into pipelines. `limit_commands` bounds the simple commands kept.
pub fn parse_line(s: &str, limit_commands: usize) -> (Vec<RawPipeline>, bool) {
    let toks = tokenize(s);
    let mut out: Vec<RawPipeline> = Vec::new();
    let mut truncated = false;
    let mut depth: u32 = 0;
    let mut joiner = Joiner::Start;
    let mut cur = RawPipeline {
        joiner,
        stages: Vec::new(),
        background: false,
        depth,
        negated: false,
    };
    let mut cmd = RawCommand::default();
    let mut count = 0usize;
    let mut pending_word_for: Option<Pending> = None;
    let mut i = 0;
    // A `{` or `(` seen as a command word opens a group; keywords that only
    // introduce the next command are dropped.
    while i < toks.len() {
        let t = &toks[i];
        i += 1;
        match t {
            Tok::Word(w) => {
                if let Some(p) = pending_word_for.take() {
                    match p {
                        Pending::Redirect(mut r) => {
                            r.target = w.clone();
                            cmd.redirects.push(r);
                        }
                        Pending::HereString => cmd.heredoc = Some(w.clone()),
                    }
                    continue;
                }
                if cmd.words.is_empty() {
                    if is_assignment(w) {
                        cmd.assignments.push(w.clone());
                        continue;
                    }
                    match w.as_str() {
                        "{" => {
                            depth += 1;
                            continue;
                        }
                        "}" => {
                            depth = depth.saturating_sub(1);
                            continue;
                        }
                        "!" if cur.stages.is_empty() => {
                            cur.negated = true;
                            continue;
                        }
                        "if" | "then" | "else" | "elif" | "do" | "while" | "until" | "fi"
                        | "done" | "esac" | "time" => continue,
                        _ => {}
                    }
                }
                cmd.words.push(w.clone());
            }
            Tok::Redir(r) => pending_word_for = Some(Pending::Redirect(r.clone())),
            Tok::HereString => pending_word_for = Some(Pending::HereString),
            Tok::Heredoc { .. } => {
                // The body token follows (tokenize puts it right after the delimiter word).
                if let Some(Tok::Word(_delim)) = toks.get(i) {
                    i += 1;
                }
                if let Some(Tok::Word(body)) = toks.get(i) {
                    cmd.heredoc = Some(body.clone());
                    i += 1;
                }
            }
            Tok::Op(op) => {
                pending_word_for = None;
                let mut end_cmd = |cur: &mut RawPipeline, cmd: &mut RawCommand| {
                    if !cmd.words.is_empty()
                        || !cmd.redirects.is_empty()
                        || !cmd.assignments.is_empty()
                    {
                        if count < limit_commands {
                            cur.stages.push(std::mem::take(cmd));
                            count += 1;
                        } else {
                            truncated = true;
                            *cmd = RawCommand::default();
                        }
                    }
                };
                match *op {
                    "|" | "|&" => end_cmd(&mut cur, &mut cmd),
                    "(" => {
                        end_cmd(&mut cur, &mut cmd);
                        // `a (b)` is not shell; best effort: the group starts a
                        // new pipeline, not a stage of the words before it.
                        if !cur.stages.is_empty() {
                            out.push(std::mem::replace(
                                &mut cur,
                                RawPipeline {
                                    joiner: Joiner::Seq,
                                    stages: Vec::new(),
                                    background: false,
                                    depth,
                                    negated: false,
                                },
                            ));
                            joiner = Joiner::Seq;
                        }
                        depth += 1;
                    }
                    _ => {
                        end_cmd(&mut cur, &mut cmd);
                        let next_joiner = match *op {
                            "&&" => Joiner::And,
                            "||" => Joiner::Or,
                            "&" => Joiner::AfterBackground,
                            _ => Joiner::Seq,
                        };
                        if !cur.stages.is_empty() {
                            cur.background = *op == "&";
                            out.push(cur);
                            joiner = next_joiner;
                        } else if joiner == Joiner::Start
                            || matches!(next_joiner, Joiner::And | Joiner::Or)
                        {
                            // `( a ) && b`: the group's own pipelines were
                            // pushed; the operator joins what follows.
                            if !out.is_empty() {
                                joiner = next_joiner;
                                if *op == "&" {
                                    if let Some(last) = out.last_mut() {
                                        last.background = true;
                                    }
                                }
                            }
                        } else if *op == "&" {
                            if let Some(last) = out.last_mut() {
                                last.background = true;
                            }
                            joiner = Joiner::AfterBackground;
                        }
                        if *op == ")" {
                            depth = depth.saturating_sub(1);
                        }
                        cur = RawPipeline {
                            joiner,
                            stages: Vec::new(),
                            background: false,
                            depth,
                            negated: false,
                        };
                    }
                }
                if *op == "(" {
                    cur.depth = depth;
                }
            }
        }
    }
    if !cmd.words.is_empty() || !cmd.redirects.is_empty() || !cmd.assignments.is_empty() {
        if count < limit_commands {
            cur.stages.push(cmd);
        } else {
            truncated = true;
        }
    }
    if !cur.stages.is_empty() {
        out.push(cur);
    }
    (out, truncated)
}

enum Pending {
    Redirect(Redirect),
    HereString,
}

fn is_assignment(w: &str) -> bool {
    match w.find('=') {
        Some(0) | None => false,
        Some(eq) => {
            let name = &w[..eq];
            let name = name.strip_suffix('+').unwrap_or(name);
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        }
    }
}

/// Splits into tokens; heredoc bodies are read at the newline after their
/// operator and emitted as two words (delimiter, body) right after it.
fn tokenize(s: &str) -> Vec<Tok> {
    let b = s.as_bytes();
    let mut toks = Vec::new();
    // Heredocs waiting for the next newline: (index of the Heredoc token, delimiter, strip tabs).
    let mut pending_heredocs: Vec<(usize, String, bool)> = Vec::new();
    let mut i = 0;
    let mut at_word_start = true;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\r' => {
                i += 1;
                at_word_start = true;
            }
            b'\\' if b.get(i + 1) == Some(&b'\n') => i += 2,
            b'\n' => {
                i += 1;
                toks.push(Tok::Op("\n"));
                // Read the bodies of the heredocs opened on this line.
                for (at, delim, strip) in std::mem::take(&mut pending_heredocs) {
                    let (body, next) = heredoc_body(s, i, &delim, strip);
                    i = next;
                    // Insert after the delimiter word that follows the operator.
                    let pos = (at + 2).min(toks.len());
                    toks.insert(pos, Tok::Word(body));
                }
                at_word_start = true;
            }
            b'#' if at_word_start => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'|' | b'&' | b';' | b'(' | b')' => {
                let two = b.get(i + 1).copied();
                let (op, len): (&'static str, usize) = match (c, two) {
                    (b'|', Some(b'|')) => ("||", 2),
                    (b'|', Some(b'&')) => ("|&", 2),
                    (b'|', _) => ("|", 1),
                    (b'&', Some(b'&')) => ("&&", 2),
                    (b'&', Some(b'>')) => {
                        // `&>` / `&>>`: both streams to a file.
                        let append = b.get(i + 2) == Some(&b'>');
                        toks.push(Tok::Redir(Redirect {
                            fd: 1,
                            output: true,
                            append,
                            both: true,
                            target: String::new(),
                        }));
                        i += if append { 3 } else { 2 };
                        at_word_start = true;
                        continue;
                    }
                    (b'&', _) => ("&", 1),
                    (b';', Some(b';')) => (";;", 2),
                    (b';', _) => (";", 1),
                    (b'(', _) => ("(", 1),
                    _ => (")", 1),
                };
                toks.push(Tok::Op(op));
                i += len;
                at_word_start = true;
            }
            b'<' | b'>' => {
                i = redirect(s, i, None, &mut toks, &mut pending_heredocs);
                at_word_start = true;
            }
            _ => {
                // A word; a leading fd number directly before `<`/`>` makes a redirect.
                let start = i;
                let (word, next) = read_word(s, i);
                i = next;
                if i < b.len()
                    && (b[i] == b'<' || b[i] == b'>')
                    && b[start..i].iter().all(u8::is_ascii_digit)
                    && i > start
                {
                    let fd = s[start..i].parse::<u32>().unwrap_or(1);
                    i = redirect(s, i, Some(fd), &mut toks, &mut pending_heredocs);
                } else if i == start {
                    // Cannot happen (read_word consumes a byte), but never loop.
                    i += 1;
                } else {
                    toks.push(Tok::Word(word));
                }
                at_word_start = true;
            }
        }
    }
    // Heredocs whose body never came (the line was cut): an empty body.
    for (at, _, _) in pending_heredocs {
        let pos = (at + 2).min(toks.len());
        toks.insert(pos, Tok::Word(String::new()));
    }
    toks
}

/// Reads a redirection operator at `i` (and for heredocs registers the body
/// to read); returns the index after the operator.
fn redirect(
    s: &str,
    mut i: usize,
    fd: Option<u32>,
    toks: &mut Vec<Tok>,
    pending: &mut Vec<(usize, String, bool)>,
) -> usize {
    let b = s.as_bytes();
    if b[i] == b'<' {
        if b.get(i + 1) == Some(&b'<') {
            if b.get(i + 2) == Some(&b'<') {
                toks.push(Tok::HereString);
                return i + 3;
            }
            let strip = b.get(i + 2) == Some(&b'-');
            i += if strip { 3 } else { 2 };
            while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                i += 1;
            }
            let (delim, next) = read_word(s, i);
            let at = toks.len();
            toks.push(Tok::Heredoc { strip_tabs: strip });
            toks.push(Tok::Word(delim.clone()));
            pending.push((at, delim, strip));
            return next.max(i);
        }
        toks.push(Tok::Redir(Redirect {
            fd: fd.unwrap_or(0),
            output: false,
            append: false,
            both: false,
            target: String::new(),
        }));
        if b.get(i + 1) == Some(&b'&') {
            let (rest, next) = read_word(s, i + 2);
            toks.push(Tok::Word(format!("&{rest}")));
            return next.max(i + 2);
        }
        return i + 1;
    }
    let append = b.get(i + 1) == Some(&b'>');
    i += if append { 2 } else { 1 };
    if b.get(i) == Some(&b'|') {
        i += 1;
    }
    toks.push(Tok::Redir(Redirect {
        fd: fd.unwrap_or(1),
        output: true,
        append,
        both: false,
        target: String::new(),
    }));
    // `>&2`, `2>&1`, `>&-`: a dup; its target is a word starting with `&`
    // (the `&` is not the background operator).
    if b.get(i) == Some(&b'&') {
        let (rest, next) = read_word(s, i + 1);
        toks.push(Tok::Word(format!("&{rest}")));
        return next.max(i + 1);
    }
    i
}

/// A heredoc body from `i` to the line equal to `delim` (or the end).
fn heredoc_body(s: &str, i: usize, delim: &str, strip: bool) -> (String, usize) {
    let mut body = String::new();
    for (line, cmp, next) in heredoc_lines(s, i, strip) {
        // Lenient where bash is not: a CRLF delimiter line ends the body.
        if cmp.trim_end_matches('\r') == delim {
            return (body, next);
        }
        body.push_str(line);
        body.push('\n');
    }
    (body, s.len())
}

/// The lines of a heredoc body from `i`: each line as written, as compared
/// with the delimiter (leading tabs stripped for `<<-`), and where the
/// next line starts.
pub(super) fn heredoc_lines(
    s: &str,
    i: usize,
    strip: bool,
) -> impl Iterator<Item = (&str, &str, usize)> {
    let mut at = i;
    std::iter::from_fn(move || {
        if at >= s.len() {
            return None;
        }
        let end = s[at..].find('\n').map_or(s.len(), |k| at + k);
        let line = &s[at..end];
        let cmp = if strip {
            line.trim_start_matches('\t')
        } else {
            line
        };
        at = (end + 1).min(s.len());
        Some((line, cmp, at))
    })
}

/// One word from `i`: quotes removed, `$(…)`, `${…}` and backticks kept
/// whole; stops at an unquoted blank or operator. Consumes ≥ 1 byte when
/// `i` is not at an operator.
pub(super) fn read_word(s: &str, mut i: usize) -> (String, usize) {
    let b = s.as_bytes();
    let mut w = String::new();
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' | b'|' | b'&' | b';' | b'<' | b'>' | b'(' | b')' => {
                // `$(`, `<(`, `>(` are handled by their own arms; a plain `(` ends the word
                // unless it continues an assignment's array (`a=(…)`), kept as text.
                if c == b'(' && w.ends_with('=') {
                    let end = matching(s, i, b'(', b')');
                    w.push_str(&s[i..end]);
                    i = end;
                    continue;
                }
                break;
            }
            b'\'' => {
                let end = s[i + 1..].find('\'').map_or(s.len(), |k| i + 1 + k);
                w.push_str(&s[i + 1..end]);
                i = (end + 1).min(s.len().max(end));
                if end >= s.len() {
                    i = s.len();
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\'
                        && i + 1 < b.len()
                        && matches!(b[i + 1], b'"' | b'\\' | b'$' | b'`' | b'\n')
                    {
                        if b[i + 1] != b'\n' {
                            w.push(b[i + 1] as char);
                        }
                        i += 2;
                        continue;
                    }
                    if b[i] == b'$' && b.get(i + 1) == Some(&b'(') {
                        let end = matching(s, i + 1, b'(', b')');
                        w.push_str(&s[i..end]);
                        i = end;
                        continue;
                    }
                    if b[i] == b'`' {
                        let end = s[i + 1..].find('`').map_or(s.len(), |k| i + 2 + k);
                        w.push_str(&s[i..end]);
                        i = end;
                        continue;
                    }
                    let ch = s[i..].chars().next().unwrap_or(' ');
                    w.push(ch);
                    i += ch.len_utf8();
                }
                i = (i + 1).min(s.len());
            }
            b'\\' => {
                if let Some(ch) = s.get(i + 1..).and_then(|r| r.chars().next()) {
                    if ch != '\n' {
                        w.push(ch);
                    }
                    i += 1 + ch.len_utf8();
                } else {
                    i += 1;
                }
            }
            b'$' if b.get(i + 1) == Some(&b'(') => {
                let end = matching(s, i + 1, b'(', b')');
                w.push_str(&s[i..end]);
                i = end;
            }
            b'$' if b.get(i + 1) == Some(&b'{') => {
                let end = matching(s, i + 1, b'{', b'}');
                w.push_str(&s[i..end]);
                i = end;
            }
            b'$' if b.get(i + 1) == Some(&b'\'') => {
                // ANSI-C quoting: keep the text, drop the quotes.
                let end = s[i + 2..].find('\'').map_or(s.len(), |k| i + 2 + k);
                w.push_str(&s[i + 2..end]);
                i = (end + 1).min(s.len());
            }
            b'`' => {
                let end = s[i + 1..].find('`').map_or(s.len(), |k| i + 2 + k);
                w.push_str(&s[i..end.min(s.len())]);
                i = end.min(s.len());
            }
            _ => {
                // A run of plain bytes at once (every special byte is ASCII,
                // so the run ends on a character boundary).
                let run = b[i..]
                    .iter()
                    .position(|&c| {
                        matches!(
                            c,
                            b' ' | b'\t'
                                | b'\r'
                                | b'\n'
                                | b'|'
                                | b'&'
                                | b';'
                                | b'<'
                                | b'>'
                                | b'('
                                | b')'
                                | b'\''
                                | b'"'
                                | b'\\'
                                | b'$'
                                | b'`'
                        )
                    })
                    .map_or(b.len(), |k| i + k);
                if run == i {
                    // A lone `$` (not `$(`, `${`, `$'`): plain text.
                    w.push(b[i] as char);
                    i += 1;
                } else {
                    w.push_str(&s[i..run]);
                    i = run;
                }
            }
        }
    }
    (w, i)
}

/// The index after the bracket matching the one at `open_at` (nesting and
/// quotes respected; the end of the text when unclosed).
fn matching(s: &str, open_at: usize, open: u8, close: u8) -> usize {
    let b = s.as_bytes();
    let mut depth = 0usize;
    let mut i = open_at;
    while i < b.len() {
        match b[i] {
            c if c == open => depth += 1,
            c if c == close => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            b'\'' => {
                i = s[i + 1..].find('\'').map_or(s.len(), |k| i + 1 + k);
            }
            b'\\' => i += 1,
            _ => {}
        }
        i += 1;
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Vec<Vec<String>>> {
        parse_line(s, 100)
            .0
            .into_iter()
            .map(|p| p.stages.into_iter().map(|c| c.words).collect())
            .collect()
    }

    #[test]
    fn words_operators_and_quotes() {
        assert_eq!(
            words(r#"cd /testbed && grep -n "a b" 'x y'|head -5; echo $(ls "q") done"#),
            vec![
                vec![vec!["cd", "/testbed"]],
                vec![vec!["grep", "-n", "a b", "x y"], vec!["head", "-5"]],
                vec![vec!["echo", "$(ls \"q\")", "done"]],
            ]
        );
    }

    #[test]
    fn heredoc_body_and_redirect() {
        let (p, _) = parse_line(
            "cat > /tmp/x.py << 'EOF'\nimport os\nprint(1)\nEOF\npython /tmp/x.py",
            10,
        );
        assert_eq!(p.len(), 2);
        let c = &p[0].stages[0];
        assert_eq!(c.words, vec!["cat"]);
        assert_eq!(c.redirects[0].target, "/tmp/x.py");
        assert_eq!(c.heredoc.as_deref(), Some("import os\nprint(1)\n"));
        assert_eq!(p[1].stages[0].words, vec!["python", "/tmp/x.py"]);
    }

    #[test]
    fn half_valid_input_gives_words() {
        for s in [
            "echo 'unclosed",
            "a && ",
            "| |",
            "(((",
            "cat <<EOF\nno end",
            ")))",
            "$(",
            "x=",
            "2>",
            "<<",
            "\"\\",
        ] {
            let _ = parse_line(s, 10);
        }
        assert_eq!(
            words("echo 'unclosed"),
            vec![vec![vec!["echo", "unclosed"]]]
        );
    }
}
