import type { CassandraClient } from '@ostore/shared/cassandra';
import { FOLDER_WRITE_CONCURRENCY, FolderRow, FoldersRepository } from './folders.repository';

/** A client that records what was written and how many writes were in flight at most. */
function recordingClient() {
  let inFlight = 0;
  const seen = { maxInFlight: 0, executes: [] as unknown[][], batches: [] as { params: unknown[] }[][], batchOptions: [] as unknown[] };
  const track = async () => {
    inFlight++;
    seen.maxInFlight = Math.max(seen.maxInFlight, inFlight);
    await new Promise((r) => setImmediate(r));
    inFlight--;
  };
  const client = {
    async execute(_cql: string, params: unknown[]) {
      seen.executes.push(params);
      await track();
    },
    async batch(queries: { params: unknown[] }[], options: unknown) {
      seen.batches.push(queries);
      seen.batchOptions.push(options);
      await track();
    },
  };
  return { client: client as unknown as CassandraClient, seen };
}

/** The folder rows of a key of `n` slashes: '' → '/', '/' → '/', ... (as folderRowsOf splits it). */
const slashRows = (n: number): FolderRow[] => Array.from({ length: n - 1 }, (_, i) => ({ parent: '/'.repeat(i), name: '/' }));

describe(FoldersRepository.name, () => {
  const at = new Date(0);

  it(`writes the ~1,000 rows of a 1,024-slash key with at most ${FOLDER_WRITE_CONCURRENCY} in flight (all ~1,000 at once before)`, async () => {
    const { client, seen } = recordingClient();
    const sut = new FoldersRepository(client, 'object_folders');
    await sut.ensure('b', slashRows(1024), at);
    expect(seen.executes).toHaveLength(1023);
    expect(seen.maxInFlight).toBe(FOLDER_WRITE_CONCURRENCY);
  });

  it('puts rows of one partition in one unlogged batch, never rows of different partitions', async () => {
    const { client, seen } = recordingClient();
    const sut = new FoldersRepository(client, 'version_folders');
    await sut.ensure('b', [{ parent: 'a/', name: 'x/' }, { parent: '', name: 'a/' }, { parent: 'a/', name: 'y/' }], at);
    expect(seen.executes).toEqual([['b', '', 'a/', at]]);
    expect(seen.batches.map((qs) => qs.map((q) => q.params))).toEqual([[['b', 'a/', 'x/', at], ['b', 'a/', 'y/', at]]]);
    expect(seen.batchOptions).toEqual([{ logged: false }]);
  });

  it('fails with the first failed write and stops issuing more', async () => {
    let calls = 0;
    const client = {
      async execute() {
        calls++;
        if (calls === 3) throw new Error('write timeout');
        await new Promise((r) => setImmediate(r));
      },
    } as unknown as CassandraClient;
    const sut = new FoldersRepository(client, 'object_folders');
    await expect(sut.ensure('b', slashRows(200), at)).rejects.toThrow('write timeout');
    expect(calls).toBeLessThan(199);
  });
});
