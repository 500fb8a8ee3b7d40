import { FORWARDED_HEADER } from './usage-routes';

/** A current-usage answer as it travels over HTTP (dates as ISO strings). */
export interface CurrentUsageJson {
  bucketId: string;
  bytes: number;
  objects: number;
  deltaEvents: number;
  asOf: string;
  cut?: string;
  snapshotAgeSeconds?: number;
}

/** Why a forward failed. */
export class ForwardFailed extends Error {
  constructor(
    readonly reason: 'timeout' | 'unreachable' | 'status' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = ForwardFailed.name;
  }
}

/**
 * Asks the replica at `baseUrl` for a bucket's current usage, marked as forwarded (so it answers
 * itself), within `timeoutMs`. Node's fetch keeps connections to a replica alive, so a forward
 * costs one local round trip, not a TCP handshake.
 */
export class UsageOwnerClient {
  async current(baseUrl: string, bucketId: string, timeoutMs: number): Promise<CurrentUsageJson> {
    let res: Response;
    try {
      res = await fetch(`${baseUrl}/usage/buckets/${bucketId}`, {
        headers: { [FORWARDED_HEADER]: '1', accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      const name = (e as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new ForwardFailed('timeout', `no answer from ${baseUrl} within ${timeoutMs} ms`);
      throw new ForwardFailed('unreachable', `${baseUrl}: ${(e as Error).message}`);
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      throw new ForwardFailed('status', `${baseUrl} answered HTTP ${res.status}`);
    }
    let body: Partial<CurrentUsageJson>;
    try {
      body = (await res.json()) as Partial<CurrentUsageJson>;
    } catch (e) {
      const name = (e as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new ForwardFailed('timeout', `no whole answer from ${baseUrl} within ${timeoutMs} ms`);
      throw new ForwardFailed('invalid', `${baseUrl} answered no JSON`);
    }
    if (
      body.bucketId !== bucketId ||
      typeof body.bytes !== 'number' ||
      typeof body.objects !== 'number' ||
      typeof body.deltaEvents !== 'number' ||
      typeof body.asOf !== 'string'
    )
      throw new ForwardFailed('invalid', `${baseUrl} answered something else than the usage of ${bucketId}`);
    return body as CurrentUsageJson;
  }
}
