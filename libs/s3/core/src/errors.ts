import { S3DomainError } from './api';

/** Throws-ready S3 errors; the gateway maps codes to HTTP (extra `x-amz-*` entries become headers). */
export const s3err = (code: string, message?: string, extra: Record<string, string> = {}) =>
  new S3DomainError(code, message ?? code, extra);

export const noSuchBucket = (bucket: string) =>
  s3err('NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
export const noSuchKey = (key: string, extra: Record<string, string> = {}) =>
  s3err('NoSuchKey', 'The specified key does not exist.', { Key: key, ...extra });
export const noSuchVersion = (key: string, versionId: string) =>
  s3err('NoSuchVersion', 'The specified version does not exist.', { Key: key, VersionId: versionId });
export const invalidVersionId = (versionId: string) =>
  s3err('InvalidArgument', 'Invalid version id specified', { ArgumentName: 'versionId', ArgumentValue: versionId });
export const noSuchUpload = (uploadId: string) =>
  s3err(
    'NoSuchUpload',
    'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
    { UploadId: uploadId },
  );
