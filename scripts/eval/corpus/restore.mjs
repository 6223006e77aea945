#!/usr/bin/env node
// Restores the real-session corpus outside the repository: every
// corpus/wild-sources/<source>.json names a public GitHub repository, a commit
// and the files taken from it (path, sha256); this script takes each file out
// of the repository's git directory, checks its sha256, writes it under
// <out>/<file> and writes <out>/manifest.json in ../shared/wild/manifest.json's
// shape ({ file, format, … } per file), so `scripts/eval/wild.eval.mjs --wild
// <out>` and `toolguard audit <out>` read it. The sessions are third-party
// files: they are never committed, only their provenance.
//
//   node scripts/eval/corpus/restore.mjs [--mirror DIR] [--out DIR] [--source ID]… [--check]
//     --mirror  where the git directories are: DIR/<owner>+<name>/repo, as the
//               search tool's `fetch` leaves them (default /work/.mirror);
//               a bare clone at DIR/<owner>+<name>.git or DIR/<owner>/<name> also works
//     --out     where the sessions go (default /work/data/wild2)
//     --source  restore only these sources (repeatable); the manifest still lists
//               every source whose files are present under --out
//     --sources DIR  also read provenance files from DIR, beside corpus/wild-sources
//               (repeatable: another branch's corpus/wild-sources before it is merged)
//     --check   write nothing: report what is present, missing or different
//
// A file may name its own `commit` (a file that the repository rewrote: each
// published version is its own session). A repository that is not there is
// reported and skipped (exit 0); a file whose
// sha256 differs is an error (exit 1), never written.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SOURCES_DIR = join(repo, 'corpus/wild-sources');

// The manifest's `format` is the name ../shared/wild/manifest.json and
// scripts/eval/wild/calls.mjs use; a provenance file may name it itself
// (`manifest_format`), else it follows from the audit format and harness.
const MANIFEST_FORMAT = {
  'swe-agent': () => 'swe-agent-traj',
  'mini-swe-agent': (s) => (/^mini-swe-agent-1/.test(s.harness) ? 'mini-swe-agent-traj-v1' : 'mini-swe-agent-traj-v2'),
  'openhands-v1': () => 'openhands-v1-sdk-events',
  'claude-code': () => 'claude-code-jsonl',
  'claude-code-md': () => 'claude-code-session-export-md',
  'codex-exec-log': () => 'codex-exec-text-log',
  'mini-swe-agent-log': () => 'mini-swe-agent terminal log',
};

/** The manifest format name of one source. */
export function manifestFormat(source) {
  if (source.manifest_format) return source.manifest_format;
  const f = MANIFEST_FORMAT[source.format];
  return f ? f(source) : source.format;
}

/** Every provenance file, parsed, in name order. */
export function loadSources(dirs = [SOURCES_DIR]) {
  const byName = new Map();
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) byName.set(f, join(dir, f));
  }
  return [...byName.keys()].sort().map((f) => {
    const s = JSON.parse(readFileSync(byName.get(f), 'utf8'));
    for (const key of ['source', 'repo', 'commit', 'harness', 'format', 'split', 'files']) {
      if (s[key] === undefined) throw new Error(`${f}: provenance has no "${key}"`);
    }
    if (!/^[0-9a-f]{40}$/.test(s.commit)) throw new Error(`${f}: commit is not 40 hex digits`);
    if (s.split !== 'heldout' && s.split !== 'tuning') throw new Error(`${f}: split must be "heldout" or "tuning"`);
    return s;
  });
}

/** The git directory holding `owner/name`, or null. */
export function gitDir(mirror, fullName) {
  const [owner, name] = fullName.split('/');
  const candidates = [join(mirror, `${owner}+${name}`, 'repo'), join(mirror, `${owner}+${name}.git`), join(mirror, owner, name)];
  return candidates.find((d) => existsSync(join(d, 'HEAD')) || existsSync(join(d, '.git'))) ?? null;
}

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

function gitShow(dir, commit, path) {
  const args = existsSync(join(dir, '.git')) ? ['-C', dir] : ['--git-dir', dir];
  return execFileSync('git', [...args, 'show', `${commit}:${path}`], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** One manifest entry: the file's own facts beside its source's. */
function entry(source, f) {
  return {
    file: f.file,
    format: manifestFormat(source),
    auditFormat: source.format,
    source: source.source,
    split: source.split,
    harness: source.harness,
    model: f.model ?? source.models?.[0] ?? null,
    source_repo: source.repo,
    source_path: f.path,
    commit: f.commit ?? source.commit,
    licence: source.licence ?? 'none stated',
    size: f.size,
    sha256: f.sha256,
    sessions: f.sessions,
    calls: f.calls,
    shell: f.shell,
  };
}

/**
 * Restores every source's files and writes the manifest. `sources`: more
 * provenance folders; `repoSources: false` reads only those (tests).
 */
export function restore({
  mirror = '/work/.mirror',
  out = '/work/data/wild2',
  only = [],
  sources: dirs = [],
  repoSources = true,
  check = false,
  log = console.log,
} = {}) {
  const sources = loadSources([...(repoSources ? [SOURCES_DIR] : []), ...dirs]);
  const report = { restored: 0, present: 0, skipped: [], bad: [], missingFiles: 0 };
  const manifest = [];
  for (const s of sources) {
    const wanted = only.length === 0 || only.includes(s.source);
    const dir = wanted ? gitDir(mirror, s.repo) : null;
    if (wanted && !dir) {
      report.skipped.push(s.source);
      log(`${s.source}: ${s.repo} is not under ${mirror}; skipped (fetch it, then run again)`);
    }
    for (const f of s.files) {
      const target = join(out, f.file);
      if (existsSync(target) && sha256(readFileSync(target)) === f.sha256) {
        report.present++;
        manifest.push(entry(s, f));
        continue;
      }
      if (!dir) {
        report.missingFiles++;
        continue;
      }
      let buf;
      try {
        buf = gitShow(dir, f.commit ?? s.commit, f.path);
      } catch (e) {
        report.bad.push(
          `${s.source}: ${f.path}: not in ${s.repo} at ${(f.commit ?? s.commit).slice(0, 12)} (${String(e.stderr ?? e.message).trim()})`,
        );
        continue;
      }
      const got = sha256(buf);
      if (got !== f.sha256) {
        report.bad.push(`${s.source}: ${f.path}: sha256 ${got} is not the recorded ${f.sha256}`);
        continue;
      }
      if (!check) {
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, buf);
      }
      report.restored++;
      manifest.push(entry(s, f));
    }
  }
  if (!check) {
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  }
  report.manifest = manifest;
  return report;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = { only: [], sources: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--mirror') opt.mirror = argv[++i];
    else if (a === '--out') opt.out = argv[++i];
    else if (a === '--source') opt.only.push(argv[++i]);
    else if (a === '--sources') opt.sources.push(argv[++i]);
    else if (a === '--check') opt.check = true;
    else {
      console.error(`restore: unknown argument ${a}`);
      process.exit(2);
    }
  }
  const r = restore(opt);
  const sessions = r.manifest.reduce((n, e) => n + (e.sessions ?? 0), 0);
  const verb = opt.check ? 'would restore' : 'restored';
  console.log(
    `${verb} ${r.restored} files, ${r.present} already present; manifest: ${r.manifest.length} files, ${sessions} sessions` +
      (r.skipped.length ? `; skipped (repository absent): ${r.skipped.join(', ')}` : '') +
      (r.missingFiles ? `; ${r.missingFiles} files not restored` : ''),
  );
  for (const b of r.bad) console.error(`restore: ${b}`);
  process.exit(r.bad.length ? 1 : 0);
}
