import { OnApplicationBootstrap, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import type { Client } from 'cassandra-driver';
import { sleep } from '@ostore/shared/clock';
import type { ContextLogger } from '@ostore/shared/observability';

const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;

/**
 * A scanner loop (the lifecycle scan, the empty-directory cleanup) over its own pinned Cassandra
 * session: `step()` runs until it says how long to wait; a failing step is retried after a backoff
 * doubling from 1 s up to a minute.
 *
 * Shutdown: `onModuleDestroy` runs before the queue producer and the shared Cassandra session
 * close; it aborts `signal` (a step stops at its next page boundary, publishing what is pending
 * and saving its position) and waits for the loop; `onApplicationShutdown` then closes the
 * loop's own session.
 */
export abstract class BackgroundLoop implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly stop = new AbortController();
  private loop?: Promise<void>;
  /** The loop's own session, once `step()` opened it. */
  protected session?: Client;

  protected abstract readonly log: ContextLogger;
  /** What the log says when a step fails. */
  protected abstract readonly failure: string;

  /** One step of the loop; resolves with the milliseconds to wait before the next. */
  protected abstract step(signal: AbortSignal): Promise<number>;

  protected get signal(): AbortSignal {
    return this.stop.signal;
  }

  onApplicationBootstrap(): void {
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.stop.abort();
    await this.loop;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.session?.shutdown().catch(() => undefined);
  }

  private async run(): Promise<void> {
    let backoffMs = FIRST_BACKOFF_MS;
    while (!this.stop.signal.aborted) {
      try {
        const waitMs = await this.step(this.stop.signal);
        backoffMs = FIRST_BACKOFF_MS;
        if (waitMs > 0) await sleep(waitMs, this.stop.signal);
      } catch (e) {
        this.log.error(this.failure, { err: e, retryInMs: backoffMs });
        await sleep(backoffMs, this.stop.signal);
        backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
      }
    }
  }
}
