import { ChildProcess, spawn } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { AppProcess, appEnv, freePort, freshCluster, waitFor } from '@ostore/testing';
import { parse } from 'yaml';
import { DAY_MS, LifecycleSystem, startLifecycleSystem } from '../../apps/scheduler/test/lifecycle-system';

const DEPLOY = join(__dirname, '..');
const RATE = '30s';

/**
 * Dashboard queries that stay empty after this short workload, and why. Every other query must
 * return data; each of these must still evaluate without error.
 */
const EXPECTED_EMPTY: Record<string, string> = {
  'Apply failures/s': 'no lifecycle application fails',
  'Apply failures/s by action': 'no lifecycle application fails',
  'Ready containers (kube-state-metrics)': 'kube-state-metrics runs only in Kubernetes',
  'Block GC reclaimed': 'nothing is old enough for the block GC in a minute',
  'Block GC reclaimed bytes': 'nothing is old enough for the block GC in a minute',
  'Blocks deleted by reason': 'no block is deleted by this workload',
  'Bytes deleted by tier': 'no block is deleted by this workload',
  'Block status CAS conflicts': 'no concurrent block status change',
  'fs block stores without O_DIRECT': 'this system keeps blocks in Cassandra (BLOCK_STORE=cassandra): no fs store',
  'Usage deltas dropped by app and reason': 'Kafka is up: nothing is dropped',
  'Usage publish errors/s': 'Kafka is up: no send fails',
  'Candidates rejected / read retries / stale null keys per scanner': 'no bad candidate, no failed read, no failed null convergence',
  'Overdue versions': 'lifecycle keeps up: nothing is overdue',
  'Overdue versions by scanner': 'lifecycle keeps up: nothing is overdue',
  '5xx ratio': 'no request fails with 5xx',
  'Quota ledger write errors by instance': 'Cassandra is up: no quota ledger write fails',
  'Bytes per bucket (stats)': "this workload's stats app consumes a usage topic nobody publishes to: no bucket has a running total",
  'Objects per bucket (stats)': "this workload's stats app consumes a usage topic nobody publishes to: no bucket has a running total",
  // its "deleted" query has data (the workload waits for a deletion); "skipped" needs a write racing a delete
  'Directories deleted / skipped per second by queue': 'no directory gets an entry between its filter and its delete: nothing is skipped',
};

interface Panel {
  title: string;
  refId: string;
  expr: string;
}

function dashboardQueries(): Panel[] {
  const d = JSON.parse(readFileSync(join(DEPLOY, 'grafana/dashboards/ostore-overview.json'), 'utf8'));
  return (d.panels as any[]).flatMap((p) =>
    (p.targets ?? []).map((t: any) => ({ title: p.title, refId: t.refId, expr: String(t.expr) })),
  );
}

/**
 * A real Prometheus (Debian's package) scrapes the four apps running on the local stack, with the
 * alert rules loaded, while a short workload runs: PUTs, GETs (and a NoSuchKey), a lifecycle
 * expiry carried out by the scanner and the scheduler. Then every dashboard query is evaluated
 * (each returns data, or is one of the few listed as empty with the reason) and every alert rule
 * has been evaluated without error and is inactive — until an app is stopped, when OStoreAppDown
 * goes pending for it.
 */
describe('dashboards and alerts against a real Prometheus scraping the apps', () => {
  let sys: LifecycleSystem;
  let stats: AppProcess;
  let prometheus: ChildProcess | undefined;
  let promOutput = '';
  let dir: string;
  // ports the kernel finds free: a fixed range met the test stack's own (30042, 30070, 30080, 30092, 30093)
  let promPort: number;
  let statsPort: number;
  let promUrl: string;

  const api = async (path: string): Promise<any> => {
    const res = await fetch(`${promUrl}${path}`);
    const body = (await res.json()) as any;
    if (body.status !== 'success') throw new Error(`${path}: ${JSON.stringify(body)}`);
    return body.data;
  };
  const query = (expr: string) =>
    api(
      `/api/v1/query?query=${encodeURIComponent(expr.replace(/\$__rate_interval/g, RATE).replace(/\$gateway/g, '.*'))}`,
    );

  beforeAll(async () => {
    promPort = await freePort();
    do statsPort = await freePort();
    while (statsPort === promPort);
    promUrl = `http://127.0.0.1:${promPort}`;
    // the empty-directory cleanup every 2 s, its deletes not held back by the folder-row cache
    // (gateway and scheduler agree on 0), so that one cleanup happens within the workload
    const noFolderCache = { S3_FOLDER_CACHE_MS: '0', FOLDER_CLEANUP_SKEW_MS: '0' };
    sys = await startLifecycleSystem('kafka', {
      gateway: { S3_FOLDER_CACHE_MS: '0' },
      scanner: { FOLDER_CLEANUP_INTERVAL_SECONDS: '2', FOLDER_FILTER_MIN_DIRECTORIES: '1000' },
      scheduler: noFolderCache,
    });
    stats = new AppProcess('stats', {
      ...appEnv(sys.gateway.keyspace, freshCluster('obsstats')),
      MANAGEMENT_PORT: String(statsPort),
      MANAGEMENT_HOST: '127.0.0.1',
      MIGRATE_ON_START: 'false',
      // the scanner completes a pass a second: combine them as often, so the snapshot panels have data
      STATS_SNAPSHOT_COMBINE_SECONDS: '1',
    }).start();
    await sys.ready();
    await waitFor(
      'stats ready',
      async () => ((await fetch(`http://127.0.0.1:${statsPort}/health/ready`)).ok ? true : undefined),
      90_000,
    ).catch((e) => {
      throw new Error(`${(e as Error).message}\n${stats.output.slice(-20).join('')}`);
    });

    dir = mkdtempSync(join(tmpdir(), 'ostore-prometheus-'));
    const target = (url: string) => url.replace(/^http:\/\//, '');
    const config = {
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [join(DEPLOY, 'prometheus/alerts.yaml')],
      scrape_configs: [
        ['gateway', target(sys.gateway.managementUrl)],
        ['scanner', target(sys.scanner.managementUrl)],
        ['scheduler', target(sys.scheduler.managementUrl)],
        ['stats', `127.0.0.1:${statsPort}`],
      ].map(([job, t]) => ({ job_name: job, static_configs: [{ targets: [t] }] })),
    };
    writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(config));
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (d) => (promOutput += String(d)));
    prometheus.stderr!.on('data', (d) => (promOutput += String(d)));
    await waitFor(
      'Prometheus scraping all four apps',
      async () => {
        if (prometheus!.exitCode !== null) throw new Error(`prometheus exited:\n${promOutput}`);
        const up = await query('sum(up)').catch(() => undefined);
        return up && Number(up.result[0]?.value[1]) === 4 ? true : undefined;
      },
      60_000,
      500,
    );

    // the workload
    const s3 = sys.s3;
    await s3.send(new CreateBucketCommand({ Bucket: 'obs-expiry' }));
    await s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: 'obs-expiry',
        LifecycleConfiguration: {
          Rules: [{ ID: 'tmp', Status: 'Enabled', Filter: { Prefix: 'tmp/' }, Expiration: { Days: 1 } }],
        },
      }),
    );
    const written = Date.now();
    for (let i = 0; i < 20; i++) {
      await s3.send(new PutObjectCommand({ Bucket: 'obs-expiry', Key: `tmp/${i}.txt`, Body: `object ${i}` }));
      await s3.send(
        new PutObjectCommand({ Bucket: 'obs-expiry', Key: `keep/${i}.txt`, Body: `object ${i}` }),
      );
    }
    // one object over the inline limit: its body goes to the block store
    await s3.send(
      new PutObjectCommand({ Bucket: 'obs-expiry', Key: 'keep/big.bin', Body: Buffer.alloc(200 * 1024, 7) }),
    );
    for (const key of [...Array(20).keys()].map((i) => `keep/${i}.txt`).concat('keep/big.bin')) {
      const res = await s3.send(new GetObjectCommand({ Bucket: 'obs-expiry', Key: key }));
      await res.Body!.transformToByteArray();
    }
    await expect(
      s3.send(new GetObjectCommand({ Bucket: 'obs-expiry', Key: 'missing' })),
    ).rejects.toBeInstanceOf(S3ServiceException);
    // a quota refusal: a 1 KiB quota, then PUTs of 4 KiB until one is refused (the gateway may
    // still hold the bucket row without its quota for one S3_BUCKET_CACHE_MS)
    await s3.send(new CreateBucketCommand({ Bucket: 'obs-quota' }));
    const setQuota = await fetch(`${sys.gateway.adminUrl}/admin/buckets/obs-quota/quota`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${sys.gateway.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ maxBytes: 1024 }),
    });
    expect(setQuota.status).toBe(200);
    let attempt = 0;
    await waitFor(
      'a PUT over the quota refused with QuotaExceeded',
      async () => {
        const put = s3.send(new PutObjectCommand({ Bucket: 'obs-quota', Key: `over-${attempt++}`, Body: Buffer.alloc(4096, 1) }));
        return put.then(
          () => undefined,
          (e) => {
            if ((e as S3ServiceException).name === 'QuotaExceeded') return true;
            throw e;
          },
        );
      },
      30_000,
      500,
    );
    // a directory chain emptied by a delete, for the folder cleanup to remove
    await s3.send(new PutObjectCommand({ Bucket: 'obs-expiry', Key: 'dirs/a/b/gone.txt', Body: 'soon gone' }));
    await s3.send(new DeleteObjectCommand({ Bucket: 'obs-expiry', Key: 'dirs/a/b/gone.txt' }));
    await sys.settledAfter(written + DAY_MS);
    await sys.until('the tmp/ objects expired', Date.now() + 30_000, async () => {
      const res = await s3.send(new ListObjectsV2Command({ Bucket: 'obs-expiry', Prefix: 'tmp/' }));
      return (res.KeyCount ?? 0) === 0 ? true : undefined;
    });
    await sys.until('the folder cleanup to delete an empty directory', Date.now() + 120_000, async () =>
      (await sys.scheduler.metric('ostore_folder_cleanup_directories_deleted_total')) > 0 ? true : undefined,
    );
    // rates over RATE need two scrapes of the counters' new values
    await waitFor(
      'Prometheus to have scraped the expirations',
      async () => {
        const r = await query('sum(ostore_lifecycle_actions_applied_total)');
        return Number(r.result[0]?.value[1] ?? 0) >= 20 ? true : undefined;
      },
      30_000,
      500,
    );
    await new Promise((r) => setTimeout(r, 3000)); // a few more scrapes, so the rates over 30s see the change
  }, 600_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((r) => prometheus!.once('exit', r));
      prometheus.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    }
    await stats?.stop();
    await sys?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every dashboard query evaluates, and returns data unless listed as empty with its reason', async () => {
    const results: Array<{ panel: string; series: number }> = [];
    for (const q of dashboardQueries()) {
      const data = await query(q.expr);
      results.push({ panel: `${q.title} ${q.refId}`, series: data.result.length });
    }
    const empty = results.filter((r) => r.series === 0).map((r) => r.panel.replace(/ [A-Z]$/, ''));
    const unexpected = [...new Set(empty)].filter((title) => !(title in EXPECTED_EMPTY));
    expect(unexpected).toEqual([]);
    // the listed ones that do return data are fine; most must
    expect(results.filter((r) => r.series > 0).length).toBeGreaterThan(results.length / 2);
  });

  it('the lag is reported per queue and partition, and scan durations per table', async () => {
    const lag = await query('sum by (queue, partition) (ostore_queue_consumer_lag_messages)');
    expect(lag.result.length).toBeGreaterThan(0);
    for (const s of lag.result) expect(Object.keys(s.metric).sort()).toEqual(['partition', 'queue']);
    // the scanner's default SCAN_TABLES: versions, uploads and block_refs (the most-referenced blocks)
    const scans = await query('sum by (table) (ostore_scanner_scan_duration_seconds_count)');
    expect(scans.result.map((s: any) => s.metric.table).sort()).toEqual(['block_refs', 'uploads', 'versions']);
  });

  it('every alert rule is evaluated without error, and none is active on a healthy system', async () => {
    const groups = parse(readFileSync(join(DEPLOY, 'prometheus/alerts.yaml'), 'utf8')).groups;
    const names = groups.flatMap((g: any) => g.rules.map((r: any) => r.alert)).sort();
    await waitFor(
      'every rule evaluated',
      async () => {
        const rules = (await api('/api/v1/rules')).groups.flatMap((g: any) => g.rules);
        return rules.length === names.length && rules.every((r: any) => r.lastEvaluation > '2000')
          ? true
          : undefined;
      },
      30_000,
      500,
    );
    const rules = (await api('/api/v1/rules')).groups.flatMap((g: any) => g.rules);
    expect(rules.map((r: any) => r.name).sort()).toEqual(names);
    expect(rules.filter((r: any) => r.health !== 'ok').map((r: any) => `${r.name}: ${r.lastError}`)).toEqual(
      [],
    );
    expect(rules.filter((r: any) => r.state !== 'inactive').map((r: any) => r.name)).toEqual([]);
  });

  it('an app that stops makes OStoreAppDown pending for its job', async () => {
    await stats.stop();
    const alert = await waitFor(
      'OStoreAppDown for stats',
      async () => {
        const alerts = (await api('/api/v1/alerts')).alerts as any[];
        return alerts.find((a) => a.labels.alertname === 'OStoreAppDown' && a.labels.job === 'stats');
      },
      30_000,
      500,
    );
    expect(alert.state).toBe('pending');
    expect(alert.annotations.runbook_url).toBe('docs/runbooks.md#ostoreappdown');
  });
});
