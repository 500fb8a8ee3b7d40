/**
 * `npm run bench -- cassandra-cpu [--ops 3000] [--rounds 3] [--concurrency 32] [--warmup 1000]
 * [--size 4096] [--versioned] [--flushes 3] [--settle 120] [--arm NAME=CQL ...] [--arm-nodetool NAME="set… ARGS" ...]
 * [--label L]`: Cassandra's CPU per
 * PutObject and per GetObject (issue 15's target: ≤ 0.5 ms and ≤ 0.25 ms on a warm node), from
 * /proc of the Cassandra process of the local stack, as an A/B of table options within one run.
 *
 * Each arm is a gateway on a keyspace of its own (migrated as usual), whose hot tables (`--tables`,
 * default versions, null_versions, objects, version_meta) are then altered `WITH <CQL>`: the arm
 * `current` keeps what the migrations made, `defaults` puts back Cassandra's own defaults of the
 * options the arms compare (the hot tables as on main, before any migration changes them), and `--arm
 * NAME=CQL` adds any other (e.g. `--arm ucs="compaction = {'class': 'UnifiedCompactionStrategy'}"`).
 * All arms share the one Cassandra node; only one runs at a time. `--arm-nodetool NAME="COMMAND"`
 * runs a nodetool set… command before each of that arm's turns: a node setting that applies to the
 * sstables written from then on (e.g. `setcolumnindexsize 4`), compared within one run because
 * every turn's flushes and compactions end (settle) before the next arm's turn.
 *
 * A round, for each arm (in alternating order): the idle CPU of Cassandra over 3 s, then `--ops`
 * PutObjects of new keys into the arm's one directory (`--concurrency` in flight, AWS SDK), in
 * `--flushes` parts each followed by `nodetool flush` of the arm's keyspace (a directory that keeps
 * taking writes spans several sstables, which is what compaction options are about), then a wait
 * until no compaction is pending or running (`--settle`): the flushes and that tail are the work
 * the PUTs caused after they were answered, reported beside the in-phase figure; then `--ops`
 * GetObjects of keys drawn at random from all the arm has written so far, and the settle again.
 * Before the rounds each arm gets `--warmup` PUTs and GETs the same way (JIT, caches, prepared
 * statements). Results: tools/bench/results/<date>-cassandra-cpu.{md,json},
 * one section per `--label` (see cassandra-cpu-report.ts).
 */
import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import { rmSync } from 'fs';
import { loadavg } from 'os';
import { join } from 'path';
import { GetObjectCommand, PutBucketVersioningCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { log, REGION, sleep, WORK_DIR } from '../harness/bench';
import { alternate } from '../lib/ab-gateway';
import { positiveIntFlag, takeOption } from '../lib/args';
import { compactionsPending } from '../lib/compactions';
import { dropKeyspace, GatewayProcess, REPO_ROOT } from '../lib/gateway';
import { readCpuTicks } from '../lib/proc';
import { ensureBucket, sdkClient } from '../lib/sdk-load';
import { localStack, StackInfo } from '../lib/stack';
import {
  ArmSpec,
  CpuRound,
  DEFAULT_OPTIONS_CQL,
  HOT_TABLES,
  renderCpuResults,
  writeCpuSection,
} from './cassandra-cpu-report';

const TICK_MS = 10; // USER_HZ 100

interface Arm {
  spec: ArmSpec;
  keyspace: string;
  gw: GatewayProcess;
  s3: S3Client;
  /** The arm's one bucket; all its keys are in one directory (one partition per table). */
  bucket: string;
  /** Every key PUT so far (the GETs draw from them). */
  keys: string[];
}

interface Options {
  ops: number;
  rounds: number;
  concurrency: number;
  warmup: number;
  size: number;
  versioned: boolean;
  /** Flushes of the arm's keyspace during each PUT phase (after each part). */
  flushes: number;
  settleSec: number;
  tables: string[];
  label: string;
  arms: ArmSpec[];
}

function parseOptions(argvIn: string[]): Options {
  const argv = [...argvIn];
  const arms: ArmSpec[] = [];
  for (let v = takeOption(argv, '--arm'); v !== undefined; v = takeOption(argv, '--arm')) {
    const eq = v.indexOf('=');
    const name = eq < 0 ? v : v.slice(0, eq);
    if (!/^[a-z][a-z0-9]{0,15}$/.test(name))
      throw new Error(`--arm: a name of lower-case letters and digits first, got ${name}`);
    if (arms.some((a) => a.name === name)) throw new Error(`--arm ${name} given twice`);
    const cql = eq < 0 ? undefined : v.slice(eq + 1).trim();
    arms.push({ name, cql: name === 'defaults' && !cql ? DEFAULT_OPTIONS_CQL : cql || undefined });
  }
  if (arms.length === 0) arms.push({ name: 'defaults', cql: DEFAULT_OPTIONS_CQL }, { name: 'current' });
  for (let v = takeOption(argv, '--arm-nodetool'); v !== undefined; v = takeOption(argv, '--arm-nodetool')) {
    const eq = v.indexOf('=');
    const arm = arms.find((a) => a.name === (eq < 0 ? v : v.slice(0, eq)));
    if (!arm) throw new Error(`--arm-nodetool ${v}: NAME=COMMAND for an arm named by --arm`);
    const args = v.slice(eq + 1).trim().split(/\s+/);
    if (!/^set[a-z]+$/.test(args[0] ?? ''))
      throw new Error(`--arm-nodetool ${arm.name}: a nodetool set… command, got ${args.join(' ')}`);
    arm.nodetool = args;
  }
  const label = takeOption(argv, '--label') ?? 'current';
  if (!/^[A-Za-z0-9_-]+$/.test(label))
    throw new Error(`--label: letters, digits, - and _ only, got ${label}`);
  const settleSec = Number(takeOption(argv, '--settle') ?? 120);
  if (!Number.isFinite(settleSec) || settleSec < 1)
    throw new Error(`--settle: seconds >= 1, got ${settleSec}`);
  const tables = (takeOption(argv, '--tables') ?? HOT_TABLES.join(',')).split(',');
  if (!tables.every((t) => /^[a-z_]+$/.test(t)))
    throw new Error(`--tables: table names, got ${tables.join(',')}`);
  return {
    ops: positiveIntFlag(argv, 'ops', 3000),
    rounds: positiveIntFlag(argv, 'rounds', 3),
    concurrency: positiveIntFlag(argv, 'concurrency', 32),
    warmup: positiveIntFlag(argv, 'warmup', 1000),
    size: positiveIntFlag(argv, 'size', 4096),
    versioned: argv.includes('--versioned'),
    flushes: positiveIntFlag(argv, 'flushes', 3),
    settleSec,
    tables,
    label,
    arms,
  };
}

/** Runs `op(0..count-1)`, `concurrency` at a time; wall ms and the CPU ms of each pid meanwhile. */
async function measured(
  pids: Record<string, number>,
  count: number,
  concurrency: number,
  op: (i: number) => Promise<void>,
): Promise<{ wallMs: number; cpuMs: Record<string, number> }> {
  const ticks = () => Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, readCpuTicks(p) ?? NaN]));
  const before = ticks();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      for (let i = next++; i < count; i = next++) await op(i);
    }),
  );
  const wallMs = performance.now() - t0;
  const after = ticks();
  return {
    wallMs,
    cpuMs: Object.fromEntries(Object.keys(pids).map((k) => [k, (after[k]! - before[k]!) * TICK_MS])),
  };
}

/** Waits until no compaction is pending or running (at most `maxSec`); Cassandra's CPU ms meanwhile. */
async function settle(
  cassandraPid: number,
  maxSec: number,
): Promise<{ cpuMs: number; seconds: number; settled: boolean }> {
  const stack = localStack();
  const before = readCpuTicks(cassandraPid)!;
  const t0 = Date.now();
  let settled = false;
  for (;;) {
    if (compactionsPending(stack.nodetool(['compactionstats'])) === 0) {
      settled = true;
      break;
    }
    if (Date.now() - t0 > maxSec * 1000) break;
    await sleep(500);
  }
  return {
    cpuMs: (readCpuTicks(cassandraPid)! - before) * TICK_MS,
    seconds: (Date.now() - t0) / 1000,
    settled,
  };
}

async function startArm(spec: ArmSpec, info: StackInfo, stamp: string, o: Options): Promise<Arm> {
  const keyspace = `bench_cpu_${spec.name}_${stamp}`;
  const credentials = {
    user: 'bench',
    accessKeyId: `CPU${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(24).toString('base64url'),
  };
  const gw = new GatewayProcess({
    keyspace,
    cluster: keyspace.replace(/_/g, '-'),
    cassandraHost: info.cassandra.host,
    cassandraPort: info.cassandra.port,
    kafkaBrokers: info.kafka.brokers,
    credentials,
    blockStore: 'fs',
    blockDir: join(WORK_DIR, `cpu-${stamp}`, spec.name, 'blocks'),
    logFile: join(WORK_DIR, `cpu-${stamp}`, spec.name, 'gateway.log'),
    runtime: 'dist',
  });
  await gw.start();
  if (spec.cql) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const cassandra = require('cassandra-driver');
    const client = new cassandra.Client({ ...info.cassandra.clientOptions });
    try {
      for (const t of o.tables)
        await client.execute(`ALTER TABLE ${keyspace}.${t} WITH ${spec.cql}`, [], { readTimeout: 60_000 });
    } finally {
      await client.shutdown();
    }
  }
  const s3 = sdkClient(
    {
      endpoint: gw.endpoint,
      region: REGION,
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
    },
    o.concurrency,
    120_000,
    2000,
  );
  log(
    `arm ${spec.name}: gateway pid ${gw.pid} on keyspace ${keyspace}${spec.cql ? ` (${o.tables.join(', ')} WITH ${spec.cql})` : ''}`,
  );
  const bucket = `cpu-${stamp}-${spec.name}`;
  await ensureBucket(s3, bucket);
  if (o.versioned)
    await s3.send(
      new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
    );
  return { spec, keyspace, gw, s3, bucket, keys: [] };
}

/** Cassandra's CPU ms over `nodetool flush <ks>` (it returns once the memtables are written). */
function flush(cassandraPid: number, keyspace: string): number {
  const before = readCpuTicks(cassandraPid)!;
  localStack().nodetool(['flush', keyspace]);
  return (readCpuTicks(cassandraPid)! - before) * TICK_MS;
}

/** Random `n` of `keys` (with repeats when there are fewer). */
function sample(keys: string[], n: number): string[] {
  return Array.from({ length: n }, () => keys[Math.floor(Math.random() * keys.length)]!);
}

/**
 * `n` PUTs of new keys into the arm's one directory (in `o.flushes` parts, each followed by a
 * flush, as a directory that keeps taking writes spans several sstables), then `n` GETs of keys
 * drawn from all the arm has written so far; CPU per operation of Cassandra and the gateway.
 */
async function round(
  arm: Arm,
  cassandraPid: number,
  tag: string,
  n: number,
  o: Options,
): Promise<Omit<CpuRound, 'arm' | 'round'>> {
  const body = randomBytes(o.size);
  const keys = Array.from({ length: n }, (_, i) => `dir/${tag}-${String(i).padStart(7, '0')}`);
  const pids = { cassandra: cassandraPid, gateway: arm.gw.pid! };
  if (arm.spec.nodetool) localStack().nodetool(arm.spec.nodetool);
  const idle0 = readCpuTicks(cassandraPid)!;
  await sleep(3000);
  const idleMsPerSec = ((readCpuTicks(cassandraPid)! - idle0) * TICK_MS) / 3;
  const load = [loadavg()[0]!];
  const put = { wallMs: 0, cassandraMs: 0, gatewayMs: 0, flushMs: 0 };
  for (let part = 0; part < o.flushes; part++) {
    const from = Math.floor((n * part) / o.flushes);
    const to = Math.floor((n * (part + 1)) / o.flushes);
    const m = await measured(pids, to - from, o.concurrency, async (i) => {
      const Key = keys[from + i];
      await arm.s3.send(
        new PutObjectCommand({ Bucket: arm.bucket, Key, Body: body, ContentLength: body.length }),
      );
    });
    put.wallMs += m.wallMs;
    put.cassandraMs += m.cpuMs['cassandra']!;
    put.gatewayMs += m.cpuMs['gateway']!;
    put.flushMs += flush(cassandraPid, arm.keyspace);
  }
  arm.keys.push(...keys);
  const putTail = await settle(cassandraPid, o.settleSec);
  const order = sample(arm.keys, n);
  load.push(loadavg()[0]!);
  const get = await measured(pids, n, o.concurrency, async (i) => {
    const r = await arm.s3.send(new GetObjectCommand({ Bucket: arm.bucket, Key: order[i] }));
    const got = await r.Body!.transformToByteArray();
    if (got.length !== body.length)
      throw new Error(`GET ${arm.bucket}/${order[i]}: ${got.length} bytes, expected ${body.length}`);
  });
  const getTail = await settle(cassandraPid, o.settleSec);
  load.push(loadavg()[0]!);
  return {
    ops: n,
    idleMsPerSec,
    put: {
      wallMs: put.wallMs,
      cassandraMs: put.cassandraMs,
      gatewayMs: put.gatewayMs,
      tailMs: put.flushMs + putTail.cpuMs,
      tailSec: putTail.seconds,
      settled: putTail.settled,
    },
    get: {
      wallMs: get.wallMs,
      cassandraMs: get.cpuMs['cassandra']!,
      gatewayMs: get.cpuMs['gateway']!,
      tailMs: getTail.cpuMs,
      tailSec: getTail.seconds,
      settled: getTail.settled,
    },
    loadavg: load,
  };
}

export async function main(argv: string[]): Promise<number> {
  if (argv.includes('--report')) {
    renderCpuResults(takeOption([...argv], '--date') ?? new Date());
    return 0;
  }
  const o = parseOptions(argv);
  execFileSync(process.execPath, [join(REPO_ROOT, 'tools/build/build.mjs')], { stdio: 'inherit' });
  const stack = localStack();
  const info = await stack.ensureStackUp({ log: (m: string) => log(`stack: ${m}`) });
  const cassandraPid = (await stack.status({ probe: true })).cassandra?.nodes?.[0]?.pid;
  if (!cassandraPid) throw new Error('no pid for the stack’s Cassandra node 1');
  const stamp = Date.now().toString(36);
  const arms: Arm[] = [];
  const rounds: CpuRound[] = [];
  const startedAt = new Date();
  try {
    for (const spec of o.arms) arms.push(await startArm(spec, info, stamp, o));
    for (const arm of arms) {
      log(`arm ${arm.spec.name}: warm-up, ${o.warmup} PUTs and GETs`);
      await round(arm, cassandraPid, 'warm', o.warmup, o);
    }
    for (let r = 1; r <= o.rounds; r++) {
      for (const arm of alternate(arms, r)) {
        const res = await round(arm, cassandraPid, `r${r}`, o.ops, o);
        rounds.push({ arm: arm.spec.name, round: r, ...res });
        const per = (ms: number) => (ms / res.ops).toFixed(3);
        log(
          `round ${r} ${arm.spec.name}: Cassandra ms per PUT ${per(res.put.cassandraMs)} (+ flush/compaction ${per(res.put.tailMs)}), per GET ${per(res.get.cassandraMs)}; ` +
            `gateway ${per(res.put.gatewayMs)} / ${per(res.get.gatewayMs)}; ${((res.ops / res.put.wallMs) * 1000).toFixed(0)} PUT/s, ${((res.ops / res.get.wallMs) * 1000).toFixed(0)} GET/s; idle ${res.idleMsPerSec.toFixed(0)} ms/s`,
        );
        writeCpuSection({
          label: o.label,
          argv,
          startedAt,
          options: { ...o, arms: undefined },
          arms: o.arms,
          tables: o.tables,
          rounds,
        });
      }
    }
  } finally {
    for (const arm of arms) {
      arm.s3.destroy();
      await arm.gw.stop().catch((e) => log(`gateway stop: ${(e as Error).message}`));
      await dropKeyspace(info.cassandra.clientOptions, arm.keyspace).catch((e) =>
        log(`drop keyspace: ${(e as Error).message}`),
      );
    }
    rmSync(join(WORK_DIR, `cpu-${stamp}`), { recursive: true, force: true });
    if (info.startedByUs)
      log('stack: started by this run and left running (stop it with node tools/stack/stack.mjs down)');
  }
  return 0;
}
