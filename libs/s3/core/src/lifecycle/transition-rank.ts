import { TRANSITION_STORAGE_CLASSES, TransitionStorageClass } from '@ostore/lifecycle/rules';

/**
 * 1 + the position of a storage class along AWS's waterfall (warm to cold). Transitions only go
 * colder, so write timestamps offset by the rank only move forward from one transition to the next.
 */
export function transitionRank(storageClass: string): number {
  return TRANSITION_STORAGE_CLASSES.indexOf(storageClass as TransitionStorageClass) + 1;
}
