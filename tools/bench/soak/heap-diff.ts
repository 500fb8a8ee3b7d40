/**
 * `node -r @swc-node/register tools/bench/soak/heap-diff.ts A.heapsnapshot B.heapsnapshot [--top 30]`:
 * what grew between two V8 heap snapshots of one process, by constructor (DevTools' "Comparison"
 * view in text): objects and shallow bytes per constructor in each, sorted by the byte growth.
 * Objects are grouped by constructor name; closures, strings, arrays, code and the other V8
 * internals by their node type in parentheses, as DevTools shows them.
 */
import { readFileSync } from 'fs';

/** Objects and shallow bytes of one group. */
export interface Group {
  count: number;
  bytes: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Objects and shallow bytes per constructor of a parsed `.heapsnapshot`. */
export function groupByConstructor(s: Snapshot): Map<string, Group> {
  const fields = s.snapshot.meta.node_fields;
  const width = fields.length;
  const iType = fields.indexOf('type');
  const iName = fields.indexOf('name');
  const iSize = fields.indexOf('self_size');
  const types = s.snapshot.meta.node_types[0];
  const groups = new Map<string, Group>();
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + iType]];
    const key = type === 'object' || type === 'native' ? s.strings[s.nodes[i + iName]] : `(${type})`;
    const g = groups.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += s.nodes[i + iSize];
    groups.set(key, g);
  }
  return groups;
}

/** Rows of the comparison, largest byte growth first. */
export function compareGroups(a: Map<string, Group>, b: Map<string, Group>): { name: string; a: Group; b: Group }[] {
  const none = { count: 0, bytes: 0 };
  const names = new Set([...a.keys(), ...b.keys()]);
  return [...names]
    .map((name) => ({ name, a: a.get(name) ?? none, b: b.get(name) ?? none }))
    .sort((x, y) => y.b.bytes - y.a.bytes - (x.b.bytes - x.a.bytes));
}

const total = (m: Map<string, Group>) => [...m.values()].reduce((t, g) => ({ count: t.count + g.count, bytes: t.bytes + g.bytes }), { count: 0, bytes: 0 });
const kib = (n: number) => (n / 1024).toFixed(1);

function main(argv: string[]): void {
  const files = argv.filter((a) => !a.startsWith('--'));
  const topAt = argv.indexOf('--top');
  const top = topAt >= 0 ? Number(argv[topAt + 1]) : 30;
  if (files.length < 2) {
    process.stderr.write('usage: heap-diff.ts A.heapsnapshot B.heapsnapshot [--top N]\n');
    process.exit(2);
  }
  const [a, b] = files.slice(0, 2).map((f) => groupByConstructor(JSON.parse(readFileSync(f, 'utf8')) as Snapshot));
  const ta = total(a);
  const tb = total(b);
  const rows = compareGroups(a, b);
  const out = [`| constructor | objects A | objects B | Δ objects | KiB A | KiB B | Δ KiB |`, '| --- | --- | --- | --- | --- | --- | --- |'];
  out.push(`| **total** | ${ta.count} | ${tb.count} | ${tb.count - ta.count} | ${kib(ta.bytes)} | ${kib(tb.bytes)} | ${kib(tb.bytes - ta.bytes)} |`);
  const shown = [...rows.slice(0, top), ...rows.slice(-5)];
  for (const r of shown) out.push(`| ${r.name.replace(/\|/g, '\\|').slice(0, 60) || '(anonymous)'} | ${r.a.count} | ${r.b.count} | ${r.b.count - r.a.count} | ${kib(r.a.bytes)} | ${kib(r.b.bytes)} | ${kib(r.b.bytes - r.a.bytes)} |`);
  process.stdout.write(`${out.join('\n')}\n`);
}

if (require.main === module) main(process.argv.slice(2));
