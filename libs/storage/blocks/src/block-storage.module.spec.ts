import { constants, promises as fs } from 'fs';
import { tmpdir } from 'os';
import path from 'path';
import { Writable } from 'stream';
import type { CassandraClient } from '@ostore/shared/cassandra';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { allocateAligned } from './aligned-memory';
import { newBlockId } from './block-id';
import { createBlockStores } from './block-storage.module';

describe('createBlockStores', () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(tmpdir(), 'ostore-stores-'));
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  const logLines = () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    return { lines, logger: new JsonLogger('test', 'info', sink) };
  };
  const refusedGauge = async (metrics: MetricsRegistry) =>
    (await metrics.render()).split('\n').filter((l) => l.startsWith('ostore_block_fs_direct_io_refused'));

  it('shows an fs store falling back from O_DIRECT in ostore_block_fs_direct_io_refused and once in the log', async () => {
    const metrics = new MetricsRegistry('test', false);
    const { lines, logger } = logLines();
    const stores = createBlockStores({ store: 'fs', fsRoot: root, tier: 'hot' }, {} as CassandraClient, logger, metrics);
    expect(await refusedGauge(metrics)).toEqual(['ostore_block_fs_direct_io_refused{tier="hot",app="test"} 0']);

    const einval = Object.assign(new Error('EINVAL: invalid argument, open'), { code: 'EINVAL' });
    const real = fs.open.bind(fs);
    const open = jest
      .spyOn(fs, 'open')
      .mockImplementation((file, flags, mode) =>
        typeof flags === 'number' && (flags & constants.O_DIRECT) !== 0 ? Promise.reject(einval) : real(file, flags, mode),
      );
    try {
      const data = allocateAligned(8192)!.fill(3);
      await stores.get('hot').write(newBlockId(), data);
      await stores.get('hot').write(newBlockId(), data);
    } finally {
      open.mockRestore();
    }
    expect(await refusedGauge(metrics)).toEqual(['ostore_block_fs_direct_io_refused{tier="hot",app="test"} 1']);
    const warnings = lines.filter((l) => /refused O_DIRECT/.test(String(l['msg'] ?? l['message'])));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ root, tier: 'hot', reason: 'EINVAL: invalid argument, open' });
  });

  it('has no such series without an fs store', async () => {
    const metrics = new MetricsRegistry('test', false);
    createBlockStores({ store: 'cassandra' }, {} as CassandraClient, new JsonLogger('test', 'silent'), metrics);
    expect(await refusedGauge(metrics)).toEqual([]);
  });
});
