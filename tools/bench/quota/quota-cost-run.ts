import { join } from 'path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { dropKeyspace, freePort, GatewayProcess, REPO_ROOT } from '../lib/gateway';
import { readCpuTicks } from '../lib/proc';

const TICK_MS = 10; // USER_HZ 100

/** PUTs `count` objects of `size` bytes into `bucket` with `concurrency` in flight; returns the gateway CPU ms spent. */
async function round(gw: GatewayProcess, s3: S3Client, bucket: string, prefix: string, count: number, concurrency: number, size: number): Promise<number> {
  const before = readCpuTicks(gw.pid!)!;
  let next = 0;
  const body = Buffer.alloc(size, 7);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/${i}`, Body: body }));
    }),
  );
  return (readCpuTicks(gw.pid!)! - before) * TICK_MS;
}

/** The bench: see quota-cost.mjs. */
export async function main(argv: string[]): Promise<number> {
  const flag = (name: string, fallback: number) => {
    const i = argv.indexOf(`--${name}`);
    const v = i >= 0 ? Number(argv[i + 1]) : fallback;
    if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} needs a positive whole number`);
    return v;
  };
  const rounds = flag('rounds', 6);
  const puts = flag('puts', 300);
  const concurrency = flag('concurrency', 8);
  const size = flag('size', 1024);
  const cassandra = (process.env['OSTORE_BENCH_CASSANDRA'] ?? '127.0.0.1:9042').split(':');
  const keyspace = `bench_quota_${Date.now().toString(36)}`;
  const credentials = { user: 'bench', accessKeyId: 'OSTOREBENCHQUOTA0001', secretAccessKey: 'ostore-bench-quota-secret-000000000000000' };
  const adminPort = await freePort();
  const gw = new GatewayProcess({
    keyspace,
    cluster: keyspace.replace(/_/g, '-'),
    cassandraHost: cassandra[0],
    cassandraPort: Number(cassandra[1] ?? 9042),
    kafkaBrokers: (process.env['OSTORE_BENCH_KAFKA'] ?? '127.0.0.1:9092').split(','),
    credentials,
    blockStore: 'fs',
    blockDir: join(REPO_ROOT, '.stack', 'bench-quota-blocks', keyspace),
    logFile: join(REPO_ROOT, 'tools/bench/results', `quota-cost-${keyspace}.log`),
    runtime: 'register',
    extraEnv: { ADMIN_TOKEN: 'bench-quota-admin-token-0000', ADMIN_PORT: String(adminPort) },
  });
  await gw.start();
  try {
    const s3 = new S3Client({ endpoint: gw.endpoint, region: 'us-east-1', credentials, forcePathStyle: true });
    for (const Bucket of ['quota-off', 'quota-on']) await s3.send(new CreateBucketCommand({ Bucket }));
    const res = await fetch(`http://127.0.0.1:${adminPort}/admin/buckets/quota-on/quota`, {
      method: 'PUT',
      headers: { Authorization: 'Bearer bench-quota-admin-token-0000', 'Content-Type': 'application/json' },
      body: JSON.stringify({ maxBytes: 2 ** 50, maxObjects: 1e12 }),
    });
    if (!res.ok) throw new Error(`setting the quota: ${res.status} ${await res.text()}`);
    // warm-up (JIT, connections, prepared statements) on both
    for (const b of ['quota-off', 'quota-on']) await round(gw, s3, b, 'warm', Math.min(puts, 100), concurrency, size);
    const cpu = { off: 0, on: 0 };
    for (let r = 0; r < rounds; r++) {
      const order: ('off' | 'on')[] = r % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      for (const which of order) {
        const ms = await round(gw, s3, `quota-${which}`, `r${r}`, puts, concurrency, size);
        cpu[which] += ms;
        process.stdout.write(`round ${r} quota-${which}: ${(ms / puts).toFixed(3)} ms CPU per PUT\n`);
      }
    }
    const total = rounds * puts;
    const off = cpu.off / total;
    const on = cpu.on / total;
    process.stdout.write(
      `\n${total} PUTs of ${size} B each way, ${concurrency} in flight\n` +
        `quotas off: ${off.toFixed(3)} ms gateway CPU per PUT\nquota on:   ${on.toFixed(3)} ms gateway CPU per PUT\n` +
        `ratio on/off: ${(on / off).toFixed(3)}; cost of the check: ${(on - off).toFixed(3)} ms per PUT (target <= 0.05)\n`,
    );
    return 0;
  } finally {
    await gw.stop();
    await dropKeyspace({ contactPoints: [cassandra[0]], protocolOptions: { port: Number(cassandra[1] ?? 9042) }, localDataCenter: 'datacenter1' }, keyspace).catch(() => undefined);
  }
}
