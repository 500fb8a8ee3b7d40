/** The version-id codec lives with the version rows it names (metastore); kept here for the core's imports. */
export {
  decodeId,
  encodeId,
  makeVid,
  NULL_VERSION_ID,
  uuidBytes,
  uuidString,
  VersionClock,
  vtsOfVid,
} from '@ostore/metastore/data-access';
export type { VidKind } from '@ostore/metastore/data-access';
