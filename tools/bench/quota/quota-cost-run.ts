import { execFileSync } from 'child_process';
import { loadavg } from 'os';
import { join } from 'path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Client } from 'cassandra-driver';
import { startAbGateway, timedRound } from '../lib/ab-gateway';
import { freePort } from '@ostore/testing';
import { GatewayProcess, REPO_ROOT } from '../lib/gateway';
import { positiveIntFlag } from '../lib/args';
import { median } from '../lib/median';

/** PUTs `count` objects of `size` bytes into `bucket` with `concurrency` in flight; returns the gateway CPU ms spent. */
async function round(gw: GatewayProcess, s3: S3Client, bucket: string, prefix: string, count: number, concurrency: number, size: number): Promise<number> {
  const body = Buffer.alloc(size, 7);
  return (await timedRound(gw, count, concurrency, async (i) => void (await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/${i}`, Body: body }))))).cpuMs;
}

/** Requests Cassandra coordinated on the quota ledger table so far (reads, writes), from its virtual tables. */
async function ledgerRequests(admin: Client, keyspace: string): Promise<{ reads: number; writes: number }> {
  const count = async (table: string) => {
    const rs = await admin.execute(`SELECT count FROM system_views.${table} WHERE keyspace_name = ? AND table_name = ?`, [keyspace, 'bucket_quota_ledger']);
    return rs.rows.reduce((sum, r) => sum + Number(r['count']), 0);
  };
  return { reads: await count('coordinator_read_latency'), writes: await count('coordinator_write_latency') };
}

/** The bench: see quota-cost.mjs. */
export async function main(argv: string[]): Promise<number> {
  const flag = (name: string, fallback: number) => positiveIntFlag(argv, name, fallback);
  const rounds = flag('rounds', 6);
  const puts = flag('puts', 300);
  const concurrency = flag('concurrency', 8);
  const size = flag('size', 1024);
  const runtime = argv.includes('--from-sources') ? 'register' : 'dist';
  const li = argv.indexOf('--ledger-interval-ms');
  // 0: a ledger read per admission and a counter update per PUT (the exact path everywhere, as before the batching)
  const ledgerEnv: Record<string, string> = li >= 0 ? { QUOTA_LEDGER_INTERVAL_MS: String(Number(argv[li + 1])) } : {};
  // the built gateway (npm run build) must be newer than every source file
  if (runtime === 'dist') execFileSync(process.execPath, [join(REPO_ROOT, 'tools/build/build.mjs'), '--check'], { stdio: 'inherit' });
  const adminPort = await freePort();
  const ab = await startAbGateway('quota', {
    accessKeyId: 'OSTOREBENCHQUOTA0001',
    runtime,
    extraEnv: { ADMIN_TOKEN: 'bench-quota-admin-token-0000', ADMIN_PORT: String(adminPort), ...ledgerEnv },
  });
  const { gw, s3, keyspace } = ab;
  const admin = new Client({ contactPoints: [ab.cassandra.host], protocolOptions: { port: ab.cassandra.port }, localDataCenter: 'datacenter1' });
  await admin.connect();
  try {
    for (const Bucket of ['quota-off', 'quota-on']) await s3.send(new CreateBucketCommand({ Bucket }));
    const res = await fetch(`http://127.0.0.1:${adminPort}/admin/buckets/quota-on/quota`, {
      method: 'PUT',
      headers: { Authorization: 'Bearer bench-quota-admin-token-0000', 'Content-Type': 'application/json' },
      body: JSON.stringify({ maxBytes: 2 ** 50, maxObjects: 1e12 }),
    });
    if (!res.ok) throw new Error(`setting the quota: ${res.status} ${await res.text()}`);
    // warm-up (JIT, connections, prepared statements) on both
    for (const b of ['quota-off', 'quota-on']) await round(gw, s3, b, 'warm', Math.min(puts, 100), concurrency, size);
    const perPut = { off: [] as number[], on: [] as number[] };
    const loads: number[] = [];
    const ledger = { reads: 0, writes: 0 };
    for (let r = 0; r < rounds; r++) {
      const order: ('off' | 'on')[] = r % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      for (const which of order) {
        const before = await ledgerRequests(admin, keyspace);
        const ms = (await round(gw, s3, `quota-${which}`, `r${r}`, puts, concurrency, size)) / puts;
        const after = await ledgerRequests(admin, keyspace);
        if (which === 'on') {
          ledger.reads += after.reads - before.reads;
          ledger.writes += after.writes - before.writes;
        }
        perPut[which].push(ms);
        process.stdout.write(`round ${r} quota-${which}: ${ms.toFixed(3)} ms CPU per PUT\n`);
      }
      loads.push(loadavg()[0]);
    }
    const off = median(perPut.off);
    const on = median(perPut.on);
    const paired = median(perPut.on.map((v, i) => v - perPut.off[i]));
    const ratios = perPut.on.map((v, i) => v / perPut.off[i]);
    process.stdout.write(
      `\n${rounds} rounds of ${puts} PUTs of ${size} B each way, ${concurrency} in flight, gateway from ${runtime === 'dist' ? 'dist/ (npm run build)' : 'sources (swc register)'}, ${ledgerEnv['QUOTA_LEDGER_INTERVAL_MS'] ?? 'default'} ledger interval\n` +
        `load average (1 min) after each round: ${loads.map((l) => l.toFixed(1)).join(' ')}\n` +
        `median quotas off: ${off.toFixed(3)} ms gateway CPU per PUT\nmedian quota on:   ${on.toFixed(3)} ms gateway CPU per PUT\n` +
        `per-round ratios on/off: ${ratios.map((x) => x.toFixed(3)).join(' ')}; median ${median(ratios).toFixed(3)}\n` +
        `median of the per-round differences (on - off): ${paired.toFixed(3)} ms per PUT (target <= 0.05)\n` +
        `quota ledger requests per PUT into the quota bucket: ${(ledger.reads / (rounds * puts)).toFixed(4)} reads, ${(ledger.writes / (rounds * puts)).toFixed(4)} writes\n`,
    );
    return 0;
  } finally {
    await admin.shutdown();
    await ab.close();
  }
}
