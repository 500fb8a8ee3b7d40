import { KeyedRow } from './page-source';

/** Collects the rows of one object (bucket_id, parent, name) into a group. */
export interface GroupBuilder<T, G> {
  add(row: T): void;
  /** True once the builder drops rows it was given: the scan may skip the rest of the object. */
  readonly capped: boolean;
  build(): G;
}

/**
 * Turns a stream of rows in clustering order into one group per object. A group is complete
 * when a row of another object arrives (rows of one object are adjacent) or at `finish()`.
 */
export class KeyGrouper<T extends KeyedRow, G> {
  private first?: T;
  private builder?: GroupBuilder<T, G>;

  constructor(private readonly start: (first: T) => GroupBuilder<T, G>) {}

  /** Adds a row; returns the previous object's group when this row starts a new object. */
  push(row: T): G | undefined {
    let done: G | undefined;
    if (this.first === undefined || !sameObject(this.first, row)) {
      done = this.builder?.build();
      this.first = row;
      this.builder = this.start(row);
    }
    this.builder!.add(row);
    return done;
  }

  /** The last object's group (the stream ended). */
  finish(): G | undefined {
    const done = this.builder?.build();
    this.first = undefined;
    this.builder = undefined;
    return done;
  }

  /** The first row of the object being collected, and whether its builder is capped. */
  get pending(): { row: T; capped: boolean } | undefined {
    return this.first === undefined ? undefined : { row: this.first, capped: this.builder!.capped };
  }
}

function sameObject(a: KeyedRow, b: KeyedRow): boolean {
  return a.name === b.name && a.parent === b.parent && a.bucketId === b.bucketId;
}
