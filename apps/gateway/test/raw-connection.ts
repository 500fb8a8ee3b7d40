import net from 'net';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import { GatewayUnderTest, waitFor } from '@ostore/testing';

/** A raw TCP connection to the gateway that records what it receives and when it closes. */
export class RawConnection {
  readonly socket: net.Socket;
  received = '';
  closed = false;

  constructor(endpoint: string) {
    const url = new URL(endpoint);
    this.socket = net.connect(Number(url.port), url.hostname);
    this.socket.setEncoding('latin1');
    this.socket.on('data', (d: string) => (this.received += d));
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => (this.closed = true));
  }

  async connected(): Promise<this> {
    if (!this.socket.connecting) return this;
    await new Promise((resolve, reject) => this.socket.once('connect', resolve).once('error', reject));
    return this;
  }

  /** Resolves once the server has closed the connection (fails after `ms`). */
  async closedWithin(ms: number): Promise<void> {
    await waitFor('the server closes the connection', async () => (this.closed ? true : undefined), ms);
  }
}

/** SigV4 (header auth) headers for a hand-written request. */
export async function signedHeaders(gw: GatewayUnderTest, method: string, path: string, headers: Record<string, string>): Promise<Record<string, string>> {
  const url = new URL(gw.endpoint);
  const signer = new SignatureV4({ credentials: gw.credentials, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false });
  const signed = await signer.sign({ method, protocol: 'http:', hostname: url.hostname, port: Number(url.port), path, headers: { host: url.host, ...headers } });
  return signed.headers;
}

/** An HTTP/1.1 request line and headers, ready to write to a socket. */
export function requestHead(method: string, path: string, headers: Record<string, string>): string {
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}
