import type { Client } from 'cassandra-driver';
import { cpus, loadavg, totalmem } from 'os';
import { EmptyFolderApplier } from '@ostore/folders/apply';
import { ParentBudget } from '@ostore/folders/cleanup';
import { FilterBuildJob, FolderCleanupCycle, FolderScanJob, folderSources, leafSources, localRingOf, ScannerFolderMetrics } from '@ostore/folders/scan';
import { BucketCatalog, createLocalScanClient, MetastoreBucketSource } from '@ostore/lifecycle/scan';
import { BucketsRepository, FolderCleanupRepository, FolderFilterRepository, FoldersRepository } from '@ostore/metastore/data-access';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import { FolderCandidate, QueueName } from '@ostore/queue/contracts';
import { QueueProducer } from '@ostore/queue/data-access';
import { Readable } from 'stream';
import { createDriverClient } from '@ostore/shared/cassandra';
import { Clock, SystemClock } from '@ostore/shared/clock';
import { MetricsRegistry } from '@ostore/shared/observability';
import { median } from '../lib/median';
import { localStack } from '../lib/stack';
import { tracedListing, TracedWork } from './traced-listing';
import { benchRun, coreOver } from '../lifecycle/bench-core';

interface Options {
  children: number;
  perPass: number;
  live: number;
  listings: number;
  /** Listings of a parent that still has empty children (before and during; each costs a probe per child). */
  slowListings: number;
  /** gc_grace_seconds of the bench keyspace's object_folders (undefined: migration 014's 3 h, no after-compaction step). */
  gcGrace?: number;
  /** Rounds of the final comparison (cleaned parent against the control, interleaved). */
  finalRounds: number;
  /** Listings of each parent per final round. */
  finalListings: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { children: 50_000, perPass: 10_000, live: 10, listings: 21, slowListings: 3, finalRounds: 3, finalListings: 50 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => Number(argv[++i]);
    if (a === '--children') o.children = v();
    else if (a === '--per-pass') o.perPass = v();
    else if (a === '--live') o.live = v();
    else if (a === '--listings') o.listings = v();
    else if (a === '--slow-listings') o.slowListings = v();
    else if (a === '--gc-grace') o.gcGrace = v();
    else if (a === '--final-rounds') o.finalRounds = v();
    else if (a === '--final-listings') o.finalListings = v();
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

/** Candidates kept in memory: the scheduler's applier takes them from here (no Kafka in this bench). */
class HeldProducer extends QueueProducer {
  readonly held: string[] = [];
  async publish(_queue: QueueName, _partition: number, messages: readonly (Buffer | string)[]): Promise<void> {
    for (const m of messages) this.held.push(m.toString());
  }
  async partitionCount(): Promise<number> {
    return 1;
  }
  async close(): Promise<void> {}
}

/** A clock that the bench moves one interval per cycle (a new generation each time). */
class StepClock extends Clock {
  constructor(private ms: number) {
    super();
  }
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

export async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  const info = await localStack().ensureStackUp({ quiet: true });
  const { keyspace, cassandra } = benchRun(info, 'folders');
  console.log(`[folders-bench] ${o.children} empty children of wide/ (+${o.live} live), ${o.perPass} per pass; keyspace ${keyspace}`);
  const admin = createDriverClient(cassandra, false);
  await admin.connect();
  await new MigrationRunner(admin).migrate(migrations, { keyspace, replication: parseReplication('SimpleStrategy:1') });
  // the after-compaction step must wait gc_grace out: a bench cannot wait migration 014's 3 h, and
  // purging depends on gc_grace only through "deleted longer ago than gc_grace"
  if (o.gcGrace !== undefined) await admin.execute(`ALTER TABLE ${keyspace}.object_folders WITH gc_grace_seconds = ${o.gcGrace}`);
  await admin.shutdown();
  const { core, client: db } = await coreOver({ ...cassandra, keyspace });

  const bucketName = 'bench-folders';
  const { bucketId } = await core.buckets.create({ name: bucketName, owner: { id: 'bench', displayName: 'Bench' }, location: '', acl: 'private' });
  const put = (key: string) => core.objects.put({ bucket: bucketName, key, owner: { id: 'bench', displayName: 'Bench' }, body: Readable.from([Buffer.from('x')]), meta: { userMeta: {} } });
  for (let i = 0; i < o.live; i++) await Promise.all([put(`wide/live-${i}/k`), put(`control/live-${i}/k`)]);
  // the empty children: folder rows as PUT-then-DELETE leaves them (written directly: 50,000 PUTs and
  // DELETEs through the core would take longer than the cleanup measured here)
  const folders = new FoldersRepository(db, 'object_folders');
  const names = Array.from({ length: o.children }, (_, i) => `e-${String(i).padStart(6, '0')}/`);
  for (let i = 0; i < names.length; i += 500) await folders.ensure(bucketId, names.slice(i, i + 500).map((name) => ({ parent: 'wide/', name })), new Date());

  const listOnce = async (prefix: string) => {
    const t = performance.now();
    const page = await core.objects.list({ bucket: bucketName, prefix, delimiter: '/', maxKeys: 1000 });
    const ms = performance.now() - t;
    if (page.commonPrefixes.length !== o.live) throw new Error(`${prefix} lists ${page.commonPrefixes.length} prefixes, not ${o.live}`);
    return ms;
  };
  const listMs = async (prefix: string, count: number) => {
    const ms: number[] = [];
    for (let i = 0; i < count; i++) ms.push(await listOnce(prefix));
    return median(ms);
  };
  const latency: { when: string; wide: number; control: number; left: number }[] = [];
  const rowsLeft = async () => (await db.execute('SELECT count(*) AS n FROM object_folders WHERE bucket_id = ? AND parent = ?', [bucketId, 'wide/'])).first()!['n'].toNumber() - o.live;
  /** Median listing times; `o.listings` listings once the parent is clean, `o.slowListings` before, 1 during (a listing of 50,000 empty children takes minutes). */
  const sample = async (when: string) => {
    const left = await rowsLeft();
    const count = left === 0 ? o.listings : when === 'before' ? o.slowListings : 1;
    latency.push({ when, wide: round(await listMs('wide/', count)), control: round(await listMs('control/', Math.max(count, 5))), left });
  };
  await sample('before');

  const { client: scan } = await createLocalScanClient({ ...cassandra, keyspace }, info.cassandra.host);
  await scan.connect();
  const ring = await localRingOf(scan, keyspace, [info.cassandra.host]);
  const clock = new StepClock(Date.now());
  const metrics = new ScannerFolderMetrics(new MetricsRegistry('bench', false));
  const log = { info: () => undefined, warn: (m: string, f?: object) => console.warn(m, f) };
  const repo = new FolderFilterRepository(db);
  const producer = new HeldProducer();
  const build = new FilterBuildJob(leafSources(scan), repo, { fetchSize: 2000, chunkBytes: 1024 * 1024, rowsPerSecond: 0 }, clock, metrics, log);
  const folderScan = new FolderScanJob(folderSources(scan as Client), repo, new BucketCatalog(new MetastoreBucketSource(new BucketsRepository(db))), producer,
    { fetchSize: 2000, hostIndex: 0, maxPerParent: o.perPass, publishBatch: 500 }, metrics, log);
  const intervalMs = 3_600_000;
  const cycle = new FolderCleanupCycle(repo, build, folderScan, { source: 'bench', intervalMs, maxAgeMs: 2 * intervalMs, fpr: 0.01, minDirectories: 100_000, saturationFactor: 2, headroom: 1.5 }, clock, metrics, log);
  const applier = new EmptyFolderApplier(new FolderCleanupRepository(db), new ParentBudget(o.perPass, 1), { folderCacheTtlMs: 0, skewMs: 0 }, new SystemClock(), repo);
  const never = new AbortController().signal;

  const cycles: { cycle: number; buildKeysPerSecond: number; checkedPerSecond: number; checked: number; deleted: number; applyPerSecond: number }[] = [];
  let lastDeleteMs = Date.now();
  for (let n = 1; n <= Math.ceil(o.children / o.perPass) + 1 && (await rowsLeft()) > 0; n++) {
    clock.advance(intervalMs);
    let t = performance.now();
    const built = await cycle.tick(ring, never);
    const buildS = (performance.now() - t) / 1000;
    if (built.kind !== 'built') throw new Error(`cycle ${n}: ${built.kind}`);
    const keys = (await repo.hosts(built.generation)).find((h) => h.source === 'bench')!.keys;
    t = performance.now();
    const scanned = await cycle.tick(ring, never);
    const scanS = (performance.now() - t) / 1000;
    if (scanned.kind !== 'scanned') throw new Error(`cycle ${n}: ${scanned.kind}`);
    const candidates = producer.held.splice(0).map((m) => FolderCandidate.fromMessage(m));
    t = performance.now();
    let deleted = 0;
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < candidates.length) if ((await applier.apply(candidates[next++])) === 'deleted') deleted++;
    }));
    const applyS = (performance.now() - t) / 1000;
    lastDeleteMs = Date.now();
    cycles.push({ cycle: n, buildKeysPerSecond: Math.round(keys / buildS), checkedPerSecond: Math.round(scanned.stat.checked / scanS), checked: scanned.stat.checked, deleted, applyPerSecond: Math.round(deleted / applyS) });
    await sample(`after cycle ${n}`);
  }
  if (o.gcGrace !== undefined) {
    // the state once the tombstones are purged: gc_grace past the last deletion (1 s resolution), then a compaction
    const purgeable = lastDeleteMs + (o.gcGrace + 1) * 1000;
    while (Date.now() < purgeable) await new Promise((r) => setTimeout(r, purgeable - Date.now()));
    const stack = localStack();
    stack.nodetool(['flush', keyspace, 'object_folders']);
    stack.nodetool(['compact', keyspace, 'object_folders']);
    await sample(`after compaction past gc_grace (${o.gcGrace} s)`);
  }
  // the final comparison, robust to a noisy box: listings of the cleaned parent and the control
  // interleaved pair by pair (the first of each pair alternating), medians per round, and
  // Cassandra's own account of one listing of each (queries, live rows, tombstones from tracing)
  const final: { round: number; wide: number; control: number; ratio: number; load: number }[] = [];
  for (let r = 1; r <= o.finalRounds; r++) {
    const wide: number[] = [];
    const control: number[] = [];
    for (let i = 0; i < o.finalListings; i++) {
      if (i % 2 === 0) {
        wide.push(await listOnce('wide/'));
        control.push(await listOnce('control/'));
      } else {
        control.push(await listOnce('control/'));
        wide.push(await listOnce('wide/'));
      }
    }
    final.push({ round: r, wide: round(median(wide)), control: round(median(control)), ratio: round(median(wide) / median(control), 3), load: round(loadavg()[0]) });
  }
  const nodetool = (args: string[]) => localStack().nodetool(args);
  const traced: Record<string, TracedWork> = {};
  for (const prefix of ['wide/', 'control/']) traced[prefix] = await tracedListing(db, nodetool, () => listOnce(prefix));
  const sstables = /SSTable count: (\d+)/.exec(nodetool(['tablestats', `${keyspace}.object_folders`]))?.[1];
  console.log(JSON.stringify({ machine: { cpus: cpus().length, model: cpus()[0]?.model, memGiB: round(totalmem() / 2 ** 30, 1), load: loadavg().map((l) => round(l)) }, options: o, cycles, latency, final, traced, sstables }, null, 2));
  console.log('| when | wide/ median ms | control/ median ms | ratio | empty children left |\n| --- | ---: | ---: | ---: | ---: |');
  console.log(`(median of ${o.listings} listings once clean, of ${o.slowListings} before, of 1 during; control/ of at least 5)`);
  for (const l of latency) console.log(`| ${l.when} | ${l.wide} | ${l.control} | ${round(l.wide / l.control)} | ${l.left} |`);
  console.log('| cycle | filter build keys/s | directories checked/s | checked | deleted | deletes/s |\n| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const c of cycles) console.log(`| ${c.cycle} | ${c.buildKeysPerSecond} | ${c.checkedPerSecond} | ${c.checked} | ${c.deleted} | ${c.applyPerSecond} |`);
  console.log(`final comparison: ${o.finalRounds} rounds of ${o.finalListings} interleaved listings of each parent; object_folders sstables: ${sstables}`);
  console.log('| round | wide/ median ms | control/ median ms | ratio | load (1 min) |\n| ---: | ---: | ---: | ---: | ---: |');
  for (const f of final) console.log(`| ${f.round} | ${f.wide} | ${f.control} | ${f.ratio} | ${f.load} |`);
  console.log(`| median of rounds | ${round(median(final.map((f) => f.wide)))} | ${round(median(final.map((f) => f.control)))} | ${round(median(final.map((f) => f.ratio)), 3)} | |`);
  console.log('| one traced listing | queries | of object_folders | live rows read | tombstones read | object_folders live rows | object_folders tombstones |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [p, w] of Object.entries(traced)) console.log(`| ${p} | ${w.queries} | ${w.folderQueries} | ${w.liveRows} | ${w.tombstones} | ${w.folderLiveRows} | ${w.folderTombstones} |`);
  await scan.shutdown();
  await db.shutdown();
  return 0;
}
