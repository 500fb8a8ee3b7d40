import { randomUUID } from 'crypto';
import { mkdtemp, rm } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';
import { indexKey, LocalWindow } from './local-usage.entity';
import { LocalUsageState } from './local-usage.state';

const START = Date.UTC(2026, 11, 1, 12);
const uuids = (n: number) => Array.from({ length: n }, () => randomUUID());
const win = (bucketId: string, events: number, touchedAt: number, lease = 'L'): LocalWindow => ({
  bucketId,
  bucket: `b-${bucketId}`,
  start: START,
  bytes: events,
  objects: events,
  events,
  touchedAt,
  lease,
});

/** The dedup filters in front of LevelDB: never a different answer, far fewer lookups. */
describe('LocalUsageState dedup lookups', () => {
  const dirs: string[] = [];
  const states: LocalUsageState[] = [];
  async function open(dir?: string, dedupFilterBytes?: number): Promise<LocalUsageState> {
    const d = dir ?? (await mkdtemp(join(tmpdir(), 'ostore-local-dedup-')));
    if (!dir) dirs.push(d);
    const s = await LocalUsageState.open(d, dedupFilterBytes === undefined ? {} : { dedupFilterBytes });
    states.push(s);
    return s;
  }
  afterEach(async () => {
    for (const s of states.splice(0)) await s.close().catch(() => undefined);
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  /** Commits the same batches to `state`: a rebuilt window, then two batches on top of it. */
  async function batches(state: LocalUsageState, stored: string[], later: string[][]): Promise<void> {
    let previous: LocalWindow | undefined;
    let events = stored.length;
    let touchedAt = 1;
    await state.commit({
      windows: [{ window: (previous = win('b1', events, touchedAt)), rebuilt: true, ids: stored }],
      marks: [],
    });
    for (const ids of later) {
      events += ids.length;
      const next = win('b1', events, ++touchedAt);
      await state.commit({ windows: [{ window: next, previous, rebuilt: false, ids }], marks: [] });
      previous = next;
    }
  }

  it('answers as LevelDB alone does, and asks LevelDB only about ids the filter may hold', async () => {
    const stored = uuids(500);
    const later = [uuids(300), uuids(300)];
    const fresh = uuids(1000);
    const asked = [...stored, ...later[0], ...later[1], ...fresh].sort();
    const filtered = await open();
    const plain = await open(undefined, 0);
    await batches(filtered, stored, later);
    await batches(plain, stored, later);

    const before = filtered.filtered.lookups;
    const answer = await filtered.seen([{ bucketId: 'b1', start: START, ids: asked }]);
    expect(answer).toEqual(await plain.seen([{ bucketId: 'b1', start: START, ids: asked }]));
    expect(answer.filter(Boolean)).toHaveLength(1100);
    // the 1,100 stored ids are read to confirm them; of the 1,000 others only the filter's few false positives
    expect(filtered.filtered.lookups - before).toBeGreaterThanOrEqual(1100);
    expect(filtered.filtered.lookups - before).toBeLessThan(1100 + 30);
    expect(plain.filtered).toEqual({ windows: 0, bytes: 0, lookups: 2100 });
  });

  it('after a reopen (no filters) and after an eviction, LevelDB answers alone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ostore-local-dedup-'));
    dirs.push(dir);
    const stored = uuids(200);
    let state = await open(dir);
    await batches(state, stored, []);
    expect(state.filtered.windows).toBe(1);
    await state.close();
    state = await open(dir);
    expect(state.filtered.windows).toBe(0);
    const fresh = uuids(100);
    expect(await state.seen([{ bucketId: 'b1', start: START, ids: [...stored, ...fresh] }])).toEqual([
      ...stored.map(() => true),
      ...fresh.map(() => false),
    ]);
    expect(state.filtered.lookups).toBe(300);

    // a batch on the window of the previous run: it stays without a filter (the filter would miss the old ids)
    const [previous] = await state.windows([{ bucketId: 'b1', start: START }]);
    await state.commit({
      windows: [{ window: win('b1', 300, 9), previous, rebuilt: false, ids: fresh }],
      marks: [],
    });
    expect(state.filtered.windows).toBe(0);
    expect((await state.seen([{ bucketId: 'b1', start: START, ids: stored }])).every(Boolean)).toBe(true);

    // rebuilt under a new lease: covered again; evicted by the cleanup: not any more
    await state.commit({
      windows: [{ window: win('b1', 300, 10, 'L2'), rebuilt: true, ids: [...stored, ...fresh] }],
      marks: [],
    });
    expect(state.filtered.windows).toBe(1);
    await state.evict(indexKey(10, 'b1', START));
    expect(state.filtered).toEqual(expect.objectContaining({ windows: 0, bytes: 0 }));
  });
});
