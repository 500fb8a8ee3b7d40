import { execFile } from 'child_process';
import { resolve } from 'path';
import { promisify } from 'util';
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { appEnv, AppProcess, freePort, freshCluster, GatewayUnderTest, startGateway, waitFor } from '@ostore/testing';

// the kernel's choice: a drawn port could be one the gateway harness (21000-28999) already gave away
let statsPort: number;

/**
 * `bucket usage` / `bucket list` of a bucket without a quota read the stats app's current usage
 * (ADMIN_STATS_URL → GET /usage/buckets/:bucketId) instead of recounting: real gateway, real stats
 * app, the usage deltas over Kafka. When the stats app is down, `bucket usage` recounts and says why.
 */
describe('bucket usage from the stats app', () => {
  let gw: GatewayUnderTest;
  let stats: AppProcess;
  const cluster = freshCluster('usagestats');
  const admin = (path: string) => fetch(`${gw.adminUrl}${path}`, { headers: { Authorization: `Bearer ${gw.adminToken}` } });
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['-r', '@swc-node/register', 'apps/gateway/src/cli/admin-cli.ts', ...args], {
      cwd: resolve(__dirname, '../../..'),
      env: { ...process.env, OSTORE_ADMIN_URL: gw.adminUrl, ADMIN_TOKEN: gw.adminToken },
    });

  beforeAll(async () => {
    statsPort = await freePort();
    gw = await startGateway('usagestats', { OSTORE_CLUSTER: cluster, ADMIN_STATS_URL: `http://127.0.0.1:${statsPort}`, USAGE_LINGER_MS: '10' });
    stats = new AppProcess('stats', { ...appEnv(gw.keyspace, cluster), MANAGEMENT_PORT: String(statsPort), MANAGEMENT_HOST: '127.0.0.1', LOG_LEVEL: 'warn', SHUTDOWN_TIMEOUT_MS: '10000' }).start();
    await waitFor('stats ready', async () => ((await fetch(`http://127.0.0.1:${statsPort}/health/ready`).catch(() => undefined))?.status === 200 ? true : undefined), 90_000);
  }, 240_000);
  afterAll(async () => {
    await stats?.stop();
    await gw?.stop();
  });

  it('shows the stats app current usage for a bucket without a quota, and recounts when it is down', async () => {
    const s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket: 'counted' }));
    for (const [key, size] of [['a', 1000], ['b', 2000], ['c/d', 3000]] as const)
      await s3.send(new PutObjectCommand({ Bucket: 'counted', Key: key, Body: Buffer.alloc(size, 1) }));
    await s3.send(new DeleteObjectCommand({ Bucket: 'counted', Key: 'b' }));

    const usage = await waitFor(
      'the deltas counted by the stats app',
      async () => {
        const u = (await (await admin('/admin/buckets/counted/usage')).json()) as { bytes: number; objects: number; source: string };
        return u.source === 'stats' && u.bytes === 4000 && u.objects === 2 ? u : undefined;
      },
      60_000,
    ).catch(async (e) => {
      throw new Error(`${(e as Error).message}\nlast: ${await (await admin('/admin/buckets/counted/usage')).text()}\n${stats.output.join('')}`);
    });
    expect(usage).toMatchObject({ bucket: 'counted', bytes: 4000, objects: 2, source: 'stats' });

    const list = (await (await admin('/admin/buckets')).json()) as { name: string; usage?: unknown; usageSource?: string }[];
    expect(list.find((b) => b.name === 'counted')).toMatchObject({ usage: { bytes: 4000, objects: 2 }, usageSource: 'stats' });
    const printed = await cli('bucket', 'usage', 'counted');
    expect(printed.stdout).toMatch(/stats app: scan snapshot \+ usage deltas since its cut/);
    expect(printed.stdout).toMatch(/none yet/);

    await stats.stop();
    const recounted = (await (await admin('/admin/buckets/counted/usage')).json()) as Record<string, unknown>;
    expect(recounted).toMatchObject({ bytes: 4000, objects: 2, source: 'recount' });
    expect(String(recounted['statsError'])).not.toBe('');
    expect((await cli('bucket', 'usage', 'counted')).stdout).toMatch(/stats app\s+not answering/);
  }, 300_000);
});
