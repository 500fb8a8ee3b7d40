import { S3Error } from '@ostore/s3/protocol';

/** Where the bucket and key of a request come from. */
export interface Addressed {
  bucket?: string;
  key?: string;
  addressing: 'path' | 'virtual-host';
}

/**
 * Resolves path-style (`/bucket/key`) and virtual-host-style (`bucket.<domain>/key`) requests.
 * `domains` are the service's own host names (e.g. `s3.local`, `localhost`); a Host that is a
 * sub-domain of one of them names the bucket. Keys are percent-decoded exactly once; '+' stays '+'.
 */
export function resolveAddressing(host: string | undefined, rawPath: string, domains: string[]): Addressed {
  const hostname = (host ?? '').replace(/:\d+$/, '').toLowerCase();
  const path = rawPath.startsWith('/') ? rawPath.slice(1) : rawPath;
  for (const domain of domains) {
    if (hostname.endsWith(`.${domain}`)) {
      const bucket = hostname.slice(0, -domain.length - 1);
      return { bucket, key: path === '' ? undefined : decode(path), addressing: 'virtual-host' };
    }
  }
  if (path === '') return { addressing: 'path' };
  const slash = path.indexOf('/');
  if (slash < 0) return { bucket: decode(path), addressing: 'path' };
  const key = path.slice(slash + 1);
  return { bucket: decode(path.slice(0, slash)), key: key === '' ? undefined : decode(key), addressing: 'path' };
}

/** A path segment percent-decoded once; invalid percent-encoding (`%zz`, `%FF` alone) is InvalidURI. */
function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new S3Error('InvalidURI', "Couldn't parse the specified URI.");
  }
}
