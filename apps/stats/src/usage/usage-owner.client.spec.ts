import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import { AddressInfo, Socket } from 'net';
import { ForwardFailed, UsageOwnerClient } from './usage-owner.client';
import { FORWARDED_HEADER } from './usage-routes';

const BUCKET = '1a2b3c4d-0000-4000-8000-00000000000a';
const ANSWER = { bucketId: BUCKET, bytes: 7, objects: 1, deltaEvents: 1, asOf: '1970-01-01T00:00:00.000Z' };

/** A real loopback HTTP server whose answer per request is `handle`'s; counts connections and requests. */
async function owner(
  handle: (req: IncomingMessage, res: ServerResponse, nth: { onSocket: number }) => void,
): Promise<{ url: string; server: Server; connections: () => number; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  const perSocket = new Map<Socket, number>();
  const server = createServer((req, res) => {
    requests.push(req);
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    handle(req, res, { onSocket: n });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, connections: () => perSocket.size, requests };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

const reasonOf = (p: Promise<unknown>) =>
  p.then(
    () => 'answered',
    (e: unknown) => (e instanceof ForwardFailed ? e.reason : `other: ${(e as Error).message}`),
  );

describe(UsageOwnerClient.name, () => {
  const servers: Server[] = [];
  const clients: UsageOwnerClient[] = [];
  const setup = async (handle: Parameters<typeof owner>[0]) => {
    const o = await owner(handle);
    servers.push(o.server);
    const client = new UsageOwnerClient();
    clients.push(client);
    return { ...o, client };
  };
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  it('returns the owner’s answer, marks the request forwarded and reuses one socket', async () => {
    const { url, client, connections, requests } = await setup((_req, res) => json(res, 200, ANSWER));
    for (let i = 0; i < 5; i++) expect(await client.current(url, BUCKET, 1000)).toEqual(ANSWER);
    expect(requests).toHaveLength(5);
    expect(requests.map((r) => [r.url, r.headers[FORWARDED_HEADER]])).toEqual(
      Array.from({ length: 5 }, () => [`/usage/buckets/${BUCKET}`, '1']),
    );
    expect(connections()).toBe(1);
  });

  it('fails with the reason: status, invalid answer, timeout, unreachable', async () => {
    const bad = await setup((req, res) => {
      if (req.url?.endsWith('a')) json(res, 503, { status: 'unavailable' });
      else if (req.url?.endsWith('b')) json(res, 200, 'not json');
      else if (req.url?.endsWith('c')) json(res, 200, { ...ANSWER, bucketId: 'another' });
      // ...d: never answered
    });
    const id = (last: string) => BUCKET.slice(0, -1) + last;
    expect(await reasonOf(bad.client.current(bad.url, id('a'), 1000))).toBe('status');
    expect(await reasonOf(bad.client.current(bad.url, id('b'), 1000))).toBe('invalid');
    expect(await reasonOf(bad.client.current(bad.url, id('c'), 1000))).toBe('invalid');
    expect(await reasonOf(bad.client.current(bad.url, id('d'), 100))).toBe('timeout');
    bad.server.closeAllConnections();
    await new Promise((r) => bad.server.close(r));
    expect(await reasonOf(bad.client.current(bad.url, BUCKET, 1000))).toBe('unreachable');
    expect(await reasonOf(bad.client.current('ftp://127.0.0.1:1', BUCKET, 1000))).toBe('unreachable');
  });

  it('sends once more on a new socket when a kept-alive one was closed under it, never twice', async () => {
    // the owner drops the socket at its second request (as after its keep-alive timeout): the
    // client sends that request again on a new connection, which is answered
    const stale = await setup((req, res, { onSocket }) => {
      if (onSocket === 2) req.socket.destroy();
      else json(res, 200, ANSWER);
    });
    expect(await stale.client.current(stale.url, BUCKET, 1000)).toEqual(ANSWER);
    expect(await stale.client.current(stale.url, BUCKET, 1000)).toEqual(ANSWER);
    expect(stale.requests).toHaveLength(3);
    expect(stale.connections()).toBe(2);

    // a reset on a new socket is a failure, not retried
    const reset = await setup((req) => req.socket.destroy());
    expect(await reasonOf(reset.client.current(reset.url, BUCKET, 1000))).toBe('unreachable');
    expect(reset.requests).toHaveLength(1);
  });
});
