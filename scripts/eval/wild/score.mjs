// Scoring of detector output against the wild labels (corpus/wild-labels/).
// Pure functions over plain data, so __test__/eval/wild.test.mjs checks them on
// tiny synthetic cases; scripts/eval/wild.eval.mjs feeds them the real runs.
//
// Names: a session is `${file}#${session}`; an alarm or a flag is
// { key, ordinal, kind?, text? } with the 1-based ordinal of readWildFile (calls.mjs).

export const sessionKey = (file, session) => `${file}#${session}`;

/** Alarms of one session that are this close (in ordinals) form one false-alarm episode. */
export const FALSE_ALARM_GAP = 10;

/**
 * Loop alarms against loops.json.
 * covered: Set of session keys the system could see (its reader read them);
 * alarms: [{ key, ordinal }]. Returns per-system figures:
 *   episodes (stuck episodes in covered sessions), caught, missed [labels],
 *   trapsAlarmed (benign stretches with an alarm), otherEpisodes (clusters of
 *   alarms outside every labelled stretch), falseEpisodes (the sum), and the
 *   alarms in each group.
 */
export function scoreLoops(labels, alarms, covered) {
  const inCover = (r) => covered.has(sessionKey(r.file, r.session));
  const stuck = labels.stuck.filter(inCover);
  const benign = labels.benign.filter(inCover);
  const within = (r, a) => a.key === sessionKey(r.file, r.session) && a.ordinal >= r.first && a.ordinal <= r.last;
  const used = new Set();
  const caught = [];
  const missed = [];
  for (const ep of stuck) {
    const hits = alarms.filter((a) => within(ep, a));
    for (const a of hits) used.add(a);
    (hits.length ? caught : missed).push(ep);
  }
  const trapsAlarmed = [];
  for (const b of benign) {
    const hits = alarms.filter((a) => !used.has(a) && within(b, a));
    if (!hits.length) continue;
    for (const a of hits) used.add(a);
    trapsAlarmed.push({ ...b, alarms: hits });
  }
  const rest = alarms
    .filter((a) => !used.has(a) && covered.has(a.key))
    .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : x.ordinal - y.ordinal));
  const other = [];
  for (const a of rest) {
    const last = other[other.length - 1];
    if (last && last.key === a.key && a.ordinal - last.last <= FALSE_ALARM_GAP) {
      last.last = a.ordinal;
      last.alarms.push(a);
    } else other.push({ key: a.key, first: a.ordinal, last: a.ordinal, alarms: [a] });
  }
  return {
    episodes: stuck.length,
    caught: caught.length,
    missed,
    traps: benign.length,
    trapsAlarmed,
    otherEpisodes: other,
    falseEpisodes: trapsAlarmed.length + other.length,
  };
}

/**
 * Silent-failure flags against silent.json.
 * covered: Set of session keys read; flags: [{ key, ordinal, action? }].
 * opts.alarm: which flags are alarms — 'any' (a verdict of either action, the
 * default) or 'error' (an `error` verdict only: the model is told the call
 * failed). Under 'error' a `context` verdict is neither a catch nor a false
 * alarm; it is counted apart (contextOnFailures: a failure told only as
 * context, i.e. missed; contextOnBenign: the action the issue asks for on a
 * reproduction run, a displayed log or a probe). Returns recall and precision
 * over the labelled candidates, per class, and the alarms on calls outside the
 * candidate set (not labelled: not in precision, reported apart).
 */
export function scoreSilent(labels, flags, covered, { alarm = 'any' } = {}) {
  const isAlarm = alarm === 'error' ? (f) => f.action === 'error' : () => true;
  const flagged = new Set(flags.filter(isAlarm).map((f) => `${f.key}@${f.ordinal}`));
  const contextOnly = new Set(flags.filter((f) => !isAlarm(f)).map((f) => `${f.key}@${f.ordinal}`));
  for (const id of flagged) contextOnly.delete(id);
  const labelled = new Set();
  const byClass = {};
  let failures = 0,
    hits = 0,
    falseAlarms = 0,
    benign = 0,
    contextOnFailures = 0,
    contextOnBenign = 0;
  const misses = [],
    wrong = [];
  for (const l of labels.labels) {
    const key = sessionKey(l.file, l.session);
    if (!covered.has(key)) continue;
    const id = `${key}@${l.ordinal}`;
    labelled.add(id);
    byClass[`${l.label}/${l.class}`] ??= { label: l.label, class: l.class, n: 0, flagged: 0 };
    const c = byClass[`${l.label}/${l.class}`];
    c.n += 1;
    const f = flagged.has(id);
    if (f) c.flagged += 1;
    if (alarm !== 'any' && contextOnly.has(id)) {
      c.context = (c.context ?? 0) + 1;
      if (l.label === 'failure') contextOnFailures += 1;
      else contextOnBenign += 1;
    }
    if (l.label === 'failure') {
      failures += 1;
      if (f) hits += 1;
      else misses.push(l);
    } else {
      benign += 1;
      if (f) {
        falseAlarms += 1;
        wrong.push(l);
      }
    }
  }
  const unlabelled = flags.filter((f) => isAlarm(f) && covered.has(f.key) && !labelled.has(`${f.key}@${f.ordinal}`));
  return {
    alarm,
    failures,
    benign,
    hits,
    falseAlarms,
    contextOnFailures,
    contextOnBenign,
    recall: failures ? hits / failures : null,
    precision: hits + falseAlarms ? hits / (hits + falseAlarms) : null,
    byClass,
    misses,
    wrong,
    unlabelled: unlabelled.length,
  };
}

// ---------- alarm texts false for their call ----------
// A loop alarm's text makes a claim about the call it is attached to. The
// claims toolguard's texts make (crates/toolguard-core/src/loops/texts.rs), checked
// against what the call was and what it returned:
//   re-read    "The content has not changed since you last read it"  → false on a call that changes state
//   repeat/cycle "Calling it again will return the same thing"      → false when this call's result differs
//                                                                      from the previous call of the same shape
//   same-error "failed … with the same error"                        → false when the call did not fail
// Peers' texts state counts only ("identical call × 5"), so they are not judged.

/** A call that writes, restores, deletes or navigates: not a read. */
export function changesState(call) {
  const t = call.tool ?? '';
  if (
    /^(Edit|MultiEdit|Write|NotebookEdit|apply_patch|edit|create|str_replace_editor|browser_(click|type|go_back|navigate|go_forward|scroll|select))/.test(
      t,
    )
  ) {
    if (t === 'str_replace_editor' && call.args?.command === 'view') return false;
    return true;
  }
  const cmd = call.command;
  if (!cmd) return false;
  return /(^|[;&|(]\s*)(cp|mv|rm|touch|mkdir|patch|tee|ln|chmod|install|git\s+(checkout|restore|reset|stash|apply|commit|add|mv|rm))\b|\bsed\s+-i|>{1,2}\s*(?!\/dev\/null|&)[^\s>&|;]+/.test(
    cmd,
  );
}

const normOut = (s) =>
  String(s ?? '')
    .replace(/<timestamp>.*?<\/timestamp>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
const shapeOf = (c) =>
  `${c.tool}\u0000${String(c.command ?? JSON.stringify(c.args ?? {}))
    .replace(/\s+/g, ' ')
    .trim()}`;
const ERRORISH = /error|fail|traceback|exception|not found|no such|cannot|denied|invalid|rejected|no exact match/i;

/** Whether a call failed: an exit status, an error flag, or an error in a status-less result. */
export function callFailed(call) {
  if (call.isError) return true;
  if (call.exitCode !== null && call.exitCode !== undefined) {
    if (call.exitCode === 0) return false;
    // grep/rg/diff exit 1 with nothing printed: an answer (no match), not a failure
    if (
      call.exitCode === 1 &&
      /^\s*(cd\s+\S+\s*&&\s*)?(grep|rg|egrep|diff|cmp)\b/.test(call.command ?? '') &&
      !normOut(call.output)
        .replace(/<\/?(returncode|output)>|\b1\b/g, '')
        .trim()
    )
      return false;
    return true;
  }
  return ERRORISH.test(String(call.output ?? ''));
}

/**
 * Judge one loop alarm's text against its call: returns null (true, or not
 * judged) or a short reason it is false. `calls` is the session's call list.
 */
export function falseText(alarm, calls) {
  const call = calls[alarm.ordinal - 1];
  if (!call) return null;
  const kind = alarm.kind;
  const text = alarm.text ?? '';
  if (kind === 're-read' || /has not changed since you last read/.test(text)) {
    return changesState(call) ? 're-read text on a call that changes state' : null;
  }
  if (kind === 'repeat' || kind === 'cycle' || /will return the same thing/.test(text)) {
    const shape = shapeOf(call);
    for (let i = alarm.ordinal - 2; i >= 0; i--) {
      if (shapeOf(calls[i]) !== shape) continue;
      return normOut(calls[i].output) !== normOut(call.output)
        ? 'same-result text, but the result changed since the last identical call'
        : null;
    }
    return null;
  }
  if (kind === 'same-error' || /with the same error/.test(text)) {
    return callFailed(call) ? null : 'same-error text on a call that did not fail';
  }
  return null;
}
