import { createHmac } from 'crypto';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { errorCode } from './s3-test-helpers';

/** S3_SIGV2=false: Signature Version 2 is refused as S3 refuses it in SigV4-only regions. */
describe('Signature Version 2 switched off', () => {
  let gw: GatewayUnderTest;

  beforeAll(async () => {
    gw = await startGateway('sigv2-off', { S3_SIGV2: 'false' });
    await gw.client().send(new CreateBucketCommand({ Bucket: 'v2-off' }));
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('refuses a V2-signed request that would be valid', async () => {
    const date = new Date().toUTCString();
    const sig = createHmac('sha1', gw.credentials.secretAccessKey).update(`GET\n\n\n${date}\n/v2-off/`).digest('base64');
    const res = await fetch(`${gw.endpoint}/v2-off/`, { headers: { Date: date, Authorization: `AWS ${gw.credentials.accessKeyId}:${sig}` } });
    const text = await res.text();
    expect([res.status, errorCode(text)]).toEqual([400, 'InvalidRequest']);
    expect(text).toContain('Please use AWS4-HMAC-SHA256');
  });

  it('refuses a V2 presigned URL', async () => {
    const expires = Math.floor(Date.now() / 1000) + 60;
    const sig = createHmac('sha1', gw.credentials.secretAccessKey).update(`GET\n\n\n${expires}\n/v2-off/`).digest('base64');
    const res = await fetch(`${gw.endpoint}/v2-off/?AWSAccessKeyId=${gw.credentials.accessKeyId}&Expires=${expires}&Signature=${encodeURIComponent(sig)}`);
    expect([res.status, errorCode(await res.text())]).toEqual([400, 'InvalidRequest']);
  });
});
