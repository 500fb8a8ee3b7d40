/**
 * `node -r @swc-node/register tools/bench/soak/smaps-diff.ts A.smaps B.smaps`: where a process's
 * resident memory grew between two copies of its /proc/<pid>/smaps (`cp /proc/<pid>/smaps A.smaps`).
 * Mappings are matched by start address and grouped: file-backed, `[heap]` (the main malloc arena),
 * other named ones (`[stack]`…), and anonymous ones by size — 64 MiB-aligned reservations of about
 * 64 MiB are glibc's per-thread malloc arenas, the rest is mostly V8 (heap pages, code) and mmap'd
 * allocations. Prints resident KiB per group in A and in B.
 */
import { readFileSync } from 'fs';

/** One mapping of an smaps text: start address, size, path or name, resident bytes. */
export interface Mapping {
  start: string;
  sizeKiB: number;
  name: string;
  rssKiB: number;
}

/** The mappings of an smaps text. */
export function parseSmaps(text: string): Mapping[] {
  const out: Mapping[] = [];
  for (const line of text.split('\n')) {
    const h = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (h) out.push({ start: h[1], sizeKiB: (parseInt(h[2], 16) - parseInt(h[1], 16)) / 1024, name: h[3].trim(), rssKiB: 0 });
    else if (line.startsWith('Rss:') && out.length) out[out.length - 1].rssKiB = Number(/(\d+)/.exec(line)![1]);
  }
  return out;
}

/** The group a mapping is counted in (see the file's comment). */
export function groupOf(m: Mapping, arenaStarts: Set<string>): string {
  if (m.name.startsWith('/')) return 'file-backed';
  if (m.name) return m.name;
  if (arenaStarts.has(m.start)) return 'malloc thread arenas (64 MiB reservations)';
  return 'other anonymous (V8 heap and code, mmap)';
}

/** Starts of anonymous mappings that are glibc thread arenas: a 64 MiB-aligned start, whose mapping and its PROT_NONE tail add up to 64 MiB. */
export function arenaStarts(ms: Mapping[]): Set<string> {
  const set = new Set<string>();
  const arena = 64 * 1024;
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i];
    if (m.name || parseInt(m.start, 16) % (arena * 1024) !== 0) continue;
    const next = ms[i + 1];
    const total = m.sizeKiB + (next && !next.name && parseInt(next.start, 16) === parseInt(m.start, 16) + m.sizeKiB * 1024 ? next.sizeKiB : 0);
    if (total === arena) {
      set.add(m.start);
      if (next) set.add(next.start);
    }
  }
  return set;
}

function sums(ms: Mapping[]): Map<string, { rss: number; n: number }> {
  const arenas = arenaStarts(ms);
  const g = new Map<string, { rss: number; n: number }>();
  for (const m of ms) {
    const k = groupOf(m, arenas);
    const s = g.get(k) ?? { rss: 0, n: 0 };
    s.rss += m.rssKiB;
    s.n++;
    g.set(k, s);
  }
  return g;
}

function main(files: string[]): void {
  if (files.length < 2) {
    process.stderr.write('usage: smaps-diff.ts A.smaps B.smaps\n');
    process.exit(2);
  }
  const [a, b] = files.slice(0, 2).map((f) => sums(parseSmaps(readFileSync(f, 'utf8'))));
  const names = [...new Set([...a.keys(), ...b.keys()])];
  const rows = names.map((n) => ({ n, a: a.get(n) ?? { rss: 0, n: 0 }, b: b.get(n) ?? { rss: 0, n: 0 } })).sort((x, y) => y.b.rss - y.a.rss - (x.b.rss - x.a.rss));
  const lines = ['| mappings | count A | count B | resident KiB A | resident KiB B | Δ KiB |', '| --- | --- | --- | --- | --- | --- |'];
  const t = (m: Map<string, { rss: number }>) => [...m.values()].reduce((s, v) => s + v.rss, 0);
  lines.push(`| **total** | | | ${t(a)} | ${t(b)} | ${t(b) - t(a)} |`);
  for (const r of rows) lines.push(`| ${r.n} | ${r.a.n} | ${r.b.n} | ${r.a.rss} | ${r.b.rss} | ${r.b.rss - r.a.rss} |`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (require.main === module) main(process.argv.slice(2));
