import { Migration } from '../migration';
import { baseline } from './001-baseline';
import { blockStore } from './002-block-store';

/** Every migration, in version order. Append only: a landed migration is never edited. */
export const migrations: Migration[] = [baseline, blockStore];
