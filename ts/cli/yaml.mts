// A small, strict YAML subset for guard configs (no dependency): block
// mappings and sequences by indentation, `[a, b]` flow sequences, `{}`,
// plain / 'single' / "double" scalars, `#` comments. Anything else (anchors,
// tags, block scalars `|` `>`, multi-line scalars, several documents) is
// rejected with its line number instead of being guessed at — a config that
// parsed into something else would change what the guard does.

export class YamlError extends Error {}

interface Line {
  number: number;
  indent: number;
  text: string; // without indentation and comment
}

export function parseYaml(source: string): unknown {
  const lines: Line[] = [];
  source.split(/\r?\n/).forEach((raw, i) => {
    const number = i + 1;
    if (i === 0 && raw.startsWith('\uFEFF')) raw = raw.slice(1);
    const indentMatch = /^[ \t]*/.exec(raw)![0];
    if (indentMatch.includes('\t')) throw new YamlError(`line ${number}: tabs are not allowed in indentation`);
    const text = stripComment(raw.slice(indentMatch.length), number).trimEnd();
    if (text === '') return;
    if (text === '---' && lines.length === 0) return;
    if (text === '---' || text === '...') throw new YamlError(`line ${number}: only one YAML document is supported`);
    lines.push({ number, indent: indentMatch.length, text });
  });
  if (lines.length === 0) return null;
  const parser = new Parser(lines);
  const value = parser.block(lines[0].indent);
  if (parser.pos < lines.length) {
    const l = lines[parser.pos];
    throw new YamlError(`line ${l.number}: unexpected ${l.indent === lines[0].indent ? 'mapping entry after a sequence' : 'indentation'}`);
  }
  return value;
}

function stripComment(text: string, number: number): string {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (quote === '"' && c === '\\') i++;
      else if (c === quote) {
        if (quote === "'" && text[i + 1] === "'") i++;
        else quote = null;
      }
    } else if (c === '"' || c === "'") {
      // Quotes open a scalar only at its start, not inside a plain scalar (it's).
      const before = text.slice(0, i).trimEnd();
      if (before === '' || /[:\-\[,{]$/.test(before)) quote = c;
    } else if (c === '#' && (i === 0 || text[i - 1] === ' ')) {
      return text.slice(0, i);
    }
  }
  if (quote) throw new YamlError(`line ${number}: unterminated ${quote === '"' ? 'double' : 'single'}-quoted string (multi-line scalars are not supported)`);
  return text;
}

class Parser {
  pos = 0;
  constructor(private lines: Line[]) {}

  block(indent: number): unknown {
    const first = this.lines[this.pos];
    if (first.text === '-' || first.text.startsWith('- ')) return this.sequence(indent);
    return this.mapping(indent);
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    while (this.pos < this.lines.length) {
      const line = this.lines[this.pos];
      if (line.indent < indent) break;
      if (line.indent > indent) throw new YamlError(`line ${line.number}: unexpected indentation`);
      // A same-column non-item ends a sequence nested as `key:\n- item` (the caller reads on).
      if (!(line.text === '-' || line.text.startsWith('- '))) break;
      const rest = line.text.slice(1).trimStart();
      if (rest === '') {
        this.pos++;
        out.push(this.nested(indent));
      } else if (isMappingEntry(rest)) {
        // `- key: value` starts a mapping whose keys sit at the item's column.
        const column = indent + (line.text.length - rest.length);
        this.lines[this.pos] = { number: line.number, indent: column, text: rest };
        out.push(this.mapping(column));
      } else {
        this.pos++;
        out.push(scalarOrFlow(rest, line.number));
      }
    }
    return out;
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null);
    while (this.pos < this.lines.length) {
      const line = this.lines[this.pos];
      if (line.indent < indent) break;
      if (line.indent > indent) throw new YamlError(`line ${line.number}: unexpected indentation`);
      const entry = splitEntry(line.text, line.number);
      if (Object.hasOwn(out, entry.key)) throw new YamlError(`line ${line.number}: duplicate key "${entry.key}"`);
      this.pos++;
      out[entry.key] = entry.value === '' ? this.nested(indent) : scalarOrFlow(entry.value, line.number);
    }
    return { ...out };
  }

  /** The block under a `key:` or `-` line, or null when there is none. */
  private nested(indent: number): unknown {
    const next = this.lines[this.pos];
    if (!next || next.indent < indent) return null;
    if (next.indent === indent) {
      // `key:` followed by a same-column sequence is valid YAML for mappings.
      if (next.text === '-' || next.text.startsWith('- ')) return this.sequence(indent);
      return null;
    }
    return this.block(next.indent);
  }
}

function isMappingEntry(text: string): boolean {
  try {
    splitEntry(text, 0);
    return true;
  } catch {
    return false;
  }
}

function splitEntry(text: string, number: number): { key: string; value: string } {
  let key: string;
  let rest: string;
  if (text[0] === '"' || text[0] === "'") {
    const end = quotedEnd(text, number);
    key = scalar(text.slice(0, end + 1), number) as string;
    rest = text.slice(end + 1);
    if (!rest.startsWith(':')) throw new YamlError(`line ${number}: expected ":" after the key`);
    rest = rest.slice(1);
    if (rest !== '' && !rest.startsWith(' ')) throw new YamlError(`line ${number}: expected a space after ":"`);
  } else {
    const m = /^([^:#\[\]{},&*!|>'"%@`][^:]*?):(?: (.*))?$/.exec(text);
    if (!m) throw new YamlError(`line ${number}: expected "key: value"`);
    key = m[1].trim();
    rest = m[2] ?? '';
  }
  return { key, value: rest.trim() };
}

function quotedEnd(text: string, number: number): number {
  const q = text[0];
  for (let i = 1; i < text.length; i++) {
    if (q === '"' && text[i] === '\\') i++;
    else if (text[i] === q) {
      if (q === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  throw new YamlError(`line ${number}: unterminated quoted string`);
}

function scalarOrFlow(text: string, number: number): unknown {
  if (text.startsWith('[')) return flowSequence(text, number);
  if (text === '{}') return {};
  if (text.startsWith('{')) throw new YamlError(`line ${number}: flow mappings are not supported; use block mappings`);
  return scalar(text, number);
}

function flowSequence(text: string, number: number): unknown[] {
  if (!text.endsWith(']')) throw new YamlError(`line ${number}: a flow sequence must end on its line with "]"`);
  const body = text.slice(1, -1).trim();
  if (body === '') return [];
  const items: unknown[] = [];
  let i = 0;
  while (i < body.length) {
    while (body[i] === ' ') i++;
    let end: number;
    if (body[i] === '"' || body[i] === "'") {
      end = i + quotedEnd(body.slice(i), number) + 1;
    } else {
      end = body.indexOf(',', i);
      if (end === -1) end = body.length;
    }
    const item = body.slice(i, end).trim();
    if (item === '' || item.startsWith('[') || item.startsWith('{')) {
      throw new YamlError(`line ${number}: nested or empty flow items are not supported`);
    }
    items.push(scalar(item, number));
    i = end;
    while (body[i] === ' ') i++;
    if (i < body.length) {
      if (body[i] !== ',') throw new YamlError(`line ${number}: expected "," in the flow sequence`);
      i++;
    }
  }
  return items;
}

function scalar(text: string, number: number): unknown {
  if (text.startsWith('"')) {
    if (quotedEnd(text, number) !== text.length - 1) throw new YamlError(`line ${number}: text after a quoted string`);
    return doubleQuoted(text.slice(1, -1), number);
  }
  if (text.startsWith("'")) {
    if (quotedEnd(text, number) !== text.length - 1) throw new YamlError(`line ${number}: text after a quoted string`);
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (/^[&*!|>%@`]/.test(text)) {
    throw new YamlError(`line ${number}: anchors, aliases, tags and block scalars are not supported (quote the value)`);
  }
  if (/^(?:null|Null|NULL|~)$/.test(text)) return null;
  if (/^(?:true|True|TRUE)$/.test(text)) return true;
  if (/^(?:false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(text)) return Number(text);
  if (/^[-+]?\.(?:inf|Inf|INF)$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^\.(?:nan|NaN|NAN)$/.test(text)) return NaN;
  if (/: |\s#/.test(text)) throw new YamlError(`line ${number}: ambiguous plain scalar ${JSON.stringify(text)} (quote it)`);
  return text;
}

const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f', e: '\x1b', ' ': ' ' };

function doubleQuoted(body: string, number: number): string {
  return body.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|U[0-9a-fA-F]{8}|.)/g, (_, e: string) => {
    if (e.length > 1) return String.fromCodePoint(parseInt(e.slice(1), 16));
    const out = ESCAPES[e];
    if (out === undefined) throw new YamlError(`line ${number}: unknown escape \\${e} in a double-quoted string`);
    return out;
  });
}
