import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import { CURRENT_LAYOUT, EventLayout } from '@ostore/stats/domain';
import { LocalUsageState } from './local/local-usage.state';
import { OwnedWindows } from './owned-windows';
import { StatsMetrics } from './stats.metrics';
import { UsageAggregateStore } from './usage-aggregate.store';
import { UsageEventStore, UsageRetention } from './usage-event.store';
import { UsageRecorder } from './usage-recorder';
import { UsageTotalsStore } from './usage-totals.store';

/** The stats stores over one session and the write path over them. */
export interface UsageStores {
  events: UsageEventStore;
  aggregates: UsageAggregateStore;
  totals: UsageTotalsStore;
  recorder: UsageRecorder;
}

/**
 * Wires the event, aggregate and totals stores and the recorder over the local state, as the app,
 * the specs and the bench use them; new events are written with `layout` (the current one unless
 * a bench compares layouts); the aggregates written are reported to `owned` when given.
 */
export function usageStores(
  client: CassandraClient,
  clock: Clock,
  retention: UsageRetention,
  metrics: StatsMetrics,
  local: LocalUsageState,
  options: { layout?: EventLayout; owned?: OwnedWindows } = {},
): UsageStores {
  const events = new UsageEventStore(client, clock, retention, options.layout ?? CURRENT_LAYOUT);
  const aggregates = new UsageAggregateStore(client, clock, retention);
  const totals = new UsageTotalsStore(client, clock, aggregates, retention);
  const recorder = new UsageRecorder(
    events,
    aggregates,
    totals,
    metrics,
    local,
    clock,
    retention,
    options.owned,
  );
  return { events, aggregates, totals, recorder };
}
