import { randomBytes } from 'crypto';
import { mkdirSync, writeFileSync } from 'fs';
import { cpus, loadavg, totalmem } from 'os';
import { resolve } from 'path';
import { S3Client } from '@aws-sdk/client-s3';
import { KafkaClient } from '@ostore/queue/data-access';
import { freePort } from '@ostore/testing';
import { dropKeyspace, GatewayProcess } from '../lib/gateway';
import {
  Layout,
  ListingResult,
  coreOver,
  createWideBucket,
  measureListings,
  scanOnce,
  SchedulerProcess,
  wideKeys,
  writeObjects,
} from './wide-directory-story';
import { localStack } from '../lib/stack';
import { benchRun } from './bench-core';

const ROOT = resolve(__dirname, '../../..');

interface Options {
  objects: number;
  layouts: Layout[];
  deleteFraction: number;
  concurrency: number;
  schedulerConcurrency: number;
  keep: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    objects: 200_000,
    layouts: ['interleaved', 'contiguous'],
    deleteFraction: 0.9,
    concurrency: 64,
    schedulerConcurrency: 48,
    keep: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i];
    if (a === '--objects') o.objects = Number(v());
    else if (a === '--layout') {
      const l = v();
      o.layouts = l === 'both' ? ['interleaved', 'contiguous'] : [l as Layout];
    } else if (a === '--delete') o.deleteFraction = Number(v());
    else if (a === '--concurrency') o.concurrency = Number(v());
    else if (a === '--scheduler-concurrency') o.schedulerConcurrency = Number(v());
    else if (a === '--keep') o.keep = true;
    else throw new Error(`unknown argument ${a}`);
  }
  for (const l of o.layouts) if (l !== 'interleaved' && l !== 'contiguous') throw new Error(`--layout: ${l}`);
  return o;
}

const round = (x: number | undefined, d = 1) => (x === undefined ? undefined : Number(x.toFixed(d)));
const log = (m: string) => console.log(`[wide-dir ${new Date().toISOString().slice(11, 19)}] ${m}`);

function summarizeListing(l: ListingResult) {
  return {
    firstPage: {
      bestMs: round(l.first.ms),
      medianMs: round(l.first.medianMs),
      keys: l.first.keys,
      error: l.first.error,
    },
    middlePage: {
      startAfter: l.middle.startAfter,
      bestMs: round(l.middle.ms),
      medianMs: round(l.middle.medianMs),
      keys: l.middle.keys,
      error: l.middle.error,
    },
    fullWalk: {
      seconds: round(l.walk.ms === undefined ? undefined : l.walk.ms / 1000, 2),
      pages: l.walk.pages,
      keys: l.walk.keys.length,
      slowestPageMs: round(l.walk.slowestPageMs),
      error: l.walk.error,
    },
  };
}

/** Whether `listed` is exactly the kept keys, in order. */
function exactly(listed: string[], expected: string[]): boolean {
  return listed.length === expected.length && listed.every((k, i) => k === expected[i]);
}

export async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  const info = await localStack().ensureStackUp({ quiet: true });
  const load0 = loadavg();
  const results: Record<string, unknown>[] = [];
  let ok = true;
  for (const layout of o.layouts) {
    const { run, keyspace, cluster, cassandra } = benchRun(info, 'wide');
    const work = resolve(ROOT, `tools/bench/.work/wide-${run}`);
    mkdirSync(work, { recursive: true });
    log(
      `${layout}: ${o.objects} objects in wide/, ${Math.round(o.deleteFraction * 100)} % expiring; keyspace ${keyspace}`,
    );

    // the gateway (it also creates and migrates the keyspace); listings go through it
    const credentials = {
      user: 'bench',
      accessKeyId: `AKIAWIDE${randomBytes(6).toString('hex').toUpperCase()}`,
      secretAccessKey: randomBytes(20).toString('hex'),
    };
    const gateway = new GatewayProcess({
      keyspace,
      cluster,
      cassandraHost: info.cassandra.host,
      cassandraPort: info.cassandra.port,
      kafkaBrokers: info.kafka.brokers,
      credentials,
      blockStore: 'cassandra',
      blockDir: resolve(work, 'blocks'),
      logFile: resolve(work, 'gateway.log'),
      // schema changes on a busy shared node can take longer than the default 12 s
      extraEnv: { CASSANDRA_REQUEST_TIMEOUT_MS: '60000' },
    });
    const cleanups: (() => Promise<unknown>)[] = [() => gateway.stop()];
    try {
      await gateway.start();
      const s3 = new S3Client({
        endpoint: gateway.endpoint,
        region: 'us-east-1',
        credentials,
        forcePathStyle: true,
        maxAttempts: 1,
      });
      const bucket = `wide-${layout}`;
      await createWideBucket(s3, bucket, layout);

      // 1. the objects
      const { core, client } = await coreOver(cassandra);
      cleanups.push(() => client.shutdown());
      const keys = wideKeys(layout, o.objects, o.deleteFraction);
      const kept = keys.filter((k) => !k.expires).map((k) => k.key);
      const write = await writeObjects(
        core,
        bucket,
        { id: credentials.user, displayName: credentials.user },
        keys,
        o.concurrency,
        (n) => log(`  wrote ${n}`),
      );
      log(`wrote ${keys.length} objects in ${write.seconds.toFixed(1)} s (${Math.round(write.perSecond)}/s)`);

      // 2. listings before
      const middleAfter = keys[Math.floor(keys.length / 2)].key;
      const before = await measureListings(s3, bucket, middleAfter);
      log(`listing before: ${JSON.stringify(summarizeListing(before))}`);

      // 3. scheduler, then one scan pass (one debug day after the last write: all are due)
      const kafka = new KafkaClient({
        brokers: info.kafka.brokers,
        clientId: 'bench-wide',
        cluster,
        partitions: 3,
        replicationFactor: 1,
      });
      cleanups.push(() => kafka.close());
      const scheduler = new SchedulerProcess(
        ROOT,
        {
          OSTORE_CLUSTER: cluster,
          CASSANDRA_CONTACT_POINTS: info.cassandra.host,
          CASSANDRA_PORT: String(info.cassandra.port),
          CASSANDRA_KEYSPACE: keyspace,
          KAFKA_BROKERS: info.kafka.brokers.join(','),
          KAFKA_TOPIC_PARTITIONS: '3',
          SCHEDULER_CONCURRENCY: String(o.schedulerConcurrency),
        },
        await freePort(),
        resolve(work, 'scheduler.log'),
      );
      cleanups.push(() => scheduler.stop());
      await scheduler.start();
      await new Promise((r) => setTimeout(r, 1100));
      const t0 = performance.now();
      const scan = await scanOnce({
        cassandra,
        db: client,
        nodeAddress: info.cassandra.host,
        kafka,
        source: `wide-${run}`,
      });
      log(`scan: ${JSON.stringify(scan)}`);
      const done = await scheduler.waitHandled(scan.candidates, 60 * 60_000, (c) =>
        log(`  scheduler ${JSON.stringify(c)}`),
      );
      const cleanupSeconds = (done.lastAt - t0) / 1000;
      const applySeconds = (done.lastAt - done.firstAt) / 1000;
      log(`cleanup: ${JSON.stringify(done)} ${cleanupSeconds.toFixed(1)} s after the scan started`);
      await scheduler.stop();

      // 4. listings after, with every tombstone still there
      const after = await measureListings(s3, bucket, middleAfter);
      log(`listing after: ${JSON.stringify(summarizeListing(after))}`);

      // 5. a second scan pass over the deleted directory (the scanner meets the tombstones too)
      const rescan = await scanOnce({
        cassandra,
        db: client,
        nodeAddress: info.cassandra.host,
        kafka,
        source: `wide-${run}-after`,
      }).catch((e: Error) => ({ error: e.message }));
      log(`second scan: ${JSON.stringify(rescan)}`);

      const listedOk =
        exactly(after.walk.keys, kept) &&
        exactly(
          before.walk.keys,
          keys.map((k) => k.key),
        );
      ok &&= listedOk && done.failed === 0 && done.applied === keys.length - kept.length;
      results.push({
        layout,
        objects: keys.length,
        expiring: keys.length - kept.length,
        insert: {
          seconds: round(write.seconds),
          perSecond: Math.round(write.perSecond),
          concurrency: o.concurrency,
        },
        scan,
        cleanup: {
          applied: done.applied,
          skipped: done.skipped,
          failed: done.failed,
          secondsFromScanStart: round(cleanupSeconds),
          applySeconds: round(applySeconds),
          deletionsPerSecond: Math.round(done.applied / applySeconds),
          schedulerConcurrency: o.schedulerConcurrency,
        },
        listingBefore: summarizeListing(before),
        listingAfter: summarizeListing(after),
        listedExactlyTheKeptKeys: listedOk,
        secondScan: rescan,
      });
    } finally {
      for (const c of cleanups.reverse()) await c().catch((e: Error) => log(`cleanup: ${e.message}`));
      if (!o.keep)
        await dropKeyspace(
          {
            contactPoints: [info.cassandra.host],
            protocolOptions: { port: info.cassandra.port },
            localDataCenter: 'datacenter1',
          },
          keyspace,
        ).catch(() => undefined);
    }
  }
  const summary = {
    machine: {
      nproc: cpus().length,
      cpu: cpus()[0]?.model,
      memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
      node: process.version,
    },
    loadBefore: load0.map((x) => x.toFixed(2)).join(' '),
    loadAfter: loadavg()
      .map((x) => x.toFixed(2))
      .join(' '),
    options: o,
    results,
  };
  const out = resolve(ROOT, `tools/bench/.work/wide-directory-${Date.now().toString(36)}.json`);
  writeFileSync(out, JSON.stringify(summary, null, 2));
  console.log(JSON.stringify(summary, null, 2));
  log(`results: ${out}`);
  return ok ? 0 : 1;
}
