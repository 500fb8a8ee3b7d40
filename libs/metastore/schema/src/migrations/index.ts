import { Migration } from '../migration';
import { baseline } from './001-baseline';
import { blockStore } from './002-block-store';
import { queue } from './003-queue';

/** Every migration, in version order. Append only: a landed migration is never edited. */
export const migrations: Migration[] = [baseline, blockStore, queue];
