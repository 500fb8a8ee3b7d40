/** The soak's record: tools/bench/results/<date>-soak.md, rewritten as the run goes on. */
import { mkdirSync, writeFileSync } from 'fs';
import { dirname } from 'path';
import { gitCommit, machineInfo } from '../lib/machine';
import { Mix } from './mixed-load';
import { SeriesName, SoakBounds, SoakCheck, SoakSample, summarizeSeries, Windows, windowsFor } from './series';

/** Everything the record shows; filled in phase by phase. */
export interface SoakRecord {
  command: string;
  startedAt: string;
  gateway: string;
  cassandra?: string;
  /** `env` names the stack as the command ran with it (OSTORE_STACK_DIR and the OSTORE_*_PORT variables). */
  stack: { heap: string; env: string };
  options: { minutes: number; maxSec: number; concurrency: number; soakConcurrency: number; keys: number; fraction: number; intervalSec: number };
  mix: Mix;
  bounds: SoakBounds;
  loadStart: number[];
  loadEnd?: number[];
  fill?: { requests: number; errors: number; firstErrors: string[] };
  max?: {
    seconds: number;
    requests: number;
    errors: number;
    perSec: number;
    byKind: Record<string, number>;
    latencyMs: { p50: number; p99: number };
    cpuPct: Record<string, number>;
    load1: number;
    firstErrors: string[];
  };
  soak?: {
    targetRate: number;
    requests: number;
    errors: number;
    seconds: number;
    achievedRate: number;
    skipped: number;
    byKind: Record<string, number>;
    firstErrors: string[];
    errorsByName: Record<string, number>;
  };
  /** Heap snapshots taken (`--heap-snapshots`): path, second of the paced phase, how long it took. */
  heapSnapshots?: { file: string; tSec: number; ms: number }[];
  windows?: Windows;
  samples: SoakSample[];
  checks: SoakCheck[];
}

const SERIES: { name: SeriesName; label: string; unit: string }[] = [
  { name: 'rssMiB', label: 'gateway RSS (VmRSS)', unit: 'MiB' },
  { name: 'rssLessNewMiB', label: 'gateway RSS less the V8 young generation', unit: 'MiB' },
  { name: 'newSpaceMiB', label: 'V8 young generation, committed', unit: 'MiB' },
  { name: 'rssAnonMiB', label: 'gateway RssAnon', unit: 'MiB' },
  { name: 'rssFileMiB', label: 'gateway RssFile', unit: 'MiB' },
  { name: 'brkMiB', label: 'gateway [heap] mapping (main malloc arena), resident', unit: 'MiB' },
  { name: 'heapUsedMiB', label: 'gateway V8 heap used', unit: 'MiB' },
  { name: 'heapTotalMiB', label: 'gateway V8 heap total', unit: 'MiB' },
  { name: 'externalMiB', label: 'gateway external memory (Buffers, ArrayBuffers)', unit: 'MiB' },
  { name: 'metricSeries', label: 'series in the gateway /metrics', unit: '' },
  { name: 'fdSockets', label: 'gateway socket descriptors', unit: '' },
  { name: 'tcpEstablished', label: 'ESTABLISHED TCP on the S3 port', unit: '' },
  { name: 'lagP99Ms', label: 'event-loop lag p99 (10 s window)', unit: 'ms' },
  { name: 'requestsPerSec', label: 'requests completed', unit: '/s' },
  { name: 'errors', label: 'errors per window', unit: '' },
  { name: 'clientP99Ms', label: 'client latency p99 (10 s window)', unit: 'ms' },
  { name: 'load1', label: 'load average (1 min)', unit: '' },
];

const f = (n: number | undefined, d = 1) => (n === undefined ? '–' : Number.isFinite(n) ? n.toFixed(d) : String(n));
const loads = (l?: number[]) => (l ? l.map((x) => x.toFixed(2)).join(' / ') : '–');

let machine: ReturnType<typeof machineInfo> | undefined;

/** The Markdown of a record (complete or still running). */
export function renderSoak(r: SoakRecord): string {
  // the machine is read once per run (the record is rewritten every minute), the commit every time
  const m = (machine ??= machineInfo(process.env.OSTORE_JAVA ?? 'java'));
  const g = gitCommit();
  const o = r.options;
  const lines: string[] = [];
  const done = r.checks.length > 0;
  const verdict = done ? (r.checks.every((c) => c.pass) ? 'PASS' : 'FAIL') : 'running (this file is rewritten every minute)';
  lines.push(`# Soak ${r.startedAt.slice(0, 10)}: ${verdict}`, '');
  lines.push(`A mixed load (${r.mix.getPct} % GetObject, ${r.mix.putPct} % PutObject of ${r.mix.minSize / 1024}–${r.mix.maxSize / 1024} KiB, ${r.mix.deletePct} % DeleteObject over ${o.keys} keys, AWS SDK v3, one attempt per request) first unpaced from ${o.concurrency} clients for ${o.maxSec} s (the maximum), then paced at ${o.fraction * 100} % of it for ${o.minutes} min with a sample every ${o.intervalSec} s. Written by \`tools/bench/soak\` (see tools/bench/README.md).`, '');
  lines.push('| | |', '| --- | --- |');
  lines.push(`| started | ${r.startedAt} |`);
  lines.push(`| command | \`${r.command}\` |`);
  lines.push(`| commit | ${g.commit}${g.dirty ? ` + ${g.dirty} uncommitted changed files` : ''} (${g.subject}) |`);
  lines.push(`| machine | ${m.nproc} × ${m.cpuModel}, ${m.memory}, ${m.os}, node ${m.node} |`);
  lines.push(`| gateway | ${r.gateway} |`);
  lines.push(`| stack | ${r.cassandra ?? 'Cassandra'}, Cassandra heap ${r.stack.heap}, \`${r.stack.env}\` |`);
  lines.push(`| load average (1/5/15 min) | start ${loads(r.loadStart)}, end ${loads(r.loadEnd)} (the machine is shared: other engineers' tests ran at the same time) |`);
  if (r.max) {
    const cpu = Object.entries(r.max.cpuPct).map(([k, v]) => `${k} ${v.toFixed(0)} %`).join(', ');
    lines.push(`| maximum | **${f(r.max.perSec)} requests/s** over ${f(r.max.seconds)} s (${r.max.requests} requests: GET ${r.max.byKind.GET}, PUT ${r.max.byKind.PUT}, DELETE ${r.max.byKind.DELETE}; ${r.max.errors} errors), latency p50 ${f(r.max.latencyMs.p50)} ms, p99 ${f(r.max.latencyMs.p99)} ms, load ${f(r.max.load1, 2)}; CPU (% of one core) ${cpu} |`);
  }
  if (r.soak) {
    const s = r.soak;
    lines.push(`| soak | target **${f(s.targetRate)} requests/s**, achieved ${f(s.achievedRate)}/s over ${f(s.seconds / 60, 1)} min (${s.requests} requests: GET ${s.byKind.GET}, PUT ${s.byKind.PUT}, DELETE ${s.byKind.DELETE}; **${s.errors} errors**; ${s.skipped} paced starts skipped after the schedule fell > 1 s behind) |`);
  }
  lines.push('');
  if (r.checks.length) {
    lines.push('## Checks (the run exits 1 when one fails)', '', '| check | bound | measured | |', '| --- | --- | --- | --- |');
    for (const c of r.checks) lines.push(`| ${c.what} | ${c.bound} | ${c.measured} | ${c.pass ? 'PASS' : '**FAIL**'} |`);
    lines.push('');
  }
  if (r.samples.length) {
    const end = r.samples[r.samples.length - 1].tSec;
    const w = r.windows ?? windowsFor(end);
    lines.push('## Series', '');
    lines.push(`Medians of the first window after a ${f(w.warmupSec, 0)} s warm-up (${f(w.warmupSec, 0)}–${f(w.warmupSec + w.windowSec, 0)} s) against the last window (${f(w.endSec - w.windowSec, 0)}–${f(w.endSec, 0)} s), and the least-squares slope over every sample after the warm-up. The lag is prom-client's \`nodejs_eventloop_lag_p99_seconds\` from the gateway's /metrics, scraped only by this bench: each scrape gives the window since the previous one (perf_hooks histogram, 10 ms resolution, so an idle loop reads about 10 ms).`, '');
    lines.push('| series | first window | last window | change | slope per 10 min |', '| --- | --- | --- | --- | --- |');
    for (const s of SERIES) {
      const sum = summarizeSeries(r.samples, s.name, w);
      lines.push(`| ${s.label}${s.unit ? ` (${s.unit})` : ''} | ${f(sum.first)} | ${f(sum.last)} | ${Number.isFinite(sum.change) ? `${(sum.change * 100).toFixed(1)} %` : '–'} | ${f(sum.slopePer10Min, 2)} |`);
    }
    lines.push('');
  }
  if (r.heapSnapshots?.length) {
    lines.push('## Heap snapshots', '', 'A diagnostic run: each snapshot blocks the gateway for its duration and costs memory, so RSS after one is not a soak figure. Compare two with `node -r @swc-node/register tools/bench/soak/heap-diff.ts A B`.', '');
    for (const h of r.heapSnapshots) lines.push(`- at ${f(h.tSec, 0)} s (${f(h.ms / 1000)} s to write): \`${h.file}\``);
    lines.push('');
  }
  const errors = [...(r.fill?.firstErrors ?? []), ...(r.max?.firstErrors ?? []), ...(r.soak?.firstErrors ?? [])];
  if (errors.length) {
    lines.push('## First errors', '', ...(r.soak ? [`By kind (soak): ${JSON.stringify(r.soak.errorsByName)}`, ''] : []), '```', ...errors, '```', '');
  }
  lines.push('## Bounds', '');
  lines.push(`- RSS: the last window's median of RSS less V8's young generation at most ${r.bounds.rssGrowth * 100} % above the first window's (after the warm-up), and the young generation at most ${r.bounds.maxNewSpaceMiB} MiB. V8 doubles the young generation's semi-spaces as survivors accumulate, up to its cap (2 × 16 MiB on 64-bit Node 20), sooner the higher the request rate: a bounded step of up to ~24 MiB that the RSS check would otherwise read as growth (2026-12-02-soak-3.md).`);
  lines.push(`- V8 heap used: the last window's median at most ${r.bounds.heapGrowth * 100} % above the first window's (a leak of JS objects; RSS minus this is native memory, V8's reserve and code).`);
  lines.push(`- Sockets (descriptors and ESTABLISHED TCP): the last window's median at most the first's + max(${r.bounds.socketSlack}, ${r.bounds.socketGrowth * 100} %).`);
  lines.push(`- Event-loop lag: every 10 s window's p99 in the last window at most ${r.bounds.lagP99Ms} ms, and the last window's median p99 at most the first's × ${r.bounds.lagFlatFactor} + ${r.bounds.lagFlatSlackMs} ms (flat). The absolute bound is loose on purpose: on 2 cores at a load average of 25–30 the lag is mostly the gateway waiting for a core (the 2-minute debug runs read 170–265 ms at 4 requests/s).`);
  lines.push(`- Errors: none, in the fill, the maximum and the soak.`);
  lines.push(`- Rate: the soak achieved at least ${r.bounds.minRateShare * 100} % of its target.`, '');
  if (r.samples.length) {
    lines.push('<details><summary>Every sample</summary>', '');
    lines.push('| t (s) | RSS (MiB) | young gen. (MiB) | anon / file / [heap] (MiB) | heap used / total, external (MiB) | /metrics series | socket fds | TCP est. | lag p99 / max / mean (ms) | requests | errors | req/s | client p99 (ms) | load 1 min |', '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const s of r.samples) lines.push(`| ${f(s.tSec, 0)} | ${f(s.rssMiB)} | ${f(s.newSpaceMiB)} | ${f(s.rssAnonMiB)} / ${f(s.rssFileMiB)} / ${f(s.brkMiB)} | ${f(s.heapUsedMiB)} / ${f(s.heapTotalMiB)}, ${f(s.externalMiB)} | ${s.metricSeries} | ${s.fdSockets} | ${s.tcpEstablished} | ${f(s.lagP99Ms)} / ${f(s.lagMaxMs)} / ${f(s.lagMeanMs)} | ${s.requests} | ${s.errors} | ${f(s.requestsPerSec)} | ${f(s.clientP99Ms)} | ${f(s.load1, 2)} |`);
    lines.push('', '</details>', '');
  }
  return lines.join('\n');
}

/** Writes the record's Markdown to `path`. */
export function writeSoakRecord(path: string, r: SoakRecord): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, renderSoak(r));
  writeFileSync(path.replace(/\.md$/, '.json'), `${JSON.stringify(r, null, 1)}\n`);
}
