import { Migration } from '../migration';

/**
 * `folder_filter_generations.salt`: the value every filter of a generation mixes into its elements
 * before hashing (`FilterShape.salt`, `DirectoryFilter` of @ostore/folders/cleanup).
 *
 * Without it every generation hashed the same directory to the same bits, so an empty directory
 * that collided with non-empty ones stayed a false positive in every generation while the tree
 * around it stayed the same, and was never cleaned. With a salt per generation the false positives
 * of one generation are other directories than those of the next. A row without a salt (opened
 * before this migration) is read as unsalted, as its filters were built.
 *
 * A scanner of an older release reading a salted generation builds unsalted bits into it; the
 * combined filter may then miss a non-empty directory (a false negative), which only publishes a
 * candidate that the scheduler's transactional re-check finds non-empty and keeps. Nothing is
 * deleted wrongly during a rolling upgrade; it costs re-checks until every scanner is upgraded.
 */
export const folderFilterSalt: Migration = {
  version: 19,
  name: 'folder-filter-salt',
  statements: ['ALTER TABLE {ks}.folder_filter_generations ADD salt int'],
};
