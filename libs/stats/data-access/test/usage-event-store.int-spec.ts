import { FakeClock } from '@ostore/shared/clock/testing';
import {
  compareEvents,
  CURRENT_LAYOUT,
  dayOf,
  EVENT_LAYOUTS,
  UsageEvent,
  WINDOW_MS,
  windowStart,
} from '@ostore/stats/domain';
import { statsStores, StatsStores, usageDelta } from '../src/testing';
import { eventOfDelta, UsageEventStore } from '../src';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const retention = { eventsSeconds: 7 * 24 * 3600, aggregatesSeconds: 30 * 24 * 3600 };
const bucketId = '0b6f7c1e-3d2a-4c55-8e61-9a7d2f4b1c10';
const otherBucketId = '7e0a4d3b-1c2f-4a6e-9b8d-5f3e2a1c0d99';
const pagedBucketId = 'c3d2e1f0-aaaa-4bbb-8ccc-123456789abc';

describe('usage event store', () => {
  // Starts at the wall clock, so that TTLs computed by the writer match the server's countdown.
  const clock = new FakeClock(Date.now());
  let s: StatsStores;

  beforeAll(async () => {
    s = await statsStores('usageevents', clock, retention);
  });
  afterAll(() => s?.close());

  async function eventTtls(events: UsageEvent[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const e of events) {
      const rs = await s.client.execute(
        `SELECT event_id, TTL(bytes) AS ttl, TTL(payload) AS payload_ttl FROM usage_events WHERE bucket_id = ? AND day = ? AND layout_version IN ? AND shard IN (0,1,2,3,4,5,6,7) AND occurred_at = ? AND event_id = ?`,
        [e.bucketId, dayOf(e.occurredAt), EVENT_LAYOUTS.map((l) => l.version), e.occurredAt, e.eventId],
      );
      for (const r of rs.rows) out.set(r['event_id'] as string, (r['payload_ttl'] ?? r['ttl']) as number);
    }
    return out;
  }

  async function aggregateRows(id: string, from: number, to: number) {
    const rows = await s.client.execute(
      `SELECT window_start, bytes, objects, events, TTL(bytes) AS ttl FROM usage_aggregates WHERE bucket_id = ? AND day IN ? AND window_start >= ? AND window_start < ?`,
      [id, [dayOf(from), dayOf(to)], new Date(from), new Date(to)],
    );
    return rows.rows.map((r) => ({
      window: (r['window_start'] as Date).getTime(),
      bytes: Number(r['bytes']),
      objects: Number(r['objects']),
      events: Number(r['events']),
      ttl: r['ttl'] as number,
    }));
  }

  it('a replayed batch changes no aggregate and no TTL', async () => {
    const w0 = windowStart(clock.nowMs() - 2 * HOUR).getTime();
    const deltas = Array.from({ length: 60 }, (_, i) =>
      usageDelta({
        bucketId,
        at: new Date(w0 + (i % 2) * WINDOW_MS + i * 1000),
        bytes: i % 5 === 4 ? -100 : 1000 + i,
        kind: i % 5 === 4 ? 'remove' : 'store',
        objects: i % 5 === 4 ? -1 : 1,
      }),
    );
    const first = await s.recorder.record(deltas);
    expect(first).toEqual({ stored: 60, duplicates: 0, expired: 0, windows: 2 });
    const aggregatesBefore = await aggregateRows(bucketId, w0, w0 + 2 * WINDOW_MS);
    const expectedBytes = (window: number) =>
      deltas.filter((d) => windowStart(d.at).getTime() === window).reduce((n, d) => n + d.bytes, 0);
    expect(aggregatesBefore.map(({ window, bytes, events }) => ({ window, bytes, events }))).toEqual([
      { window: w0, bytes: expectedBytes(w0), events: 30 },
      { window: w0 + WINDOW_MS, bytes: expectedBytes(w0 + WINDOW_MS), events: 30 },
    ]);
    const ttlsBefore = await eventTtls(deltas.map(eventOfDelta));
    expect(ttlsBefore.size).toBe(60);

    // an hour later the same deltas come again: part of the batch, then all of it shuffled, with in-batch repeats
    clock.advance(HOUR);
    const started = Date.now();
    const replays = [deltas.slice(10, 25), [...deltas].reverse().concat(deltas.slice(0, 5))];
    const results = [];
    for (const batch of replays) results.push(await s.recorder.record(batch));
    expect(results).toEqual([
      { stored: 0, duplicates: 15, expired: 0, windows: 2 },
      { stored: 0, duplicates: 65, expired: 0, windows: 2 },
    ]);
    const elapsedS = Math.ceil((Date.now() - started) / 1000) + 1;

    const aggregatesAfter = await aggregateRows(bucketId, w0, w0 + 2 * WINDOW_MS);
    expect(aggregatesAfter.map(({ ttl: _t, ...a }) => a)).toEqual(
      aggregatesBefore.map(({ ttl: _t, ...a }) => a),
    );
    const ttlsAfter = await eventTtls(deltas.map(eventOfDelta));
    for (const [id, before] of ttlsBefore) {
      const after = ttlsAfter.get(id)!;
      expect(after).toBeLessThanOrEqual(before); // never extended (a reset to full retention would add an hour)
      expect(after).toBeGreaterThanOrEqual(before - elapsedS - 5); // and only the wall clock's countdown
    }
    aggregatesAfter.forEach((a, i) => {
      expect(a.ttl).toBeLessThanOrEqual(aggregatesBefore[i].ttl);
      expect(a.ttl).toBeGreaterThanOrEqual(aggregatesBefore[i].ttl - elapsedS - 5);
    });
    clock.advance(-HOUR);
  });

  it('a reader paging across shards and days returns every event exactly once, in order', async () => {
    // 240 events 12 minutes apart span 47.8 hours: from 01:00 three UTC days ago they cover three days
    // whatever the time of day (from now - 51 h they covered two when the run started between 03:00
    // and 03:12 UTC, which failed a CI run), all in the past and well within the 7-day retention
    const start = Math.floor(clock.nowMs() / DAY) * DAY - 3 * DAY + HOUR;
    const deltas = Array.from({ length: 240 }, (_, i) =>
      // every third event shares its millisecond with the one before: the id breaks the tie
      usageDelta({
        bucketId: pagedBucketId,
        at: new Date(start + (i - (i % 3 === 2 ? 1 : 0)) * 12 * 60_000),
        eventId: `ev-${(i * 7919) % 1000}`,
      }),
    );
    const noise = Array.from({ length: 30 }, (_, i) =>
      usageDelta({ bucketId: otherBucketId, at: new Date(start + i * HOUR) }),
    );
    await s.recorder.record([...noise, ...deltas]);
    const from = new Date(start);
    const to = new Date(clock.nowMs());
    const expected = deltas
      .map(eventOfDelta)
      .sort(compareEvents)
      .map((e) => e.eventId);
    expect(new Set(dayOfAll(deltas.map((d) => d.at))).size).toBeGreaterThanOrEqual(3);

    const shards = await s.client.execute(
      `SELECT DISTINCT bucket_id, day, layout_version, shard FROM usage_events`,
      [],
    );
    expect(
      new Set(shards.rows.filter((r) => String(r['bucket_id']) === pagedBucketId).map((r) => r['shard']))
        .size,
    ).toBe(EVENT_LAYOUTS[0].shards);

    const paged: string[] = [];
    let cursor: Parameters<typeof s.events.page>[4];
    let pages = 0;
    do {
      const page = await s.events.page(pagedBucketId, from, to, 7, cursor);
      expect(page.events.length).toBeLessThanOrEqual(7);
      paged.push(...page.events.map((e) => e.eventId));
      cursor = page.next;
      pages++;
    } while (cursor);
    expect(paged).toEqual(expected);
    expect(pages).toBe(Math.ceil(240 / 7) + (240 % 7 === 0 ? 1 : 0));

    const streamed: UsageEvent[] = [];
    for await (const e of s.events.events(pagedBucketId, from, to, { pageSize: 3 })) streamed.push(e);
    expect(streamed.map((e) => e.eventId)).toEqual(expected);
    expect(streamed.every((e) => e.bucketId === pagedBucketId)).toBe(true);
    const byId = new Map(deltas.map((d) => [d.eventId, eventOfDelta(d)]));
    expect(streamed).toEqual(streamed.map((e) => byId.get(e.eventId)));
  });

  it('an event older than its deadline is not written', async () => {
    const now = clock.nowMs();
    const stale = usageDelta({
      bucketId: otherBucketId,
      at: new Date(now - retention.eventsSeconds * 1000 - 1000),
    });
    const fresh = usageDelta({
      bucketId: otherBucketId,
      at: new Date(now - retention.eventsSeconds * 1000 + 60_000),
    });
    const result = await s.recorder.record([stale, fresh]);
    expect(result).toEqual({ stored: 1, duplicates: 0, expired: 1, windows: 1 });
    const ttls = await eventTtls([eventOfDelta(stale), eventOfDelta(fresh)]);
    expect(ttls.has(stale.eventId)).toBe(false);
    expect(ttls.get(fresh.eventId)).toBeGreaterThan(50);
    expect(ttls.get(fresh.eventId)).toBeLessThanOrEqual(60);
    // the windows of both hold the fresh event only
    const aggregates = await aggregateRows(
      otherBucketId,
      windowStart(stale.at).getTime(),
      windowStart(fresh.at).getTime() + WINDOW_MS,
    );
    expect(aggregates.map(({ bytes, events }) => ({ bytes, events }))).toEqual([
      { bytes: fresh.bytes, events: 1 },
    ]);
  });
  it('events of an older layout stay readable beside the current one, in one order', async () => {
    const mixedBucketId = '4d3c2b1a-0f9e-4d8c-b7a6-554433221100';
    const start = windowStart(clock.nowMs() - 30 * 60_000).getTime();
    const deltas = Array.from({ length: 40 }, (_, i) =>
      usageDelta({ bucketId: mixedBucketId, at: new Date(start + i * 1000), bytes: 100 + i, objects: i % 2 }),
    );
    const v1 = EVENT_LAYOUTS[0];
    expect(v1.version).not.toBe(CURRENT_LAYOUT.version);
    const old = new UsageEventStore(s.client, clock, retention, v1);
    await old.write(deltas.filter((_, i) => i % 2 === 0).map(eventOfDelta));
    await s.events.write(deltas.filter((_, i) => i % 2 === 1).map(eventOfDelta));
    const versions = await s.client.execute(
      `SELECT DISTINCT bucket_id, day, layout_version, shard FROM usage_events`,
      [],
    );
    expect(
      new Set(
        versions.rows.filter((r) => String(r['bucket_id']) === mixedBucketId).map((r) => r['layout_version']),
      ),
    ).toEqual(new Set([v1.version, CURRENT_LAYOUT.version]));

    const expected = deltas.map(eventOfDelta).sort(compareEvents);
    const read: UsageEvent[] = [];
    for await (const e of s.events.events(mixedBucketId, new Date(start), new Date(clock.nowMs()), {
      pageSize: 4,
    }))
      read.push(e);
    expect(read).toEqual(expected);
    const window = await s.aggregates.windowEvents(mixedBucketId, new Date(start));
    expect(window.events).toBe(40);
    expect(window.bytes).toBe(deltas.reduce((n, d) => n + d.bytes, 0));
    expect(window.objects).toBe(20);
    expect(new Set(window.ids)).toEqual(new Set(deltas.map((d) => d.eventId)));
  });
});

function dayOfAll(ats: Date[]): number[] {
  return ats.map((a) => dayOf(a));
}
