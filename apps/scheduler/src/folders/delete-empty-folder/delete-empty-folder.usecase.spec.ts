import { EmptyFolderApplier } from '@ostore/folders/apply';
import { ParentBudget } from '@ostore/folders/cleanup';
import { DirectoryRef, FolderCleanupRepository } from '@ostore/metastore/data-access';
import type { FolderCandidate } from '@ostore/queue/contracts';
import { FakeClock } from '@ostore/shared/clock/testing';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { FolderCleanupMetrics } from '../folder-cleanup.metrics';
import { DeleteEmptyFolder } from './delete-empty-folder.usecase';

/** Folder rows with write timestamps and directories' contents, as Cassandra would resolve them. */
class FakeRepo {
  rows = new Map<string, number>(); // row -> write timestamp (µs)
  keys = new Set<string>(); // directories with something below them
  deletes: number[] = [];
  afterEmptyCheck?: () => void;

  isEmpty = async (d: DirectoryRef) => {
    const empty = !this.keys.has(d.parent + d.name);
    const hook = this.afterEmptyCheck;
    this.afterEmptyCheck = undefined;
    hook?.();
    return empty;
  };
  rowExists = async (d: DirectoryRef) => this.rows.has(d.parent + d.name);
  deleteRow = async (d: DirectoryRef, at: number) => {
    this.deletes.push(at);
    const w = this.rows.get(d.parent + d.name);
    if (w !== undefined && w <= at) this.rows.delete(d.parent + d.name);
  };
  restoreRow = async (d: DirectoryRef, at: Date) => {
    this.rows.set(d.parent + d.name, at.getTime() * 1000);
  };
}

describe(DeleteEmptyFolder.name, () => {
  const c: FolderCandidate = { bucketId: '3f1e8d52-7c1a-4e0b-9a55-0d9e2c4b7a10', bucket: 'b', parent: 'a/', name: 'b/', kind: 'object', generation: 7 };
  /** The newest filter generation as the scheduler reads it (FolderFilterRepository.latestGeneration). */
  let newest: number | undefined;
  let generationReads: number;
  const generations = {
    latestGeneration: async () => {
      generationReads++;
      return newest === undefined ? undefined : { generation: newest };
    },
  };
  const T0 = Date.UTC(2026, 11, 1);
  let repo: FakeRepo;
  let clock: FakeClock;
  let metrics: FolderCleanupMetrics;
  const sutOf = (perParent = 10) =>
    new DeleteEmptyFolder(
      new EmptyFolderApplier(repo as unknown as FolderCleanupRepository, new ParentBudget(perParent, 60_000), { folderCacheTtlMs: 30_000, skewMs: 5_000 }, clock, generations),
      metrics,
      new JsonLogger('test', 'silent').forContext('test'),
    );

  beforeEach(() => {
    repo = new FakeRepo();
    clock = new FakeClock(T0);
    metrics = new FolderCleanupMetrics(new MetricsRegistry('test', false));
    newest = 7;
    generationReads = 0;
  });

  it('refuses (skips, counts) a candidate of a filter generation older than the newest two, or without one, and deletes nothing', async () => {
    repo.rows.set('a/b/', (T0 - 60_000) * 1000);
    newest = 9;
    const sut = sutOf();
    await expect(sut.execute({ ...c, generation: 7 })).resolves.toBe('stale-generation');
    const { generation: _, ...withoutGeneration } = c;
    await expect(sut.execute(withoutGeneration)).resolves.toBe('stale-generation');
    newest = undefined;
    clock.advance(5_000);
    await expect(sut.execute({ ...c, generation: 9 })).resolves.toBe('stale-generation');
    expect(repo.deletes).toEqual([]);
    expect(repo.rows.size).toBe(1);
    expect((await metrics.skipped.get()).values).toEqual([expect.objectContaining({ labels: { kind: 'object', reason: 'stale-generation' }, value: 3 })]);
    expect((await metrics.deleted.get()).values).toEqual([]);
  });

  it('acts on a candidate of the newest generation or the one before, and of a generation newer than the one it read', async () => {
    newest = 9;
    const sut = sutOf();
    for (const [name, generation] of [['g8/', 8], ['g9/', 9], ['g10/', 10]] as const) {
      repo.rows.set(`a/${name}`, (T0 - 60_000) * 1000);
      await expect(sut.execute({ ...c, name, generation })).resolves.toBe('deleted');
    }
    expect(repo.rows.size).toBe(0);
    expect(generationReads).toBe(1); // the newest generation is reused for 5 s
    clock.advance(5_000);
    newest = 11;
    repo.rows.set('a/g9/', (T0 - 60_000) * 1000);
    await expect(sut.execute({ ...c, name: 'g9/', generation: 9 })).resolves.toBe('stale-generation');
    expect(generationReads).toBe(2);
  });

  it('deletes an empty directory with a write timestamp of T - ttl - skew', async () => {
    repo.rows.set('a/b/', (T0 - 60_000) * 1000);
    await expect(sutOf().execute(c)).resolves.toBe('deleted');
    expect(repo.deletes).toEqual([(T0 - 35_000) * 1000]);
    expect(repo.rows.size).toBe(0);
    expect((await metrics.deleted.get()).values).toEqual([expect.objectContaining({ labels: { kind: 'object' }, value: 1 })]);
  });

  it('leaves a directory that is no longer empty', async () => {
    repo.rows.set('a/b/', 0);
    repo.keys.add('a/b/');
    await expect(sutOf().execute(c)).resolves.toBe('not-empty');
    expect(repo.deletes).toEqual([]);
    expect((await metrics.skipped.get()).values).toEqual([expect.objectContaining({ labels: { kind: 'object', reason: 'not-empty' }, value: 1 })]);
  });

  it('a row written within the cache TTL wins over the deletion', async () => {
    repo.rows.set('a/b/', (T0 - 10_000) * 1000);
    await expect(sutOf().execute(c)).resolves.toBe('recently-written');
    expect(repo.rows.has('a/b/')).toBe(true);
  });

  it('restores the row of a directory that received a key between the check and the deletion', async () => {
    repo.rows.set('a/b/', (T0 - 60_000) * 1000);
    repo.afterEmptyCheck = () => repo.keys.add('a/b/');
    await expect(sutOf().execute(c)).resolves.toBe('raced');
    expect(repo.rows.has('a/b/')).toBe(true);
  });

  it('deletes at most the budget per parent, and not-empty ones do not count', async () => {
    const sut = sutOf(2);
    for (const n of ['x/', 'y/', 'z/', 'w/']) repo.rows.set(`a/${n}`, 0);
    repo.keys.add('a/w/');
    const outcomes = [];
    for (const n of ['w/', 'x/', 'y/', 'z/']) outcomes.push(await sut.execute({ ...c, name: n }));
    expect(outcomes).toEqual(['not-empty', 'deleted', 'deleted', 'parent-budget']);
    clock.advance(60_000);
    await expect(sut.execute({ ...c, name: 'z/' })).resolves.toBe('deleted');
  });
});
