import { readdirSync, readFileSync, statSync } from 'fs';
import { join, resolve } from 'path';
import { isS3ErrorCode } from '@ostore/s3/protocol';
import { S3DomainError } from '@ostore/s3/core';
import { BlockStoreFullError } from '@ostore/storage/blocks';
import { errors, types } from 'cassandra-driver';
import { toS3Error } from './error-response';

const ROOT = resolve(__dirname, '../../../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Codes the admin API answers itself (admin.controller.ts), never as S3 errors. */
const ADMIN_ONLY = new Set(['AccessKeyAlreadyExists', 'NoSuchUser', 'UserAlreadyExists']);

describe(toS3Error.name, () => {
  it('gives every error code the S3 core and the gateway raise its own HTTP status (none falls to 500)', () => {
    const raised = new Set<string>();
    for (const dir of ['libs/s3/core/src', 'libs/s3/protocol/src', 'apps/gateway/src/s3']) {
      for (const file of sources(join(ROOT, dir))) {
        for (const m of readFileSync(file, 'utf8').matchAll(/(?:s3err|S3Error|S3DomainError)\(\s*'([A-Za-z]+)'/g))
          raised.add(m[1]);
      }
    }
    expect(raised.size).toBeGreaterThan(40);
    const unknown = [...raised].filter((code) => !ADMIN_ONLY.has(code) && !isS3ErrorCode(code));
    expect(unknown).toEqual([]);
  });

  it('maps a domain error to its status, and anything else to InternalError', () => {
    expect(
      toS3Error(new S3DomainError('InvalidPartNumber', 'The requested partnumber is not satisfiable')).httpStatus,
    ).toBe(416);
    expect(toS3Error(new Error('boom')).code).toBe('InternalError');
  });

  it('answers a metastore that is down, overloaded or timing out, also wrapped, with 503 ServiceUnavailable, and a CQL mistake with 500', () => {
    const down = [
      new errors.NoHostAvailableError({ '127.0.0.1:9042': new Error('connect ECONNREFUSED') }),
      new errors.OperationTimedOutError('timed out', '127.0.0.1:9042'),
      new errors.ResponseError(types.responseErrorCodes.unavailableException, 'Cannot achieve consistency level QUORUM'),
      new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'Operation timed out - received only 1 responses.'),
      new errors.ResponseError(types.responseErrorCodes.readTimeout, 'Operation timed out - received only 0 responses.'),
      new errors.ResponseError(types.responseErrorCodes.overloaded, 'overloaded'),
    ];
    for (const err of [...down, new Error('reading the version', { cause: down[0] })]) {
      const e = toS3Error(err);
      expect([e.code, e.httpStatus]).toEqual(['ServiceUnavailable', 503]);
    }
    const invalid = new errors.ResponseError(types.responseErrorCodes.invalid, 'Undefined column name x');
    expect([toS3Error(invalid).code, toS3Error(invalid).httpStatus]).toEqual(['InternalError', 500]);
  });

  it('sends what a domain error says about a delete marker as S3 headers, the rest in the body', () => {
    const lastModified = new Date('2026-01-02T03:04:05Z');
    const marker = { versionId: 'v1', lastModified };
    const noKey = toS3Error(new S3DomainError('NoSuchKey', 'gone', { Key: 'k' }, marker));
    expect(noKey.headers).toEqual({ 'x-amz-delete-marker': 'true', 'x-amz-version-id': 'v1' });
    expect(noKey.extra).toEqual({ Key: 'k' });
    const refused = toS3Error(new S3DomainError('MethodNotAllowed', 'no', { Method: 'GET', ResourceType: 'DeleteMarker' }, marker));
    expect(refused.headers).toEqual({
      'x-amz-delete-marker': 'true',
      'x-amz-version-id': 'v1',
      'last-modified': lastModified.toUTCString(),
      allow: 'DELETE',
    });
    expect(refused.extra).toEqual({ Method: 'GET', ResourceType: 'DeleteMarker' });
  });

  it('answers a full block store, also wrapped as a cause, with 503 SlowDown (retryable) and anything else with 500', () => {
    const full = new BlockStoreFullError('b1', 'hot', 'ENOSPC');
    for (const err of [full, new Error('writing the body', { cause: full })]) {
      const e = toS3Error(err);
      expect([e.code, e.httpStatus]).toEqual(['SlowDown', 503]);
      expect(e.message).toMatch(/out of space/);
    }
    expect(toS3Error(new Error('boom')).code).toBe('InternalError');
  });
});
