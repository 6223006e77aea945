// The figures a document quotes from benchmarks, and whether a benchmark
// JSON document (`npm run bench -- --json`) holds each: no figure without
// its run. Used by __test__/bench-figures.test.mjs over README.md and
// docs/*.md against benchmark/results/latest.json.
//
// A figure is a number with a unit a benchmark measures in — ns, µs, ms,
// MB/s, GB/s, ×, M instructions — in prose (whole seconds are left out: the
// docs give timeouts and deadlines in them): fenced code and inline code
// (sample output, config values) are not quotes, nor is a number right
// after ≥ ≤ < > or "below"/"above" (a target, not a measurement). A figure is held when some
// number of the document, in the same unit, rounds to it at the figure's
// precision (`1.42 µs` holds 1,415–1,425 ns).

/** @typedef {{ file: string, line: number, text: string, value: number, unit: string, decimals: number }} Figure */

const FIGURE = /(?<![\w.,/-])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s?(ns|µs|ms|MB\/s|GB\/s|×|M instructions)(?![\w/])/g;

/** Prose of a markdown text, line by line, code blanked out (line numbers kept). */
function proseLines(markdown) {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
  });
}

/** Every figure quoted in `markdown` (named `file` in the results). */
export function quotedFigures(markdown, file) {
  /** @type {Figure[]} */
  const out = [];
  proseLines(markdown).forEach((line, i) => {
    for (const m of line.matchAll(FIGURE)) {
      const before = line.slice(0, m.index).trimEnd().replace(/[+~]$/, '').trimEnd();
      if (/(?:[≥≤<>]|\bbelow|\babove)$/.test(before)) continue;
      out.push({
        file,
        line: i + 1,
        text: m[0],
        value: Number(`${m[1].replaceAll(',', '')}${m[2] ? `.${m[2]}` : ''}`),
        unit: m[3],
        decimals: m[2]?.length ?? 0,
      });
    }
  });
  return out;
}

/**
 * The document's numbers per unit a figure is quoted in, read off the keys
 * the runner writes (`ns_per_op`, `median_ms`, `mb_s`, `speedup`, …).
 * @returns {Map<string, number[]>}
 */
export function measuredValues(doc) {
  /** @type {Map<string, number[]>} */
  const out = new Map(['ns', 'µs', 'ms', 'MB/s', 'GB/s', '×', 'M instructions'].map((u) => [u, []]));
  const time = (ns) => {
    out.get('ns').push(ns);
    out.get('µs').push(ns / 1e3);
    out.get('ms').push(ns / 1e6);
  };
  const walk = (value, key) => {
    if (Array.isArray(value)) {
      for (const v of value) walk(v, key);
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, k);
    } else if (typeof value === 'number' && Number.isFinite(value)) {
      const k = key.toLowerCase();
      if (/mb_s/.test(k)) {
        out.get('MB/s').push(value);
        out.get('GB/s').push(value / 1e3);
      } else if (/instructions/.test(k)) {
        out.get('M instructions').push(value / 1e6);
      } else if (/speedup|_vs_/.test(k)) {
        // A loops row is quoted either way round (on / off, off / on).
        out.get('×').push(value, 1 / value);
      } else if (/(^|_)ns($|_)/.test(k)) {
        time(value);
      } else if (/(^|_)ms($|_)/.test(k)) {
        time(value * 1e6);
      } else if (/(^|_)s$|seconds/.test(k)) {
        time(value * 1e9);
      }
    }
  };
  walk(doc, '');
  return out;
}

/** The figures of `figures` that no number of `doc` rounds to. */
export function unheldFigures(figures, doc) {
  const values = measuredValues(doc);
  return figures.filter((f) => {
    const tolerance = 0.5 * 10 ** -f.decimals + 1e-9;
    return !values.get(f.unit).some((v) => Math.abs(v - f.value) <= tolerance);
  });
}
