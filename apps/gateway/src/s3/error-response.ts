import { S3Error } from '@ostore/s3/protocol';
import { renderErrorXml } from '@ostore/s3/protocol';
import { S3DomainError } from '@ostore/s3/core';

/** The single place where errors become S3 error codes: S3Errors as they are, domain errors by code, the rest InternalError. */
export function toS3Error(err: unknown): S3Error {
  if (err instanceof S3Error) return err;
  if (err instanceof S3DomainError) {
    const headers: Record<string, string> = {};
    const extra: Record<string, string> = {};
    for (const [k, v] of Object.entries(err.extra)) {
      if (/^(x-amz-|allow$|last-modified$)/i.test(k)) headers[k] = v;
      else extra[k] = v;
    }
    return S3Error.fromCode(err.code, err.message, { headers, extra });
  }
  return new S3Error('InternalError', 'We encountered an internal error. Please try again.', { cause: err });
}

export function errorBody(err: S3Error, resource: string, requestId: string): string {
  return renderErrorXml({ code: err.code, message: err.message, resource, requestId, extra: err.extra });
}
