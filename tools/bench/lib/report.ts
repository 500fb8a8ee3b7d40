import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { dirname } from 'path';
import type { MachineInfo } from './machine';
import type { JfrSummary } from './jfr';
import type { ProfileSummary } from './profile';

/** The issue's targets (2-core dev machine, local stack on the same machine). */
export const TARGETS = {
  smallPutObjPerSec: 1000,
  smallGetObjPerSec: 2000,
  smallP99Ms: 100,
  largeMiBPerSec: 100,
  memoryMaxRssMiB: 300,
} as const;

export interface Measurement {
  label: string;
  client: string;
  op: 'PUT' | 'GET' | 'UPLOAD' | 'DOWNLOAD';
  objectSize: number;
  concurrency: number;
  seconds: number;
  requests: number;
  errors: number;
  objPerSec: number;
  mibPerSec: number;
  latencyMs?: { avg: number; p50: number; p90: number; p99: number; fastest?: number; slowest?: number };
  firstErrors?: string[];
}

export interface Check {
  what: string;
  target: string;
  measured: string;
  pass: boolean;
}

export interface CpuSplit {
  phase: string;
  seconds: number;
  machineBusyPct: number;
  perProcess: Record<string, number>;
}

export interface ScenarioResult {
  name: string;
  title: string;
  profiled: boolean;
  /** '' for the standard setup; else what differs (block store, gateway env, signed payload). */
  variant?: string;
  startedAt: string;
  command: string;
  commit: string;
  measurements: Measurement[];
  checks: Check[];
  cpu: CpuSplit[];
  memory?: { baselineMiB: number; maxUploadMiB: number; maxDownloadMiB: number; maxMiB: number; hwmMiB?: number; samples: number; intervalMs: number; series: string };
  notes: string[];
  /** Cassandra requests of the bench keyspace per phase (coordinator counts), beside the S3 requests. */
  cassandra?: { phase: string; s3Requests: Record<string, number>; tables: { table: string; reads: number; writes: number; scans: number }[] }[];
  profile?: { file: string; phases: { phase: string; summary: ProfileSummary }[] };
  /** `--cassandra-profile`: the JFR recording of the Cassandra node, cut to each phase. */
  cassandraProfile?: { file: string; phases: { phase: string; summary: JfrSummary }[] };
  raw: { label: string; text: string }[];
  error?: string;
}

export interface ResultsFile {
  date: string;
  machine: MachineInfo;
  tools: Record<string, string>;
  scenarios: Record<string, ScenarioResult>;
}

const ORDER = ['small', 'large', 'memory'];

export function scenarioKey(s: ScenarioResult): string {
  return `${s.name}${s.variant ? ` [${s.variant}]` : ''}${s.profiled ? ':profiled' : ''}`;
}

/** Merges a scenario into the day's JSON (the newest run of a scenario replaces the older one). */
export function mergeResults(existing: ResultsFile | undefined, update: Omit<ResultsFile, 'scenarios'>, scenario: ScenarioResult): ResultsFile {
  const scenarios = { ...(existing?.scenarios ?? {}) };
  scenarios[scenarioKey(scenario)] = scenario;
  return { ...update, tools: { ...(existing?.tools ?? {}), ...update.tools }, scenarios };
}

export function readResults(jsonPath: string): ResultsFile | undefined {
  if (!existsSync(jsonPath)) return undefined;
  try {
    return JSON.parse(readFileSync(jsonPath, 'utf8')) as ResultsFile;
  } catch {
    return undefined;
  }
}

/** Writes the JSON and the Markdown; `analysis` (hand-written notes kept beside them) goes after the summary. */
export function writeResults(jsonPath: string, mdPath: string, results: ResultsFile, analysis?: string): void {
  mkdirSync(dirname(jsonPath), { recursive: true });
  writeFileSync(jsonPath, JSON.stringify(results, null, 2) + '\n');
  writeFileSync(mdPath, renderMarkdown(results, analysis));
}

const f0 = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(0));
const f1 = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(1));
const esc = (s: string) => s.replace(/\|/g, '\\|');

function sizeText(bytes: number): string {
  if (bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3} GiB`;
  if (bytes >= 1024 ** 2 && bytes % 1024 ** 2 === 0) return `${bytes / 1024 ** 2} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}text\n${text.replace(/\x1b\[[0-9;]*m/g, '').trimEnd()}\n${f}`;
}

function renderProfile(p: NonNullable<ScenarioResult['profile']>): string[] {
  const out: string[] = [`CPU profile of the gateway (\`node --cpu-prof\`, file \`${p.file}\`), cut to each phase's window. Percentages are of the gateway main thread's busy (non-idle) samples.`, ''];
  for (const { phase, summary } of p.phases) {
    out.push(`**${phase}** — window ${f1(summary.windowMs / 1000)} s, main thread busy ${f0(summary.busyPct)} % of it`, '');
    out.push('Top self time by function (with its commonest callers, nearest first):', '', '| # | function | where | self ms | % busy | called from |', '| ---: | --- | --- | ---: | ---: | --- |');
    summary.selfByFunction.slice(0, 15).forEach((h, i) => out.push(`| ${i + 1} | \`${esc(h.name)}\` | ${esc(h.where) || '–'} | ${f0(h.ms)} | ${f1(h.pct)} | ${esc(h.via ?? '')} |`));
    out.push('', 'Self time by area (npm package, repo project, node internals):', '', '| area | self ms | % busy |', '| --- | ---: | ---: |');
    summary.selfByArea.slice(0, 12).forEach((h) => out.push(`| ${esc(h.name)} | ${f0(h.ms)} | ${f1(h.pct)} |`));
    if (summary.inclusiveOwnCode.length) {
      out.push('', 'Inclusive time of the gateway\'s own code (apps/, libs/):', '', '| function | where | incl. ms | % busy |', '| --- | --- | ---: | ---: |');
      summary.inclusiveOwnCode.slice(0, 12).forEach((h) => out.push(`| \`${esc(h.name)}\` | ${esc(h.where)} | ${f0(h.ms)} | ${f1(h.pct)} |`));
    }
    out.push('');
  }
  return out;
}

function renderCassandraProfile(p: NonNullable<ScenarioResult['cassandraProfile']>): string[] {
  const out: string[] = [
    `JFR recording of the Cassandra node (\`jcmd JFR.start settings=profile\`, file \`${p.file}\`), cut to each phase's window. Percentages are of the node's sampled Java threads; garbage collection, the JIT and kernel time are not sampled. Buckets as in \`tools/bench/lib/jfr.ts\` (first match wins).`,
    '',
  ];
  for (const { phase, summary } of p.phases) {
    out.push(`**${phase}** — ${summary.samples} samples`, '', '| Cassandra work | % of samples |', '| --- | ---: |');
    for (const b of summary.buckets) out.push(`| ${esc(b.name)} | ${f1(b.pct)} |`);
    out.push('', `Innermost frames most sampled: ${summary.topFrames.map((t) => `\`${esc(t.name)}\` ${f1(t.pct)} %`).join(', ')}.`, '');
  }
  return out;
}

function renderScenario(s: ScenarioResult): string[] {
  const out: string[] = [`## ${s.title}${s.variant ? ` [${s.variant}]` : ''}${s.profiled ? ' — profiled run (numbers slowed by the profiler; not for the targets)' : ''}`, ''];
  out.push(`Run ${s.startedAt}, commit \`${s.commit}\`.`, '', `Command: \`${s.command}\``, '');
  if (s.error) out.push(`**Error:** ${s.error}`, '');
  if (s.checks.length) {
    out.push('| target | goal | measured | result |', '| --- | --- | --- | --- |');
    for (const c of s.checks) out.push(`| ${esc(c.what)} | ${esc(c.target)} | ${esc(c.measured)} | ${c.pass ? 'PASS' : '**FAIL**'} |`);
    out.push('');
  }
  if (s.measurements.length) {
    out.push('| phase | client | object | conc. | measured s | requests | errors | obj/s | MiB/s | avg ms | p50 ms | p90 ms | p99 ms |', '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const m of s.measurements) {
      out.push(
        `| ${m.op} | ${esc(m.client)} | ${sizeText(m.objectSize)} | ${m.concurrency} | ${f1(m.seconds)} | ${m.requests} | ${m.errors} | ${f1(m.objPerSec)} | ${f1(m.mibPerSec)} | ${f1(m.latencyMs?.avg)} | ${f1(m.latencyMs?.p50)} | ${f1(m.latencyMs?.p90)} | ${f1(m.latencyMs?.p99)} |`,
      );
    }
    out.push('');
    const errs = s.measurements.filter((m) => m.firstErrors?.length);
    for (const m of errs) out.push(`First errors of ${m.op} (${m.client}): ${m.firstErrors!.map((e) => `\`${esc(e)}\``).join('; ')}`, '');
  }
  if (s.memory) {
    const m = s.memory;
    out.push(
      `Gateway RSS (VmRSS from /proc/<pid>/status every ${m.intervalMs} ms, ${m.samples} samples): before ${f0(m.baselineMiB)} MiB, max during upload ${f0(m.maxUploadMiB)} MiB, max during download ${f0(m.maxDownloadMiB)} MiB${m.hwmMiB !== undefined ? `; kernel peak VmHWM over the process's life ${f0(m.hwmMiB)} MiB` : ''}.`,
      '',
      `RSS over time (MiB, every ~1 s): ${m.series}`,
      '',
    );
  }
  if (s.cpu.length) {
    const names = [...new Set(s.cpu.flatMap((c) => Object.keys(c.perProcess)))];
    out.push(`CPU per process (% of one core; this machine has 200 %) and machine busy %:`, '', `| phase | s | ${names.join(' | ')} | machine busy |`, `| --- | ---: | ${names.map(() => '---:').join(' | ')} | ---: |`);
    for (const c of s.cpu) out.push(`| ${c.phase} | ${f0(c.seconds)} | ${names.map((n) => f0(c.perProcess[n])).join(' | ')} | ${f0(c.machineBusyPct)} % |`);
    out.push('');
  }
  if (s.cassandra?.length) {
    out.push('Cassandra requests of the bench keyspace (coordinator read/write/scan counts from system_views) per S3 request of the phase:', '');
    for (const c of s.cassandra) {
      const total = Object.values(c.s3Requests).reduce((a, b) => a + b, 0);
      const ops = Object.entries(c.s3Requests).map(([op, n]) => `${op} ${n}`).join(', ');
      const sum = c.tables.reduce((a, t) => a + t.reads + t.writes + t.scans, 0);
      const cpu = s.cpu.find((x) => x.phase === c.phase);
      const msPer = (name: string) => (cpu && total && cpu.perProcess[name] !== undefined ? `${name} ${((cpu.perProcess[name] / 100) * cpu.seconds * 1000 / total).toFixed(2)} ms` : '');
      const cpuPer = ['gateway', 'cassandra', 'client'].map(msPer).filter(Boolean).join(', ');
      out.push(`**${c.phase}** — S3 requests: ${ops || 'none'}; Cassandra requests: ${sum} (${total ? (sum / total).toFixed(2) : '–'} per S3 request)${cpuPer ? `; CPU time per S3 request: ${cpuPer}` : ''}`, '');
      if (c.tables.length && total) {
        out.push('| table | reads / S3 req | writes / S3 req | scans / S3 req |', '| --- | ---: | ---: | ---: |');
        for (const t of c.tables) out.push(`| ${t.table} | ${(t.reads / total).toFixed(2)} | ${(t.writes / total).toFixed(2)} | ${(t.scans / total).toFixed(2)} |`);
        out.push('');
      }
    }
  }
  for (const n of s.notes) out.push(`- ${n}`);
  if (s.notes.length) out.push('');
  if (s.profile) out.push(...renderProfile(s.profile));
  if (s.cassandraProfile) out.push(...renderCassandraProfile(s.cassandraProfile));
  if (s.raw.length) {
    out.push('<details><summary>Raw tool output</summary>', '');
    for (const r of s.raw) out.push(`**${r.label}**`, '', fence(r.text), '');
    out.push('</details>', '');
  }
  return out;
}

export function renderMarkdown(r: ResultsFile, analysis?: string): string {
  const m = r.machine;
  const out: string[] = [
    `# Gateway benchmark — ${r.date}`,
    '',
    'Written by `tools/bench/run.ts` (see `tools/bench/README.md`); the JSON beside this file holds the same data. Each scenario shows its newest run of the day.',
    '',
    '## Machine',
    '',
    '| | |',
    '| --- | --- |',
    `| CPU | ${m.nproc} × ${esc(m.cpuModel)} |`,
    `| memory | ${m.memory} |`,
    `| OS | ${esc(m.os)} |`,
    `| node | ${m.node} |`,
    `| java | ${esc(m.java)} |`,
    ...Object.entries(r.tools).map(([k, v]) => `| ${esc(k)} | ${esc(v)} |`),
    '',
    'Everything — gateway, Cassandra, Kafka and the load generator — shares these cores, as the targets assume.',
    '',
  ];
  const scenarios = Object.values(r.scenarios).sort((a, b) => {
    const i = ORDER.indexOf(a.name) - ORDER.indexOf(b.name);
    if (i !== 0) return i;
    if (a.profiled !== b.profiled) return Number(a.profiled) - Number(b.profiled);
    return (a.variant ?? '').localeCompare(b.variant ?? '');
  });
  const measured = scenarios.filter((s) => !s.profiled);
  if (measured.length) {
    out.push('## Summary against the targets', '', '| scenario | target | goal | measured | result |', '| --- | --- | --- | --- | --- |');
    for (const s of measured) {
      const name = s.variant ? `${s.name} [${esc(s.variant)}]` : s.name;
      if (s.error && !s.checks.length) out.push(`| ${name} | – | – | ${esc(s.error.split('\n')[0].slice(0, 160))} | **not run** |`);
      for (const c of s.checks) out.push(`| ${name} | ${esc(c.what)} | ${esc(c.target)} | ${esc(c.measured)} | ${c.pass ? 'PASS' : '**FAIL**'} |`);
    }
    out.push('');
  }
  if (analysis?.trim()) out.push(analysis.trim(), '');
  for (const s of scenarios) out.push(...renderScenario(s));
  return out.join('\n').replace(/\n{3,}/g, '\n\n') + '\n';
}
