import { z } from 'zod';
import { defineContract, fields, instantOf } from './message-contract';

/** Lifecycle actions that can make a version eligible (AbortIncompleteMultipartUpload is an upload's). */
export const VERSION_ACTIONS = [
  'Expiration',
  'ExpiredObjectDeleteMarker',
  'NoncurrentVersionExpiration',
  'Transition',
  'NoncurrentVersionTransition',
] as const;
export type VersionAction = (typeof VERSION_ACTIONS)[number];

/** The scanner keeps at most the 100 newest versions of an object plus the current one. */
export const MAX_CANDIDATE_VERSIONS = 101;

export interface EligibleVersion {
  versionId: string;
  /** The rules (dry-run) that found it eligible, with the action each would take. */
  rules: { ruleId: string; action: VersionAction }[];
}

/**
 * "These versions of this object looked eligible in a dry run" — from a scanner to the
 * `versions` queue. The scheduler re-reads the object and decides again, transactionally; the
 * message is a hint, never an order, so a stale or duplicated one is harmless.
 *
 * `staleNulls` (version 2): the scan also saw null rows below the key's newest null row, which a
 * writer that failed or died before its convergence left behind (any bucket, with or without
 * lifecycle rules; then `versions` may be empty). The scheduler converges them.
 */
export interface VersionCandidate {
  bucketId: string;
  bucket: string;
  /** parent + name, as in the metastore (parent ends with '/' or is ''). */
  key: string;
  parent: string;
  name: string;
  versions: EligibleVersion[];
  /** Null rows below the newest null row were seen: converge the key (version 2; false in version 1). */
  staleNulls?: boolean;
  scannedAt: Date;
  /** The metastore host whose local scan found it (its partition is `partitionForHost`). */
  sourceHost: string;
}

const eligibleVersion = z
  .object({
    versionId: fields.opaqueId,
    rules: z
      .array(z.object({ ruleId: fields.ruleId, action: z.enum(VERSION_ACTIONS) }).strict())
      .min(1, 'must name at least one rule'),
  })
  .strict();

const versionList = z
  .array(eligibleVersion)
  .max(MAX_CANDIDATE_VERSIONS, `must list at most ${MAX_CANDIDATE_VERSIONS} versions`)
  .refine((vs) => new Set(vs.map((v) => v.versionId)).size === vs.length, 'must not repeat a versionId');

const keyFields = {
  bucketId: fields.bucketId,
  bucket: fields.bucket,
  key: fields.key,
  parent: fields.parent,
  name: fields.name,
};

const keyIsParentPlusName = { message: 'must equal parent + name', path: ['key'] };

/** Version 1: eligible versions only (read as `staleNulls: false`). */
const wireV1 = z
  .object({
    ...keyFields,
    versions: versionList.refine((vs) => vs.length > 0, 'must list at least one version'),
    scannedAt: fields.instant,
    sourceHost: fields.host,
  })
  .strict()
  .refine((c) => c.key === c.parent + c.name, keyIsParentPlusName)
  .transform((c): VersionCandidate => ({ ...c, staleNulls: false }));

/** Version 2: adds `staleNulls`; `versions` may then be empty. */
const wireV2 = z
  .object({
    ...keyFields,
    versions: versionList,
    staleNulls: z.boolean(),
    scannedAt: fields.instant,
    sourceHost: fields.host,
  })
  .strict()
  .refine((c) => c.key === c.parent + c.name, keyIsParentPlusName)
  .refine((c) => c.versions.length > 0 || c.staleNulls, {
    message: 'must list at least one version unless staleNulls is true',
    path: ['versions'],
  });

/** Contract of the `versions` queue. */
export const VersionCandidate = defineContract<VersionCandidate, typeof wireV2>({
  name: 'VersionCandidate',
  version: 2,
  wire: wireV2,
  older: { 1: wireV1 },
  encode: (c) => ({
    bucketId: c.bucketId,
    bucket: c.bucket,
    key: c.key,
    parent: c.parent,
    name: c.name,
    versions: c.versions.map((v) => ({
      versionId: v.versionId,
      rules: v.rules.map((r) => ({ ruleId: r.ruleId, action: r.action })),
    })),
    staleNulls: c.staleNulls ?? false,
    scannedAt: instantOf(c.scannedAt),
    sourceHost: c.sourceHost,
  }),
});
