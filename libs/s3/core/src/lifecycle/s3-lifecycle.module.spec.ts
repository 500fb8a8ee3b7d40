import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BLOCK_MANAGER, BlockStores } from '@ostore/storage/blocks';
import { InMemoryBlockManager, InMemoryBlockStore } from '@ostore/storage/blocks/testing';
import { S3CoreModule } from '../s3-core.module';
import { LifecycleApplier } from './lifecycle-applier';
import { S3LifecycleModule } from './s3-lifecycle.module';
import { UnconnectedAppInfra } from '../testing/nest-infra';

@Global()
@Module({
  providers: [
    { provide: BLOCK_MANAGER, useValue: new InMemoryBlockManager() },
    { provide: BlockStores, useValue: new BlockStores([new InMemoryBlockStore('standard'), new InMemoryBlockStore('cold')]) },
  ],
  exports: [BLOCK_MANAGER, BlockStores],
})
class Blocks {}

describe(S3LifecycleModule.name, () => {
  it("provides the LifecycleApplier over the app's core, transitions going to the colder block tier", async () => {
    const core = S3CoreModule.forRoot({ imports: [Blocks] });
    @Module({ imports: [UnconnectedAppInfra, core, S3LifecycleModule.forRoot({ imports: [core], settings: { maxVersions: 7 } })] })
    class Root {}
    const app = await NestFactory.createApplicationContext(Root, { logger: false });
    try {
      const applier = app.get(LifecycleApplier) as unknown as { settings: { transitionTier?: string; maxVersions: number } };
      expect(applier.settings).toMatchObject({ transitionTier: 'cold', maxVersions: 7 });
    } finally {
      await app.close();
    }
  });
});
