import { EventEmitter } from 'events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import { AddressInfo, connect, Socket } from 'net';
import { waitFor } from '@ostore/testing';
import { lingerUntilBodyEnds } from './s3-listener';

const BODY = 4 * 1024 * 1024;
const CHUNK = 256 * 1024;

/** A server that refuses every request at once, before reading its body, as the gateway's `fail` does. */
async function refusingServer(linger: ((raw: IncomingMessage) => void) | undefined): Promise<Server> {
  const server = createServer((raw: IncomingMessage, res: ServerResponse) => {
    raw.resume();
    linger?.(raw);
    res.writeHead(403, { 'Content-Length': 6 });
    res.end('denied');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A client that asks for Connection: close, reads the whole refusal, then sends `send` bytes of its body. */
async function refusedUpload(server: Server, send: number): Promise<{ writeError?: string; closed: Promise<void>; socket: Socket }> {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (received += d));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let writeError: string | undefined;
  socket.on('error', (e: NodeJS.ErrnoException) => (writeError ??= e.code ?? e.message));
  socket.write(`PUT /k HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${BODY}\r\n\r\n`);
  await waitFor('the refusal', async () => (received.endsWith('denied') ? true : undefined), 10_000, 5);
  for (let sent = 0; sent < send && !writeError; sent += CHUNK) {
    await new Promise<void>((resolve) => socket.write(Buffer.alloc(CHUNK, 1), (e) => (e ? ((writeError ??= (e as NodeJS.ErrnoException).code), resolve()) : resolve())));
  }
  return { writeError, closed, socket };
}

describe('lingerUntilBodyEnds (a lingering close after an early refusal)', () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });
  const start = async (linger?: (raw: IncomingMessage) => void) => {
    const server = await refusingServer(linger);
    servers.push(server);
    return server;
  };

  it("without it, Node resets the connection under a client still sending its body (the client's write fails)", async () => {
    const upload = await refusedUpload(await start(), BODY);
    sockets.push(upload.socket);
    expect(upload.writeError).toMatch(/^(EPIPE|ECONNRESET)$/);
  });

  it('with it, the client sends its whole body without an error, and then the connection closes', async () => {
    const upload = await refusedUpload(await start((raw) => lingerUntilBodyEnds(raw)), BODY);
    sockets.push(upload.socket);
    expect(upload.writeError).toBeUndefined();
    await upload.closed;
    expect(upload.socket.bytesWritten).toBeGreaterThanOrEqual(BODY);
  });

  it('a client that stops sending is cut after the longest linger', async () => {
    const upload = await refusedUpload(await start((raw) => lingerUntilBodyEnds(raw, 300)), CHUNK);
    sockets.push(upload.socket);
    expect(upload.writeError).toBeUndefined();
    // jest's own timeout bounds this wait: without the cap the server would hold the connection forever
    await upload.closed;
    expect(upload.socket.bytesWritten).toBeLessThan(BODY);
  });

  it('a keep-alive socket refused many times keeps one override, which waits for the latest request', () => {
    const socket = Object.assign(new EventEmitter(), { destroyed: false, destroySoonCalls: 0, destroySoon: () => undefined as void });
    socket.destroySoon = () => void socket.destroySoonCalls++;
    const request = () => Object.assign(new EventEmitter(), { complete: false, socket }) as unknown as IncomingMessage;
    const [first, second] = [request(), request()];
    lingerUntilBodyEnds(first, 60_000);
    const installed = socket.destroySoon;
    Object.assign(first, { complete: true });
    lingerUntilBodyEnds(second, 60_000);
    expect(socket.destroySoon).toBe(installed);
    socket.destroySoon();
    expect(socket.destroySoonCalls).toBe(0);
    second.emit('end');
    expect(socket.destroySoonCalls).toBe(1);
    socket.emit('close');
  });
});
