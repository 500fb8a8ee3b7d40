import { randomBytes, randomUUID } from 'crypto';
import { readFileSync } from 'fs';
import { cpus, loadavg, totalmem } from 'os';
import { resolve } from 'path';
import { types } from 'cassandra-driver';
import { lifecycleTiming, parseLifecycleXml } from '@ostore/lifecycle/rules';
import { createLocalScan, createLocalScanClient, localScanSpans, ScanMetrics } from '@ostore/lifecycle/scan';
import { BucketsRepository, VersionRow, VersionsRepository } from '@ostore/metastore/data-access';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import { KafkaClient, KafkaQueueProducer } from '@ostore/queue/data-access';
import { CassandraClient, createDriverClient } from '@ostore/shared/cassandra';
import { SystemClock } from '@ostore/shared/clock';
import { MetricsRegistry } from '@ostore/shared/observability';
import { localStack } from '../lib/stack';
import { benchRun } from './bench-core';

const ROOT = resolve(__dirname, '../../..');
const DAY = 86_400_000;

interface Options {
  versions: number;
  perObject: number;
  perDir: number;
  fetch: number;
  passes: number;
  due: number;
  keep: boolean;
  /** Inline body stored in each row, with a metadata snapshot (migration 006), bytes; 0: neither. */
  rowBodyBytes: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { versions: 200_000, perObject: 2, perDir: 200, fetch: 2000, passes: 2, due: 0.1, keep: false, rowBodyBytes: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => Number(argv[++i]);
    if (a === '--versions') o.versions = v();
    else if (a === '--per-object') o.perObject = v();
    else if (a === '--per-dir') o.perDir = v();
    else if (a === '--fetch') o.fetch = v();
    else if (a === '--passes') o.passes = v();
    else if (a === '--due') o.due = v();
    else if (a === '--keep') o.keep = true;
    else if (a === '--row-body-bytes') o.rowBodyBytes = v();
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

/** CPU seconds (user + system) of a process so far, from /proc. */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

function readPid(path: string): number | undefined {
  try {
    return Number(readFileSync(path, 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

async function limited<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

export async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  const info = await localStack().ensureStackUp({ quiet: true });
  const { keyspace, cluster, cassandra } = benchRun(info, 'scan');
  const cassandraPid = readPid(resolve(info.stackDir ?? resolve(ROOT, '.stack'), 'cassandra/node1/cassandra.pid'));
  console.log(`[scan-bench] ${o.versions} versions (${o.perObject} per object, ${o.perDir} objects per directory), fetch ${o.fetch}; keyspace ${keyspace}`);

  const admin = createDriverClient(cassandra, false);
  await admin.connect();
  await new MigrationRunner(admin).migrate(migrations, { keyspace, replication: parseReplication('SimpleStrategy:1') });
  const db = new CassandraClient(cassandra);
  await db.connect();

  // 1. a versioned bucket whose rules make about `due` of the objects due: objects under old/
  //    expire (Days=30) and are 40 days old; noncurrent versions go after 7 days, and only the
  //    old/ objects' noncurrent versions are older than that
  const now = Date.now();
  const bucketId = randomUUID();
  const buckets = new BucketsRepository(db);
  const bucket = { name: 'bench-scan', bucketId, ownerId: 'bench', ownerName: 'Bench', createdAt: new Date(now), location: '', versioning: 'Enabled', acl: 'private', state: 'active' };
  await buckets.insertIfNotExists(bucket);
  const config = parseLifecycleXml(
    '<LifecycleConfiguration>' +
      '<Rule><ID>old</ID><Filter><Prefix>old/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule>' +
      '<Rule><ID>nc</ID><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>7</NoncurrentDays></NoncurrentVersionExpiration></Rule>' +
      '</LifecycleConfiguration>',
  );
  await buckets.update(bucket.name, bucketId, { lifecycle: JSON.stringify(config) });

  // 2. the rows, one unlogged single-partition batch per object
  const versions = new VersionsRepository(db);
  const objects = Math.ceil(o.versions / o.perObject);
  const dirs = Math.ceil(objects / o.perDir);
  const oldDirs = Math.round(dirs * o.due);
  const work: { parent: string; name: string; ageDays: number }[] = [];
  for (let d = 0; d < dirs; d++) {
    const parent = `${d < oldDirs ? 'old' : 'logs'}/${String(d).padStart(5, '0')}/`;
    for (let i = 0; i < o.perDir && work.length < objects; i++)
      work.push({ parent, name: `obj-${String(i).padStart(6, '0')}.log`, ageDays: d < oldDirs ? 40 : 1 });
  }
  // what a small object's row carries since migration 006 (random bytes: no compression)
  const extrasOf = (r: VersionRow) =>
    o.rowBodyBytes > 0
      ? {
          meta: { ...r, userMeta: {}, tags: {}, checksums: {}, contentType: 'text/plain' },
          inlineBody: randomBytes(o.rowBodyBytes),
        }
      : {};
  let vts = (now - 60 * DAY) * 1000;
  const t0 = Date.now();
  await limited(work, 64, async (w) => {
    const rows: VersionRow[] = [];
    for (let v = 0; v < o.perObject; v++) {
      const ts = (now - w.ageDays * DAY + v * 1000) * 1000 + (vts++ % 1000);
      rows.push({
        bucketId,
        parent: w.parent,
        name: w.name,
        vts: ts,
        vid: types.TimeUuid.fromDate(new Date(Math.floor(ts / 1000))).toString(),
        isNull: false,
        isDeleteMarker: false,
        isGhost: false,
        size: 4096,
        etag: '"0123456789abcdef0123456789abcdef"',
        lastModified: new Date(Math.floor(ts / 1000)),
        storageClass: 'STANDARD',
        ownerId: 'bench',
        ownerName: 'Bench',
      });
    }
    const statements = rows.flatMap((r) => versions.insertStatements(r, undefined, extrasOf(r)));
    await db.batch(statements, { logged: false });
  });
  const writeSeconds = (Date.now() - t0) / 1000;
  console.log(`[scan-bench] wrote ${work.length * o.perObject} rows in ${writeSeconds.toFixed(1)} s (${Math.round((work.length * o.perObject) / writeSeconds)} rows/s)`);

  // 3. the scanner, wired as the app wires it
  const { client: scanClient, policy } = await createLocalScanClient(cassandra, info.cassandra.host);
  await scanClient.connect();
  const { node, spans } = await localScanSpans(scanClient, keyspace, policy.addresses);
  const kafka = new KafkaClient({ brokers: info.kafka.brokers, clientId: 'bench-scan', cluster, partitions: 3, replicationFactor: 1 });
  const registry = new MetricsRegistry('bench', false);
  const clock = new SystemClock();
  const results: Record<string, unknown>[] = [];
  for (let pass = 1; pass <= o.passes; pass++) {
    const scan = createLocalScan({
      scanClient,
      db,
      producer: new KafkaQueueProducer(kafka),
      clock,
      metrics: new ScanMetrics(registry),
      log: { info: () => undefined, warn: (m, f) => console.warn(m, f) },
      settings: {
        source: `${node.hostId}-pass${pass}`,
        keyspace,
        hostIndex: 0,
        fetchSize: o.fetch,
        rowsPerSecond: 0,
        checkpointMs: 10_000,
        publishBatch: 500,
      },
      timing: lifecycleTiming(),
      overdueGraceMs: DAY,
    });
    const cpu0 = process.cpuUsage();
    const c0 = cpuSeconds(cassandraPid);
    const t = performance.now();
    const r = await scan.scanner.run(scan.tasks.get('versions')!, spans, new AbortController().signal);
    const seconds = (performance.now() - t) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const scannerCpu = (cpu.user + cpu.system) / 1e6;
    const cassandraCpu = cpuSeconds(cassandraPid) - c0;
    const line = {
      pass,
      rows: r.stats.rows,
      objects: r.stats.objects,
      candidates: r.stats.candidates,
      seconds: Number(seconds.toFixed(2)),
      versionsPerSecond: Math.round(r.stats.rows / seconds),
      scannerCpuSeconds: Number(scannerCpu.toFixed(1)),
      scannerCpuShare: Number((scannerCpu / seconds).toFixed(2)),
      cassandraCpuSeconds: Number(cassandraCpu.toFixed(1)),
      cassandraCpuShare: Number((cassandraCpu / seconds).toFixed(2)),
    };
    results.push(line);
    console.log(`[scan-bench] pass ${pass}: ${JSON.stringify(line)}`);
  }
  const summary = {
    machine: { cpus: cpus().length, model: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), loadavg: loadavg().map((l) => l.toFixed(2)) },
    node: process.version,
    options: o,
    results,
  };
  console.log(JSON.stringify(summary, null, 2));

  await kafka.close();
  await scanClient.shutdown();
  await db.shutdown();
  if (!o.keep) await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`).catch(() => undefined);
  await admin.shutdown();
  return 0;
}
