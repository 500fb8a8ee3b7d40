import { randomBytes } from 'crypto';
import { join, resolve } from 'path';

/** How this test run's own stack is addressed (the options of `tools/stack`, set by the global setup). */
export interface TestStack {
  stackDir: string;
  cassandraHost: string;
  cassandraPort: number;
  cassandraStoragePort: number;
  kafkaHost: string;
  kafkaPort: number;
  kafkaControllerPort: number;
}

/** This run's own stack: never the default `.stack` or its ports (see tools/stack/test-slots.cjs). */
export function testStack(): TestStack {
  const json = process.env.OSTORE_TEST_STACK;
  if (!json) throw new Error('integration specs need the global setup (run them through `npm test` or `npx jest`)');
  return JSON.parse(json) as TestStack;
}

/** Connection facts of the stack the global setup started for this run. */
export function stackEnv(): {
  cassandraHost: string;
  cassandraPort: number;
  kafkaBrokers: string[];
  run: string;
} {
  const run = process.env.OSTORE_TEST_RUN;
  if (!run) throw new Error('integration specs need the global setup (run them through `npm test`)');
  return {
    cassandraHost: process.env.OSTORE_TEST_CASSANDRA_HOST!,
    cassandraPort: Number(process.env.OSTORE_TEST_CASSANDRA_PORT),
    kafkaBrokers: process.env.OSTORE_TEST_KAFKA_BROKERS!.split(','),
    run,
  };
}

/** A fresh keyspace name for one spec; the test environment drops it when the spec file ends. */
export function freshKeyspace(label: string): string {
  const name = `${stackEnv().run}_${label.replace(/[^a-z0-9]/g, '').slice(0, 16)}_${randomBytes(3).toString('hex')}`;
  const registry = globalThis as { __ostoreKeyspaces?: string[] };
  (registry.__ostoreKeyspaces ??= []).push(name);
  return name;
}

/** A fresh metastore cluster name, so each spec's Kafka topics are its own. */
export function freshCluster(label: string): string {
  return `${stackEnv().run}-${label.replace(/[^a-z0-9]/g, '').slice(0, 12)}-${randomBytes(3).toString('hex')}`.toLowerCase();
}

/** Driver options for the test stack (structurally the CassandraOptions of @ostore/shared/cassandra). */
export function cassandraOptions(keyspace: string) {
  const env = stackEnv();
  return {
    contactPoints: [env.cassandraHost],
    port: env.cassandraPort,
    localDataCenter: 'datacenter1',
    keyspace,
    consistency: 'localQuorum' as const,
    serialConsistency: 'localSerial' as const,
    requestTimeoutMs: 12000,
    applicationName: 'ostore-tests',
  };
}

/** The environment an app process needs to talk to the test stack. */
export function appEnv(keyspace: string, cluster: string): Record<string, string> {
  const env = stackEnv();
  return {
    OSTORE_CLUSTER: cluster,
    CASSANDRA_CONTACT_POINTS: env.cassandraHost,
    CASSANDRA_PORT: String(env.cassandraPort),
    CASSANDRA_KEYSPACE: keyspace,
    KAFKA_BROKERS: env.kafkaBrokers.join(','),
    // blocks go to the run's stack dir, never to the development system's .stack/blocks
    BLOCK_STORE_DIR: join(testStack().stackDir, 'blocks', keyspace),
    BLOCK_COLD_DIR: join(testStack().stackDir, 'blocks', `${keyspace}-cold`),
    LOG_LEVEL: 'info',
  };
}

/** Thrown by a waitFor probe when waiting longer cannot help (e.g. the process waited for exited). */
export class GiveUpWaiting extends Error {}

/**
 * Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`.
 * A probe error is remembered and retried, except GiveUpWaiting, which ends the wait at once.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      if (e instanceof GiveUpWaiting) throw new Error(`gave up waiting for ${what}: ${e.message}`);
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Runs a `tools/stack/stack.mjs` command (e.g. `stop-cassandra`) as a user would, on this run's own
 * stack only: its stack dir is passed explicitly, and the default stack dir is refused.
 */
export async function stackCommand(...args: string[]): Promise<void> {
  const { execFile } = await import('child_process');
  const own = testStack();
  if (resolve(own.stackDir) === resolve(__dirname, '../../.stack')) throw new Error(`refusing to run stack ${args.join(' ')} on the default stack dir`);
  const env = { ...process.env, OSTORE_STACK_DIR: own.stackDir };
  await new Promise<void>((done, fail) =>
    execFile(process.execPath, [resolve(__dirname, '../stack/stack.mjs'), ...args], { env }, (err, _out, stderr) =>
      err ? fail(new Error(`stack ${args.join(' ')} failed: ${stderr}`)) : done(),
    ),
  );
}

/** SIGKILLs process `pid` (no clean shutdown) and resolves once it is gone (polling every `pollMs`, for at most 30 s). */
export async function sigkillAndWait(pid: number, what: string, pollMs = 100): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await waitFor(
    `${what} (pid ${pid}) gone`,
    async () => {
      try {
        process.kill(pid, 0);
        return undefined;
      } catch {
        return true;
      }
    },
    30_000,
    pollMs,
  );
}
