import { BucketCurrentUsage, CurrentUsageReader, StatsMetrics } from '@ostore/stats/data-access';
import { ContextLogger } from '@ostore/shared/observability';
import { CurrentUsageJson, ForwardFailed, UsageOwnerClient } from './usage-owner.client';
import { routeFor, UsageRoutes } from './usage-routes';

export interface CurrentUsageRouting {
  /** This replica's advertised URL (never forwarded to itself). */
  selfUrl?: string;
  /** 0: never forward. */
  timeoutMs: number;
}

/**
 * Answers a current-usage request where it is cheapest and exact: from the replica that reads the
 * bucket's usage partition (its memory), forwarded there once, or here (the reader: memory for
 * partitions read here, else Cassandra). A forward that fails or times out is answered here, and
 * its target is suspended for a moment so that the next requests do not wait for it too.
 * Forwarded answers are counted as path=forwarded; local ones by the reader (memory/cassandra).
 */
export class CurrentUsageRouter {
  constructor(
    private readonly reader: Pick<CurrentUsageReader, 'current'>,
    private readonly routes: UsageRoutes,
    private readonly owner: Pick<UsageOwnerClient, 'current'>,
    private readonly ownsPartition: (partition: number) => boolean,
    private readonly metrics: Pick<StatsMetrics, 'currentUsageAnswers'>,
    private readonly options: CurrentUsageRouting,
    private readonly log?: ContextLogger,
  ) {
    this.metrics.currentUsageAnswers.inc({ path: 'forwarded' }, 0);
  }

  /** Keeps the route map fresh off the request path (when forwarding is on), until stop(). */
  start(): void {
    if (this.options.timeoutMs > 0) this.routes.start();
  }

  stop(): void {
    this.routes.stop();
  }

  async current(bucketId: string, forwarded: boolean): Promise<BucketCurrentUsage | CurrentUsageJson> {
    const route = routeFor({
      bucketId,
      forwarded,
      enabled: this.options.timeoutMs > 0,
      ownsPartition: this.ownsPartition,
      map: forwarded || this.options.timeoutMs === 0 ? undefined : this.routes.current(),
      selfUrl: this.options.selfUrl,
      suspended: (url) => this.routes.suspended(url),
    });
    if (route.kind === 'forward') {
      try {
        const answer = await this.owner.current(route.url, bucketId, this.options.timeoutMs);
        this.metrics.currentUsageAnswers.inc({ path: 'forwarded' });
        return answer;
      } catch (e) {
        this.routes.suspend(route.url);
        this.log?.warn('current-usage forward failed: answered here, the owner suspended briefly', {
          owner: route.url,
          partition: route.partition,
          reason: e instanceof ForwardFailed ? e.reason : 'error',
          error: (e as Error).message,
        });
      }
    }
    return this.reader.current(bucketId);
  }
}
