import { Controller, HttpException, Inject, NotFoundException, Param, Post, UseGuards } from '@nestjs/common';
import type { ObjectsService } from '@ostore/s3/core';
import { OBJECTS_SERVICE, S3DomainError } from '@ostore/s3/core';
import { JsonLogger } from '@ostore/shared/observability';
import { ObjectEncryption } from '../s3/sse/object-encryption';
import { AdminTokenGuard } from './admin.controller';

/** What `POST /admin/buckets/:name/sse/rewrap` answers (the CLI's `sse rewrap` prints it). */
export interface RewrapAnswer {
  bucket: string;
  /** Versions holding data that were looked at, and how many got a record wrapped by the current key. */
  versions: number;
  rewrapped: number;
  /** The master key id records now use. */
  currentKeyId: string | null;
}

/**
 * Master-key rotation for operators: `POST /admin/buckets/:name/sse/rewrap` re-wraps the data key
 * of every SSE-S3 version of the bucket that an older master key wraps, with the current one
 * (README "Encryption at rest"); the stored bodies are not rewritten. Once every bucket is done, an
 * old key can leave S3_SSE_MASTER_KEYS.
 */
@Controller('admin/buckets')
@UseGuards(AdminTokenGuard)
export class SseAdminController {
  private readonly log: ReturnType<JsonLogger['forContext']>;

  constructor(
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
    private readonly sse: ObjectEncryption,
    logger: JsonLogger,
  ) {
    this.log = logger.forContext(SseAdminController.name);
  }

  @Post(':name/sse/rewrap')
  async rewrap(@Param('name') name: string): Promise<RewrapAnswer> {
    let done: { versions: number; rewrapped: number };
    try {
      done = await this.objects.rewrapRecords(name, (sse) => this.sse.rewrap(sse));
    } catch (e) {
      if (e instanceof S3DomainError && e.code === 'NoSuchBucket') throw new NotFoundException(`no bucket named ${name}`);
      if (e instanceof S3DomainError) throw new HttpException(`${e.code}: ${e.message}`, 400);
      throw e;
    }
    this.log.info('SSE-S3 records re-wrapped', { bucket: name, versions: done.versions, rewrapped: done.rewrapped });
    return { bucket: name, ...done, currentKeyId: this.sse.currentKeyId ?? null };
  }
}
