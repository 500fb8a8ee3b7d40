import { GroupAssignment, usagePartitionOf } from '@ostore/queue/data-access';
import { Clock } from '@ostore/shared/clock';
import { ContextLogger } from '@ostore/shared/observability';

/**
 * Header of a current-usage request one replica forwarded to another: a request carrying it is
 * answered where it arrives, never forwarded again (one hop at most, no loop between replicas
 * whose maps disagree).
 */
export const FORWARDED_HEADER = 'x-ostore-stats-forwarded';

/** Who reads which usage partition, as the consumer group described it at `fetchedAtMs`. */
export interface RouteMap {
  fetchedAtMs: number;
  partitionCount: number;
  /** Partition → advertised URL of the member that reads it; only members that announced a URL. */
  owners: ReadonlyMap<number, string>;
}

/** What to do with one current-usage request. */
export type Route =
  | { kind: 'local'; reason: 'forwarded' | 'unknown' | 'owned' | 'self' | 'suspended' | 'disabled' }
  | { kind: 'forward'; url: string; partition: number };

export interface RouteInput {
  bucketId: string;
  /** The request carries FORWARDED_HEADER. */
  forwarded: boolean;
  /** Whether this process reads the usage partition now (its own subscription). */
  ownsPartition(partition: number): boolean;
  /** The newest map, undefined when none is fresh enough to use. */
  map: RouteMap | undefined;
  selfUrl?: string;
  /** True when a forward to this URL failed recently. */
  suspended(url: string): boolean;
  enabled: boolean;
}

/**
 * Where a current-usage request is answered. Every local answer is exact (the reader uses its
 * memory only for partitions this process reads, else Cassandra); forwarding only makes it
 * cheaper. So whenever the owner is not known for sure, the answer is local: a forwarded request,
 * no fresh map, a partition this process reads itself, an owner that is this process or that
 * announced no URL, or one that failed a moment ago.
 */
export function routeFor(input: RouteInput): Route {
  if (input.forwarded) return { kind: 'local', reason: 'forwarded' };
  if (!input.enabled) return { kind: 'local', reason: 'disabled' };
  const map = input.map;
  if (!map || map.partitionCount < 1) return { kind: 'local', reason: 'unknown' };
  const partition = usagePartitionOf(input.bucketId, map.partitionCount);
  if (input.ownsPartition(partition)) return { kind: 'local', reason: 'owned' };
  const url = map.owners.get(partition);
  if (!url) return { kind: 'local', reason: 'unknown' };
  if (url === input.selfUrl) return { kind: 'local', reason: 'self' };
  if (input.suspended(url)) return { kind: 'local', reason: 'suspended' };
  return { kind: 'forward', url, partition };
}

/**
 * The map of a group description: empty unless the group is stable (mid-rebalance the members'
 * partitions are those of no generation). A partition two members claim (cannot happen in a
 * stable group, but a map must never name a wrong owner) is left out.
 */
export function routeMapOf(group: GroupAssignment, fetchedAtMs: number): RouteMap {
  const owners = new Map<number, string>();
  const doubtful = new Set<number>();
  if (group.stable)
    for (const m of group.members) {
      if (!m.data) continue;
      for (const p of m.partitions) {
        if (owners.has(p) && owners.get(p) !== m.data) doubtful.add(p);
        owners.set(p, m.data);
      }
    }
  for (const p of doubtful) owners.delete(p);
  return { fetchedAtMs, partitionCount: group.partitionCount, owners };
}

/** Reads the usage consumer group's assignment (KafkaClient.groupAssignment in the app). */
export type GroupDescriber = () => Promise<GroupAssignment>;

/** The timer of the background re-read (a real, unref'd interval by default). */
export interface RefreshTimer {
  every(ms: number, fn: () => void): unknown;
  cancel(handle: unknown): void;
}

const realTimer: RefreshTimer = {
  every: (ms, fn) => setInterval(fn, ms).unref(),
  cancel: (handle) => clearInterval(handle as NodeJS.Timeout),
};

/**
 * The partition → replica map, re-read from the group coordinator every `refreshMs` off the
 * request path once `start()`ed (one DescribeGroups per interval), and lazily besides: a request
 * that finds the map older than that starts one re-read in the background and is routed by the
 * map it has, while that map is younger than 3 × `refreshMs` (a replica that stopped leaves the
 * group within its session timeout; until then forwards to it fail fast and suspend it). Without
 * the background re-read, the first request after a quiet spell of three intervals would find no
 * map and be answered locally. A failed re-read keeps the old map until it is too old, then routes
 * everything locally. Ages come from the injected clock.
 */
export class UsageRoutes {
  private map?: RouteMap;
  private refreshing?: Promise<void>;
  private lastAttemptMs = Number.NEGATIVE_INFINITY;
  private readonly suspendedUntil = new Map<string, number>();
  private timer?: unknown;
  private failing = false;

  constructor(
    private readonly describe: GroupDescriber,
    private readonly clock: Clock,
    private readonly options: { refreshMs: number; suspendMs: number },
    private readonly log?: ContextLogger,
    private readonly timers: RefreshTimer = realTimer,
  ) {}

  /** Re-reads the group now and every `refreshMs` until stop(). */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = this.timers.every(this.options.refreshMs, () => void this.refresh());
    void this.refresh();
  }

  stop(): void {
    if (this.timer !== undefined) this.timers.cancel(this.timer);
    this.timer = undefined;
  }

  /** The map to route by now, or undefined when none is fresh enough; keeps it fresh. */
  current(): RouteMap | undefined {
    const now = this.clock.nowMs();
    if (now - this.lastAttemptMs >= this.options.refreshMs) void this.refresh();
    const map = this.map;
    return map && now - map.fetchedAtMs < 3 * this.options.refreshMs ? map : undefined;
  }

  /** Re-reads the group now (one read at a time; a caller arriving meanwhile shares it). */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      this.lastAttemptMs = this.clock.nowMs();
      try {
        const group = await this.describe();
        this.map = routeMapOf(group, this.clock.nowMs());
        if (this.failing) this.log?.info('usage group assignment read again');
        this.failing = false;
      } catch (e) {
        // once per spell of failures, not once per interval
        if (!this.failing)
          this.log?.warn('usage group assignment not read; routing by the previous one while it is fresh', {
            error: (e as Error).message,
          });
        this.failing = true;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** A forward to `url` failed: route its partitions locally for `suspendMs`. */
  suspend(url: string): void {
    this.suspendedUntil.set(url, this.clock.nowMs() + this.options.suspendMs);
  }

  suspended(url: string): boolean {
    const until = this.suspendedUntil.get(url);
    if (until === undefined) return false;
    if (this.clock.nowMs() < until) return true;
    this.suspendedUntil.delete(url);
    return false;
  }
}
