import { createServer, get, IncomingMessage, Server, ServerResponse } from 'http';
import type { AddressInfo } from 'net';
import { Readable } from 'stream';
import { lendChunks, ReadBufferPool } from '@ostore/storage/blocks';
import { sendBody } from './send-body';

/** A pool that counts what comes back. */
class CountingPool extends ReadBufferPool {
  released = 0;
  override release(chunk: Buffer): void {
    this.released++;
    super.release(chunk);
  }
}

/** `count` chunks of `size` bytes from `pool`, chunk i filled with byte i; `fail` throws after that many. */
function lendingBody(
  pool: ReadBufferPool,
  count: number,
  size: number,
  state: { closed: boolean },
  fail?: number,
) {
  async function* generate(): AsyncGenerator<Buffer> {
    try {
      for (let i = 0; i < count; i++) {
        if (i === fail) throw new Error('block read failed');
        const b = pool.acquire(size);
        b.fill(i % 251);
        yield b;
      }
    } finally {
      state.closed = true;
    }
  }
  return lendChunks(Readable.from(generate(), { objectMode: false, highWaterMark: 1 }), pool);
}

describe(sendBody.name, () => {
  let server: Server;
  let port: number;
  let handler: (res: ServerResponse) => Promise<void>;
  let outcome: Promise<unknown>;

  beforeEach(async () => {
    server = createServer((_req, res) => {
      outcome = handler(res).then(
        () => 'sent',
        (e: unknown) => e,
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => new Promise<void>((r) => server.close(() => r())));

  const fetch = () =>
    new Promise<IncomingMessage>((resolve, reject) =>
      get({ host: '127.0.0.1', port, path: '/' }, resolve).on('error', reject),
    );

  const readAll = async (res: IncomingMessage) => {
    const parts: Buffer[] = [];
    for await (const c of res) parts.push(c as Buffer);
    return Buffer.concat(parts);
  };

  it('sends every chunk of a lending body and gives each back once the socket wrote it', async () => {
    const pool = new CountingPool(256 * 1024);
    const state = { closed: false };
    const count = 40;
    const size = 256 * 1024;
    handler = async (res) => {
      res.writeHead(200, { 'Content-Length': count * size });
      await sendBody(lendingBody(pool, count, size, state), res);
    };
    const body = await readAll(await fetch());
    expect(await outcome).toBe('sent');
    expect(body.length).toBe(count * size);
    for (let i = 0; i < count; i++) expect(body[i * size]).toBe(i % 251);
    expect(body[count * size - 1]).toBe((count - 1) % 251);
    expect(pool.released).toBe(count);
    expect(state.closed).toBe(true);
  });

  it('rejects and destroys the body when the client goes away midway', async () => {
    const pool = new CountingPool(1024 * 1024);
    const state = { closed: false };
    const count = 512; // 512 MiB announced: far more than the socket buffers hold
    handler = async (res) => {
      res.writeHead(200, { 'Content-Length': count * 1024 * 1024 });
      await sendBody(lendingBody(pool, count, 1024 * 1024, state), res);
    };
    const res = await fetch();
    await new Promise<void>((r) => res.once('data', () => r()));
    res.destroy();
    const e = (await outcome) as NodeJS.ErrnoException;
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('ERR_STREAM_PREMATURE_CLOSE');
    expect(state.closed).toBe(true);
    expect(pool.released).toBeLessThan(count);
  });

  it('rejects with the body error and cuts the response', async () => {
    const pool = new CountingPool(1024);
    const state = { closed: false };
    handler = async (res) => {
      res.writeHead(200, { 'Content-Length': 10 * 1024 });
      await sendBody(lendingBody(pool, 10, 1024, state, 3), res);
    };
    const res = await fetch();
    const received = await readAll(res).catch((e: Error) => e);
    // the connection was cut before Content-Length bytes ('aborted': an Error of another realm under Jest)
    expect(Buffer.isBuffer(received)).toBe(false);
    expect((received as Error).message).toMatch(/aborted|ECONNRESET|socket hang up/);
    expect(((await outcome) as Error).message).toBe('block read failed');
    expect(state.closed).toBe(true);
  });

  it('pipes a body that does not lend its chunks as it is', async () => {
    handler = async (res) => {
      res.writeHead(200, { 'Content-Length': 11 });
      await sendBody(Readable.from([Buffer.from('hello '), Buffer.from('world')]), res);
    };
    expect((await readAll(await fetch())).toString()).toBe('hello world');
    expect(await outcome).toBe('sent');
  });
});
