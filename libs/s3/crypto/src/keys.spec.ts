import { createHash, randomBytes } from 'crypto';
import { S3Error } from '@ostore/s3/protocol';
import { DataKeyError, dataKeyOf, decodeSseRecord, encodeSseRecord, MasterKeyring, newSseCKey, newSseS3Key, parseMasterKeys, rewrapSseS3 } from './keys';
import { parseCustomerKey } from './sse-headers';
import { decodeBucketEncryption, encodeBucketEncryption, parseBucketEncryptionXml } from './bucket-encryption';

const reason = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DataKeyError) return e.reason;
    throw e;
  }
  return undefined;
};

describe('data keys', () => {
  const k1 = { id: 'k1', key: randomBytes(32) };
  const k2 = { id: 'k2', key: randomBytes(32) };

  it('SSE-S3: wrapped by the current master key, unwrapped by its id after rotation, unknown once removed', () => {
    const { dataKey, record } = newSseS3Key(new MasterKeyring([k1]));
    const stored = decodeSseRecord(encodeSseRecord(record));
    expect(stored).toMatchObject({ alg: 'AES256', kid: 'k1' });
    expect(encodeSseRecord(record)).not.toContain(dataKey.toString('base64'));
    expect(dataKeyOf(stored, { keyring: new MasterKeyring([k2, k1]) }).equals(dataKey)).toBe(true);
    expect(newSseS3Key(new MasterKeyring([k2, k1])).record).toMatchObject({ kid: 'k2' });
    expect(reason(() => dataKeyOf(stored, { keyring: new MasterKeyring([k2]) }))).toBe('master-key-unknown');
    expect(reason(() => dataKeyOf(stored, { keyring: new MasterKeyring([{ id: 'k1', key: randomBytes(32) }]) }))).toBe('record-corrupt');
  });

  it('re-wraps an SSE-S3 record under the current master key: same data key, nothing to do when current, unknown old key refused', () => {
    const { dataKey, record } = newSseS3Key(new MasterKeyring([k1]));
    const rotated = new MasterKeyring([k2, k1]);
    const rewrapped = rewrapSseS3(record, rotated)!;
    expect(rewrapped).toMatchObject({ alg: 'AES256', kid: 'k2' });
    expect(dataKeyOf(rewrapped, { keyring: new MasterKeyring([k2]) }).equals(dataKey)).toBe(true);
    expect(rewrapSseS3(rewrapped, rotated)).toBeUndefined();
    expect(rewrapSseS3(newSseCKey(randomBytes(32)).record, rotated)).toBeUndefined();
    expect(reason(() => rewrapSseS3(record, new MasterKeyring([k2])))).toBe('master-key-unknown');
  });

  it('SSE-C: derived from the customer key; the record holds a salted check, never the key', () => {
    const customer = randomBytes(32);
    const a = newSseCKey(customer);
    const b = newSseCKey(customer);
    expect(a.dataKey.equals(b.dataKey)).toBe(false); // a salt per version
    const text = encodeSseRecord(a.record);
    expect(text).not.toContain(customer.toString('base64'));
    expect(text).not.toContain(createHash('md5').update(customer).digest('base64'));
    const keyring = new MasterKeyring([]);
    expect(dataKeyOf(a.record, { keyring, customerKey: customer }).equals(a.dataKey)).toBe(true);
    expect(reason(() => dataKeyOf(a.record, { keyring }))).toBe('customer-key-missing');
    expect(reason(() => dataKeyOf(a.record, { keyring, customerKey: randomBytes(32) }))).toBe('customer-key-wrong');
  });

  it('parses master key lists and refuses malformed ones', () => {
    const spec = `k2=${k2.key.toString('base64')}, k1=${k1.key.toString('base64')}`;
    expect(parseMasterKeys(spec).map((k) => k.id)).toEqual(['k2', 'k1']);
    expect(() => parseMasterKeys('k1=c2hvcnQ=')).toThrow(/32 bytes/);
    expect(() => parseMasterKeys(`${spec},k1=${k1.key.toString('base64')}`)).toThrow(/twice/);
    expect(() => parseMasterKeys('no-equals')).toThrow();
    expect(reason(() => decodeSseRecord('{"v":2}'))).toBe('record-corrupt');
  });
});

describe(parseCustomerKey.name, () => {
  const key = randomBytes(32);
  const headers = (over: Record<string, string | undefined> = {}) => ({
    'x-amz-server-side-encryption-customer-algorithm': 'AES256',
    'x-amz-server-side-encryption-customer-key': key.toString('base64'),
    'x-amz-server-side-encryption-customer-key-md5': createHash('md5').update(key).digest('base64'),
    ...over,
  });
  const code = (h: Record<string, string | undefined>) => {
    try {
      parseCustomerKey(h);
    } catch (e) {
      return (e as S3Error).code;
    }
    return 'ok';
  };

  it('accepts a 256-bit key with its MD5, none without headers, and refuses the rest as S3 does', () => {
    expect(parseCustomerKey(headers())?.key.equals(key)).toBe(true);
    expect(parseCustomerKey({})).toBeUndefined();
    expect(code(headers({ 'x-amz-server-side-encryption-customer-algorithm': 'AES128' }))).toBe('InvalidEncryptionAlgorithmError');
    expect(code(headers({ 'x-amz-server-side-encryption-customer-key': randomBytes(16).toString('base64') }))).toBe('InvalidArgument');
    expect(code(headers({ 'x-amz-server-side-encryption-customer-key-md5': 'AAAAAAAAAAAAAAAAAAAAAA==' }))).toBe('InvalidArgument');
    expect(code(headers({ 'x-amz-server-side-encryption-customer-key-md5': undefined }))).toBe('InvalidArgument');
  });
});

describe('bucket encryption configuration', () => {
  const xml = (alg: string, extra = '') =>
    `<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>${alg}</SSEAlgorithm>${extra}</ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`;
  const code = (body: string) => {
    try {
      parseBucketEncryptionXml(body);
    } catch (e) {
      return (e as S3Error).code;
    }
    return 'ok';
  };

  it('keeps AES256, refuses aws:kms as NotImplemented and the rest as S3 does', () => {
    const config = parseBucketEncryptionXml(xml('AES256'));
    expect(decodeBucketEncryption(encodeBucketEncryption(config))).toEqual({ algorithm: 'AES256', bucketKeyEnabled: false });
    expect(decodeBucketEncryption(undefined)).toBeUndefined();
    expect(code(xml('aws:kms'))).toBe('NotImplemented');
    expect(code(xml('aws:kms:dsse'))).toBe('NotImplemented');
    expect(code(xml('AES256', '<KMSMasterKeyID>k</KMSMasterKeyID>'))).toBe('InvalidArgument');
    expect(code(xml('DES'))).toBe('MalformedXML');
    expect(() => decodeBucketEncryption('garbage')).toThrow();
  });
});
