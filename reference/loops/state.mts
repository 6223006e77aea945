/**
 * An agent's window saved as a string and read back
 * (crates/toolguard-core/src/loops/state.rs): the native layout (version,
 * ordinal, active episode, denied call, then one group a call) with this
 * engine's digests, so a state goes back into the same kind of engine.
 */
import type { About } from './detect.mjs';
import type { Active, AgentLoops, Entry } from './entry.mjs';
import type { LoopKind } from './index.mjs';

/** The version tag that starts a saved loop state (loops.rs `STATE_VERSION`). */
export const STATE_VERSION = 'L3';

export const KIND_CODES: Record<LoopKind, number> = { repeat: 1, cycle: 2, 'same-error': 3, 're-read': 4, redo: 5 };
export const ABOUT_CODES: Record<About, string> = { calls: 'c', polls: 'p', 'ended-job': 'e', reruns: 'r', undo: 'u' };

/**
 * The agent's window as a string, in the native layout (version, ordinal,
 * active episode, denied call, then one group a call) with this engine's
 * digests (loops.rs `Loops::state`).
 */
export function writeState(s: AgentLoops): string {
  const hex = (n: number) => n.toString(16);
  const a = s.active;
  let out = `${STATE_VERSION}.${hex(s.ordinal)}.`;
  out +=
    a === undefined
      ? '-'
      : [
          KIND_CODES[a.kind],
          hex(a.count),
          hex(a.calls),
          hex(a.period),
          hex(a.reminders),
          a.nextCall,
          hex(a.firstOrdinal),
          hex(a.lastOrdinal),
          a.failing ? '1' : '0',
          ABOUT_CODES[a.about],
        ].join(':');
  out += `.${s.denied ?? '-'}`;
  for (const e of s.entries) {
    out += `.${e.call}${e.result}${e.raw}${e.sig === '' ? '0'.repeat(16) : e.sig}${e.bare === '' ? '0'.repeat(16) : e.bare}${e.tool}${hex(e.flags)}:${hex(e.ordinal)}:${hex(e.time)}:${hex(e.effect)}:${e.attempt ? 1 : 0}`;
  }
  return out;
}

/** Rust `u64::from_str_radix(s, 16)`: an optional `+`, then hex digits, at most 64 bits. */
function hexOf(s: string | undefined): number | undefined {
  if (s === undefined || !/^\+?[0-9a-fA-F]+$/.test(s)) return undefined;
  const digits = s.replace(/^\+/, '').replace(/^0+(?=.)/, '');
  return digits.length > 16 ? undefined : Number.parseInt(digits, 16);
}

function digestOf(s: string | undefined): string | undefined {
  const n = s === undefined ? undefined : hexOf(s);
  return n === undefined
    ? undefined
    : s!
        .replace(/^\+/, '')
        .toLowerCase()
        .replace(/^0+(?=.)/, '')
        .padStart(16, '0')
        .slice(-16);
}

/** A state of this version back into an agent's window (`undefined`: damaged). */
export function parseState(state: string, window: number): AgentLoops | undefined {
  const parts = state.split('.');
  if (parts.length < 4) return undefined;
  const ordinal = hexOf(parts[1]);
  if (ordinal === undefined) return undefined;
  let active: Active | undefined;
  if (parts[2] !== '-') {
    const f = parts[2]!.split(':');
    if (f.length !== 10 || !/^\+?[0-9]+$/.test(f[0]!)) return undefined;
    const kind = (Object.keys(KIND_CODES) as LoopKind[]).find((k) => KIND_CODES[k] === Number(f[0]));
    const about = (Object.keys(ABOUT_CODES) as About[]).find((k) => ABOUT_CODES[k] === f[9]);
    const [count, calls, period, reminders, first, lastOrdinal] = [f[1], f[2], f[3], f[4], f[6], f[7]].map(hexOf);
    const nextCall = digestOf(f[5]);
    if (kind === undefined || about === undefined || (f[8] !== '0' && f[8] !== '1')) return undefined;
    if ([count, calls, period, reminders, first, lastOrdinal, nextCall].includes(undefined)) return undefined;
    active = {
      kind,
      count: count!,
      calls: calls!,
      period: Math.max(period!, 1),
      reminders: reminders!,
      nextCall: nextCall!,
      firstOrdinal: first!,
      lastOrdinal: lastOrdinal!,
      failing: f[8] === '1',
      about,
    };
  }
  const denied = parts[3] === '-' ? undefined : digestOf(parts[3]);
  if (parts[3] !== '-' && denied === undefined) return undefined;
  const entries: Entry[] = [];
  for (const e of parts.slice(4)) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is "ASCII only", control characters included on purpose
    if (e.length < 103 || !/^[\x00-\x7f]*$/.test(e)) return undefined;
    const tail = e.slice(96).split(':');
    if (tail.length !== 5 || (tail[4] !== '0' && tail[4] !== '1')) return undefined;
    const [call, result, raw, sig, bare, tool] = [0, 16, 32, 48, 64, 80].map((k) => digestOf(e.slice(k, k + 16)));
    const [ordinal, time] = [hexOf(tail[1]), hexOf(tail[2])];
    const flags = /^\+?[0-9a-fA-F]{1,2}$/.test(tail[0]!) ? Number.parseInt(tail[0]!.replace('+', ''), 16) : undefined;
    const effect = /^\+?[0-9a-fA-F]{1,2}$/.test(tail[3]!) ? Number.parseInt(tail[3]!.replace('+', ''), 16) : undefined;
    if ([call, result, raw, sig, bare, tool, ordinal, time, flags, effect].includes(undefined)) return undefined;
    entries.push({
      call: call!,
      result: result!,
      raw: raw!,
      sig: sig === '0'.repeat(16) ? '' : sig!,
      bare: bare === '0'.repeat(16) ? '' : bare!,
      tool: tool!,
      ordinal: ordinal!,
      time: time!,
      flags: flags!,
      effect: effect!,
      attempt: tail[4] === '1',
    });
    if (entries.length > window) entries.shift();
  }
  return { entries, ordinal, active, denied };
}
