import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'crypto';

/**
 * Data keys and their stored record. Every encrypted version has its own random 256-bit data key:
 *
 * - SSE-S3 (`AES256`): the data key is wrapped (AES-256-GCM) by the current master key of the
 *   keyring; the record names the master key's id, so that older keys stay usable for reading after
 *   a new one becomes current (rotation: put the new key first, keep the old ones listed).
 * - SSE-C: the data key is derived (HKDF-SHA256) from the customer's key and a random salt; the
 *   record keeps only the salt and a salted HMAC of the customer key to tell a wrong key, never the
 *   key itself.
 *
 * The record is stored as JSON beside the version's metadata (`version_meta.sse`); this module owns
 * that format: encodeSseRecord writes it, decodeSseRecord reads it, nothing else touches it.
 */
export type SseRecord =
  | { v: 1; alg: 'AES256'; kid: string; iv: string; wrapped: string }
  | { v: 1; alg: 'SSE-C'; salt: string; check: string };

/** One master key: its id (stored in each record it wraps) and its 32 bytes. */
export interface MasterKey {
  id: string;
  key: Buffer;
}

/** The master keys of SSE-S3: the first wraps new data keys, every one unwraps what it wrapped. */
export class MasterKeyring {
  private readonly byId = new Map<string, Buffer>();

  constructor(readonly keys: MasterKey[]) {
    for (const k of keys) {
      if (k.key.length !== 32) throw new Error(`master key "${k.id}" must be 32 bytes, got ${k.key.length}`);
      if (this.byId.has(k.id)) throw new Error(`master key id "${k.id}" is listed twice`);
      this.byId.set(k.id, k.key);
    }
  }

  /** The key that wraps new data keys, or undefined when no master key is configured. */
  get current(): MasterKey | undefined {
    return this.keys[0];
  }

  /** The key of id `id`, if configured. */
  get(id: string): Buffer | undefined {
    return this.byId.get(id);
  }
}

/**
 * Parses `id=base64,id2=base64` (the first entry is current) into master keys; throws with the
 * reason on a malformed list, an id with odd characters or a key that is not 32 bytes.
 */
export function parseMasterKeys(spec: string): MasterKey[] {
  const out: MasterKey[] = [];
  for (const entry of spec.split(',').map((e) => e.trim()).filter((e) => e.length > 0)) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new Error('each master key is <id>=<base64 of 32 bytes>');
    const id = entry.slice(0, eq);
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(id)) throw new Error(`master key id "${id}" may use only letters, digits, . _ -`);
    const key = Buffer.from(entry.slice(eq + 1), 'base64');
    if (key.length !== 32) throw new Error(`master key "${id}" must be 32 bytes (base64), got ${key.length}`);
    out.push({ id, key });
  }
  new MasterKeyring(out); // duplicate ids
  return out;
}

const WRAP_AAD = 'ostore-sse-s3-data-key-v1:';
const SSE_C_INFO = Buffer.from('ostore-sse-c-data-key-v1');
const SSE_C_CHECK = Buffer.from('ostore-sse-c-check-v1');

/** A data key and the record that recovers it. */
export interface NewDataKey {
  dataKey: Buffer;
  record: SseRecord;
}

/** A fresh data key for an SSE-S3 version, wrapped by the keyring's current master key. */
export function newSseS3Key(keyring: MasterKeyring): NewDataKey {
  const master = keyring.current;
  if (!master) throw new Error('no master key is configured');
  const dataKey = randomBytes(32);
  return { dataKey, record: wrapDataKey(dataKey, master) };
}

function wrapDataKey(dataKey: Buffer, master: MasterKey): SseRecord {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', master.key, iv);
  c.setAAD(Buffer.from(WRAP_AAD + master.id));
  const wrapped = Buffer.concat([c.update(dataKey), c.final(), c.getAuthTag()]);
  return { v: 1, alg: 'AES256', kid: master.id, iv: iv.toString('base64'), wrapped: wrapped.toString('base64') };
}

/** A fresh data key for an SSE-C version, derived from the customer's 32-byte key and a new salt. */
export function newSseCKey(customerKey: Buffer): NewDataKey {
  const salt = randomBytes(16);
  return { dataKey: deriveSseC(customerKey, salt), record: { v: 1, alg: 'SSE-C', salt: salt.toString('base64'), check: checkOf(customerKey, salt) } };
}

function deriveSseC(customerKey: Buffer, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', customerKey, salt, SSE_C_INFO, 32));
}

function checkOf(customerKey: Buffer, salt: Buffer): string {
  return createHmac('sha256', customerKey).update(SSE_C_CHECK).update(salt).digest('base64');
}

/** Why a data key could not be recovered. */
export type DataKeyFailure = 'customer-key-missing' | 'customer-key-wrong' | 'master-key-unknown' | 'record-corrupt';

/** A data key that could not be recovered, with the reason (the gateway maps it to S3's error). */
export class DataKeyError extends Error {
  constructor(readonly reason: DataKeyFailure) {
    super(`cannot recover the data key: ${reason}`);
    this.name = 'DataKeyError';
  }
}

/** Recovers the data key of a record: with the keyring (SSE-S3) or the customer's key (SSE-C). */
export function dataKeyOf(record: SseRecord, keys: { keyring: MasterKeyring; customerKey?: Buffer }): Buffer {
  if (record.alg === 'SSE-C') {
    if (!keys.customerKey) throw new DataKeyError('customer-key-missing');
    const salt = Buffer.from(record.salt, 'base64');
    const want = Buffer.from(record.check, 'base64');
    const got = Buffer.from(checkOf(keys.customerKey, salt), 'base64');
    if (want.length !== got.length || !timingSafeEqual(want, got)) throw new DataKeyError('customer-key-wrong');
    return deriveSseC(keys.customerKey, salt);
  }
  const master = keys.keyring.get(record.kid);
  if (!master) throw new DataKeyError('master-key-unknown');
  const wrapped = Buffer.from(record.wrapped, 'base64');
  if (wrapped.length !== 48) throw new DataKeyError('record-corrupt');
  const d = createDecipheriv('aes-256-gcm', master, Buffer.from(record.iv, 'base64'));
  d.setAAD(Buffer.from(WRAP_AAD + record.kid));
  d.setAuthTag(wrapped.subarray(32));
  try {
    return Buffer.concat([d.update(wrapped.subarray(0, 32)), d.final()]);
  } catch {
    throw new DataKeyError('record-corrupt');
  }
}

/**
 * Re-wraps an SSE-S3 record under the keyring's current master key (the same data key, so the stored
 * body stays as it is): the record to store, or undefined when there is nothing to do (SSE-C, or
 * wrapped by the current key already). Throws DataKeyError when the old master key is not listed.
 */
export function rewrapSseS3(record: SseRecord, keyring: MasterKeyring): SseRecord | undefined {
  const master = keyring.current;
  if (record.alg !== 'AES256' || !master || record.kid === master.id) return undefined;
  return wrapDataKey(dataKeyOf(record, { keyring }), master);
}

/** The stored form of a record (`version_meta.sse`). */
export function encodeSseRecord(record: SseRecord): string {
  return JSON.stringify(record);
}

/** A stored record; throws DataKeyError('record-corrupt') on anything else. */
export function decodeSseRecord(stored: string): SseRecord {
  let r: unknown;
  try {
    r = JSON.parse(stored);
  } catch {
    throw new DataKeyError('record-corrupt');
  }
  const o = r as Record<string, unknown>;
  const s = (k: string) => typeof o[k] === 'string';
  if (o && o['v'] === 1 && o['alg'] === 'AES256' && s('kid') && s('iv') && s('wrapped')) return o as SseRecord;
  if (o && o['v'] === 1 && o['alg'] === 'SSE-C' && s('salt') && s('check')) return o as SseRecord;
  throw new DataKeyError('record-corrupt');
}
