import { randomBytes } from 'crypto';
import { loadavg } from 'os';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startAbGateway, timedRound } from '../lib/ab-gateway';
import type { GatewayProcess } from '../lib/gateway';
import { positiveIntFlag } from '../lib/args';
import { median } from '../lib/median';

type Mode = 'off' | 'on';
type Op = 'put' | 'get';

/** `count` operations with `concurrency` in flight; returns wall ms and gateway CPU ms. */
function round(gw: GatewayProcess, s3: S3Client, op: Op, mode: Mode, size: number, count: number, concurrency: number, body: Buffer) {
  const Bucket = `sse-${mode}`;
  const sse = mode === 'on' ? { ServerSideEncryption: 'AES256' as const } : {};
  return timedRound(gw, count, concurrency, async (i) => {
    const Key = `o-${size}-${i}`;
    if (op === 'put') await s3.send(new PutObjectCommand({ Bucket, Key, Body: body, ...sse }));
    else {
      const r = await s3.send(new GetObjectCommand({ Bucket, Key }));
      const got = await r.Body!.transformToByteArray();
      if (got.length !== size) throw new Error(`GET ${Bucket}/${Key}: ${got.length} bytes, expected ${size}`);
    }
  });
}

/** The bench: see sse-cost.mjs. */
export async function main(argv: string[]): Promise<number> {
  const flag = (name: string, fallback: number) => positiveIntFlag(argv, name, fallback);
  const rounds = flag('rounds', 3);
  const concurrency = flag('concurrency', 4);
  const cases = [
    { label: '4 KiB', size: 4096, ops: flag('small-ops', 300) },
    { label: `${flag('large-mib', 16)} MiB`, size: flag('large-mib', 16) * 1024 * 1024, ops: flag('large-ops', 6) },
  ];
  const ab = await startAbGateway('sse', {
    accessKeyId: 'OSTOREBENCHSSE000001',
    runtime: 'register',
    extraEnv: { S3_SSE_MASTER_KEYS: `bench=${randomBytes(32).toString('base64')}`, USAGE_DELTAS: 'off' },
  });
  const { gw, s3 } = ab;
  const load = [loadavg()[0]!];
  try {
    for (const mode of ['off', 'on'] as Mode[]) await s3.send(new CreateBucketCommand({ Bucket: `sse-${mode}` }));
    const lines: string[] = [];
    for (const c of cases) {
      const body = randomBytes(c.size);
      // warm-up (JIT, connections, prepared statements), which also stores the objects the GETs read
      for (const mode of ['off', 'on'] as Mode[]) {
        await round(gw, s3, 'put', mode, c.size, c.ops, concurrency, body);
        await round(gw, s3, 'get', mode, c.size, c.ops, concurrency, body);
      }
      for (const op of ['put', 'get'] as Op[]) {
        const wall: number[] = [];
        const cpu: number[] = [];
        for (let r = 0; r < rounds; r++) {
          const order: Mode[] = r % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
          const got: Record<Mode, { wallMs: number; cpuMs: number }> = {} as never;
          for (const mode of order) got[mode] = await round(gw, s3, op, mode, c.size, c.ops, concurrency, body);
          wall.push(got.on.wallMs / got.off.wallMs);
          cpu.push(got.on.cpuMs / got.off.cpuMs);
          load.push(loadavg()[0]!);
          process.stdout.write(
            `${c.label} ${op} round ${r}: off ${(got.off.wallMs / c.ops).toFixed(2)} ms/op (${(got.off.cpuMs / c.ops).toFixed(2)} CPU), ` +
              `on ${(got.on.wallMs / c.ops).toFixed(2)} ms/op (${(got.on.cpuMs / c.ops).toFixed(2)} CPU)\n`,
          );
        }
        lines.push(`| ${c.label} | ${op.toUpperCase()} | ${c.ops} | ${wall.map((x) => x.toFixed(3)).join(', ')} | **${median(wall).toFixed(3)}** | ${cpu.map((x) => x.toFixed(3)).join(', ')} | **${median(cpu).toFixed(3)}** |`);
      }
    }
    process.stdout.write(
      `\n${rounds} alternating rounds, ${concurrency} in flight; ratios are SSE-S3 on / off (1.0 = free)\n` +
        `| object | op | ops per round | wall ratio per round | median | gateway CPU ratio per round | median |\n|---|---|---|---|---|---|---|\n` +
        `${lines.join('\n')}\n` +
        `load average (1 min) during the run: ${load.map((l) => l.toFixed(1)).join(', ')}\n`,
    );
    return 0;
  } finally {
    await ab.close();
  }
}
