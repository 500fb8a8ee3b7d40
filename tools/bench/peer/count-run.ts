/**
 * `npm run bench -- count-requests [--label before] [--requests 200] [--sizes 4KiB,32KiB,1MiB] [gateway options]`: the
 * Cassandra requests of each S3 operation, per request and per table, through one gateway on the
 * local stack. Operations run one at a time on keys of their own, so the counts are exact up to
 * the gateway's background work (block GC, usage publisher: none touch these tables per request).
 * Results: tools/bench/results/<date>-cassandra-requests.{md,json}, one section per label.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { PutBucketVersioningCommand } from '@aws-sdk/client-s3';
import { Bench, localDate, log, REGION, Target } from '../harness/bench';
import { startEnvironment } from '../harness/environment';
import { resultsDir } from '../harness/results';
import { parseArgs } from '../lib/args';
import { diffCounts, diffOps, s3RequestsByOperation } from '../lib/cassandra-stats';
import { gitCommit, machineInfo } from '../lib/machine';
import { ensureBucket, sdkClient } from '../lib/sdk-load';
import { parseSize, sizeLabel } from '../lib/units';
import { CountedOp, deleteBatches, putMany, runCounted } from './peer-ops';

interface CountRow {
  bucket: 'unversioned' | 'versioned';
  op: string;
  size: number;
  s3Requests: number;
  perRequest: { reads: number; writes: number; scans: number };
  tables: { table: string; reads: number; writes: number; scans: number }[];
}

interface CountSection {
  label: string;
  at: string;
  commit: string;
  command: string;
  gateway: string;
  rows: CountRow[];
}

const SIZES = [4 * 1024, 32 * 1024, 1024 * 1024];
/** The listing and DeleteObjects rows run at this size only (1,000 keys of it are uploaded). */
const SMALL = SIZES[0];

function takeOption(argv: string[], flag: string, fallback: string): string {
  const i = argv.indexOf(flag);
  if (i < 0) return fallback;
  const [v] = argv.splice(i, 2).slice(1);
  if (v === undefined) throw new Error(`${flag} needs a value`);
  return v;
}

async function measure(
  t: Target,
  run: () => Promise<number>,
): Promise<Omit<CountRow, 'bucket' | 'op' | 'size'>> {
  const cass0 = await t.cassandra!.snapshot();
  const ops0 = s3RequestsByOperation(await t.metrics!());
  const n = await run();
  const cass = diffCounts(cass0, await t.cassandra!.snapshot());
  const s3 = Object.values(diffOps(ops0, s3RequestsByOperation(await t.metrics!()))).reduce(
    (a, b) => a + b,
    0,
  );
  const tables = [...cass.entries()].map(([table, d]) => ({
    table,
    reads: d.reads / n,
    writes: d.writes / n,
    scans: d.scans / n,
  }));
  const sum = (k: 'reads' | 'writes' | 'scans') => tables.reduce((a, r) => a + r[k], 0);
  return {
    s3Requests: s3,
    perRequest: { reads: sum('reads'), writes: sum('writes'), scans: sum('scans') },
    tables,
  };
}

export async function main(argvIn: string[]): Promise<number> {
  const argv = [...argvIn];
  const label = takeOption(argv, '--label', 'current');
  const n = Number(takeOption(argv, '--requests', '200'));
  // `--sizes 64MiB --requests 10`: the large-object rows alone (what a big PUT costs Cassandra)
  const sizes = takeOption(argv, '--sizes', SIZES.map(sizeLabel).join(',')).split(',').map(parseSize);
  // `--only-delete-objects`: only the DeleteObjects of 1,000 keys rows (a quick before/after of that path)
  const onlyBatch = argv.includes('--only-delete-objects');
  if (onlyBatch) argv.splice(argv.indexOf('--only-delete-objects'), 1);
  const bench = new Bench(parseArgs(['small', ...argv]), ['count-requests', ...argvIn]);
  const env = await startEnvironment(bench);
  const rows: CountRow[] = [];
  try {
    const t = env.target;
    if (!t.cassandra || !t.metrics)
      throw new Error('count-requests needs a gateway started by the bench (no --endpoint)');
    const client = sdkClient(
      { endpoint: t.endpoint, region: REGION, accessKeyId: t.accessKey, secretAccessKey: t.secretKey },
      4,
    );
    for (const versioning of ['unversioned', 'versioned'] as const) {
      const bucket = bench.bucket(`count-${versioning.slice(0, 1)}`);
      await ensureBucket(client, bucket);
      if (versioning === 'versioned')
        await client.send(
          new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
        );
      for (const size of sizes) {
        const dir = `d${size}/`;
        // warm: the folder rows of the directory, the bucket cache, prepared statements
        await putMany(client, bucket, `${dir}warm`, 5, size, 1);
        const keys = Array.from({ length: n }, (_, i) => `${dir}k${String(i).padStart(5, '0')}`);
        const ops: [string, CountedOp][] = [
          ['PutObject (new key)', 'PutObject'],
          ['PutObject (overwrite)', 'PutObject'],
          ['GetObject', 'GetObject'],
          ['HeadObject', 'HeadObject'],
          ['ListObjectsV2 (delimiter, ≤ 1000 keys)', 'ListObjectsV2'],
          ['DeleteObject', 'DeleteObject'],
        ];
        for (const [name, op] of ops) {
          if (onlyBatch) break;
          if (versioning === 'versioned' && op !== 'PutObject' && op !== 'DeleteObject') continue;
          if (op === 'ListObjectsV2' && size !== SMALL) continue;
          const count = op === 'ListObjectsV2' ? Math.min(n, 50) : n;
          log(`count: ${versioning} ${name} ${sizeLabel(size)} × ${count}`);
          rows.push({
            bucket: versioning,
            op: name,
            size,
            ...(await measure(t, () => runCounted(client, bucket, op, keys, count, size))),
          });
        }
        if (onlyBatch && size !== SMALL) continue;
        if (size === SMALL) {
          // the vs-minio phase's request: 1,000 keys of one directory in one DeleteObjects
          const many = await putMany(client, bucket, `${dir}many/`, 1000, size, 8);
          log(`count: ${versioning} DeleteObjects of 1,000 keys`);
          rows.push({
            bucket: versioning,
            op: 'DeleteObjects (1,000 keys; per key)',
            size,
            ...(await measure(t, async () => {
              const { errors } = await deleteBatches(client, bucket, many, 1000);
              if (errors > 0) throw new Error(`DeleteObjects of 1,000 keys: ${errors} errors`);
              return many.length;
            })),
          });
        }
        if (versioning === 'unversioned' && size === SMALL && !onlyBatch) {
          await putMany(client, bucket, dir, n, size, 8);
          log(`count: DeleteObjects of 1 key × ${n}`);
          rows.push({
            bucket: versioning,
            op: 'DeleteObjects (1 key each)',
            size,
            ...(await measure(t, () => runCounted(client, bucket, 'DeleteObjects', keys, n, size))),
          });
        }
      }
    }
    client.destroy();
  } finally {
    await env.teardown();
  }
  const g = gitCommit();
  const section: CountSection = {
    label,
    at: new Date().toISOString(),
    commit: `${g.commit}${g.dirty ? ` + ${g.dirty} uncommitted files` : ''} (${g.subject})`,
    command: `npm run bench -- count-requests ${argvIn.join(' ')}`.trim(),
    gateway: env.tools['gateway'] ?? '',
    rows,
  };
  writeCounts(section, resultsDir(bench));
  return 0;
}

function writeCounts(section: CountSection, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const base = join(dir, `${localDate()}-cassandra-requests`);
  const prev: CountSection[] = existsSync(`${base}.json`)
    ? (JSON.parse(readFileSync(`${base}.json`, 'utf8')) as { sections: CountSection[] }).sections
    : [];
  const sections = [...prev.filter((s) => s.label !== section.label), section];
  const m = machineInfo();
  writeFileSync(`${base}.json`, JSON.stringify({ machine: m, sections }, null, 2) + '\n');
  const f = (x: number) => (x === 0 ? '0' : x.toFixed(2));
  const md: string[] = [
    '# Cassandra requests per S3 request',
    '',
    `Machine: ${m.nproc} cores (${m.cpuModel}), ${m.memory}, ${m.os}, node ${m.node}. Counts from system_views.coordinator_{read,write,scan}_latency of the bench keyspace (an LWT counts as a read, a batch as one write per table it touches).`,
    '',
  ];
  for (const s of sections) {
    md.push(
      `## ${s.label}`,
      '',
      `${s.at}, commit ${s.commit}`,
      '',
      '```sh',
      s.command,
      '```',
      '',
      `Gateway: ${s.gateway}`,
      '',
    );
    md.push(
      '| bucket | operation | size | reads | writes | scans | by table (r/w/s per request) |',
      '| --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const r of s.rows) {
      const byTable = r.tables.map((t) => `${t.table} ${f(t.reads)}/${f(t.writes)}/${f(t.scans)}`).join(', ');
      md.push(
        `| ${r.bucket} | ${r.op} | ${sizeLabel(r.size)} | ${f(r.perRequest.reads)} | ${f(r.perRequest.writes)} | ${f(r.perRequest.scans)} | ${byTable} |`,
      );
    }
    md.push('');
  }
  writeFileSync(`${base}.md`, md.join('\n'));
  log(`written ${base}.md`);
}
