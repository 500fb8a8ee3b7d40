import { CassandraClient } from '@ostore/shared/cassandra';
import { FakeClock } from '@ostore/shared/clock/testing';
import { AppProcess, appEnv, cassandraOptions, freshCluster, GiveUpWaiting, waitFor } from '@ostore/testing';
import { coreOf, folderRows, migratedKeyspace } from './folder-cleanup.harness';
import { alice, put } from './support';

const port = 25000 + Math.floor(Math.random() * 1000) * 2;

/**
 * The cleanup through the deployed apps: a scanner process builds filters and publishes empty
 * directories to Kafka every 2 s, a scheduler process consumes the folder queues on the queue
 * transport and deletes; directories emptied by deletes leave all three folder tables, the kept
 * ones stay.
 */
describe('empty-directory cleanup through the scanner and scheduler apps', () => {
  let keyspace: string;
  let db: CassandraClient;
  const cluster = freshCluster('folderapps');
  const processes: AppProcess[] = [];

  beforeAll(async () => {
    keyspace = await migratedKeyspace('folderapps');
    db = new CassandraClient(cassandraOptions(keyspace));
    await db.connect();
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await db?.shutdown();
  });

  const start = (app: 'scanner' | 'scheduler', env: Record<string, string>) => {
    const p = new AppProcess(app, { ...appEnv(keyspace, cluster), MANAGEMENT_HOST: '127.0.0.1', KAFKA_TOPIC_PARTITIONS: '3', ...env }).start();
    processes.push(p);
    return p;
  };
  /** Every sample of an app's /metrics, summed per metric name (labels dropped). */
  const metricsOf = async (p: number): Promise<Map<string, number>> => {
    const sums = new Map<string, number>();
    for (const line of (await (await fetch(`http://127.0.0.1:${p}/metrics`)).text()).split('\n')) {
      const m = /^([a-z_]+)(?:\{[^}]*\})? (\S+)$/.exec(line);
      if (m) sums.set(m[1], (sums.get(m[1]) ?? 0) + Number(m[2]));
    }
    return sums;
  };

  it('directories emptied by deletes disappear from all three folder tables within a few cycles', async () => {
    const core = coreOf(db, new FakeClock(Date.now()));
    const { bucketId } = await core.buckets.create({ name: 'folder-apps', owner: alice, location: '', acl: 'private' });
    for (const k of ['x/y/z/1', 'x/y/2', 'keep/3', 'ключ/значение']) await put(core, 'folder-apps', k, 'v');
    const upload = await core.multipart.create({ bucket: 'folder-apps', key: 'u/v/w', owner: alice, meta: { userMeta: {} } });
    await core.multipart.abort('folder-apps', 'u/v/w', upload.uploadId);
    for (const k of ['x/y/z/1', 'x/y/2', 'ключ/значение']) await core.objects.delete('folder-apps', k, alice);
    expect((await folderRows(db, bucketId)).length).toBeGreaterThan(10);

    const scheduler = start('scheduler', {
      MANAGEMENT_PORT: String(port + 1),
      QUEUE_SESSION_TIMEOUT_MS: '6000',
      BLOCK_STORE: 'cassandra',
      S3_FOLDER_CACHE_MS: '0',
      FOLDER_CLEANUP_SKEW_MS: '0',
    });
    // the scheduler creates the folder topics before the scanner publishes to them (two processes
    // creating one topic at once can fail the subscriber's boot: see the report of this change)
    await waitFor('the scheduler to be ready', async () => {
      if (scheduler.exitCode !== undefined) throw new GiveUpWaiting(scheduler.output.join(''));
      return (await fetch(`http://127.0.0.1:${port + 1}/health/ready`).catch(() => undefined))?.ok || undefined;
    }, 60_000);
    const scanner = start('scanner', {
      MANAGEMENT_PORT: String(port),
      SCAN_INTERVAL_SECONDS: '3600',
      FOLDER_CLEANUP_INTERVAL_SECONDS: '2',
      FOLDER_FILTER_MIN_DIRECTORIES: '1000',
      // a generation counts as stale from its opening: on a loaded machine a 2 s cycle's build can take
      // longer than the default max age (twice the interval), which would skip every pass
      FOLDER_FILTER_MAX_AGE_SECONDS: '300',
    });
    const kept = ['object:keep/', 'version:keep/'];
    await waitFor(
      'the emptied directories to leave the folder tables',
      async () => {
        for (const p of [scanner, scheduler]) if (p.exitCode !== undefined) throw new GiveUpWaiting(p.output.join(''));
        const rows = await folderRows(db, bucketId);
        return rows.join() === kept.join() ? rows : undefined;
      },
      90_000,
      500,
    );
    expect((await metricsOf(port + 1)).get('ostore_folder_cleanup_directories_deleted_total')).toBeGreaterThanOrEqual(10);
    const scanned = await metricsOf(port);
    expect(scanned.get('ostore_folder_cleanup_directories_checked_total')).toBeGreaterThan(0);
    expect(scanned.get('ostore_folder_filter_generation_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(scanned.get('ostore_folder_filter_fill_ratio')).toBeGreaterThan(0);
  });
});
