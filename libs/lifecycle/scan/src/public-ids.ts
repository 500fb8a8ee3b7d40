/**
 * The public ids S3 clients see, as the S3 core writes them (libs/s3/core version-ids.ts
 * `encodeId`, VersionStore.versionIdOf): a version id is `null` for a null version, else the 16
 * bytes of its vid in URL-safe base64 (22 characters); an upload id is its uuid encoded the same
 * way. Candidates carry these ids, so that the scheduler (and a human reading the topic) use the
 * same ids as the S3 API; the integration spec checks them against the core's listings.
 */
export const NULL_VERSION_ID = 'null';

export function publicIdOf(uuid: string): string {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64url');
}

export function publicVersionIdOf(row: { isNull: boolean; vid: string }): string {
  return row.isNull ? NULL_VERSION_ID : publicIdOf(row.vid);
}
