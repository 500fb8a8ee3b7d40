import { DeleteMarkerFacts, S3DomainError } from './api';

/** Throw-ready S3 errors; the gateway maps codes to HTTP (see S3DomainError). */
export const s3err = (code: string, message?: string, extra: Record<string, string> = {}, deleteMarker?: DeleteMarkerFacts) =>
  new S3DomainError(code, message ?? code, extra, deleteMarker);

export const noSuchBucket = (bucket: string) =>
  s3err('NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
/** NoSuchKey; `deleteMarker` when the key's current version is a delete marker. */
export const noSuchKey = (key: string, deleteMarker?: DeleteMarkerFacts) =>
  s3err('NoSuchKey', 'The specified key does not exist.', { Key: key }, deleteMarker);
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
/** A GET/HEAD (or tagging, ACL) addressing a delete marker by version id. */
export const methodNotAllowedOnMarker = (marker: DeleteMarkerFacts) =>
  s3err(
    'MethodNotAllowed',
    'The specified method is not allowed against this resource.',
    { Method: 'GET', ResourceType: 'DeleteMarker' },
    marker,
  );
