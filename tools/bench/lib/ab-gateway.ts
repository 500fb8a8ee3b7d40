import { join } from 'path';
import { S3Client } from '@aws-sdk/client-s3';
import { dropKeyspace, GatewayProcess, REPO_ROOT } from './gateway';
import { readCpuTicks } from './proc';

/**
 * What the A/B cost benches (quota, SSE, policy: one gateway, two or more buckets that differ in
 * one setting, alternating rounds) share: starting their gateway on a fresh keyspace of the
 * running stack, and timing one round of operations by wall clock and the gateway's own CPU.
 */

const TICK_MS = 10; // USER_HZ 100

/** Wall and gateway CPU ms of one round. */
export interface RoundCost {
  wallMs: number;
  cpuMs: number;
}

/**
 * Runs `op(0) … op(count - 1)` with `concurrency` in flight; the wall time and the CPU the gateway
 * process spent meanwhile (utime + stime from /proc).
 */
export async function timedRound(gw: GatewayProcess, count: number, concurrency: number, op: (i: number) => Promise<void>): Promise<RoundCost> {
  const before = readCpuTicks(gw.pid!)!;
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await op(i);
    }),
  );
  return { wallMs: Number(process.hrtime.bigint() - started) / 1e6, cpuMs: (readCpuTicks(gw.pid!)! - before) * TICK_MS };
}

/** The order of the variants in round `r`: reversed every other round, so the box's drift falls on all. */
export function alternate<T>(variants: readonly T[], r: number): T[] {
  return r % 2 === 0 ? [...variants] : [...variants].reverse();
}

/** A bench gateway on a fresh keyspace of the stack at OSTORE_BENCH_CASSANDRA / OSTORE_BENCH_KAFKA. */
export interface AbGateway {
  gw: GatewayProcess;
  s3: S3Client;
  keyspace: string;
  cassandra: { host: string; port: number };
  /** Stops the gateway and drops its keyspace. */
  close(): Promise<void>;
}

/** Starts the gateway of an A/B bench named `name` (keyspace, block dir and log file carry it). */
export async function startAbGateway(name: string, opts: { accessKeyId: string; runtime: 'dist' | 'register'; extraEnv?: Record<string, string> }): Promise<AbGateway> {
  const [host, port] = (process.env['OSTORE_BENCH_CASSANDRA'] ?? '127.0.0.1:9042').split(':');
  const cassandra = { host: host!, port: Number(port ?? 9042) };
  const keyspace = `bench_${name}_${Date.now().toString(36)}`;
  const credentials = { user: 'bench', accessKeyId: opts.accessKeyId, secretAccessKey: `ostore-bench-${name}-secret-`.padEnd(40, '0') };
  const gw = new GatewayProcess({
    keyspace,
    cluster: keyspace.replace(/_/g, '-'),
    cassandraHost: cassandra.host,
    cassandraPort: cassandra.port,
    kafkaBrokers: (process.env['OSTORE_BENCH_KAFKA'] ?? '127.0.0.1:9092').split(','),
    credentials,
    blockStore: 'fs',
    blockDir: join(REPO_ROOT, '.stack', `bench-${name}-blocks`, keyspace),
    logFile: join(REPO_ROOT, 'tools/bench/results', `${name}-cost-${keyspace}.log`),
    runtime: opts.runtime,
    extraEnv: opts.extraEnv ?? {},
  });
  await gw.start();
  const s3 = new S3Client({ endpoint: gw.endpoint, region: 'us-east-1', credentials, forcePathStyle: true });
  return {
    gw,
    s3,
    keyspace,
    cassandra,
    close: async () => {
      s3.destroy();
      await gw.stop();
      await dropKeyspace({ contactPoints: [cassandra.host], protocolOptions: { port: cassandra.port }, localDataCenter: 'datacenter1' }, keyspace).catch(() => undefined);
    },
  };
}
