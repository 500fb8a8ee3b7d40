import { existsSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { localDate, log, WORK_DIR } from '../harness/bench';
import { gitCommit, machineInfo } from '../lib/machine';
import { median } from '../lib/median';

/** The tables every S3 PUT or GET touches (issue 15): the arms alter these. */
export const HOT_TABLES = ['versions', 'null_versions', 'objects', 'version_meta'];

/**
 * Cassandra 5.0's own defaults of the options the arms compare, which the hot tables have on main
 * (no migration sets them): size-tiered compaction, LZ4 in 16 KiB chunks, a 1 % bloom filter.
 */
export const DEFAULT_OPTIONS_CQL =
  "compaction = {'class': 'SizeTieredCompactionStrategy'} AND compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': '16'} AND bloom_filter_fp_chance = 0.01";

/** One arm of the A/B: a keyspace whose hot tables were altered `WITH cql` (none: as migrated). */
export interface ArmSpec {
  name: string;
  cql?: string;
  /**
   * A nodetool command run before each of the arm's turns (`--arm-nodetool`), for a node setting
   * that applies to what the node writes from then on (e.g. `setcolumnindexsize 4`): the arm's
   * flushes and compactions all happen within its turn, as every turn ends settled.
   */
  nodetool?: string[];
}

export interface PhaseCpu {
  wallMs: number;
  /** Cassandra CPU ms during the phase. */
  cassandraMs: number;
  gatewayMs: number;
  /** Cassandra CPU ms of the flush and the compactions after the phase, until they settled. */
  tailMs: number;
  tailSec: number;
  settled: boolean;
}

export interface CpuRound {
  arm: string;
  round: number;
  ops: number;
  /** Cassandra's CPU ms per second while nothing ran, just before the round. */
  idleMsPerSec: number;
  put: PhaseCpu;
  get: PhaseCpu;
  loadavg: number[];
}

export interface CpuSection {
  label: string;
  at: string;
  commit: string;
  command: string;
  load: string;
  options: Record<string, unknown>;
  tables: string[];
  arms: ArmSpec[];
  rounds: CpuRound[];
}

type Metric = (r: CpuRound) => number;

const METRICS: [string, Metric][] = [
  ['Cassandra ms per PUT', (r) => r.put.cassandraMs / r.ops],
  ['… with its flush + compaction', (r) => (r.put.cassandraMs + r.put.tailMs) / r.ops],
  ['Cassandra ms per GET', (r) => r.get.cassandraMs / r.ops],
  // what the node spends anyway (the idle gateways' background work, Cassandra's own), taken out
  [
    'Cassandra ms per PUT net of idle',
    (r) => (r.put.cassandraMs - (r.idleMsPerSec * r.put.wallMs) / 1000) / r.ops,
  ],
  [
    'Cassandra ms per GET net of idle',
    (r) => (r.get.cassandraMs - (r.idleMsPerSec * r.get.wallMs) / 1000) / r.ops,
  ],
  // the gateway's work does not depend on table options: this ratio takes out much of what a busy
  // box adds to every process's CPU per operation (caches, frequency, context switches)
  ['Cassandra ÷ gateway CPU, PUT', (r) => r.put.cassandraMs / r.put.gatewayMs],
  ['Cassandra ÷ gateway CPU, GET', (r) => r.get.cassandraMs / r.get.gatewayMs],
  ['gateway ms per PUT', (r) => r.put.gatewayMs / r.ops],
  ['gateway ms per GET', (r) => r.get.gatewayMs / r.ops],
  ['PUT/s', (r) => (r.ops / r.put.wallMs) * 1000],
  ['GET/s', (r) => (r.ops / r.get.wallMs) * 1000],
  ['Cassandra idle ms/s', (r) => r.idleMsPerSec],
];

function fmt(x: number): string {
  if (!Number.isFinite(x)) return '–';
  return Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(3);
}

export function sectionMarkdown(s: CpuSection): string[] {
  const arms = s.arms.map((a) => a.name);
  const base = arms[0]!;
  const of = (arm: string) => s.rounds.filter((r) => r.arm === arm);
  const md = [
    `## ${s.label}`,
    '',
    `${s.at}, commit ${s.commit}, load average (1 min) ${s.load}`,
    '',
    '```sh',
    s.command,
    '```',
    '',
  ];
  md.push(`Options: ${JSON.stringify(s.options)}. Tables altered per arm: ${s.tables.join(', ')}.`, '');
  for (const a of s.arms)
    md.push(
      `- **${a.name}**: ${a.cql ? `\`WITH ${a.cql}\`` : 'as migrated'}${a.nodetool ? `; before each turn \`nodetool ${a.nodetool.join(' ')}\`` : ''}`,
    );
  md.push(
    '',
    `Medians over the rounds; "ratio" is the median of the per-round ratios to **${base}** in the same round.`,
    '',
  );
  md.push(
    `| metric | ${arms.map((a) => (a === base ? a : `${a} | ratio`)).join(' | ')} |`,
    `| --- |${arms.map((a) => (a === base ? ' --- |' : ' --- | --- |')).join('')}`,
  );
  for (const [name, m] of METRICS) {
    const cells = arms.map((a) => {
      const med = fmt(median(of(a).map(m)));
      if (a === base) return med;
      const ratios = of(a).map((r) => {
        const b = of(base).find((x) => x.round === r.round);
        return b ? m(r) / m(b) : NaN;
      });
      return `${med} | ${fmt(median(ratios))}`;
    });
    md.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  md.push(
    '',
    '| round | arm | ops | Cassandra ms/PUT | + tail ms/PUT (s, settled) | Cassandra ms/GET | gateway ms/PUT | gateway ms/GET | PUT/s | GET/s | idle ms/s | load |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const r of s.rounds) {
    const p = (x: number) => fmt(x / r.ops);
    md.push(
      `| ${r.round} | ${r.arm} | ${r.ops} | ${p(r.put.cassandraMs)} | ${p(r.put.tailMs)} (${r.put.tailSec.toFixed(0)} s${r.put.settled ? '' : ', NOT settled'}) | ${p(r.get.cassandraMs)} | ${p(r.put.gatewayMs)} | ${p(r.get.gatewayMs)} | ${fmt((r.ops / r.put.wallMs) * 1000)} | ${fmt((r.ops / r.get.wallMs) * 1000)} | ${r.idleMsPerSec.toFixed(0)} | ${r.loadavg.map((l) => l.toFixed(1)).join('–')} |`,
    );
  }
  md.push('');
  return md;
}

/**
 * Writes the run's section into tools/bench/results/<date>-cassandra-cpu.{md,json} (a section of
 * the same label is replaced, others stay); hand-written notes in `<date>-cassandra-cpu.notes.md`
 * are put before the sections every time the file is written.
 */
export function writeCpuSection(run: {
  label: string;
  argv: string[];
  startedAt: Date;
  options: Record<string, unknown>;
  arms: ArmSpec[];
  tables: string[];
  rounds: CpuRound[];
}): void {
  const base = join(WORK_DIR, '..', 'results', `${localDate(run.startedAt)}-cassandra-cpu`);
  const prev: CpuSection[] = existsSync(`${base}.json`)
    ? (JSON.parse(readFileSync(`${base}.json`, 'utf8')) as { sections: CpuSection[] }).sections
    : [];
  const g = gitCommit();
  const loads = run.rounds.flatMap((r) => r.loadavg);
  const section: CpuSection = {
    label: run.label,
    at: run.startedAt.toISOString(),
    commit: `${g.commit}${g.dirty ? ` + ${g.dirty} uncommitted files` : ''} (${g.subject})`,
    command: `npm run bench -- cassandra-cpu ${run.argv.join(' ')}`.trim(),
    load: loads.length ? `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}` : '–',
    options: run.options,
    tables: run.tables,
    arms: run.arms,
    rounds: run.rounds,
  };
  const sections = [...prev.filter((s) => s.label !== section.label), section];
  writeFileSync(`${base}.json`, JSON.stringify({ machine: machineInfo(), sections }, null, 2) + '\n');
  renderCpuResults(run.startedAt);
}

/** Rewrites the day's Markdown from its JSON and notes (`cassandra-cpu --report [--date YYYY-MM-DD]`). */
export function renderCpuResults(day: Date | string): void {
  const base = join(
    WORK_DIR,
    '..',
    'results',
    `${typeof day === 'string' ? day : localDate(day)}-cassandra-cpu`,
  );
  const { machine: m, sections } = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as {
    machine: ReturnType<typeof machineInfo>;
    sections: CpuSection[];
  };
  const notes = existsSync(`${base}.notes.md`) ? readFileSync(`${base}.notes.md`, 'utf8').trim() : '';
  const md = [
    '# Cassandra CPU per 4 KiB PUT and GET (issue 15)',
    '',
    `Machine: ${m.nproc} cores (${m.cpuModel}), ${m.memory}, ${m.os}, node ${m.node}. CPU from /proc/<pid>/stat (utime + stime) of the local stack's Cassandra process, 10 ms ticks, over a fixed number of operations; see tools/bench/peer/cassandra-cpu-run.ts.`,
    '',
    ...(notes ? [notes, ''] : []),
    ...sections.flatMap(sectionMarkdown),
  ];
  writeFileSync(`${base}.md`, md.join('\n'));
  log(`written ${base}.md`);
}
