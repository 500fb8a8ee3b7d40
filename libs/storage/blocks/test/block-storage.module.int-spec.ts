import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { CassandraModule } from '@ostore/shared/cassandra';
import { JsonLogger, ObservabilityModule } from '@ostore/shared/observability';
import { cassandraOptions } from '@ostore/testing';
import { Readable } from 'stream';
import {
  BLOCK_MANAGER,
  BlockGarbageCollector,
  BlockManager,
  BlockStorageModule,
  BlockStores,
  CassandraBlockStore,
  CompressedBlockStore,
} from '../src';
import { drain, migratedKeyspace, pattern } from './support';

describe(BlockStorageModule.name, () => {
  let app: INestApplicationContext;

  beforeAll(async () => {
    const session = await migratedKeyspace('blockmodule');
    const keyspace = session.keyspace;
    await session.shutdown();
    const logger = new JsonLogger('test', 'silent');

    @Module({
      imports: [
        ObservabilityModule.forRoot({ app: 'test', logger }),
        CassandraModule.forRoot(cassandraOptions(keyspace)),
        BlockStorageModule.forRoot({
          store: 'cassandra',
          blockSize: 32 * 1024,
          chunkSize: 8 * 1024,
          cold: { algorithm: 'gzip' },
        }),
      ],
    })
    class AppModule {}

    app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    await app.init();
  });
  afterAll(() => app?.close());

  it('provides a working BlockManager, the stores per tier and the GC from the app Cassandra session', async () => {
    const sut = app.get<BlockManager>(BLOCK_MANAGER);
    const stores = app.get(BlockStores);
    expect(stores.tiers()).toEqual(['standard', 'cold']);
    expect(stores.get('standard')).toBeInstanceOf(CassandraBlockStore);
    expect(stores.get('cold')).toBeInstanceOf(CompressedBlockStore);

    const data = pattern(100 * 1024, 9);
    const hot = await sut.writeStream(Readable.from([data]));
    await sut.addRefs(hot.blocks, 'v:1');
    // A lifecycle Transition: copy to the cold tier, commit there, release the hot blocks.
    const cold = await sut.writeStream(sut.openRead(hot.blocks), { tier: 'cold' });
    await sut.addRefs(cold.blocks, 'v:1');
    await sut.releaseRefs(hot.blocks, 'v:1');
    expect(cold.blocks.every((b) => b.tier === 'cold')).toBe(true);
    expect(
      (await drain(sut.openRead(cold.blocks, { start: 1000, endInclusive: 70_000 }))).equals(
        data.subarray(1000, 70_001),
      ),
    ).toBe(true);
    expect(await stores.get('standard').exists(hot.blocks[0].blockId)).toBe(false);

    const report = await app.get(BlockGarbageCollector).runOnce();
    expect(report.failed).toBe(0);
    expect(report.reclaimedBlocks).toBe(0);
  });
});
