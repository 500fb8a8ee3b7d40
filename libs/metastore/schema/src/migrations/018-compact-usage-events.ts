import { Migration } from '../migration';

/**
 * Usage-event layout 2 (libs/stats/domain `EVENT_LAYOUTS`): a row keeps its key columns and one
 * `payload` cell (the event's kind, bytes, objects, source, source host and bucket name, encoded
 * by `@ostore/stats/data-access`'s row entity) instead of six regular cells. Same key, TTL and
 * write-timestamp policy as migration 8: the cell is written whole, once per delivery, `USING TTL`
 * = time left to the original deadline and `USING TIMESTAMP` = occurred_at, so a replay changes
 * neither the row nor its expiry. Rows of layout 1 keep their columns and stay readable.
 */
export const compactUsageEvents: Migration = {
  version: 18,
  name: 'compact-usage-events',
  statements: [`ALTER TABLE {ks}.usage_events ADD IF NOT EXISTS payload text`],
};
