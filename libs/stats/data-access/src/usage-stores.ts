import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import { LocalUsageState } from './local/local-usage.state';
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

/** Wires the event, aggregate and totals stores and the recorder over the local state, as the app, the specs and the bench use them. */
export function usageStores(
  client: CassandraClient,
  clock: Clock,
  retention: UsageRetention,
  metrics: StatsMetrics,
  local: LocalUsageState,
): UsageStores {
  const events = new UsageEventStore(client, clock, retention);
  const aggregates = new UsageAggregateStore(client, clock, retention);
  const totals = new UsageTotalsStore(client, clock, aggregates, retention);
  const recorder = new UsageRecorder(events, aggregates, totals, metrics, local, clock, retention);
  return { events, aggregates, totals, recorder };
}
