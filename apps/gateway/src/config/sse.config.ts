import { readFileSync } from 'fs';
import { ConfigError, envVar, z } from '@ostore/shared/config';
import { MasterKey, parseMasterKeys } from '@ostore/s3/crypto';

/** The environment of server-side encryption (part of the gateway's schema). */
export const SSE_ENV = {
  /**
   * SSE-S3 master keys, `<id>=<base64 of 32 bytes>` separated by commas; the first wraps new data
   * keys, every listed one still unwraps what it wrapped (rotation). None: SSE-S3 is refused.
   */
  S3_SSE_MASTER_KEYS: z.string().min(1).optional(),
  /** A file holding S3_SSE_MASTER_KEYS (a mounted secret), instead of the variable. */
  S3_SSE_MASTER_KEYS_FILE: z.string().min(1).optional(),
  /** Accept SSE-C keys over plain HTTP (AWS refuses them); for local setups or a gateway behind a TLS proxy. */
  S3_SSE_C_ALLOW_HTTP: envVar.bool(false),
};

/** Server-side encryption settings. */
export interface SseConfig {
  masterKeys: MasterKey[];
  allowCustomerKeysOverHttp: boolean;
}

/** The SSE settings of a parsed environment; a malformed key list is a ConfigError naming the variable. */
export function sseConfigOf(parsed: { S3_SSE_MASTER_KEYS?: string; S3_SSE_MASTER_KEYS_FILE?: string; S3_SSE_C_ALLOW_HTTP: boolean }): SseConfig {
  const name = parsed.S3_SSE_MASTER_KEYS_FILE !== undefined ? 'S3_SSE_MASTER_KEYS_FILE' : 'S3_SSE_MASTER_KEYS';
  if (parsed.S3_SSE_MASTER_KEYS !== undefined && parsed.S3_SSE_MASTER_KEYS_FILE !== undefined)
    throw new ConfigError(['S3_SSE_MASTER_KEYS_FILE: S3_SSE_MASTER_KEYS and S3_SSE_MASTER_KEYS_FILE exclude each other']);
  let spec = parsed.S3_SSE_MASTER_KEYS;
  if (parsed.S3_SSE_MASTER_KEYS_FILE !== undefined) {
    try {
      spec = readFileSync(parsed.S3_SSE_MASTER_KEYS_FILE, 'utf8').trim();
    } catch (e) {
      throw new ConfigError([`S3_SSE_MASTER_KEYS_FILE: cannot read ${parsed.S3_SSE_MASTER_KEYS_FILE}: ${(e as Error).message}`]);
    }
  }
  let masterKeys: MasterKey[] = [];
  try {
    masterKeys = spec === undefined ? [] : parseMasterKeys(spec);
  } catch (e) {
    throw new ConfigError([`${name}: ${(e as Error).message}`]);
  }
  return { masterKeys, allowCustomerKeysOverHttp: parsed.S3_SSE_C_ALLOW_HTTP };
}
