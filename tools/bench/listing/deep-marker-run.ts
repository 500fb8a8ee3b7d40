import { cpus, loadavg, totalmem } from 'os';
import { Readable } from 'stream';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import type { S3Core } from '@ostore/s3/core';
import { createDriverClient, CassandraClient } from '@ostore/shared/cassandra';
import { median } from '../lib/median';
import { localStack } from '../lib/stack';
import { benchRun, coreOver } from '../lifecycle/bench-core';

interface Options {
  rounds: number;
  listings: number;
  depth: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { rounds: 5, listings: 5, depth: 1000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => Number(argv[++i]);
    if (a === '--rounds') o.rounds = v();
    else if (a === '--listings') o.listings = v();
    else if (a === '--depth') o.depth = v();
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
const owner = { id: 'bench', displayName: 'Bench' };

/** One side of the comparison: a core and the session whose requests are counted. */
interface Side {
  name: 'before' | 'after';
  core: S3Core;
  client: CassandraClient;
}

/** A whole ListObjectsV2 walk after `startAfter` (every page): its keys, pages, requests, wall time and slowest request. */
async function walk(side: Side, bucket: string, startAfter: string) {
  let requests = 0;
  const execute = side.client.execute.bind(side.client);
  side.client.execute = (...a: Parameters<CassandraClient['execute']>) => {
    requests++;
    return execute(...a);
  };
  const t = performance.now();
  try {
    const keys: string[] = [];
    let from: { after?: string; afterGroup?: boolean } = { after: startAfter };
    let pages = 0;
    let slowestMs = 0;
    for (;;) {
      const started = performance.now();
      const page = await side.core.objects.list({ bucket, ...from, resumable: true, maxKeys: 1000 });
      slowestMs = Math.max(slowestMs, performance.now() - started);
      pages++;
      keys.push(...page.contents.map((c) => c.key));
      if (!page.isTruncated) break;
      from = { after: page.nextAfter, afterGroup: page.nextAfterGroup };
    }
    return { ms: performance.now() - t, slowestMs, keys, pages, requests };
  } finally {
    side.client.execute = execute;
  }
}

export async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  const info = await localStack().ensureStackUp({ quiet: true });
  const { keyspace, cassandra } = benchRun(info, 'deepmarker');
  const admin = createDriverClient(cassandra, false);
  await admin.connect();
  await new MigrationRunner(admin).migrate(migrations, { keyspace, replication: parseReplication('SimpleStrategy:1') });
  await admin.shutdown();
  const sides: Side[] = [
    { name: 'before', ...(await coreOver({ ...cassandra, keyspace }, { listingLevelBudget: Infinity })) },
    { name: 'after', ...(await coreOver({ ...cassandra, keyspace })) },
  ];
  const core = sides[1].core;
  const others = ['a/x', 'z/y', 'zz'];
  const deep = '/'.repeat(o.depth);
  const put = (bucket: string, key: string) => core.objects.put({ bucket, key, owner, body: Readable.from([Buffer.from('x')]), meta: { userMeta: {} } });
  // made-up: the start key's path does not exist; chain: it does (a key 1,000 levels deep)
  const scenarios = [
    { name: 'made-up path', bucket: 'deep-made-up', keys: others, startAfter: deep },
    { name: 'existing chain', bucket: 'deep-chain', keys: [...others, deep + 'k'], startAfter: deep + 'k' },
  ];
  for (const s of scenarios) {
    await core.buckets.create({ name: s.bucket, owner, location: '', acl: 'private' });
    for (const k of s.keys) await put(s.bucket, k);
  }
  console.log(`[deep-marker] depth ${o.depth}, ${o.rounds} rounds of ${o.listings} walks per side; keyspace ${keyspace}`);
  const rows: Record<string, unknown>[] = [];
  for (const s of scenarios) {
    for (const side of sides) await walk(side, s.bucket, s.startAfter); // warm the prepared statements
    for (let r = 1; r <= o.rounds; r++) {
      const ms: Record<string, number[]> = { before: [], after: [] };
      const slowest: Record<string, number[]> = { before: [], after: [] };
      const facts: Record<string, { pages: number; requests: number }> = {};
      for (let i = 0; i < o.listings; i++) {
        // interleaved, the order alternating, so that load drift hits both sides alike
        for (const side of i % 2 ? [...sides].reverse() : sides) {
          const w = await walk(side, s.bucket, s.startAfter);
          if (w.keys.join('\n') !== others.join('\n')) throw new Error(`${side.name} listed ${JSON.stringify(w.keys)}`);
          ms[side.name].push(w.ms);
          slowest[side.name].push(w.slowestMs);
          facts[side.name] = { pages: w.pages, requests: w.requests };
        }
      }
      const row = {
        scenario: s.name,
        round: r,
        beforeMs: round(median(ms.before)),
        afterMs: round(median(ms.after)),
        ratio: round(median(ms.after) / median(ms.before), 3),
        slowestRequestBeforeMs: round(median(slowest.before)),
        slowestRequestAfterMs: round(median(slowest.after)),
        requestRatio: round(median(slowest.after) / median(slowest.before), 3),
        before: facts.before,
        after: facts.after,
        load: round(loadavg()[0]),
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
  for (const side of sides) await side.client.shutdown();
  const machine = { cpus: cpus().length, model: cpus()[0]?.model, memGiB: round(totalmem() / 2 ** 30, 1), load: loadavg().map((l) => round(l)) };
  console.log(JSON.stringify({ machine, options: o, rows }, null, 2));
  return 0;
}
