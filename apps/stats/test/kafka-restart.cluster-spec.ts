/*
 * Issue 13's Kafka drill: the broker SIGKILLed during lifecycle and usage traffic and started
 * again. Runs in `npm run test:cluster` (jest.cluster.config.js), not in `npm test`: it starts a
 * broker of its own and the four apps, and takes minutes. Figures: docs/drills/kafka-and-disk.md.
 */
import { randomBytes } from 'crypto';
import { loadavg } from 'os';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { metricSum, waitFor } from '@ostore/testing';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the lifecycle day of the system the scheduler's helper starts
import { DAY_MS } from '../../scheduler/test/lifecycle-system';
import { KafkaDrillSystem } from './kafka-restart.support';

const BUCKET = 'kdrill';
const WAVE = 120;
const KEEP = 40;

const body = () => randomBytes(200 + Math.floor(Math.random() * 4000));

/** A client putting new keys and deleting older ones until stopped; every answer is counted. */
class Churn {
  readonly live = new Map<string, number>();
  readonly failures: { op: string; key: string; error: string }[] = [];
  acked = 0;
  ackedDuringOutage = 0;
  outage = false;
  private stopped = false;
  private done?: Promise<void>;

  constructor(private readonly s3: S3Client) {}

  start(): void {
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }

  private async op(op: string, key: string, send: () => Promise<unknown>): Promise<boolean> {
    try {
      await send();
      this.acked++;
      if (this.outage) this.ackedDuringOutage++;
      return true;
    } catch (e) {
      this.failures.push({ op, key, error: e instanceof S3ServiceException ? `${e.$metadata.httpStatusCode} ${e.name}` : String(e) });
      return false;
    }
  }

  private async loop(): Promise<void> {
    for (let i = 0; !this.stopped; i++) {
      const key = `churn/${i}`;
      const b = body();
      if (await this.op('PutObject', key, () => this.s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: b })))) this.live.set(key, b.length);
      const old = `churn/${i - 2}`;
      if (i % 3 === 0 && this.live.has(old)) {
        if (await this.op('DeleteObject', old, () => this.s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: old })))) this.live.delete(old);
      }
    }
  }
}

async function putAll(s3: S3Client, keys: string[], sizes: Map<string, number>): Promise<void> {
  for (let i = 0; i < keys.length; i += 8)
    await Promise.all(
      keys.slice(i, i + 8).map(async (key) => {
        const b = body();
        await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: b }));
        sizes.set(key, b.length);
      }),
    );
}

async function listAll(s3: S3Client, prefix: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, ContinuationToken: token }));
    for (const c of page.Contents ?? []) out.set(c.Key!, c.Size!);
    token = page.NextContinuationToken;
  } while (token);
  return out;
}

/**
 * Gateway, scanner, scheduler and stats app on a broker of their own; a lifecycle expiration rule
 * over two waves of objects and a client putting and deleting throughout. The broker is SIGKILLed
 * once the lifecycle has begun applying the first wave, kept down until the second wave is due,
 * and started again. Then every object of the rule expired and no other was deleted, each
 * expiration was applied once, every write was answered while the broker was down, and the stats
 * app's usage equals the exact recount (no delta lost, none counted twice).
 */
describe('the Kafka broker restarted during lifecycle and usage traffic (drill)', () => {
  let sys: KafkaDrillSystem;
  let churn: Churn | undefined;

  beforeAll(async () => {
    // minutes on a loaded two-core box: the gateway migrates a fresh keyspace, four apps boot
    sys = await KafkaDrillSystem.start();
  }, 900_000);

  afterAll(async () => {
    await churn?.stop();
    await sys?.stop();
  }, 120_000);

  it('expires exactly the rule\'s objects once each, answers every write, and loses or doubles no usage delta', async () => {
    const started = Date.now();
    const gw = sys.lc.gateway;
    const scheduler = sys.lc.scheduler;
    const s3 = new S3Client({ endpoint: gw.endpoint, region: 'us-east-1', credentials: gw.credentials, forcePathStyle: true, maxAttempts: 1 });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const createdAt = Date.now();
    await s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: BUCKET,
        LifecycleConfiguration: { Rules: [{ ID: 'expire', Status: 'Enabled', Filter: { Prefix: 'exp/' }, Expiration: { Days: 1 } }] },
      }),
    );
    churn = new Churn(s3);
    churn.start();

    const expiring = new Map<string, number>();
    const kept = new Map<string, number>();
    await putAll(s3, Array.from({ length: WAVE }, (_, i) => `exp/a/${i}`), expiring);
    await putAll(s3, Array.from({ length: KEEP }, (_, i) => `keep/${i}`), kept);
    const applied = () => scheduler.metric('ostore_lifecycle_actions_applied_total');
    await sys.lc.until('the lifecycle to apply its first expiration', Date.now() + 180_000, async () => ((await applied()) >= 1 ? true : undefined));
    await putAll(s3, Array.from({ length: WAVE }, (_, i) => `exp/b/${i}`), expiring);
    const waveBWritten = Date.now();

    const publishErrors = () => metricSum(gw.managementUrl, 'ostore_usage_publish_errors_total');
    const errorsBefore = await publishErrors();
    const appliedAtKill = await applied();
    const killedAt = Date.now();
    await sys.killBroker();
    churn.outage = true;
    // down until the second wave is due (its candidates cannot be published) and the gateway has failed to publish
    await waitFor(
      'the second wave due and the gateway failing to publish while the broker is down',
      async () => (Date.now() >= waveBWritten + 2 * DAY_MS && (await publishErrors()) > errorsBefore && churn!.ackedDuringOutage >= 20 ? true : undefined),
      180_000,
      250,
    );
    const appliedWhileDown = (await applied()) - appliedAtKill;
    await sys.startBroker();
    churn.outage = false;
    const brokerUpAt = Date.now();

    // every object of the rule expires
    await sys.lc.until('every exp/ object expired', Date.now() + 300_000, async () => ((await listAll(s3, 'exp/')).size === 0 ? true : undefined));
    const expiredAt = Date.now();
    await churn.stop();
    await sys.lc.settledAfter(Date.now());

    // each expiration applied exactly once; nothing outside the rule deleted; every write answered
    expect(await applied()).toBe(expiring.size);
    expect(await listAll(s3, 'keep/')).toEqual(kept);
    expect(await listAll(s3, 'churn/')).toEqual(churn.live);
    expect(churn.failures).toEqual([]);
    expect(churn.ackedDuringOutage).toBeGreaterThanOrEqual(20);
    for (const url of [gw.managementUrl, scheduler.managementUrl]) expect(await metricSum(url, 'ostore_usage_deltas_dropped_total')).toBe(0);

    // usage: the stats app's current usage equals the exact recount once every delta is consumed
    let last: unknown;
    const { recount, current } = await waitFor(
      'the stats app\'s usage to equal the recount',
      async () => {
        if (!(await sys.caughtUp())) return undefined;
        const recount = await sys.recount(BUCKET);
        const current = await sys.current(recount.bucketId);
        last = { recount, current, lag: sys.lag };
        return current.bytes === recount.bytes && current.objects === recount.objects && (await sys.caughtUp()) ? { recount, current } : undefined;
      },
      120_000,
      500,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\nlast: ${JSON.stringify(last)}${sys.logs()}`);
    });
    // the snapshot holds nothing of the bucket: the comparison is exact, not within a bound
    if (current.cut !== undefined) expect(new Date(current.cut).getTime()).toBeLessThanOrEqual(createdAt);
    // and the topic itself holds every change once by event id (retried batches may repeat; stats drop those)
    const mine = (await sys.readUsageTopic()).filter((r) => r.delta.bucketId === recount.bucketId);
    const unique = new Map(mine.map((r) => [r.delta.eventId, r.delta]));
    const sum = (f: (d: { bytes: number; objects?: number }) => number) => [...unique.values()].reduce((n, d) => n + f(d), 0);
    expect({ bytes: sum((d) => d.bytes), objects: sum((d) => d.objects ?? 0) }).toEqual({ bytes: recount.bytes, objects: recount.objects });

    const figures = {
      drill: 'kafka-restart',
      objectsToExpire: expiring.size,
      kept: kept.size,
      expirationsApplied: await applied(),
      expirationsAppliedWhileDown: appliedWhileDown,
      lifecycleSkips: await scheduler.metric('ostore_lifecycle_actions_skipped_total'),
      churnAcknowledged: churn.acked,
      churnAcknowledgedWhileDown: churn.ackedDuringOutage,
      failed: churn.failures.length,
      lost: 0,
      wrong: 0,
      gatewayPublishErrors: (await publishErrors()) - errorsBefore,
      deltasDropped: 0,
      usageDeltasOnTopic: mine.length,
      usageDuplicatesOnTopic: mine.length - unique.size,
      statsDedupHits: await metricSum(sys.statsUrl, 'ostore_stats_usage_dedup_hits_total'),
      usage: { bytes: recount.bytes, objects: recount.objects },
      brokerDownMs: brokerUpAt - killedAt,
      allExpiredAfterRestartMs: expiredAt - brokerUpAt,
      durationMs: Date.now() - started,
      loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
    };
    process.stdout.write(`\n[drill] ${JSON.stringify(figures)}\n`);
    s3.destroy();
  }, 900_000);
});
