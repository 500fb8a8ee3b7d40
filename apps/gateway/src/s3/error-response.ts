import { S3Error } from '@ostore/s3/protocol';
import { renderErrorXml } from '@ostore/s3/protocol';
import { DeleteMarkerFacts, S3DomainError } from '@ostore/s3/core';
import { AclError } from '@ostore/s3/policy';
import { BlockStoreFullError } from '@ostore/storage/blocks';
import { isMetastoreUnavailable } from '@ostore/metastore/data-access';

/** The BlockStoreFullError in `err`'s cause chain, if any. */
function blockStoreFull(err: unknown): BlockStoreFullError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = (e as Error & { cause?: unknown }).cause, depth++) {
    if (e instanceof BlockStoreFullError) return e;
  }
  return undefined;
}

/**
 * What S3 sends as headers about the delete marker an error is about: `x-amz-delete-marker` and
 * its version id, and for a method refused on a marker also its Last-Modified and `Allow: DELETE`.
 */
function deleteMarkerHeaders(code: string, marker: DeleteMarkerFacts): Record<string, string> {
  const headers: Record<string, string> = { 'x-amz-delete-marker': 'true', 'x-amz-version-id': marker.versionId };
  if (code === 'MethodNotAllowed') {
    headers['last-modified'] = marker.lastModified.toUTCString();
    headers['allow'] = 'DELETE';
  }
  return headers;
}

/**
 * The single place where errors become S3 errors (status, headers, body): S3Errors as they are,
 * domain errors by code (their delete marker as headers), refused ACLs (400, their argument as
 * ArgumentName/ArgumentValue), a full block store 503 SlowDown (retryable: SDKs back off and
 * retry, and the write was not stored), a metastore that is unreachable, overloaded or timing out
 * 503 ServiceUnavailable (retryable; a timed-out write may have been applied, as with any 5xx of
 * S3), the rest InternalError.
 */
export function toS3Error(err: unknown): S3Error {
  if (err instanceof S3Error) return err;
  if (err instanceof AclError) {
    const extra = err.argument ? { ArgumentName: err.argument.name, ArgumentValue: err.argument.value } : undefined;
    return S3Error.fromCode(err.code, err.message, { httpStatus: 400, extra });
  }
  if (err instanceof S3DomainError) {
    const headers = err.deleteMarker ? deleteMarkerHeaders(err.code, err.deleteMarker) : {};
    return S3Error.fromCode(err.code, err.message, { headers, extra: err.extra });
  }
  if (blockStoreFull(err))
    return new S3Error('SlowDown', 'The storage is out of space; this write was not stored. Please retry later.', { httpStatus: 503, cause: err });
  if (isMetastoreUnavailable(err))
    return new S3Error('ServiceUnavailable', 'The metadata store is unavailable or overloaded. Please retry later.', { httpStatus: 503, cause: err });
  return new S3Error('InternalError', 'We encountered an internal error. Please try again.', { cause: err });
}

export function errorBody(err: S3Error, resource: string, requestId: string): string {
  return renderErrorXml({ code: err.code, message: err.message, resource, requestId, extra: err.extra });
}
