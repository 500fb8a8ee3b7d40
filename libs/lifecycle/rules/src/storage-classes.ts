import { TRANSITION_STORAGE_CLASSES, TransitionStorageClass } from './configuration';

/**
 * AWS's transition waterfall: the classes an object in a given class may move to. Nothing moves
 * to a warmer class, ONEZONE_IA does not go to GLACIER_IR, DEEP_ARCHIVE goes nowhere. A class not
 * listed (unknown, or an express/outposts class) transitions nowhere; an absent class is STANDARD.
 */
const REACHABLE: Readonly<Record<string, readonly TransitionStorageClass[]>> = {
  STANDARD: TRANSITION_STORAGE_CLASSES,
  REDUCED_REDUNDANCY: TRANSITION_STORAGE_CLASSES,
  STANDARD_IA: ['INTELLIGENT_TIERING', 'ONEZONE_IA', 'GLACIER_IR', 'GLACIER', 'DEEP_ARCHIVE'],
  INTELLIGENT_TIERING: ['ONEZONE_IA', 'GLACIER_IR', 'GLACIER', 'DEEP_ARCHIVE'],
  ONEZONE_IA: ['GLACIER', 'DEEP_ARCHIVE'],
  GLACIER_IR: ['GLACIER', 'DEEP_ARCHIVE'],
  GLACIER: ['DEEP_ARCHIVE'],
  DEEP_ARCHIVE: [],
};

/** Whether lifecycle may move a version in class `from` (absent: STANDARD) to class `to`. */
export function canTransition(from: string | undefined, to: TransitionStorageClass): boolean {
  const targets = Object.prototype.hasOwnProperty.call(REACHABLE, from ?? 'STANDARD')
    ? REACHABLE[from ?? 'STANDARD']
    : [];
  return targets.includes(to);
}

/**
 * Which transition wins when several are due at once. AWS: "if two transition policies overlap,
 * S3 Lifecycle transitions your objects to the lower-cost storage class", with S3
 * Intelligent-Tiering "favored over any storage class, aside from Glacier Flexible Retrieval and
 * Glacier Deep Archive", and GLACIER chosen over STANDARD_IA / ONEZONE_IA. Higher wins.
 */
export const TRANSITION_PREFERENCE: Readonly<Record<TransitionStorageClass, number>> = {
  STANDARD_IA: 1,
  ONEZONE_IA: 2,
  GLACIER_IR: 3,
  INTELLIGENT_TIERING: 4,
  GLACIER: 5,
  DEEP_ARCHIVE: 6,
};

/** Position in the waterfall, warm (0) to cold; a rule's colder transitions must come later. */
export function waterfallRank(storageClass: TransitionStorageClass): number {
  return TRANSITION_STORAGE_CLASSES.indexOf(storageClass);
}

/** The classes AWS keeps an object out of for its first 30 days. */
export const INFREQUENT_ACCESS_CLASSES: readonly TransitionStorageClass[] = ['STANDARD_IA', 'ONEZONE_IA'];

/** 128 KiB: the default minimum size of an object that transitions. */
export const TRANSITION_MINIMUM_OBJECT_SIZE = 128 * 1024;

/** The classes that still take objects under 128 KiB with `varies_by_storage_class`. */
export const SMALL_OBJECT_CLASSES: readonly TransitionStorageClass[] = ['GLACIER', 'DEEP_ARCHIVE'];
