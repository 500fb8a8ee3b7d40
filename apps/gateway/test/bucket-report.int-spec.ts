import { execFile } from 'child_process';
import { resolve } from 'path';
import { promisify } from 'util';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { CassandraClient } from '@ostore/shared/cassandra';
import { SystemClock } from '@ostore/shared/clock';
import { combineSnapshots, emptyHostSnapshot, SnapshotAccumulator } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { cassandraOptions, GatewayUnderTest, startGateway } from '@ostore/testing';

/**
 * `bucket report <bucket>`: the admin API reads the bucket's figures in the newest combined
 * snapshot (written here through the snapshot store, as the stats app writes it), and the CLI
 * prints them as tables, or as JSON with --json.
 */
describe('bucket report (admin API and CLI)', () => {
  let gw: GatewayUnderTest;
  let db: CassandraClient;
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['-r', '@swc-node/register', 'apps/gateway/src/cli/admin-cli.ts', ...args], {
      cwd: resolve(__dirname, '../../..'),
      env: { ...process.env, OSTORE_ADMIN_URL: gw.adminUrl, ADMIN_TOKEN: gw.adminToken },
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);

  beforeAll(async () => {
    gw = await startGateway('report');
    db = new CassandraClient(cassandraOptions(gw.keyspace));
    await db.connect();
  });
  afterAll(async () => {
    await db?.shutdown();
    await gw?.stop();
  });

  it('shows the snapshot of a bucket, says when there is none, and refuses an unknown bucket', async () => {
    const s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket: 'reported' }));
    await s3.send(new PutObjectCommand({ Bucket: 'reported', Key: 'a/b', Body: 'x' }));
    const report = async (name: string) => fetch(`${gw.adminUrl}/admin/buckets/${name}/report`, { headers: { Authorization: `Bearer ${gw.adminToken}` } });

    const none = await report('reported');
    expect(none.status).toBe(200);
    expect(await none.json()).toMatchObject({ bucket: 'reported', snapshot: null });

    const bucketId = (await db.execute('SELECT bucket_id FROM buckets WHERE name = ?', ['reported'])).first()['bucket_id'].toString();
    const acc = new SnapshotAccumulator(emptyHostSnapshot(Date.now()));
    acc.addObject({ bucketId, bucket: 'reported', parent: 'a/', name: 'b', current: { vts: (Date.now() - 3_600_000) * 1000, size: 3 * 1024 * 1024, storageClass: 'STANDARD', isDeleteMarker: false }, noncurrent: [] });
    const store = new SnapshotStore(db, new SystemClock());
    // a pass over block_refs (of another host): one block shared by this bucket and another
    const OTHER = '00000000-0000-4000-8000-000000000001';
    const blocks = new SnapshotAccumulator({ ...emptyHostSnapshot(Date.now()), blocks: { blocks: 0, refs: 0, maxRefs: 0 } });
    blocks.addBlock({ blockId: 'blk-0001', size: 64 * 1024, refs: 5, buckets: { [bucketId]: 4, [OTHER]: 1 } });
    await store.saveCombination(
      gw.keyspace,
      combineSnapshots([
        { source: 'h1', handler: 'versions', completedAt: new Date(), snapshot: acc.finish() },
        { source: 'h2', handler: 'block_refs', completedAt: new Date(), snapshot: blocks.finish() },
      ])!,
    );

    const res = await report('reported');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      bucket: 'reported',
      bucketId,
      snapshot: { hostSnapshots: 2 },
      figures: {
        bytes: 3 * 1024 * 1024,
        objects: 1,
        topBySize: [{ name: 'a/b', n: 3 * 1024 * 1024 }],
        topDirectories: [{ name: 'a/', n: 1 }],
        topBlocks: [{ name: 'blk-0001', n: 5, size: 64 * 1024, buckets: { [bucketId]: 4, [OTHER]: 1 } }],
      },
    });
    const unknown = await report('no-such-bucket');
    expect(unknown.status).toBe(404);
    await unknown.text();

    // each CLI run compiles the CLI: run them side by side
    const [human, json, failed] = (await Promise.all([
      cli('bucket', 'report', 'reported'),
      cli('bucket', 'report', 'reported', '--json'),
      cli('bucket', 'report', 'no-such-bucket'),
    ])) as { code: number; stdout: string; stderr: string }[];
    expect(human.stdout).toMatch(/a\/b\s+3 MiB/);
    expect(human.stdout).toMatch(/objects over 100 versions\s+0/);
    expect(human.stdout).toMatch(/^blk-0001\s+5\s+4\s+64 KiB\s+2$/m);
    expect(JSON.parse(json.stdout)).toMatchObject({ figures: { bytes: 3 * 1024 * 1024, topBlocks: [{ name: 'blk-0001', n: 5 }] } });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('404 no bucket "no-such-bucket"');
  }, 300_000);
});
