/**
 * `npm run bench -- sstable-format [--objects 2500] [--flushes 3] [--ops 20000] [--rounds 8]
 * [--concurrency 32] [--warmup 60000] [--label L]`: Cassandra's CPU per point read of the S3 core
 * (ObjectsService.head: the one `versions` read of a GET or HEAD of a small object) on `big` sstables
 * against `bti` sstables (Cassandra 5's trie-indexed format), alternating within one run on one node.
 *
 * The format is a node setting (`sstable.selected_format`) that applies to the sstables a node
 * writes, and a node reads both. So the bench starts its own single Cassandra node (its own stack
 * directory and ports, nothing else of the local stack is touched) with `big`, writes `--objects`
 * 4 KiB objects into one directory of a keyspace (in `--flushes` parts, each flushed: the directory
 * spans that many sstables), restarts the node with `bti` and writes the same into a second
 * keyspace, then (after `--warmup` reads spread over both: a restarted node's cost per read settles
 * only after a few hundred thousand reads, so 200000 for a warm node) runs `--rounds` rounds; each round reads `--ops` random keys of
 * each keyspace (`--concurrency` in flight), the order alternating, and takes the Cassandra
 * process's CPU (/proc, utime + stime) over each. Nothing is in a memtable when reads start.
 * Results: tools/bench/results/<date>-sstable-format.{md,json}, one section per `--label`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { cpus, loadavg, totalmem } from 'os';
import { join } from 'path';
import { Readable } from 'stream';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import type { Bucket, S3Core } from '@ostore/s3/core';
import { createDriverClient, CassandraClient } from '@ostore/shared/cassandra';
import { WORK_DIR } from '../harness/bench';
import { REPO_ROOT } from '../lib/gateway';
import { median } from '../lib/median';
import { readCpuTicks } from '../lib/proc';
import { localStack } from '../lib/stack';
import { benchRun, coreOver } from '../lifecycle/bench-core';

const TICK_MS = 10; // USER_HZ 100
const FORMATS = ['big', 'bti'] as const;
type Format = (typeof FORMATS)[number];
const BUCKET = 'fmt';
const owner = { id: 'bench', displayName: 'Bench' };

interface Options {
  objects: number;
  flushes: number;
  ops: number;
  rounds: number;
  concurrency: number;
  warmup: number;
  label: string;
}

function parseOptions(argv: string[]): Options {
  const o: Options = { objects: 2500, flushes: 3, ops: 20000, rounds: 8, concurrency: 32, warmup: 60000, label: 'default' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${a} needs a value`);
    if (a === '--label') {
      o.label = value;
      continue;
    }
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${a} must be a positive integer, got ${value}`);
    if (a === '--objects') o.objects = n;
    else if (a === '--flushes') o.flushes = n;
    else if (a === '--ops') o.ops = n;
    else if (a === '--rounds') o.rounds = n;
    else if (a === '--concurrency') o.concurrency = n;
    else if (a === '--warmup') o.warmup = n;
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

const keyOf = (i: number) => `dir/obj-${String(i).padStart(7, '0')}`;

/** The bench's own node: its directory and ports, apart from the local stack's. */
function stackOptions(format: Format) {
  return {
    stackDir: join(WORK_DIR, 'stack-sstable-format'),
    cassandraPort: 31742,
    cassandraStoragePort: 31700,
    sstableFormat: format,
    only: 'cassandra' as const,
    quiet: true,
  };
}

async function cassandraPid(format: Format): Promise<number> {
  const st = await localStack().status({ probe: false, ...stackOptions(format) } as { probe: boolean });
  const pid = st.cassandra?.nodes?.[0]?.pid;
  if (!pid) throw new Error('the bench node has no pid');
  return pid;
}

/** Starts the node with `format`, writes its keyspace, flushed in parts; leaves the node running. */
async function writeArm(format: Format, o: Options, log: (m: string) => void): Promise<string> {
  const stack = localStack();
  await stack.stackDown({ ...stackOptions(format) });
  const info = await stack.ensureStackUp(stackOptions(format));
  const { keyspace, cassandra } = benchRun(info, `fmt_${format}`);
  const admin = createDriverClient(cassandra, false);
  await admin.connect();
  await new MigrationRunner(admin).migrate(migrations, { keyspace, replication: parseReplication('SimpleStrategy:1') });
  await admin.shutdown();
  const { core, client } = await coreOver({ ...cassandra, keyspace });
  await core.buckets.create({ name: BUCKET, owner, location: '', acl: 'private' });
  const body = Buffer.alloc(4096, 7);
  const perPart = Math.ceil(o.objects / o.flushes);
  for (let part = 0; part < o.flushes; part++) {
    const keys: number[] = [];
    for (let i = part * perPart; i < Math.min(o.objects, (part + 1) * perPart); i++) keys.push(i);
    await inParallel(keys, o.concurrency, (i) =>
      core.objects.put({ bucket: BUCKET, key: keyOf(i), owner, body: Readable.from([body]), meta: { userMeta: {} } }).then(() => undefined),
    );
    stack.nodetool(['flush', keyspace], stackOptions(format));
  }
  await client.shutdown();
  log(`wrote ${o.objects} objects into ${keyspace} (${format}, ${o.flushes} flushes)`);
  return keyspace;
}

async function inParallel<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** `n` HEADs of random keys, on a bucket resolved once (as the gateway's bucket cache does). */
async function reads(arm: { core: S3Core; bucket: Bucket }, o: Options, n: number): Promise<void> {
  await inParallel(Array.from({ length: n }, () => Math.floor(Math.random() * o.objects)), o.concurrency, async (i) => {
    const v = await arm.core.objects.head(arm.bucket, keyOf(i));
    if (v.size !== 4096) throw new Error(`${keyOf(i)}: size ${v.size}`);
  });
}

export async function main(argv: string[]): Promise<number> {
  const o = parseOptions(argv);
  const log = (m: string) => process.stderr.write(`[sstable-format ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
  const stack = localStack();
  const started = new Date();
  const loads: number[] = [];
  try {
    const keyspaces = {} as Record<Format, string>;
    for (const f of FORMATS) keyspaces[f] = await writeArm(f, o, log);
    // the node now runs as bti; both keyspaces are on disk only
    const info = await stack.ensureStackUp(stackOptions('bti'));
    const pid = await cassandraPid('bti');
    const cores = {} as Record<Format, { core: S3Core; client: CassandraClient; bucket: Bucket }>;
    for (const f of FORMATS) {
      const c = await coreOver({ ...benchRun(info, 'x').cassandra, keyspace: keyspaces[f] });
      cores[f] = { ...c, bucket: await c.core.buckets.get(BUCKET) };
    }
    log(`warm-up: ${o.warmup} reads`);
    for (const f of FORMATS) await reads(cores[f], o, Math.ceil(o.warmup / 2));
    const rounds: { round: number; usPerRead: Record<Format, number>; readsPerSec: Record<Format, number> }[] = [];
    for (let r = 1; r <= o.rounds; r++) {
      const usPerRead = {} as Record<Format, number>;
      const readsPerSec = {} as Record<Format, number>;
      for (const f of r % 2 ? FORMATS : [...FORMATS].reverse()) {
        const c0 = readCpuTicks(pid) ?? NaN;
        const t0 = performance.now();
        await reads(cores[f], o, o.ops);
        const ms = performance.now() - t0;
        usPerRead[f] = (((readCpuTicks(pid) ?? NaN) - c0) * TICK_MS * 1000) / o.ops;
        if (!Number.isFinite(usPerRead[f])) throw new Error(`Cassandra (pid ${pid}) is gone`);
        readsPerSec[f] = (o.ops * 1000) / ms;
      }
      loads.push(loadavg()[0]);
      rounds.push({ round: r, usPerRead, readsPerSec });
      log(`round ${r}: µs of Cassandra CPU per read: big ${usPerRead.big.toFixed(0)}, bti ${usPerRead.bti.toFixed(0)}`);
    }
    for (const f of FORMATS) await cores[f].client.shutdown();
    writeResults(o, argv, started, rounds, loads);
    return 0;
  } finally {
    await stack.stackDown({ ...stackOptions('bti'), purge: true });
  }
}

function writeResults(
  o: Options,
  argv: string[],
  started: Date,
  rounds: { round: number; usPerRead: Record<Format, number>; readsPerSec: Record<Format, number> }[],
  loads: number[],
): void {
  const dir = join(REPO_ROOT, 'tools/bench/results');
  mkdirSync(dir, { recursive: true });
  const date = started.toISOString().slice(0, 10);
  const base = join(dir, `${date}-sstable-format`);
  const ratios = rounds.map((r) => r.usPerRead.bti / r.usPerRead.big);
  const summary = {
    label: o.label,
    started: started.toISOString(),
    command: `npm run bench -- sstable-format ${argv.join(' ')}`.trim(),
    options: o,
    machine: { cores: cpus().length, cpu: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30 * 10) / 10, node: process.version },
    medianUsPerRead: { big: median(rounds.map((r) => r.usPerRead.big)), bti: median(rounds.map((r) => r.usPerRead.bti)) },
    medianRatioBtiToBig: median(ratios),
    roundsBtiCheaper: ratios.filter((x) => x < 1).length,
    loads,
    rounds,
  };
  const all: Record<string, typeof summary> = existsSync(`${base}.json`) ? JSON.parse(readFileSync(`${base}.json`, 'utf8')) : {};
  all[o.label] = summary;
  writeFileSync(`${base}.json`, JSON.stringify(all, null, 2) + '\n');
  const f1 = (x: number) => x.toFixed(1);
  const md = [
    `# Cassandra CPU per point read: big against bti sstables`,
    '',
    'Written by `tools/bench/peer/sstable-format-run.ts` (see its header for the method); one section per `--label`.',
    '',
    ...Object.values(all).flatMap((s) => [
      `## ${s.label}`,
      '',
      `${s.started}, ${s.machine.cores} cores (${s.machine.cpu}), ${s.machine.memGiB} GiB, node ${s.machine.node}; load average (1 min) after each round: ${s.loads.map((l) => l.toFixed(1)).join(', ')}.`,
      '',
      '```sh',
      s.command,
      '```',
      '',
      `Median µs of Cassandra CPU per read: **big ${f1(s.medianUsPerRead.big)}, bti ${f1(s.medianUsPerRead.bti)}**; bti ÷ big, median of the rounds' ratios: **${s.medianRatioBtiToBig.toFixed(2)}** (bti cheaper in ${s.roundsBtiCheaper} of ${s.rounds.length} rounds).`,
      '',
      '| round | big µs/read | bti µs/read | bti ÷ big | big reads/s | bti reads/s |',
      '| ---: | ---: | ---: | ---: | ---: | ---: |',
      ...s.rounds.map(
        (r) =>
          `| ${r.round} | ${f1(r.usPerRead.big)} | ${f1(r.usPerRead.bti)} | ${(r.usPerRead.bti / r.usPerRead.big).toFixed(2)} | ${r.readsPerSec.big.toFixed(0)} | ${r.readsPerSec.bti.toFixed(0)} |`,
      ),
      '',
    ]),
  ].join('\n');
  writeFileSync(`${base}.md`, md);
  process.stderr.write(`written ${base}.md\n`);
}
