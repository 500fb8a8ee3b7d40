import { execFileSync } from 'child_process';
import { loadavg } from 'os';
import { join } from 'path';
import { CreateBucketCommand, GetObjectCommand, PutBucketPolicyCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { alternate, RoundCost, startAbGateway, timedRound } from '../lib/ab-gateway';
import { positiveIntFlag } from '../lib/args';
import { REPO_ROOT } from '../lib/gateway';
import { median } from '../lib/median';
import { benchPolicyDocument } from './bench-policy';

/**
 * Authorization cost in the gateway (issue 12): gateway CPU and wall time per 4 KiB GET from a
 * bucket with ACLs and no policy (ObjectWriter, the pre-ownership path), one with the default
 * BucketOwnerEnforced and no policy, and one with a 12-statement policy, alternating in one run.
 */
const VARIANTS = [
  { name: 'writer', label: 'ObjectWriter, no policy (reference)' },
  { name: 'enforced', label: 'BucketOwnerEnforced (default), no policy' },
  { name: 'policy', label: 'BucketOwnerEnforced + 12-statement policy' },
] as const;
type Variant = (typeof VARIANTS)[number]['name'];

/** The bench: see policy-cost.mjs. */
export async function main(argv: string[]): Promise<number> {
  const flag = (name: string, fallback: number) => positiveIntFlag(argv, name, fallback);
  const rounds = flag('rounds', 5);
  const gets = flag('gets', 600);
  const concurrency = flag('concurrency', 8);
  const objects = flag('objects', 100);
  const runtime = argv.includes('--from-sources') ? 'register' : 'dist';
  if (runtime === 'dist') execFileSync(process.execPath, [join(REPO_ROOT, 'tools/build/build.mjs'), '--check'], { stdio: 'inherit' });
  const ab = await startAbGateway('policy', { accessKeyId: 'OSTOREBENCHPOLICY001', runtime, extraEnv: { USAGE_DELTAS: 'off' } });
  const load = [loadavg()[0]!];
  try {
    const { s3, gw } = ab;
    const body = Buffer.alloc(4096, 7);
    const bucketOf = (v: Variant) => `pol-${v}`;
    for (const { name } of VARIANTS) {
      const Bucket = bucketOf(name);
      await s3.send(new CreateBucketCommand({ Bucket, ...(name === 'writer' ? { ObjectOwnership: 'ObjectWriter' as const } : {}) }));
      for (let i = 0; i < objects; i++) await s3.send(new PutObjectCommand({ Bucket, Key: `dir${i % 12}/o${i}`, Body: body }));
    }
    // the bench user reads through an Allow of its own besides the 12 statements every request is matched against
    const allowBench = { Sid: 'bench', Effect: 'Allow', Principal: { AWS: ['bench'] }, Action: 's3:GetObject', Resource: `arn:aws:s3:::${bucketOf('policy')}/*` };
    await s3.send(new PutBucketPolicyCommand({ Bucket: bucketOf('policy'), Policy: benchPolicyDocument(bucketOf('policy'), [allowBench]) }));
    const round = (v: Variant) =>
      timedRound(gw, gets, concurrency, async (i) => {
        const k = i % objects;
        const r = await s3.send(new GetObjectCommand({ Bucket: bucketOf(v), Key: `dir${k % 12}/o${k}` }));
        const got = await r.Body!.transformToByteArray();
        if (got.length !== body.length) throw new Error(`GET ${bucketOf(v)}: ${got.length} bytes`);
      });
    for (const { name } of VARIANTS) await round(name); // warm-up: JIT, connections, the parsed policy
    const costs: Record<Variant, RoundCost[]> = { writer: [], enforced: [], policy: [] };
    for (let r = 0; r < rounds; r++) {
      for (const { name } of alternate(VARIANTS, r)) {
        const c = await round(name);
        costs[name].push(c);
        process.stdout.write(`round ${r} ${name}: ${(c.cpuMs / gets).toFixed(3)} ms CPU, ${(c.wallMs / gets).toFixed(3)} ms wall per GET\n`);
      }
      load.push(loadavg()[0]!);
    }
    const per = (v: Variant, k: keyof RoundCost) => median(costs[v].map((c) => c[k] / gets));
    const ratios = (v: Variant, k: keyof RoundCost) => costs[v].map((c, i) => c[k] / costs.writer[i]![k]);
    const lines = VARIANTS.map(
      ({ name, label }) =>
        `| ${label} | ${per(name, 'cpuMs').toFixed(3)} | ${ratios(name, 'cpuMs').map((x) => x.toFixed(3)).join(', ')} | **${median(ratios(name, 'cpuMs')).toFixed(3)}** | ${per(name, 'wallMs').toFixed(3)} | **${median(ratios(name, 'wallMs')).toFixed(3)}** |`,
    );
    process.stdout.write(
      `\n${rounds} alternating rounds of ${gets} GETs of 4 KiB per bucket, ${concurrency} in flight, gateway from ${runtime === 'dist' ? 'dist/ (npm run build)' : 'sources'}; ratios to the ObjectWriter bucket in the same round\n` +
        `| bucket | median gateway CPU ms per GET | CPU ratio per round | median CPU ratio | median wall ms per GET | median wall ratio |\n|---|---|---|---|---|---|\n` +
        `${lines.join('\n')}\n` +
        `load average (1 min) during the run: ${load.map((l) => l.toFixed(1)).join(', ')}\n`,
    );
    return 0;
  } finally {
    await ab.close();
  }
}
