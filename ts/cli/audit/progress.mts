// The terminal: a progress bar on stderr, and colours when they are wanted.

import type { Style } from '../render.mjs';

/**
 * A one-line progress bar on stderr (files, MB, ETA), redrawn at most 10
 * times a second; only on a terminal (a pipe or a file gets none).
 */
export class Progress {
  private drawn = false;
  private last = 0;
  private readonly start = Date.now();
  constructor(
    private stream: NodeJS.WriteStream,
    private now = () => Date.now(),
  ) {}
  update(filesDone: number, filesTotal: number, bytesDone: number, bytesTotal: number) {
    const t = this.now();
    if (t - this.last < 100) return;
    this.last = t;
    this.stream.write(`\r\x1b[K${progressLine(filesDone, filesTotal, bytesDone, bytesTotal, t - this.start)}`);
    this.drawn = true;
  }
  clear() {
    if (this.drawn) this.stream.write('\r\x1b[K');
  }
}

/** The bar's text: `[####....] 45% 123/456 files · 812/2000 MB · ETA 1 min 20 s`. */
export function progressLine(filesDone: number, filesTotal: number, bytesDone: number, bytesTotal: number, elapsedMs: number): string {
  const width = 24;
  const ratio = bytesTotal > 0 ? Math.min(1, bytesDone / bytesTotal) : filesTotal > 0 ? filesDone / filesTotal : 0;
  const filled = Math.round(ratio * width);
  const mb = (n: number) => (n / 1e6).toFixed(n < 1e7 ? 1 : 0);
  // The rate so far; none before a second has passed (too noisy to read).
  const eta = ratio > 0 && ratio < 1 && elapsedMs >= 1000 ? ` · ETA ${formatEta((elapsedMs * (1 - ratio)) / ratio)}` : '';
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${filesDone}/${filesTotal} files · ${mb(bytesDone)}/${mb(bytesTotal)} MB${eta}`;
}

function formatEta(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/**
 * Colour or not: `--color`/`--no-color` first, then FORCE_COLOR (Node's
 * convention: 0 or false off, anything else on), then NO_COLOR
 * (https://no-color.org), then whether the stream is a terminal.
 */
export function colorOn(stream: NodeJS.WriteStream, flag?: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flag !== undefined) return flag;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR) return false;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

export function style(on: boolean): Style {
  const paint = (code: string) => (text: string) => (on ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    bold: paint('1'),
    dim: paint('2'),
    red: paint('31'),
    yellow: paint('33'),
    magenta: paint('35'),
    green: paint('32'),
    cyan: paint('36'),
  };
}
