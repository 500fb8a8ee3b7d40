import { randomUUID } from 'crypto';
import { mkdtemp, rm } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';
import { indexKey, LocalWindow } from './local-usage.entity';
import { LocalStateConflictError, LocalUsageState } from './local-usage.state';

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

/** The windows kept in memory beside LevelDB: the same answers, without reading LevelDB again. */
describe('LocalUsageState windows in memory', () => {
  const dirs: string[] = [];
  const states: LocalUsageState[] = [];
  async function open(dir?: string): Promise<LocalUsageState> {
    const d = dir ?? (await mkdtemp(join(tmpdir(), 'ostore-local-windows-')));
    if (!dir) dirs.push(d);
    const s = await LocalUsageState.open(d);
    states.push(s);
    return s;
  }
  afterEach(async () => {
    for (const s of states.splice(0)) await s.close().catch(() => undefined);
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });
  const key = { bucketId: 'b1', start: START };
  /** A store of its own holding `w` (rebuilt, three dedup entries), open. */
  async function storeWith(w: LocalWindow): Promise<{ dir: string; state: LocalUsageState }> {
    const dir = await mkdtemp(join(tmpdir(), 'ostore-local-windows-'));
    dirs.push(dir);
    const state = await open(dir);
    await state.commit({ windows: [{ window: w, rebuilt: true, ids: uuids(3) }], marks: [] });
    return { dir, state };
  }

  it('answers a window the process wrote without reading LevelDB, with what LevelDB holds', async () => {
    const first = win('b1', 3, 1);
    const { dir, state } = await storeWith(first);
    const lookups = state.windowLookups;
    const [previous] = await state.windows([key]);
    expect(previous).toEqual(first);
    const next = win('b1', 5, 2);
    await state.commit({ windows: [{ window: next, previous, rebuilt: false, ids: uuids(2) }], marks: [] });
    expect(await state.windows([key])).toEqual([next]);
    // the build's read, the commit's check and the read after: none went to LevelDB
    expect(state.windowLookups).toBe(lookups);
    await state.close();
    const reopened = await open(dir);
    expect(await reopened.windows([key, { bucketId: 'b2', start: START }])).toEqual([next, undefined]);
  });

  /** Holds the next LevelDB `getMany` of `state` once it has read, until `release`: a read that writes overtake. */
  function holdNextRead(state: LocalUsageState) {
    const db = (state as unknown as { db: { getMany: (keys: string[]) => Promise<(string | undefined)[]> } }).db;
    const getMany = db.getMany.bind(db);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const spy = jest.spyOn(db, 'getMany').mockImplementationOnce(async (keys: string[]) => {
      const values = await getMany(keys);
      await gate;
      return values;
    });
    return { release, restore: () => spy.mockRestore() };
  }

  it('a read that an eviction overtakes neither fills the memory nor lets a batch build on the evicted window', async () => {
    const { dir, state: writer } = await storeWith(win('b1', 3, 7));
    await writer.close();
    // a fresh process: nothing in memory, so the read goes to LevelDB, and the eviction lands before it returns
    const state = await open(dir);
    const held = holdNextRead(state);
    const reading = state.windows([key]);
    await state.evict(indexKey(7, 'b1', START));
    held.release();
    const [previous] = await reading;
    held.restore();
    expect(previous).toEqual(win('b1', 3, 7));
    expect(await state.windows([key])).toEqual([undefined]);
    await expect(
      state.commit({ windows: [{ window: win('b1', 4, 8), previous, rebuilt: false, ids: ['x'] }], marks: [] }),
    ).rejects.toThrow(LocalStateConflictError);
  });

  it('a read that a commit overtakes does not put the older value back', async () => {
    const first = win('b1', 3, 1);
    const { dir, state: writer } = await storeWith(first);
    await writer.close();
    const state = await open(dir);
    const held = holdNextRead(state);
    const reading = state.windows([key]);
    const next = win('b1', 4, 2);
    await state.commit({ windows: [{ window: next, previous: first, rebuilt: false, ids: ['y'] }], marks: [] });
    held.release();
    expect(await reading).toEqual([first]);
    held.restore();
    expect(await state.windows([key])).toEqual([next]);
  });
});
