import { readFileSync } from 'fs';
import { Agent } from 'http';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import {
  AppProcess,
  appEnv,
  freshCluster,
  freshKeyspace,
  GiveUpWaiting,
  metricSum,
  waitFor,
} from '@ostore/testing';
import { bodyText } from './s3-test-helpers';

const base = 25000 + Math.floor(Math.random() * 1000) * 3;
const S3_PORT = base;
const MANAGEMENT_PORT = base + 1;
const KEY_ID = 'WORKERSTESTKEY0000001';
const SECRET = 'workers-test-secret-0123456789';

function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text ? text.split(/\s+/).map(Number) : [];
}

/** The number the primary gave a worker process (it names the worker's usage spool directory). */
function workerNumber(pid: number): string | undefined {
  const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return env.find((e) => e.startsWith('GATEWAY_WORKER_INDEX='))?.split('=')[1];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * GATEWAY_WORKERS=2 (main.ts as deployed): two worker processes share the S3 port, the
 * management port's /metrics is the sum over both, a worker that dies is replaced, and SIGTERM
 * stops the primary and every worker.
 */
describe('the gateway with GATEWAY_WORKERS=2', () => {
  const keyspace = freshKeyspace('workers');
  let gw: AppProcess;
  let s3: S3Client;
  const mgmt = `http://127.0.0.1:${MANAGEMENT_PORT}`;

  beforeAll(async () => {
    gw = new AppProcess('gateway', {
      ...appEnv(keyspace, freshCluster('workers')),
      GATEWAY_WORKERS: '2',
      S3_HOST: '127.0.0.1',
      S3_PORT: String(S3_PORT),
      MANAGEMENT_HOST: '127.0.0.1',
      MANAGEMENT_PORT: String(MANAGEMENT_PORT),
      S3_BOOTSTRAP_USER: 'workers',
      S3_BOOTSTRAP_ACCESS_KEY_ID: KEY_ID,
      S3_BOOTSTRAP_SECRET_ACCESS_KEY: SECRET,
      USAGE_DELTAS: 'off',
      SHUTDOWN_TIMEOUT_MS: '15000',
    }).start();
    // the primary migrates first, then forks: two whole gateways boot on a machine that may be busy
    await waitFor(
      'the workers to be ready',
      async () => {
        if (gw.exitCode !== undefined)
          throw new GiveUpWaiting(`the gateway exited (${gw.exitCode}):\n${gw.output.join('')}`);
        return (await fetch(`${mgmt}/health/ready`)).status === 200 ? true : undefined;
      },
      300_000,
      500,
    );
    s3 = new S3Client({
      endpoint: `http://127.0.0.1:${S3_PORT}`,
      region: 'us-east-1',
      credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
      forcePathStyle: true,
      // many connections: the primary hands each new one to the next worker
      requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, maxSockets: 8 }) }),
    });
  }, 360_000);
  /**
   * Two worker processes past their exec, both answering the primary's /metrics. Ready means one
   * worker answered: the other may still be booting, or, after a failure at boot (a Cassandra
   * timeout on a loaded machine), be waiting out the primary's restart pause; the primary's output
   * says which when this gives up.
   */
  async function twoWorkers(timeoutMs: number): Promise<number[]> {
    try {
      const workers = await waitFor(
        'two worker processes',
        async () => {
          if (gw.exitCode !== undefined) throw new GiveUpWaiting(`the gateway exited (${gw.exitCode})`);
          const now = childrenOf(gw.pid!);
          // a child seen between its fork and its exec still has the primary's environment
          return now.length === 2 && now.every((pid) => workerNumber(pid) !== undefined) ? now : undefined;
        },
        timeoutMs,
        200,
      );
      // one `ostore_app_info` gauge of 1 per worker: the sum reaches 2 once both answer the scrape
      await waitFor(
        'both workers to answer /metrics',
        async () => ((await metricSum(mgmt, 'ostore_app_info')) === 2 ? true : undefined),
        timeoutMs,
        500,
      );
      return workers;
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${gw.output.join('')}`);
    }
  }

  afterAll(async () => {
    s3?.destroy();
    await gw?.stop();
  });

  it('serves S3 from both workers and sums their metrics', async () => {
    await twoWorkers(120_000);
    await s3.send(new CreateBucketCommand({ Bucket: 'workers' }));
    const keys = Array.from({ length: 40 }, (_, i) => `k/${i}`);
    await Promise.all(
      keys.map((Key) => s3.send(new PutObjectCommand({ Bucket: 'workers', Key, Body: `body of ${Key}` }))),
    );
    const bodies = await Promise.all(
      keys.map(async (Key) =>
        bodyText((await s3.send(new GetObjectCommand({ Bucket: 'workers', Key }))).Body),
      ),
    );
    expect(bodies).toEqual(keys.map((k) => `body of ${k}`));
    const text = await (await fetch(`${mgmt}/metrics`)).text();
    const puts = text
      .split('\n')
      .filter((l) => l.startsWith('ostore_s3_requests_total') && l.includes('operation="PutObject"'))
      .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
    expect(puts).toBe(40);
  }, 180_000);

  it('replaces a worker that dies, and stops every worker on SIGTERM', async () => {
    // the two workers of the first test, or their replacements if one failed since
    const [victim, other] = await twoWorkers(60_000);
    expect([victim, other].map(workerNumber).sort()).toEqual(['0', '1']);
    const victimNumber = workerNumber(victim);
    process.kill(victim, 'SIGKILL');
    const replaced = await waitFor(
      'a replacement worker',
      async () => {
        const now = childrenOf(gw.pid!);
        // a child seen between its fork and its exec still has the primary's environment
        return now.length === 2 &&
          !now.includes(victim) &&
          now.every((pid) => workerNumber(pid) !== undefined)
          ? now
          : undefined;
      },
      60_000,
      200,
    );
    expect(replaced).toContain(other);
    // the replacement takes the dead worker's number, so it sends what that worker left in its spool
    expect(workerNumber(replaced.find((pid) => pid !== other)!)).toBe(victimNumber);
    await twoWorkers(60_000);
    gw.signal('SIGTERM');
    expect(await gw.waitForExit(40_000)).toEqual({ code: 0, signal: null });
    expect(replaced.filter(alive)).toEqual([]);
  }, 150_000);
});
