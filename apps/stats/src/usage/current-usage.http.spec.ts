import { createServer, Server } from 'http';
import { AddressInfo } from 'net';
import { currentUsageHandler, putInFront } from './current-usage.http';
import { FORWARDED_HEADER } from './usage-routes';

const BUCKET = '1a2b3c4d-0000-4000-8000-00000000000a';

describe('the plain current-usage route on the management listener', () => {
  let server: Server;
  let base: string;
  const calls: [string, boolean][] = [];
  let fail = false;

  beforeAll(async () => {
    // the listener Nest installs (express), answering everything it is given with 418
    server = createServer((_req, res) => {
      res.writeHead(418);
      res.end('nest');
    });
    putInFront(
      server,
      currentUsageHandler({
        current: async (bucketId, forwarded) => {
          calls.push([bucketId, forwarded]);
          if (fail) throw new Error('cassandra down');
          return { bucketId, bytes: 7, objects: 1, deltaEvents: 1, asOf: new Date(0) };
        },
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    calls.length = 0;
    fail = false;
  });

  it('answers a well-formed GET itself, with the router’s answer as JSON', async () => {
    const res = await fetch(`${base}/usage/buckets/${BUCKET.toUpperCase()}?pretty=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      bucketId: BUCKET,
      bytes: 7,
      objects: 1,
      deltaEvents: 1,
      asOf: '1970-01-01T00:00:00.000Z',
    });
    const forwarded = await fetch(`${base}/usage/buckets/${BUCKET}`, {
      headers: { [FORWARDED_HEADER]: '1' },
    });
    expect(forwarded.status).toBe(200);
    await forwarded.text();
    expect(calls).toEqual([
      [BUCKET, false],
      [BUCKET, true],
    ]);
  });

  it('leaves every other request to Nest', async () => {
    for (const [method, path] of [
      ['GET', '/usage/buckets/not-a-uuid'],
      ['GET', `/usage/buckets/${BUCKET}/more`],
      ['GET', '/usage/buckets/'],
      ['POST', `/usage/buckets/${BUCKET}`],
      ['GET', '/metrics'],
    ]) {
      const res = await fetch(`${base}${path}`, { method });
      expect([method, path, res.status, await res.text()]).toEqual([method, path, 418, 'nest']);
    }
    expect(calls).toEqual([]);
  });

  it('answers 500 in Nest’s shape when the router fails', async () => {
    fail = true;
    const res = await fetch(`${base}/usage/buckets/${BUCKET}`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ statusCode: 500, message: 'Internal server error' });
  });
});
