import { S3Client } from '@aws-sdk/client-s3';
import { AppProcess, appEnv, freshCluster, GatewayUnderTest, startGateway, waitFor } from '@ostore/testing';

export type QueueBackend = 'kafka' | 'cassandra';

/** The lifecycle "day" of the system under test (LIFECYCLE_DEBUG_DAY_SECONDS of scanner and scheduler). */
export const DEBUG_DAY_SECONDS = 10;
export const DAY_MS = DEBUG_DAY_SECONDS * 1000;

// management ports below the test stacks' slots (30000-31999, tools/stack/test-slots.cjs): a port
// drawn in there once met a running stack's storage port (EADDRINUSE at the scanner's boot)
let nextPort = 29000 + Math.floor(Math.random() * 200) * 4;

/** A scanner or scheduler process with its management endpoint. */
export class ManagedApp {
  constructor(
    readonly process: AppProcess,
    readonly managementUrl: string,
  ) {}

  /** Sum of the samples of a metric whose labels include `labels` (0 when there is none yet). */
  async metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    const text = await (await fetch(`${this.managementUrl}/metrics`)).text();
    const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
    return text
      .split('\n')
      .filter((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every((w) => l.includes(w)))
      .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  }

  /**
   * Resolves once it answers /health/ready; fails at once when it exits first (e.g. a failed boot).
   * Both waits end at the same deadline: minutes on a loaded machine.
   */
  async ready(): Promise<void> {
    const app = this.process.app;
    const exited = this.process.waitForExit(240_000).then((s) => {
      throw new Error(`${app} exited (${s.code ?? s.signal}) before it was ready:\n${this.logTail()}`);
    });
    exited.catch(() => undefined);
    const ready = waitFor(
      `${app} ready`,
      async () => {
        const res = await fetch(`${this.managementUrl}/health/ready`);
        await res.text();
        return res.status === 200 ? true : undefined;
      },
      240_000,
      250,
    );
    await Promise.race([ready, exited]);
  }

  /** The end of its log, without the per-action lines of the scheduler. */
  logTail(chars = 4000): string {
    return this.process.output
      .join('')
      .split('\n')
      .filter((l) => !l.includes('"lifecycle action '))
      .join('\n')
      .slice(-chars);
  }
}

/**
 * The whole lifecycle path as deployed, on a fresh keyspace: a gateway (the S3 API), a scanner
 * (scans the keyspace every second, publishes candidates) and a scheduler (applies them), with a
 * lifecycle day of DEBUG_DAY_SECONDS seconds and the candidates carried by QUEUE_BACKEND.
 * Blocks live in the Cassandra block store (hot and cold tier), shared by gateway and scheduler.
 */
export interface LifecycleSystem {
  backend: QueueBackend;
  gateway: GatewayUnderTest;
  s3: S3Client;
  scanner: ManagedApp;
  scheduler: ManagedApp;
  /** Resolves once scanner and scheduler answer /health/ready. */
  ready(): Promise<void>;
  /**
   * Polls `probe` until it returns a value, failing once the instant `deadlineMs` has passed (it
   * probes at least once); the failure carries the scanner's and scheduler's logs.
   */
  until<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined>): Promise<T>;
  /**
   * Waits until the instant `instantMs`, then until the scanner has completed a pass of each
   * table that *started* after it, and the scheduler has processed every candidate published up to
   * the end of those passes: whatever the system would do about the state at `instantMs`, it has
   * done.
   */
  settledAfter(instantMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** Settings of one app of the system beyond the defaults above (e.g. a faster folder cleanup). */
export interface LifecycleSystemEnv {
  gateway?: Record<string, string>;
  scanner?: Record<string, string>;
  scheduler?: Record<string, string>;
}

export async function startLifecycleSystem(backend: QueueBackend, extra: LifecycleSystemEnv = {}): Promise<LifecycleSystem> {
  const blocks = { BLOCK_STORE: 'cassandra', BLOCK_SIZE_BYTES: String(64 * 1024) };
  const gateway = await startGateway(`lc${backend}`, { ...blocks, ...extra.gateway });
  const cluster = freshCluster(`lc${backend}`);
  const common = {
    ...appEnv(gateway.keyspace, cluster),
    MANAGEMENT_HOST: '127.0.0.1',
    QUEUE_BACKEND: backend,
    KAFKA_TOPIC_PARTITIONS: '3',
    LIFECYCLE_DEBUG_DAY_SECONDS: String(DEBUG_DAY_SECONDS),
    SHUTDOWN_TIMEOUT_MS: '10000',
    // the gateway has migrated the keyspace
    MIGRATE_ON_START: 'false',
  };
  const app = (name: 'scanner' | 'scheduler', env: Record<string, string>) => {
    const port = nextPort++;
    return new ManagedApp(new AppProcess(name, { ...common, MANAGEMENT_PORT: String(port), ...env }).start(), `http://127.0.0.1:${port}`);
  };
  const scanner = app('scanner', {
    SCANNER_HOST_INDEX: '0',
    SCAN_INTERVAL_SECONDS: '1',
    SCAN_CHECKPOINT_SECONDS: '1',
    SCAN_RATE_LIMIT_ROWS_PER_SECOND: '0',
    ...extra.scanner,
  });
  const scheduler = app('scheduler', { ...blocks, QUEUE_SESSION_TIMEOUT_MS: '6000', ...extra.scheduler });

  const diagnostics = () => `\n--- scanner ---\n${scanner.logTail()}\n--- scheduler ---\n${scheduler.logTail()}`;
  const until = async <T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined>): Promise<T> => {
    try {
      return await waitFor(what, probe, Math.max(0, deadlineMs - Date.now()), 400);
    } catch (e) {
      throw new Error(`${(e as Error).message}${diagnostics()}`);
    }
  };
  const passes = (table: string) => scanner.metric('ostore_scanner_passes_total', { table, outcome: 'completed' });
  const settledAfter = async (instantMs: number) => {
    await waitFor('the instant', async () => (Date.now() >= instantMs ? true : undefined), Math.max(0, instantMs - Date.now()) + 5000, 100);
    // a pass running now may have started before the instant; the one after it has not
    const before = { versions: await passes('versions'), uploads: await passes('uploads') };
    await until('two more complete scan passes of each table', Date.now() + 30_000, async () =>
      (await passes('versions')) >= before.versions + 2 && (await passes('uploads')) >= before.uploads + 2 ? true : undefined,
    );
    for (const queue of ['versions', 'uploads']) {
      const published = await scanner.metric('ostore_scanner_candidates_published_total', { queue });
      await until(`the scheduler to process the ${published} ${queue} candidates published`, Date.now() + 30_000, async () =>
        (await scheduler.metric('ostore_queue_messages_processed_total', { queue })) >= published ? true : undefined,
      );
    }
  };

  return {
    backend,
    gateway,
    s3: gateway.client(),
    scanner,
    scheduler,
    ready: async () => {
      await Promise.all([scanner.ready(), scheduler.ready()]);
    },
    until,
    settledAfter,
    stop: async () => {
      await Promise.all([scanner.process.stop(), scheduler.process.stop()]);
      await gateway.stop();
    },
  };
}
