import { sha256First32 } from './sha256';

/**
 * How raw usage events are spread over partitions (seed 003): a layout version fixes the number
 * of shards and the hash. A layout is never changed once events were written with it; a hot
 * tenant gets more shards through a new version, and readers enumerate every known version, so
 * old partitions stay readable without being redistributed.
 */
export interface EventLayout {
  version: number;
  shards: number;
  /** `sha256-be32`: the first 4 bytes of SHA-256(UTF-8 event id), big-endian, modulo `shards`. */
  algorithm: 'sha256-be32';
}

/**
 * Every layout ever written, oldest first. Append only. Version 1 stores an event's fields as
 * columns; version 2 (same shards and hash) as one compact payload cell, which costs the writer
 * and Cassandra one cell per row instead of six (the row format lives with the row entity in
 * `@ostore/stats/data-access`).
 */
export const EVENT_LAYOUTS: readonly EventLayout[] = [
  { version: 1, shards: 8, algorithm: 'sha256-be32' },
  { version: 2, shards: 8, algorithm: 'sha256-be32' },
];

/** The layout new events are written with: the newest known one. */
export const CURRENT_LAYOUT: EventLayout = EVENT_LAYOUTS[EVENT_LAYOUTS.length - 1];

/**
 * The shard of an event under a layout. A fixed SHA-256 of the id's bytes, never a
 * process-randomized hash: every process and every replay puts one event in the same partition.
 */
export function shardOf(eventId: string, layout: EventLayout = CURRENT_LAYOUT): number {
  // SHA-256 in JavaScript (sha256.ts): the same first 4 bytes as crypto's digest, without a call into OpenSSL per id
  return sha256First32(eventId) % layout.shards;
}
