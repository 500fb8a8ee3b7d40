import { Migration } from '../migration';

/**
 * `uploads.parts_epoch`: a uuid that UploadPart sets (an LWT, only while no completion is claimed)
 * before it drops the older rows of a part number it replaced. CompleteMultipartUpload claims the
 * upload only if the epoch is still the one it read before listing the parts, so it never commits to
 * a part row that a replacement is dropping (null until the first replacement).
 */
export const uploadPartsEpoch: Migration = {
  version: 24,
  name: 'upload-parts-epoch',
  statements: [`ALTER TABLE {ks}.uploads ADD IF NOT EXISTS parts_epoch uuid`],
};
