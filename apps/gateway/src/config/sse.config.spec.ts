import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { randomBytes } from 'crypto';
import { ConfigError } from '@ostore/shared/config';
import { sseConfigOf } from './sse.config';

describe(sseConfigOf.name, () => {
  const key = () => randomBytes(32).toString('base64');

  it('reads the master keys from the variable or from a file, the first one current', () => {
    const spec = `k2=${key()},k1=${key()}`;
    expect(sseConfigOf({ S3_SSE_MASTER_KEYS: spec, S3_SSE_C_ALLOW_HTTP: false }).masterKeys.map((k) => k.id)).toEqual(['k2', 'k1']);
    const file = join(mkdtempSync(join(tmpdir(), 'sse-')), 'keys');
    writeFileSync(file, `${spec}\n`);
    expect(sseConfigOf({ S3_SSE_MASTER_KEYS_FILE: file, S3_SSE_C_ALLOW_HTTP: true })).toMatchObject({ allowCustomerKeysOverHttp: true, masterKeys: [{ id: 'k2' }, { id: 'k1' }] });
    expect(sseConfigOf({ S3_SSE_C_ALLOW_HTTP: false }).masterKeys).toEqual([]);
  });

  it('refuses a malformed list, both sources at once and an unreadable file, naming the variable', () => {
    expect(() => sseConfigOf({ S3_SSE_MASTER_KEYS: 'k1=c2hvcnQ=', S3_SSE_C_ALLOW_HTTP: false })).toThrow(ConfigError);
    expect(() => sseConfigOf({ S3_SSE_MASTER_KEYS: `k1=${key()}`, S3_SSE_MASTER_KEYS_FILE: '/x', S3_SSE_C_ALLOW_HTTP: false })).toThrow(/exclude/);
    expect(() => sseConfigOf({ S3_SSE_MASTER_KEYS_FILE: '/nonexistent/keys', S3_SSE_C_ALLOW_HTTP: false })).toThrow(/S3_SSE_MASTER_KEYS_FILE/);
  });
});
