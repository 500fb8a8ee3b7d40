import { ChildProcess, spawn } from 'child_process';
import { randomBytes } from 'crypto';
import { createWriteStream, mkdirSync, readFileSync } from 'fs';
import { cpus, loadavg, totalmem } from 'os';
import { resolve } from 'path';
import { Readable } from 'stream';
import { encodeStoredLifecycle, parseLifecycleXml } from '@ostore/lifecycle/rules';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import { VersionCandidate } from '@ostore/queue/contracts';
import { CassandraQueueProducer, CassandraQueueRepository, KafkaClient, KafkaQueueProducer, QueueProducer } from '@ostore/queue/data-access';
import { createDriverClient } from '@ostore/shared/cassandra';
import { localStack } from '../lib/stack';
import { benchRun, coreOver } from './bench-core';

const ROOT = resolve(__dirname, '../../..');
/** `stale-nulls`: each key written twice without convergence (S3_NULL_CONVERGENCE=scan from another gateway); the scheduler's ConvergeNulls removes the replaced version. */
type Mode = 'unversioned' | 'versioned' | 'noncurrent' | 'stale-nulls';

interface Options {
  objects: number;
  mode: Mode;
  backend: 'kafka' | 'cassandra';
  partitions: number;
  concurrency: number;
  logLevel: string;
  keep: boolean;
  size: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { objects: 10_000, mode: 'unversioned', backend: 'kafka', partitions: 3, concurrency: 48, logLevel: 'info', keep: false, size: 1024 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i];
    if (a === '--objects') o.objects = Number(v());
    else if (a === '--mode') o.mode = v() as Mode;
    else if (a === '--backend') o.backend = v() as Options['backend'];
    else if (a === '--partitions') o.partitions = Number(v());
    else if (a === '--concurrency') o.concurrency = Number(v());
    else if (a === '--log-level') o.logLevel = v();
    else if (a === '--size') o.size = Number(v());
    else if (a === '--keep') o.keep = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!['unversioned', 'versioned', 'noncurrent', 'stale-nulls'].includes(o.mode)) throw new Error(`--mode: ${o.mode}`);
  return o;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds (user + system) a process used so far, from /proc. */
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

async function limited<T>(items: T[], n: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

async function metricSum(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((s, l) => s + Number(l.split(' ').pop()), 0);
}

/**
 * Statements the Cassandra node coordinated for one keyspace so far, from its virtual tables: reads
 * (single-partition, SERIAL reads included), range scans and writes (batches count per mutation).
 * Not the Paxos rounds themselves (those touch `system.paxos`), but every request of the deletion.
 */
async function coordinated(admin: ReturnType<typeof createDriverClient>, keyspace: string) {
  const out = { reads: 0, scans: 0, writes: 0 };
  const tables = { reads: 'coordinator_read_latency', scans: 'coordinator_scan_latency', writes: 'coordinator_write_latency' } as const;
  for (const [k, table] of Object.entries(tables) as [keyof typeof out, string][]) {
    const rs = await admin.execute(`SELECT count FROM system_views.${table} WHERE keyspace_name = ?`, [keyspace]);
    out[k] = rs.rows.reduce((sum, r) => sum + Number(r['count']), 0);
  }
  return out;
}

export async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  const info = await localStack().ensureStackUp({ quiet: true });
  const { run, keyspace, cluster, cassandra } = benchRun(info, 'apply', 12000);
  const load0 = loadavg();
  console.log(`[apply-bench] ${o.objects} objects, mode ${o.mode}, ${o.backend} queue, ${o.partitions} partitions; keyspace ${keyspace}`);

  const admin = createDriverClient(cassandra, false);
  await admin.connect();
  await new MigrationRunner(admin).migrate(migrations, { keyspace, replication: parseReplication('SimpleStrategy:1') });
  // stale-nulls: every write leaves the null version it replaces (no process remembers a key)
  const staleNulls = o.mode === 'stale-nulls';
  const { core, client } = await coreOver(cassandra, staleNulls ? { nullConvergence: 'scan', recentNullKeys: 0 } : {});

  // 1. the bucket and its objects
  const bucket = `apply-${o.mode}`;
  const owner = { id: 'bench', displayName: 'Bench' };
  const b = await core.buckets.create({ name: bucket, owner, location: '', acl: 'private' });
  if (o.mode === 'versioned' || o.mode === 'noncurrent') await core.buckets.setVersioning(bucket, 'Enabled');
  const rule =
    o.mode === 'noncurrent'
      ? '<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration>'
      : '<Expiration><Days>1</Days></Expiration>';
  const config = parseLifecycleXml(`<LifecycleConfiguration><Rule><ID>bench</ID><Filter/><Status>Enabled</Status>${rule}</Rule></LifecycleConfiguration>`);
  // the scan asks for ConvergeNulls in any bucket: the stale-nulls bucket has no rules
  if (!staleNulls) await core.buckets.setLifecycle(bucket, encodeStoredLifecycle(config));
  const payload = randomBytes(o.size);
  const keys = Array.from({ length: o.objects }, (_, i) => `cache/${String(i % 100).padStart(2, '0')}/obj-${String(i).padStart(7, '0')}`);
  const versionIds: string[] = new Array(keys.length);
  const prepStarted = Date.now();
  await limited(keys, 32, async (key, i) => {
    const put = () => core.objects.put({ bucket, key, owner, body: Readable.from([payload]), meta: { userMeta: {} } });
    versionIds[i] = (await put()).versionId;
    if (o.mode === 'noncurrent' || staleNulls) await put();
  });
  const prepSeconds = (Date.now() - prepStarted) / 1000;
  console.log(`[apply-bench] wrote ${keys.length * (o.mode === 'noncurrent' || staleNulls ? 2 : 1)} versions in ${prepSeconds.toFixed(1)} s`);

  // 2. the scheduler
  const port = 24000 + Math.floor(Math.random() * 2000);
  const url = `http://127.0.0.1:${port}`;
  mkdirSync(resolve(ROOT, 'tools/bench/.work'), { recursive: true });
  const logPath = resolve(ROOT, `tools/bench/.work/lifecycle-apply-${run}.log`);
  const logFile = createWriteStream(logPath);
  const app: ChildProcess = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/scheduler/src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      SWC_NODE_PROJECT: resolve(ROOT, 'tsconfig.base.json'),
      OSTORE_CLUSTER: cluster,
      CASSANDRA_CONTACT_POINTS: info.cassandra.host,
      CASSANDRA_PORT: String(info.cassandra.port),
      CASSANDRA_KEYSPACE: keyspace,
      KAFKA_BROKERS: info.kafka.brokers.join(','),
      KAFKA_TOPIC_PARTITIONS: String(o.partitions),
      MANAGEMENT_PORT: String(port),
      MANAGEMENT_HOST: '127.0.0.1',
      QUEUE_BACKEND: o.backend,
      BLOCK_STORE: 'cassandra',
      LIFECYCLE_DEBUG_DAY_SECONDS: '1',
      SCHEDULER_RATE_PER_PARTITION: '0',
      SCHEDULER_CONCURRENCY: String(o.concurrency),
      LOG_LEVEL: o.logLevel,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  app.stdout!.pipe(logFile);
  app.stderr!.pipe(logFile);
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (app.exitCode !== null) throw new Error(`scheduler exited (${app.exitCode}); see ${logPath}`);
    const ok = await fetch(`${url}/health/ready`).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`scheduler not ready; see ${logPath}`);
    await sleep(500);
  }

  // 3. the candidates, as `partitions` scanners would publish them
  let producer: QueueProducer;
  let kafka: KafkaClient | undefined;
  if (o.backend === 'kafka') {
    kafka = new KafkaClient({ brokers: info.kafka.brokers, clientId: 'bench', cluster, partitions: o.partitions, replicationFactor: 1 });
    producer = new KafkaQueueProducer(kafka);
  } else {
    producer = new CassandraQueueProducer(new CassandraQueueRepository(client), { cluster, partitions: o.partitions });
  }
  const messages = keys.map((key, i) =>
    VersionCandidate.toMessage({
      bucketId: b.bucketId,
      bucket,
      key,
      parent: key.slice(0, key.lastIndexOf('/') + 1),
      name: key.slice(key.lastIndexOf('/') + 1),
      versions: staleNulls ? [] : [{ versionId: versionIds[i], rules: [{ ruleId: 'bench', action: o.mode === 'noncurrent' ? 'NoncurrentVersionExpiration' : 'Expiration' }] }],
      ...(staleNulls ? { staleNulls: true } : {}),
      scannedAt: new Date(),
      sourceHost: `cass-${i % o.partitions}`,
    }),
  );
  await sleep(1100); // one debug day: everything is due
  const schedulerPid = app.pid;
  const stackDir = resolve(process.env['OSTORE_STACK_DIR'] ?? resolve(ROOT, '.stack'));
  const cassandraPid = readPid(resolve(stackDir, 'cassandra/node1/cassandra.pid'));
  const cpu0 = { scheduler: cpuSeconds(schedulerPid), cassandra: cpuSeconds(cassandraPid) };
  const requests0 = await coordinated(admin, keyspace);
  const published = Date.now();
  for (let p = 0; p < o.partitions; p++) {
    const mine = messages.filter((_, i) => i % o.partitions === p);
    for (let i = 0; i < mine.length; i += 500) await producer.publish('versions', p, mine.slice(i, i + 500));
  }
  const publishSeconds = (Date.now() - published) / 1000;

  // 4. time the scheduler
  let first = 0;
  let last = 0;
  let handled = 0;
  const samples: { t: number; applied: number }[] = [];
  while (handled < keys.length) {
    if (app.exitCode !== null) throw new Error(`scheduler exited (${app.exitCode}); see ${logPath}`);
    const [applied, skipped, failed] = await Promise.all([
      metricSum(url, 'ostore_lifecycle_actions_applied_total'),
      metricSum(url, 'ostore_lifecycle_actions_skipped_total'),
      metricSum(url, 'ostore_lifecycle_apply_failures_total'),
    ]);
    const now = Date.now();
    if (applied > 0 && !first) first = now;
    handled = applied + skipped + failed;
    samples.push({ t: now, applied });
    last = now;
    if (now - published > 30 * 60_000) throw new Error('gave up after 30 minutes');
    await sleep(200);
  }
  const cpu1 = { scheduler: cpuSeconds(schedulerPid), cassandra: cpuSeconds(cassandraPid) };
  const requests1 = await coordinated(admin, keyspace);
  const [applied, skipped, failed, durSum, durCount, blocksDeleted] = await Promise.all([
    metricSum(url, 'ostore_lifecycle_actions_applied_total'),
    metricSum(url, 'ostore_lifecycle_actions_skipped_total'),
    metricSum(url, 'ostore_lifecycle_apply_failures_total'),
    metricSum(url, 'ostore_lifecycle_apply_duration_seconds_sum'),
    metricSum(url, 'ostore_lifecycle_apply_duration_seconds_count'),
    metricSum(url, 'ostore_blocks_deleted_total'),
  ]);
  const seconds = (last - published) / 1000;
  const steady = (last - first) / 1000;
  // the best 10-second window, like the seed's "peak"
  let peak = 0;
  for (const a of samples) {
    const b10 = samples.find((x) => x.t >= a.t + 10_000);
    if (b10) peak = Math.max(peak, (b10.applied - a.applied) / ((b10.t - a.t) / 1000));
  }
  const remaining = (await core.objects.list({ bucket, prefix: 'cache/', maxKeys: 1000 })).contents.length;
  // stale-nulls: every key keeps exactly its newest null version
  const nullRowsLeft = staleNulls ? await countNullRows(core, b.bucketId, keys.slice(0, 200)) : undefined;

  app.kill('SIGTERM');
  await new Promise((r) => app.once('exit', r));
  await producer.close();
  await kafka?.close();
  if (!o.keep) await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`).catch(() => undefined);
  await admin.shutdown();
  await client.shutdown();

  const result = {
    mode: o.mode,
    backend: o.backend,
    objects: keys.length,
    applied,
    skipped,
    failed,
    deletionsPerSecond: Math.round(applied / seconds),
    steadyPerSecond: Math.round(applied / steady),
    peak10sPerSecond: Math.round(peak),
    meanApplyMs: durCount ? Number(((durSum / durCount) * 1000).toFixed(1)) : undefined,
    seconds: Number(seconds.toFixed(1)),
    publishSeconds: Number(publishSeconds.toFixed(1)),
    cpuSecondsPerThousand: {
      scheduler: Number((((cpu1.scheduler - cpu0.scheduler) / applied) * 1000).toFixed(2)),
      cassandra: Number((((cpu1.cassandra - cpu0.cassandra) / applied) * 1000).toFixed(2)),
    },
    // per deletion: statements coordinated for the bench keyspace (Paxos rounds not counted apart)
    requestsPerDeletion: {
      reads: Number(((requests1.reads - requests0.reads) / applied).toFixed(2)),
      scans: Number(((requests1.scans - requests0.scans) / applied).toFixed(2)),
      writes: Number(((requests1.writes - requests0.writes) / applied).toFixed(2)),
    },
    blocksDeleted,
    objectsLeftListed: o.mode === 'noncurrent' || staleNulls ? undefined : remaining,
    ...(nullRowsLeft ? { nullRowsPerKeyLeft: nullRowsLeft } : {}),
    machine: {
      nproc: cpus().length,
      cpu: cpus()[0]?.model,
      memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
      node: process.version,
      cassandra: `${info.cassandra.host}:${info.cassandra.port}`,
      loadBefore: load0.map((x) => x.toFixed(2)).join(' '),
      loadAfter: loadavg().map((x) => x.toFixed(2)).join(' '),
    },
    concurrency: o.concurrency,
    partitions: o.partitions,
    logLevel: o.logLevel,
    log: logPath,
  };
  console.log(JSON.stringify(result, null, 2));
  return failed > 0 || (nullRowsLeft && nullRowsLeft !== '1') ? 1 : 0;
}

/** The distinct numbers of null rows the keys have left, e.g. "1" (every key converged). */
async function countNullRows(core: Awaited<ReturnType<typeof coreOver>>['core'], bucketId: string, keys: string[]): Promise<string> {
  const counts = new Set<number>();
  for (const key of keys) {
    const cut = key.lastIndexOf('/') + 1;
    counts.add((await core.metastore.versions.nullRows(bucketId, key.slice(0, cut), key.slice(cut))).length);
  }
  return [...counts].sort().join(',');
}
