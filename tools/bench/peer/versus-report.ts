import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';
import { Bench, localDate } from '../harness/bench';
import { resultsDir } from '../harness/results';
import { gitCommit, machineInfo } from '../lib/machine';
import { median } from '../lib/median';

/** The systems of the side-by-side bench: OStore and MinIO, and with `--ab-gateway-env` a second OStore gateway. */
export type PeerName = 'OStore' | 'MinIO' | 'OStore-B';

/** One phase of one round against one peer. */
export interface PhaseRun {
  peer: PeerName;
  round: number;
  phase: string;
  client: 'warp' | 'aws-sdk';
  /** 1-minute load average when the phase ended. */
  loadavg: number;
  requests: number;
  errors: number;
  seconds: number;
  opsPerSec: number;
  mibPerSec: number;
  p50Ms?: number;
  p99Ms?: number;
  /** CPU seconds per process over the measured window. */
  cpuSec: Record<string, number>;
  /** OStore: CPU seconds per process from the phase's end until Cassandra's compactions settled. */
  tailCpuSec?: Record<string, number>;
  tailSeconds?: number;
  /** Whether the compactions settled within the wait (false: the tail is cut short). */
  settled?: boolean;
}

const TITLES: Record<string, { title: string; goal?: number }> = {
  put4k: { title: '4 KiB PUT, 32 clients (warp)', goal: 1.0 },
  get4k: { title: '4 KiB GET, 32 clients (warp)', goal: 0.7 },
  mixed: { title: '4 KiB mixed 70 % GET / 30 % PUT, 32 clients (warp)' },
  put64m: { title: '64 MiB PUT, 4 clients (warp)', goal: 1.0 },
  get64m: { title: '64 MiB GET, 4 clients (warp)', goal: 1.0 },
  list: { title: 'ListObjectsV2 page of 1,000 keys in a directory of the listing size, 4 clients (aws-sdk)', goal: 1 / 1.5 },
  delete: { title: 'DeleteObjects of 1,000 keys, one request at a time (aws-sdk)', goal: 1 / 1.5 },
};

/** Processes whose CPU counts for a peer. */
const PROCESSES: Record<PeerName, string[]> = { OStore: ['gateway', 'cassandra', 'kafka'], MinIO: ['minio'], 'OStore-B': ['gateway', 'cassandra', 'kafka'] };

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '—');

/** CPU ms per operation of each process of a run (and the client). */
function cpuMsPerOp(r: PhaseRun): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of [...PROCESSES[r.peer], 'client']) out[name] = ((r.cpuSec[name] ?? NaN) * 1000) / r.requests;
  return out;
}

/** Cassandra's CPU ms per operation counting the compactions after the phase (the in-phase figure without a tail). */
function cassandraWithTailMsPerOp(r: PhaseRun): number {
  return (((r.cpuSec['cassandra'] ?? NaN) + (r.tailCpuSec?.['cassandra'] ?? 0)) * 1000) / r.requests;
}

/** The medians and ratios of every phase measured so far, as Markdown. */
export function renderVersus(runs: PhaseRun[]): string[] {
  const md: string[] = [
    '| phase | OStore ops/s | MinIO ops/s | OStore MiB/s | MinIO MiB/s | ratio of medians | median of round ratios | goal | rounds |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const cpu: string[] = [
    '| phase | OStore: gateway | Cassandra | Cassandra incl. its compaction tail | Kafka | OStore total (incl. tail) | MinIO | client (OStore / MinIO) | tail s (settled rounds) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const phase of Object.keys(TITLES)) {
    const of = (p: PeerName) => runs.filter((r) => r.phase === phase && r.peer === p);
    const o = of('OStore');
    const m = of('MinIO');
    if (o.length === 0 && m.length === 0) continue;
    const rounds = [...new Set(o.map((r) => r.round))].filter((k) => m.some((x) => x.round === k));
    const roundRatios = rounds.map((k) => o.find((r) => r.round === k)!.opsPerSec / m.find((r) => r.round === k)!.opsPerSec);
    const ratio = median(o.map((r) => r.opsPerSec)) / median(m.map((r) => r.opsPerSec));
    const goal = TITLES[phase].goal;
    const verdict = goal === undefined ? '—' : `≥ ${goal.toFixed(2)}: ${median(roundRatios) >= goal ? 'PASS' : 'FAIL'}`;
    md.push(
      `| ${TITLES[phase].title} | ${f(median(o.map((r) => r.opsPerSec)))} | ${f(median(m.map((r) => r.opsPerSec)))} | ${f(median(o.map((r) => r.mibPerSec)))} | ${f(median(m.map((r) => r.mibPerSec)))} | ${f(ratio, 2)} | ${f(median(roundRatios), 2)} (${roundRatios.map((x) => f(x, 2)).join(', ')}) | ${verdict} | ${rounds.length} |`,
    );
    const oc = o.map(cpuMsPerOp);
    const mc = m.map(cpuMsPerOp);
    const med = (rows: Record<string, number>[], k: string) => median(rows.map((r) => r[k]));
    const tailed = o.map((r) => cassandraWithTailMsPerOp(r));
    const total = median(o.map((r, i) => oc[i]['gateway'] + tailed[i] + oc[i]['kafka']));
    const tails = o.filter((r) => r.tailSeconds !== undefined);
    const tailCell = tails.length === 0 ? '—' : `${f(median(tails.map((r) => r.tailSeconds!)), 0)} (${tails.filter((r) => r.settled).length} of ${tails.length})`;
    cpu.push(
      `| ${phase} | ${f(med(oc, 'gateway'), 3)} | ${f(med(oc, 'cassandra'), 3)} | ${f(median(tailed), 3)} | ${f(med(oc, 'kafka'), 3)} | ${f(total, 3)} | ${f(med(mc, 'minio'), 3)} | ${f(med(oc, 'client'), 3)} / ${f(med(mc, 'client'), 3)} | ${tailCell} |`,
    );
  }
  return [
    ...md,
    '',
    ...renderAb(runs),
    'CPU ms per operation (medians over rounds; from /proc, each process with its children). "Incl. its compaction tail": Cassandra\'s CPU from the phase\'s start until its compactions settled after it (`--settle`), so the compactions a PUT phase causes count for the PUTs and not for the phase after it:',
    '',
    ...cpu,
  ];
}

/**
 * OStore-B (the second gateway of `--ab-gateway-env`) against OStore in the same run: rates,
 * the median of the per-round ratios B ÷ A, and CPU ms per operation of each OStore process
 * (Cassandra with its compaction tail), A → B. Nothing without B's phases.
 */
export function renderAb(runs: PhaseRun[]): string[] {
  if (!runs.some((r) => r.peer === 'OStore-B')) return [];
  const md = [
    'A/B in this run: OStore-B (the second gateway, `--ab-gateway-env`) against OStore (A). Ratios are B ÷ A (> 1: B faster); CPU ms per operation A → B (medians over rounds):',
    '',
    '| phase | A ops/s | B ops/s | median of round ratios B ÷ A | gateway | Cassandra incl. tail | Kafka | OStore total | rounds |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const phase of Object.keys(TITLES)) {
    const a = runs.filter((r) => r.phase === phase && r.peer === 'OStore');
    const b = runs.filter((r) => r.phase === phase && r.peer === 'OStore-B');
    const rounds = [...new Set(a.map((r) => r.round))].filter((k) => b.some((x) => x.round === k));
    if (rounds.length === 0) continue;
    const ratios = rounds.map((k) => b.find((r) => r.round === k)!.opsPerSec / a.find((r) => r.round === k)!.opsPerSec);
    const cpuOf = (rs: PhaseRun[]) => {
      const c = rs.map(cpuMsPerOp);
      const tailed = rs.map(cassandraWithTailMsPerOp);
      return {
        gateway: median(c.map((x) => x['gateway'])),
        cassandra: median(tailed),
        kafka: median(c.map((x) => x['kafka'])),
        total: median(rs.map((_, i) => c[i]['gateway'] + tailed[i] + c[i]['kafka'])),
      };
    };
    const ca = cpuOf(a);
    const cb = cpuOf(b);
    const pair = (k: keyof typeof ca) => `${f(ca[k], 3)} → ${f(cb[k], 3)}`;
    md.push(
      `| ${phase} | ${f(median(a.map((r) => r.opsPerSec)))} | ${f(median(b.map((r) => r.opsPerSec)))} | ${f(median(ratios), 2)} (${ratios.map((x) => f(x, 2)).join(', ')}) | ${pair('gateway')} | ${pair('cassandra')} | ${pair('kafka')} | ${pair('total')} | ${rounds.length} |`,
    );
  }
  return [...md, ''];
}

/** Writes <date>-vs-minio[.<label>].{md,json} under `--out` (else tools/bench/results), rewritten after every phase. */
export function writeVersus(bench: Bench, tools: Record<string, string>, meta: { minio: string; options: { label?: string } }, runs: PhaseRun[]): void {
  const label = meta.options.label;
  mkdirSync(resultsDir(bench), { recursive: true });
  const base = join(resultsDir(bench), `${localDate()}-vs-minio${label ? `.${label}` : ''}`);
  const machine = machineInfo();
  const g = gitCommit();
  const commit = `${g.commit}${g.dirty ? ` + ${g.dirty} uncommitted files` : ''} (${g.subject})`;
  writeFileSync(`${base}.json`, JSON.stringify({ machine, commit, command: bench.commandLine, tools, ...meta, runs }, null, 2) + '\n');
  const md = [
    '# OStore beside MinIO, one run, alternating',
    '',
    `Machine: ${machine.nproc} cores (${machine.cpuModel}), ${machine.memory}, ${machine.os}, node ${machine.node}, ${machine.java}.`,
    `Commit ${commit}.`,
    '',
    '```sh',
    bench.commandLine,
    '```',
    '',
    `OStore: ${tools['gateway'] ?? ''}; ${tools['cassandra'] ?? 'Cassandra of the local stack'}. MinIO: ${meta.minio}, single node, single drive on the same disk. Options: \`${JSON.stringify(meta.options)}\`.`,
    `Load average (1 min) at the end of each phase: ${runs.map((r) => r.loadavg.toFixed(1)).join(', ')}. Rounds alternate which peer goes first; ratios are OStore ÷ MinIO (> 1: OStore faster).`,
    '',
    ...renderVersus(runs),
    '',
    '## Every phase',
    '',
    '| round | phase | peer | client | requests | errors | s | ops/s | MiB/s | p50 ms | p99 ms | load |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...runs.map((r) => `| ${r.round} | ${r.phase} | ${r.peer} | ${r.client} | ${r.requests} | ${r.errors} | ${f(r.seconds)} | ${f(r.opsPerSec)} | ${f(r.mibPerSec)} | ${f(r.p50Ms ?? NaN)} | ${f(r.p99Ms ?? NaN)} | ${f(r.loadavg)} |`),
    '',
  ];
  writeFileSync(`${base}.md`, md.join('\n'));
}
