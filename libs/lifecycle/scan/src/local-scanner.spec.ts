import { AWS_TIMING, encodeStoredLifecycle, parseLifecycleXml } from '@ostore/lifecycle/rules';
import { VersionCandidate } from '@ostore/queue/contracts';
import { FakeClock } from '@ostore/shared/clock/testing';
import { MetricsRegistry } from '@ostore/shared/observability';
import { BucketCatalog } from './bucket-catalog';
import { LocalScanner, LocalScanSettings } from './local-scanner';
import { PageSource, RowPage } from './page-source';
import { BUCKET_ID, byVtsDesc, T0, vrow } from './scan-fixtures.spec-helper';
import { COMPLETED } from './scan-position';
import { ScannedVersionRow } from './scanned-object';
import { ScanMetrics } from './scan.metrics';
import { VersionsScanTask } from './scan-tasks';
import { InMemoryBucketSource, InMemoryPageSource, InMemoryScanStateStore, InMemoryTagSource, RecordingProducer } from './testing';
import { MAX_TOKEN, MIN_TOKEN, TokenSpan } from './token-ring';

const DAY = 86_400_000;
const WHOLE_RING: TokenSpan[] = [{ start: MIN_TOKEN, end: MAX_TOKEN }];
const silent = { info: () => undefined, warn: () => undefined };

const lifecycle = (rules: string) =>
  encodeStoredLifecycle(parseLifecycleXml(`<LifecycleConfiguration>${rules}</LifecycleConfiguration>`));
const EXPIRE_OLD = lifecycle(
  '<Rule><ID>old</ID><Filter><Prefix>old/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>' +
    '<Rule><ID>nc</ID><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>',
);

/** 40 directories × 5 objects: objects under old/ are 10 days old (due), others 0 days (not). */
function table(): ScannedVersionRow[] {
  const rows: ScannedVersionRow[] = [];
  for (let d = 0; d < 40; d++) {
    const token = BigInt(d * 1000 - 20_000);
    for (let o = 0; o < 5; o++) {
      const parent = d % 2 === 0 ? `old/d${d}/` : `new/d${d}/`;
      rows.push(vrow(`o${o}`, d % 2 === 0 ? 10 : 0, { token, parent }));
    }
  }
  return rows;
}

/** A page source that aborts `controller` after `n` pages. */
class StopAfter<T extends ScannedVersionRow> implements PageSource<T> {
  pages = 0;
  constructor(
    private readonly inner: PageSource<T>,
    private readonly n: number,
    private readonly controller: AbortController,
  ) {}
  async range(...args: Parameters<PageSource<T>['range']>): Promise<RowPage<T>> {
    return this.count(await this.inner.range(...args));
  }
  async partition(...args: Parameters<PageSource<T>['partition']>): Promise<RowPage<T>> {
    return this.count(await this.inner.partition(...args));
  }
  private count(page: RowPage<T>): RowPage<T> {
    if (++this.pages >= this.n) this.controller.abort();
    return page;
  }
}

/** A page source that calls `onPage` after each page it returns. */
class Tapped<T extends ScannedVersionRow> implements PageSource<T> {
  pages = 0;
  onPage: () => void = () => undefined;
  constructor(private readonly inner: PageSource<T>) {}
  async range(...args: Parameters<PageSource<T>['range']>): Promise<RowPage<T>> {
    return this.count(await this.inner.range(...args));
  }
  async partition(...args: Parameters<PageSource<T>['partition']>): Promise<RowPage<T>> {
    return this.count(await this.inner.partition(...args));
  }
  private count(page: RowPage<T>): RowPage<T> {
    this.pages++;
    this.onPage();
    return page;
  }
}

const PLAIN_ID = '5d0a6f5e-3b1c-4a8e-9f27-6c1d2e3f4a5b';
const GONE_ID = '7e1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

function setup(source: PageSource<ScannedVersionRow>, over: Partial<LocalScanSettings> = {}) {
  const clock = new FakeClock(T0);
  const registry = new MetricsRegistry('t', false);
  const metrics = new ScanMetrics(registry);
  const producer = new RecordingProducer(3);
  const state = new InMemoryScanStateStore();
  const buckets = new BucketCatalog(
    new InMemoryBucketSource([
      { bucketId: BUCKET_ID, name: 'logs', versioning: 'Enabled', lifecycle: EXPIRE_OLD },
      { bucketId: PLAIN_ID, name: 'plain', versioning: 'Unversioned' },
    ]),
  );
  const settings: LocalScanSettings = {
    source: 'node-a',
    keyspace: 'ks',
    hostIndex: 4,
    fetchSize: 7,
    rowsPerSecond: 0,
    checkpointMs: 0,
    publishBatch: 3,
    readRetryMs: 1,
    ...over,
  };
  const sut = new LocalScanner(settings, producer, state, clock, metrics, silent);
  const task = new VersionsScanTask(
    source,
    buckets,
    new InMemoryTagSource(),
    { timing: AWS_TIMING, overdueGraceMs: DAY, sourceHost: 'node-a' },
    metrics,
    silent,
  );
  const keys = () => producer.messages('versions').map((m) => VersionCandidate.fromMessage(m).key);
  return { sut, task, producer, state, registry, clock, keys };
}

const dueKeys = table()
  .filter((r) => r.parent.startsWith('old/'))
  .map((r) => r.parent + r.name)
  .sort();

describe(LocalScanner.name, () => {
  it('publishes one candidate per due object to its host partition and records a completed pass', async () => {
    const { sut, task, producer, state, registry, keys } = setup(new InMemoryPageSource(table(), byVtsDesc));
    const result = await sut.run(task, WHOLE_RING, new AbortController().signal);
    expect(result).toMatchObject({ outcome: 'completed', resumed: false });
    expect(keys().sort()).toEqual(dueKeys);
    expect(new Set(producer.published.map((p) => p.partition))).toEqual(new Set([1])); // 4 % 3
    expect(producer.published.every((p) => p.messages.length <= 3)).toBe(true);
    const last = await state.latest('node-a', 'ks', 'versions');
    expect(last?.status).toBe(COMPLETED);
    expect(last?.stat).toMatchObject({ rows: 200, objects: 200, candidates: 100, overdue: { logs: 100 } });
    const text = await registry.render();
    expect(text).toMatch(/ostore_scanner_versions_scanned_total\{app="t"\} 200/);
    expect(text).toMatch(/ostore_scanner_candidates_published_total\{queue="versions",app="t"\} 100/);
    expect(text).toMatch(/ostore_lifecycle_overdue_versions\{bucket="logs",app="t"\} 100/);
    expect(text).toMatch(/ostore_scanner_scan_duration_seconds_count\{app="t",table="versions"\} 1/);
  });

  it('stops at a page boundary and a restarted scanner continues where it stopped: every candidate exactly once', async () => {
    const rows = new InMemoryPageSource(table(), byVtsDesc);
    const controller = new AbortController();
    const first = setup(new StopAfter(rows, 9, controller));
    const stopped = await first.sut.run(first.task, WHOLE_RING, controller.signal);
    expect(stopped.outcome).toBe('stopped');
    const saved = await first.state.latest('node-a', 'ks', 'versions');
    expect(saved?.status).not.toBe(COMPLETED);
    expect(saved?.stat.rows).toBe(63);
    const before = first.keys();
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(dueKeys.length);

    // a new process: a new scanner and task over the same state store and topic
    const second = setup(rows);
    const sut = new LocalScanner(
      { source: 'node-a', keyspace: 'ks', hostIndex: 4, fetchSize: 7, rowsPerSecond: 0, checkpointMs: 0, publishBatch: 3 },
      first.producer,
      first.state,
      first.clock,
      new ScanMetrics(new MetricsRegistry('t2', false)),
      silent,
    );
    const queriesBefore = rows.queries;
    const done = await sut.run(second.task, WHOLE_RING, new AbortController().signal);
    expect(done).toMatchObject({ outcome: 'completed', resumed: true });
    expect(first.keys().sort()).toEqual(dueKeys); // exactly once: no duplicate, no gap
    expect(done.stats.rows).toBeGreaterThanOrEqual(200);
    expect(done.stats.objects).toBe(200);
    expect(done.stats.resumes).toBe(1);
    expect(rows.queries - queriesBefore).toBeLessThan(30);
  });

  it('after a crash republishes at most what followed the last checkpoint, and loses nothing', async () => {
    const rows = new InMemoryPageSource(table(), byVtsDesc);
    const first = setup(rows, { checkpointMs: 60_000 });
    let calls = 0;
    const publish = first.producer.publish.bind(first.producer);
    first.producer.publish = async (...args: Parameters<RecordingProducer['publish']>) => {
      if (++calls === 20) throw new Error('kafka gone');
      return publish(...args);
    };
    await expect(first.sut.run(first.task, WHOLE_RING, new AbortController().signal)).rejects.toThrow('kafka gone');
    const crashed = await first.state.latest('node-a', 'ks', 'versions');
    expect(crashed?.status).not.toBe(COMPLETED);

    first.producer.publish = publish;
    const again = await first.sut.run(first.task, WHOLE_RING, new AbortController().signal);
    expect(again.outcome).toBe('completed');
    const keys = first.keys();
    expect(new Set(keys)).toEqual(new Set(dueKeys));
    // the pass started with its start saved: nothing after it was checkpointed, so all is redone
    expect(keys.length).toBeLessThanOrEqual(dueKeys.length + 19 * 3);
  });

  it('checkpoints mid-pass by the injected clock: every checkpoint interval, never while time stands still', async () => {
    const midPassSaves = async (msPerPage: number) => {
      const source = new Tapped(new InMemoryPageSource(table(), byVtsDesc));
      const run = setup(source, { checkpointMs: 1_000 });
      source.onPage = () => run.clock.advance(msPerPage);
      expect((await run.sut.run(run.task, WHOLE_RING, new AbortController().signal)).outcome).toBe('completed');
      // the pass's start and its completion are saved whatever the clock does
      return { saves: run.state.saves.length - 2, pages: source.pages };
    };
    expect((await midPassSaves(0)).saves).toBe(0);
    const ticking = await midPassSaves(400);
    // a save once 1,000 ms have passed since the last: every third page of 400 ms
    expect(ticking.pages).toBeGreaterThan(20);
    expect(ticking.saves).toBe(Math.floor((ticking.pages - 1) / 3));
  });

  it('retries a failed page read, then fails the pass without moving its position', async () => {
    const rows = new InMemoryPageSource(table(), byVtsDesc);
    const { sut, task, state, registry } = setup(rows);
    rows.failNext = 2;
    expect((await sut.run(task, WHOLE_RING, new AbortController().signal)).outcome).toBe('completed');
    expect(await registry.render()).toMatch(/ostore_scanner_read_retries_total\{table="versions",app="t"\} 2/);

    rows.failNext = 3;
    const before = state.saves.length;
    await expect(sut.run(task, WHOLE_RING, new AbortController().signal)).rejects.toThrow('injected read failure');
    expect(state.saves.slice(before).map((s) => s.status)).toEqual([{ token: MIN_TOKEN }]);
  });

  it('leaves an object with many versions by a new query instead of reading them all', async () => {
    const big = Array.from({ length: 1000 }, (_, i) => vrow('big', 3 + i / 100, { token: 5n, parent: 'x/' })).sort(byVtsDesc);
    const after = vrow('z', 10, { token: 6n, parent: 'old/' });
    const rows = new InMemoryPageSource([...big, after], byVtsDesc);
    const { sut, task, producer } = setup(rows, { fetchSize: 150 });
    const result = await sut.run(task, WHOLE_RING, new AbortController().signal);
    expect(rows.rowsReturned).toBe(150 + 1);
    expect(result.stats.objects).toBe(2);
    const [candidate, other] = producer.messages('versions').map((m) => VersionCandidate.fromMessage(m));
    // NewerNoncurrentVersions=2 counted within the window: versions 3..100 of the window go
    expect(candidate.key).toBe('x/big');
    expect(candidate.versions).toHaveLength(98);
    expect(candidate.versions.every((v) => v.rules[0].action === 'NoncurrentVersionExpiration')).toBe(true);
    expect(other.key).toBe('old/z');
  });

  it('publishes stale null rows for convergence in every bucket: without lifecycle rules, and with rules but nothing due', async () => {
    const plain = { bucketId: PLAIN_ID, parent: 'p/' };
    const rows = [
      // no rules: a DELETE's ghost above a null version it never converged (stale), and a converged key
      vrow('gone', 0, { ...plain, token: 1n, isNull: true, isGhost: true, isDeleteMarker: true }),
      vrow('gone', 1, { ...plain, token: 1n, isNull: true }),
      vrow('kept', 0, { ...plain, token: 1n, isNull: true }),
      // rules, nothing due (new/ is 0 days old, one visible version): an overwrite never converged
      vrow('twice', 0, { token: 2n, parent: 'new/', isNull: true }),
      vrow('twice', 0.5, { token: 2n, parent: 'new/', isNull: true }),
      // a bucket the catalog does not know (deleted): its rows go with it, nothing to publish
      vrow('orphan', 0, { bucketId: GONE_ID, token: 3n, isNull: true }),
      vrow('orphan', 1, { bucketId: GONE_ID, token: 3n, isNull: true }),
    ];
    const { sut, task, producer, registry } = setup(new InMemoryPageSource(rows, byVtsDesc));
    const result = await sut.run(task, WHOLE_RING, new AbortController().signal);
    expect(result.stats).toMatchObject({ objects: 4, candidates: 2 });
    const candidates = producer.messages('versions').map((m) => VersionCandidate.fromMessage(m));
    expect(candidates.map((c) => ({ bucket: c.bucket, key: c.key, versions: c.versions, staleNulls: c.staleNulls }))).toEqual([
      { bucket: 'plain', key: 'p/gone', versions: [], staleNulls: true },
      { bucket: 'logs', key: 'new/twice', versions: [], staleNulls: true },
    ]);
    expect(await registry.render()).toMatch(/ostore_scanner_stale_null_keys_total\{app="t"\} 2/);
  });

  it('marks a due candidate with staleNulls only when the object has stale null rows', async () => {
    const rows = [
      vrow('due', 10, { token: 1n, parent: 'old/', isNull: true }),
      vrow('due', 11, { token: 1n, parent: 'old/', isNull: true }),
      vrow('due2', 10, { token: 1n, parent: 'old/' }),
    ];
    const { sut, task, producer } = setup(new InMemoryPageSource(rows, byVtsDesc));
    await sut.run(task, WHOLE_RING, new AbortController().signal);
    const candidates = producer.messages('versions').map((m) => VersionCandidate.fromMessage(m));
    expect(candidates.map((c) => [c.key, c.versions.length, c.staleNulls])).toEqual([
      ['old/due', 1, true],
      ['old/due2', 1, false],
    ]);
  });

  it('keeps under its rows-per-second limit', async () => {
    const rows = new InMemoryPageSource(table(), byVtsDesc);
    const { sut, task, registry } = setup(rows, { rowsPerSecond: 150, fetchSize: 50 });
    const t = performance.now();
    await sut.run(task, WHOLE_RING, new AbortController().signal);
    // 200 rows with a burst of 150 at 150 rows/s: at least (200 - 150) / 150 s of waiting
    expect(performance.now() - t).toBeGreaterThanOrEqual(300);
    expect(await registry.render()).toMatch(/ostore_scanner_throttled_seconds_total\{table="versions",app="t"\} 0\.[3-9]/);
  });
});
