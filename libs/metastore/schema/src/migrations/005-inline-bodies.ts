import { Migration } from '../migration';

/**
 * Small bodies stored inline: `version_meta.inline_body` holds the whole body of an object up to
 * the gateway's inline threshold (S3 core setting `inlineBodyMaxBytes`, 64 KiB by default). Such a
 * version has no `version_blocks` rows, no block references and no bytes in a block store, so its
 * PUT does no block write and no lightweight transaction, and its GET is one metadata read. The
 * cell is written once with the rest of the manifest, before the version row, and deleted with it.
 */
export const inlineBodies: Migration = {
  version: 5,
  name: 'inline-bodies',
  statements: [`ALTER TABLE {ks}.version_meta ADD IF NOT EXISTS inline_body blob`],
};
