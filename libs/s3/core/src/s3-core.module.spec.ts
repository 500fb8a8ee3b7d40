import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BLOCK_MANAGER } from '@ostore/storage/blocks';
import { InMemoryBlockManager } from '@ostore/storage/blocks/testing';
import { BUCKETS_SERVICE, MULTIPART_SERVICE, OBJECTS_SERVICE, USERS_SERVICE } from './api';
import { CassandraBucketsService } from './buckets.service';
import { CassandraMultipartService } from './multipart.service';
import { CassandraObjectsService } from './objects.service';
import { S3Core } from './s3-core';
import { S3CoreModule } from './s3-core.module';
import { CassandraUsersService } from './users.service';
import { UnconnectedAppInfra } from './testing/nest-infra';

@Module({ providers: [{ provide: BLOCK_MANAGER, useValue: new InMemoryBlockManager() }], exports: [BLOCK_MANAGER] })
class Blocks {}

describe(S3CoreModule.name, () => {
  it('provides the four services under the api.ts tokens, over one shared core', async () => {
    @Module({ imports: [UnconnectedAppInfra, S3CoreModule.forRoot({ imports: [Blocks], settings: { minPartSize: 1 } })] })
    class Root {}
    const app = await NestFactory.createApplicationContext(Root, { logger: false });
    try {
      const core = app.get(S3Core);
      expect(app.get(BUCKETS_SERVICE)).toBeInstanceOf(CassandraBucketsService);
      expect(app.get(OBJECTS_SERVICE)).toBeInstanceOf(CassandraObjectsService);
      expect(app.get(MULTIPART_SERVICE)).toBeInstanceOf(CassandraMultipartService);
      expect(app.get(USERS_SERVICE)).toBeInstanceOf(CassandraUsersService);
      expect(app.get(OBJECTS_SERVICE)).toBe(core.objects);
      expect(core.store.limits.minPartSize).toBe(1);
      expect(core.blocks).toBeInstanceOf(InMemoryBlockManager);
    } finally {
      await app.close();
    }
  });
});
