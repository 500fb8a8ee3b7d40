/**
 * `npm run bench -- vs-minio [--rounds 3] [--phase-duration 10s] [--list-objects 100000]
 * [--only put4k,get4k,...] [--label L] [--warmup 30s] [--delete-requests 5] [--warp-noprefix] [gateway options]`: OStore's gateway (on the local stack) and a
 * single-node MinIO on the same machine, driven by the same clients, phase by phase in alternating
 * order (OStore first in odd rounds, MinIO first in even ones), with CPU per operation split by
 * process. After each OStore phase the bench waits (`--settle S`, default 120 s, 0: off) until
 * Cassandra has no compaction pending or running and counts Cassandra's CPU of that tail as the
 * phase's own (beside the in-phase figure), so a phase never pays for the compactions of the one
 * before it. Results: tools/bench/results/<date>-vs-minio.{md,json} (see versus-report.ts); with
 * `--label L`, <date>-vs-minio.L.{md,json}, so an experiment never replaces the standard run.
 *
 * `--ab-gateway-env NAME=value` (repeatable) adds a third peer, "OStore-B": a second gateway on
 * the same stack and keyspace with that environment on top of the first one's, so that a change
 * behind a switch is compared with the build it would replace in the same run, phase by phase
 * (the box's drift between runs is larger than most single changes). The three peers take turns
 * going first (round k starts with peer (k − 1) mod 3: OStore, MinIO, OStore-B); the report adds a B ÷ A table.
 * `--ab-gateway-root DIR` makes OStore-B run the gateway built in another checkout (a worktree of
 * the previous commit, built there): a code change against the build before it, in one run.
 */
import { join, resolve } from 'path';
import { existsSync, rmSync } from 'fs';
import { loadavg } from 'os';
import { S3Client } from '@aws-sdk/client-s3';
import { Bench, log, REGION, WORK_DIR } from '../harness/bench';
import { startEnvironment } from '../harness/environment';
import { GatewayProcess } from '../lib/gateway';
import { parseArgs, takeFlag, takeOption } from '../lib/args';
import { ensureBucket, sdkClient } from '../lib/sdk-load';
import { parseDuration } from '../lib/units';
import { findWarp, liveChildren, runWarp } from '../lib/warp';
import { compactionsPending } from '../lib/compactions';
import { localStack } from '../lib/stack';
import { CpuTimeline } from './cpu-timeline';
import { buildMinio, findMinio, MinioProcess, minioVersion } from './minio';
import { deleteBatches, listLoop, putMany } from './peer-ops';
import { PeerName, PhaseRun, writeVersus } from './versus-report';

interface Peer {
  name: PeerName;
  endpoint: string;
  host: string;
  accessKey: string;
  secretKey: string;
  pids: Record<string, number | undefined>;
  client: S3Client;
  /** The big directory of the listing phase (uploaded once per peer). */
  listKeys: string[];
  mixedKeys: string[];
}

interface Options {
  rounds: number;
  phaseMs: number;
  listObjects: number;
  only?: string[];
  /** Names the results file of an experiment (`<date>-vs-minio.<label>.md`). */
  label?: string;
  /** Most seconds to wait after an OStore phase for Cassandra's compactions to finish (`--settle`, 0: do not wait). */
  settleSec: number;
  /** An unmeasured 4 KiB PUT and GET of this long against each peer before round 1 (`--warmup`, 0: none). */
  warmupMs: number;
  /** DeleteObjects requests of 1,000 keys per peer and round (`--delete-requests`). */
  deleteRequests: number;
  /**
   * warp's objects all in one directory, the bucket's root (`--warp-noprefix`: warp --noprefix), as
   * an app's hot folder; by default warp gives each of its client threads a prefix of its own.
   */
  warpNoPrefix: boolean;
  /** The environment of the second OStore gateway (`--ab-gateway-env`, repeatable); none: no OStore-B. */
  abGatewayEnv?: Record<string, string>;
  /** Another checkout whose built gateway OStore-B runs (`--ab-gateway-root`): two builds in one run. */
  abGatewayRoot?: string;
}

/** Every `--ab-gateway-env NAME=value` of argv (taken out of it). */
function takeAbEnv(argv: string[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (let v = takeOption(argv, '--ab-gateway-env'); v !== undefined; v = takeOption(argv, '--ab-gateway-env')) {
    const eq = v.indexOf('=');
    if (eq < 1) throw new Error(`--ab-gateway-env: NAME=value, got ${v}`);
    out[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The SDK clients close a socket idle this long: between phases a client's sockets sit idle while
 * warp runs, and a server that closed them first (MinIO does) answered the next request on a stale
 * socket with "socket hang up", which ended a whole run.
 */
const IDLE_SOCKET_MS = 2000;

const KiB = 1024;
const MiB = 1024 * 1024;

/** The phases, in the order each round runs them. */
const PHASES = ['put4k', 'get4k', 'mixed', 'put64m', 'get64m', 'list', 'delete'] as const;
type Phase = (typeof PHASES)[number];

async function warpPhase(bench: Bench, warp: string, peer: Peer, cpu: CpuTimeline, phase: Phase, round: number, o: { op: 'put' | 'get' | 'mixed'; size: number; concurrent: number; objects?: number; durationMs: number; noPrefix: boolean }): Promise<Omit<PhaseRun, 'peer' | 'round' | 'phase' | 'loadavg'>> {
  const bucket = `vs-${bench.bucketTag}-${peer.name.toLowerCase()}-${phase}-${round}`;
  await ensureBucket(peer.client, bucket);
  const r = await runWarp(warp, { host: peer.host, accessKey: peer.accessKey, secretKey: peer.secretKey, region: REGION }, {
    op: o.op,
    bucket,
    objectSize: `${o.size}B`,
    concurrent: o.concurrent,
    durationSec: Math.max(1, Math.round(o.durationMs / 1000)),
    objects: o.objects,
    disableMultipart: true,
    unsignedPayload: true,
    noPrefix: o.noPrefix,
    benchdata: join(WORK_DIR, bench.runStamp, `${peer.name}-${phase}-${round}`),
  });
  const tot = r.totals;
  if (!tot?.startTime || !tot.endTime || !tot.requests) throw new Error(`warp ${o.op} against ${peer.name} gave no totals (exit ${r.exitCode}): ${r.output.slice(-600)}`);
  const from = Date.parse(tot.startTime);
  const to = Date.parse(tot.endTime);
  const sec = (to - from) / 1000;
  return {
    client: 'warp',
    requests: tot.requests,
    errors: tot.errors,
    seconds: sec,
    opsPerSec: tot.requests / sec,
    mibPerSec: tot.bytes / MiB / sec,
    p50Ms: r.report?.latencyMs?.p50,
    p99Ms: r.report?.latencyMs?.p99,
    cpuSec: cpu.between(from, to),
  };
}

async function sdkPhase(cpu: CpuTimeline, run: () => Promise<{ ops: number; errors: number; bytes: number; elapsedMs: number; latencyMs?: { p50: number; p99: number } }>): Promise<Omit<PhaseRun, 'peer' | 'round' | 'phase' | 'loadavg'>> {
  const from = Date.now();
  const r = await run();
  const to = Date.now();
  const sec = r.elapsedMs / 1000;
  return {
    client: 'aws-sdk',
    requests: r.ops,
    errors: r.errors,
    seconds: sec,
    opsPerSec: r.ops / sec,
    mibPerSec: r.bytes / MiB / sec,
    p50Ms: r.latencyMs?.p50,
    p99Ms: r.latencyMs?.p99,
    cpuSec: cpu.between(from, to),
  };
}

async function runPhase(bench: Bench, warp: string, peer: Peer, cpu: CpuTimeline, phase: Phase, round: number, o: Options) {
  const d = o.phaseMs;
  const warpRun = (w: { op: 'put' | 'get' | 'mixed'; size: number; concurrent: number; objects?: number }) =>
    warpPhase(bench, warp, peer, cpu, phase, round, { ...w, durationMs: d, noPrefix: o.warpNoPrefix });
  switch (phase) {
    case 'put4k':
      return warpRun({ op: 'put', size: 4 * KiB, concurrent: 32 });
    case 'get4k':
      return warpRun({ op: 'get', size: 4 * KiB, concurrent: 32, objects: 2500 });
    case 'mixed':
      return warpRun({ op: 'mixed', size: 4 * KiB, concurrent: 32, objects: 2500 });
    case 'put64m':
      return warpRun({ op: 'put', size: 64 * MiB, concurrent: 4 });
    case 'get64m':
      return warpRun({ op: 'get', size: 64 * MiB, concurrent: 4, objects: 8 });
    case 'list':
      return sdkPhase(cpu, () => listLoop(peer.client, listBucket(bench, peer), peer.listKeys, { pageSize: 1000, concurrency: 4, durationMs: d }));
    case 'delete': {
      const bucket = `vs-${bench.bucketTag}-${peer.name.toLowerCase()}-del-${round}`;
      await ensureBucket(peer.client, bucket);
      const keys = await putMany(peer.client, bucket, 'dir/k', 1000 * o.deleteRequests, 0, 32);
      await quietAfterSetup(cpu, peer, o.settleSec);
      return sdkPhase(cpu, async () => {
        const t0 = performance.now();
        const r = await deleteBatches(peer.client, bucket, keys, 1000);
        const sorted = [...r.ms].sort((a, b) => a - b);
        return { ops: r.ms.length, errors: r.errors, bytes: 0, elapsedMs: performance.now() - t0, latencyMs: { p50: sorted[Math.floor(sorted.length / 2)], p99: sorted[sorted.length - 1] } };
      });
    }
  }
}

/**
 * After an OStore phase: waits (at most `maxSec`) until the node has no compaction pending or
 * running, so that the compactions a phase's writes cause are counted as that phase's tail and
 * not as the CPU of the next phase (a GET phase would otherwise pay for the PUTs before it).
 */
async function settleCassandra(maxSec: number): Promise<{ settled: boolean; seconds: number }> {
  const started = Date.now();
  const stack = localStack();
  for (;;) {
    let n: number | undefined;
    try {
      n = compactionsPending(stack.nodetool(['compactionstats']));
    } catch (e) {
      log(`settle: nodetool compactionstats failed (${(e as Error).message.split('\n')[0]}); not waiting`);
      return { settled: false, seconds: (Date.now() - started) / 1000 };
    }
    const seconds = (Date.now() - started) / 1000;
    if (n === 0) return { settled: true, seconds };
    if (seconds >= maxSec) return { settled: false, seconds };
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Most CPU (in cores, the peer's processes together) at which a peer counts as quiet. */
const QUIET_CORES = 0.15;
/** Longest wait for a peer to go quiet before a measured window (the wait is logged either way). */
const QUIET_MAX_MS = 30_000;

/**
 * Before a phase that measures right after its own unmeasured set-up (DeleteObjects puts the keys
 * it then deletes): waits until Cassandra's compactions of that set-up have settled (OStore peers,
 * as after every phase) and the peer's processes have been quiet for a second, so that neither the
 * set-up's flushes and compactions nor the gateway's follow-ups of its writes are counted as the
 * phase's work. A peer that stays busy is measured anyway after QUIET_MAX_MS.
 */
async function quietAfterSetup(cpu: CpuTimeline, peer: Peer, settleSec: number): Promise<void> {
  const started = Date.now();
  if (peer.name !== 'MinIO' && settleSec > 0) await settleCassandra(settleSec);
  let cores = NaN;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = Date.now();
    const used = asPeer(peer, { cpuSec: cpu.between(now - 1000, now) }).cpuSec;
    cores = Object.keys(peer.pids).reduce((sum, name) => sum + (used[name] ?? 0), 0);
    if (cores <= QUIET_CORES || now - started >= QUIET_MAX_MS) break;
  }
  log(`${peer.name}: ${cores <= QUIET_CORES ? 'quiet' : 'still busy'} (${cores.toFixed(2)} cores) ${((Date.now() - started) / 1000).toFixed(0)} s after the set-up`);
}

function listBucket(bench: Bench, peer: Peer): string {
  return `vs-${bench.bucketTag}-${peer.name.toLowerCase()}-list`;
}

/** A phase's CPU as its peer's own: OStore-B's gateway is reported under `gateway` (the idle first gateway is left out). */
function asPeer<T extends { cpuSec: Record<string, number> }>(peer: Peer, r: T): T {
  if (peer.name !== 'OStore-B') {
    const { 'gateway-b': _b, ...rest } = r.cpuSec;
    return { ...r, cpuSec: rest };
  }
  const { gateway: _a, 'gateway-b': b, ...rest } = r.cpuSec;
  return { ...r, cpuSec: { ...rest, gateway: b ?? NaN } };
}

export async function main(argvIn: string[]): Promise<number> {
  const argv = [...argvIn];
  const warmup = takeOption(argv, '--warmup');
  const o: Options = {
    rounds: Number(takeOption(argv, '--rounds') ?? 3),
    phaseMs: parseDuration(takeOption(argv, '--phase-duration') ?? '10s'),
    listObjects: Number(takeOption(argv, '--list-objects') ?? 100_000),
    only: takeOption(argv, '--only')?.split(','),
    label: takeOption(argv, '--label'),
    settleSec: Number(takeOption(argv, '--settle') ?? 120),
    // no --warmup: none (parseDuration takes positive durations only)
    warmupMs: warmup === undefined ? 0 : parseDuration(warmup),
    deleteRequests: Number(takeOption(argv, '--delete-requests') ?? 5),
    warpNoPrefix: takeFlag(argv, '--warp-noprefix'),
    abGatewayEnv: takeAbEnv(argv),
    abGatewayRoot: takeOption(argv, '--ab-gateway-root'),
  };
  if (o.abGatewayRoot !== undefined) {
    o.abGatewayRoot = resolve(o.abGatewayRoot);
    if (!existsSync(join(o.abGatewayRoot, 'dist/apps/gateway/src/main.js'))) throw new Error(`--ab-gateway-root: no built gateway in ${o.abGatewayRoot} (run npm run build there)`);
  }
  if (!Number.isInteger(o.deleteRequests) || o.deleteRequests < 1) throw new Error(`--delete-requests: a whole number >= 1, got ${o.deleteRequests}`);
  if (!Number.isFinite(o.settleSec) || o.settleSec < 0) throw new Error(`--settle: seconds >= 0, got ${o.settleSec}`);
  if (o.label !== undefined && !/^[A-Za-z0-9_-]+$/.test(o.label)) throw new Error(`--label: letters, digits, - and _ only, got ${o.label}`);
  const phases = PHASES.filter((p) => !o.only || o.only.includes(p));
  const warp = findWarp();
  if (!warp) throw new Error('warp not found: npm run bench -- build-warp');
  const minioBin = findMinio() ?? buildMinio(log);
  const bench = new Bench(parseArgs(['small', ...argv]), ['vs-minio', ...argvIn]);
  const env = await startEnvironment(bench);
  const minio = new MinioProcess(minioBin, join(WORK_DIR, bench.runStamp, 'minio-data'), join(WORK_DIR, bench.runStamp, 'minio.log'));
  const runs: PhaseRun[] = [];
  let gatewayB: GatewayProcess | undefined;
  // Everything this run started goes, once: at the end, on an error, or on SIGINT / SIGTERM (a
  // signal would otherwise end node before the `finally` below, leaving gateway, MinIO and stack).
  let stopped: Promise<void> | undefined;
  const stopAll = () =>
    (stopped ??= (async () => {
      for (const c of liveChildren) c.kill('SIGKILL');
      if (gatewayB) {
        await gatewayB.stop().catch((e) => log(`gateway B stop: ${(e as Error).message}`));
        rmSync(gatewayB.options.blockDir, { recursive: true, force: true });
      }
      await minio.stop().catch((e) => log(`minio stop: ${(e as Error).message}`));
      await env.teardown();
    })());
  const onSignal = (signal: NodeJS.Signals, code: number) => () => {
    log(`${signal}: stopping what this run started`);
    void stopAll().finally(() => process.exit(code));
  };
  const onInt = onSignal('SIGINT', 130);
  const onTerm = onSignal('SIGTERM', 143);
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  try {
    await minio.start();
    log(`minio: ready at ${minio.endpoint} (pid ${minio.pid})`);
    const t = env.target;
    if (o.abGatewayEnv || o.abGatewayRoot) {
      if (!env.gateway) throw new Error('--ab-gateway-env and --ab-gateway-root need a gateway started by the bench (not --endpoint)');
      const a = env.gateway.options;
      gatewayB = new GatewayProcess({
        ...a,
        blockDir: `${a.blockDir}-b`,
        logFile: join(WORK_DIR, bench.runStamp, 'gateway-b.log'),
        extraEnv: { ...a.extraEnv, ...o.abGatewayEnv },
        root: o.abGatewayRoot,
      });
      await gatewayB.start();
      const what = [...Object.entries(o.abGatewayEnv ?? {}).map(([k, v]) => `${k}=${v}`), ...(o.abGatewayRoot ? [`the build in ${o.abGatewayRoot}`] : [])];
      log(`gateway B: ready at ${gatewayB.endpoint} (pid ${gatewayB.pid}, ${what.join(' ')})`);
    }
    const peers: Peer[] = [
      { name: 'OStore', endpoint: t.endpoint, host: t.host, accessKey: t.accessKey, secretKey: t.secretKey, pids: { gateway: t.gatewayPid, cassandra: t.pids['cassandra'], kafka: t.pids['kafka'] }, client: sdkClient({ endpoint: t.endpoint, region: REGION, accessKeyId: t.accessKey, secretAccessKey: t.secretKey }, 64, 120_000, IDLE_SOCKET_MS), listKeys: [], mixedKeys: [] },
      { name: 'MinIO', endpoint: minio.endpoint, host: minio.host, accessKey: minio.accessKey, secretKey: minio.secretKey, pids: { minio: minio.pid }, client: sdkClient({ endpoint: minio.endpoint, region: REGION, accessKeyId: minio.accessKey, secretAccessKey: minio.secretKey }, 64, 120_000, IDLE_SOCKET_MS), listKeys: [], mixedKeys: [] },
    ];
    if (gatewayB) {
      const b = gatewayB;
      peers.push({ name: 'OStore-B', endpoint: b.endpoint, host: b.host, accessKey: t.accessKey, secretKey: t.secretKey, pids: { gateway: b.pid, cassandra: t.pids['cassandra'], kafka: t.pids['kafka'] }, client: sdkClient({ endpoint: b.endpoint, region: REGION, accessKeyId: t.accessKey, secretAccessKey: t.secretKey }, 64, 120_000, IDLE_SOCKET_MS), listKeys: [], mixedKeys: [] });
    }
    const cpu = new CpuTimeline({ gateway: t.gatewayPid, 'gateway-b': gatewayB?.pid, cassandra: t.pids['cassandra'], kafka: t.pids['kafka'], minio: minio.pid, 'client+children': process.pid }).start();
    if (phases.includes('list')) {
      for (const peer of peers) {
        log(`${peer.name}: uploading the listing directory (${o.listObjects} empty objects, not measured)`);
        await ensureBucket(peer.client, listBucket(bench, peer));
        peer.listKeys = await putMany(peer.client, listBucket(bench, peer), 'big/k', o.listObjects, 0, 64);
      }
    }
    if (o.warmupMs > 0) {
      // A freshly started Cassandra spends several times more CPU per request until its JIT has
      // compiled the hot paths (2026-12-05: 3.9 ms per 4 KiB PUT in round 1, 1.3 ms in round 3),
      // so the "warm node" figures need these unmeasured phases first.
      for (const peer of peers) {
        for (const phase of ['put4k', 'get4k'] as const) {
          log(`warm-up: ${phase} against ${peer.name} (${o.warmupMs / 1000} s, not measured)`);
          await runPhase(bench, warp, peer, cpu, phase, 0, { ...o, phaseMs: o.warmupMs });
        }
      }
    }
    for (let round = 1; round <= o.rounds; round++) {
      // each peer goes first in turn (two peers: OStore in odd rounds, MinIO in even ones)
      const first = (round - 1) % peers.length;
      const order = [...peers.slice(first), ...peers.slice(0, first)];
      for (const phase of phases) {
        for (const peer of order) {
          log(`round ${round}: ${phase} against ${peer.name}`);
          const r = asPeer(peer, await runPhase(bench, warp, peer, cpu, phase, round, o));
          let tail: Pick<PhaseRun, 'tailCpuSec' | 'tailSeconds' | 'settled'> = {};
          if (peer.name !== 'MinIO' && o.settleSec > 0) {
            const end = Date.now();
            const s = await settleCassandra(o.settleSec);
            tail = { tailCpuSec: asPeer(peer, { cpuSec: cpu.between(end, Date.now()) }).cpuSec, tailSeconds: s.seconds, settled: s.settled };
            log(`round ${round}: ${phase} ${peer.name}: compactions ${s.settled ? 'settled' : 'NOT settled'} ${s.seconds.toFixed(0)} s after the phase`);
          }
          runs.push({ peer: peer.name, round, phase, loadavg: loadavg()[0], ...r, ...tail });
          log(`round ${round}: ${phase} ${peer.name} ${r.opsPerSec.toFixed(1)} ops/s ${r.mibPerSec.toFixed(1)} MiB/s errors ${r.errors}`);
          writeVersus(bench, env.tools, { minio: minioVersion(minioBin), options: o }, runs);
        }
      }
    }
    cpu.stop();
    for (const p of peers) p.client.destroy();
  } finally {
    await stopAll();
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
  return 0;
}
