import { CassandraClient } from '@ostore/shared/cassandra';
import { FakeClock } from '@ostore/shared/clock/testing';
import { AppProcess, appEnv, cassandraOptions, freshCluster, GiveUpWaiting, metricSum, waitFor } from '@ostore/testing';
import { coreOf, folderRows, migratedKeyspace } from './folder-cleanup.harness';
import { alice, put, rule, setLifecycle } from './support';

const port = 25000 + Math.floor(Math.random() * 1000) * 2;

/** The lines of a process's output that say what the cleanup did (for a failure's message). */
const cleanupLog = (p: AppProcess) =>
  p.output
    .join('')
    .split('\n')
    .filter((l) => /empty directory|folder scan|lifecycle action|error|warn/i.test(l))
    .slice(-40)
    .join('\n');

/**
 * The cleanup through the deployed apps: a scanner process runs the lifecycle scan and builds
 * filters and publishes empty directories to Kafka every 2 s, a scheduler process consumes the
 * version and folder queues on the queue transport, expires and deletes; directories emptied by
 * deletes and by lifecycle expiry leave all three folder tables, the kept ones stay.
 *
 * Nothing here waits on time: the scheduler is ready (its consumer group joined, the topics made)
 * before the scanner publishes, and the spec polls the tables until a deadline. Under load a build
 * can take longer than the 2 s interval and the max age; a generation is then still judged (it is
 * stale only counting from its builds' completion, and the next one waits for it), which is what
 * made this spec time out before.
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
    const p = new AppProcess(app, {
      ...appEnv(keyspace, cluster),
      MANAGEMENT_HOST: '127.0.0.1',
      KAFKA_TOPIC_PARTITIONS: '3',
      LOG_LEVEL: 'info',
      LIFECYCLE_DEBUG_DAY_SECONDS: '1',
      ...env,
    }).start();
    processes.push(p);
    return p;
  };

  it('directories emptied by deletes and by lifecycle expiry disappear from all three folder tables within a few cycles', async () => {
    const core = coreOf(db, new FakeClock(Date.now()));
    const { bucketId } = await core.buckets.create({ name: 'folder-apps', owner: alice, location: '', acl: 'private' });
    for (const k of ['x/y/z/1', 'x/y/2', 'keep/3', 'ключ/значение']) await put(core, 'folder-apps', k, 'v');
    const upload = await core.multipart.create({ bucket: 'folder-apps', key: 'u/v/w', owner: alice, meta: { userMeta: {} } });
    await core.multipart.abort('folder-apps', 'u/v/w', upload.uploadId);
    for (const k of ['x/y/z/1', 'x/y/2', 'ключ/значение']) await core.objects.delete('folder-apps', k, alice);
    const before = await folderRows(db, bucketId);
    expect(before).toEqual(expect.arrayContaining(['object:x/y/z/', 'version:ключ/', 'upload:u/v/']));

    // a versioned bucket that lifecycle alone empties: with a 1-second lifecycle day the current
    // versions expire (delete markers), the noncurrent ones go, then the markers left alone go
    const lc = await core.buckets.create({ name: 'folder-apps-lc', owner: alice, location: '', acl: 'private' });
    await core.buckets.setVersioning('folder-apps-lc', 'Enabled');
    await setLifecycle(
      core,
      'folder-apps-lc',
      rule('exp', 'lc/', '<Expiration><Days>1</Days></Expiration><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration>') +
        rule('markers', 'lc/', '<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>'),
    );
    for (const k of ['lc/a/b/1', 'lc/c/2', 'stay/3']) await put(core, 'folder-apps-lc', k, 'v');
    const lcBefore = await folderRows(db, lc.bucketId);
    expect(lcBefore).toEqual(expect.arrayContaining(['object:lc/a/b/', 'version:lc/c/']));

    const scheduler = start('scheduler', {
      MANAGEMENT_PORT: String(port + 1),
      QUEUE_SESSION_TIMEOUT_MS: '6000',
      BLOCK_STORE: 'cassandra',
      S3_FOLDER_CACHE_MS: '0',
      FOLDER_CLEANUP_SKEW_MS: '0',
    });
    // the scheduler creates the topics and joins its groups before the scanner publishes to them (two
    // processes creating one topic at once can fail the subscriber's boot)
    await waitFor(
      'the scheduler to be ready',
      async () => {
        if (scheduler.exitCode !== undefined) throw new GiveUpWaiting(scheduler.output.join(''));
        return (await fetch(`http://127.0.0.1:${port + 1}/health/ready`).catch(() => undefined))?.ok || undefined;
      },
      60_000,
    );
    const scanner = start('scanner', {
      MANAGEMENT_PORT: String(port),
      SCAN_INTERVAL_SECONDS: '2',
      FOLDER_CLEANUP_INTERVAL_SECONDS: '2',
      FOLDER_FILTER_MIN_DIRECTORIES: '1000',
    });
    const kept = ['object:keep/', 'version:keep/'];
    const lcKept = ['object:stay/', 'version:stay/'];
    let rows = { deletes: before, lifecycle: lcBefore };
    try {
      await waitFor(
        'the emptied directories to leave the folder tables',
        async () => {
          for (const p of [scanner, scheduler]) if (p.exitCode !== undefined) throw new GiveUpWaiting(p.output.join(''));
          rows = { deletes: await folderRows(db, bucketId), lifecycle: await folderRows(db, lc.bucketId) };
          return rows.deletes.join() === kept.join() && rows.lifecycle.join() === lcKept.join() ? rows : undefined;
        },
        150_000,
        500,
      );
    } catch (e) {
      const left = `${JSON.stringify(rows)}`;
      throw new Error(`${(e as Error).message}\nrows: ${left}\n--- scanner\n${cleanupLog(scanner)}\n--- scheduler\n${cleanupLog(scheduler)}`);
    }
    expect((await core.objects.list({ bucket: 'folder-apps', delimiter: '/', maxKeys: 10 })).commonPrefixes).toEqual(['keep/']);
    const schedulerUrl = `http://127.0.0.1:${port + 1}`;
    expect((await core.objects.list({ bucket: 'folder-apps-lc', delimiter: '/', maxKeys: 10 })).commonPrefixes).toEqual(['stay/']);
    const deleted = before.length - kept.length + lcBefore.length - lcKept.length;
    expect(await metricSum(schedulerUrl, 'ostore_folder_cleanup_directories_deleted_total')).toBeGreaterThanOrEqual(deleted);
    const scannerUrl = `http://127.0.0.1:${port}`;
    expect(await metricSum(scannerUrl, 'ostore_folder_cleanup_directories_checked_total')).toBeGreaterThan(0);
    expect(await metricSum(scannerUrl, 'ostore_folder_filter_fill_ratio')).toBeGreaterThan(0);
  }, 240_000);
});
