const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value as the signer saw it. Node hands header values over decoded as Latin-1 (one
 * character per byte), while SDKs sign the UTF-8 text and send its UTF-8 bytes (botocore, the
 * AWS SDKs for non-ASCII user metadata); S3 signs the bytes received. So a value whose bytes are
 * valid UTF-8 is read back as UTF-8, so that hashing it as UTF-8 hashes the bytes that came; any
 * other value is kept as it arrived.
 */
export function signedHeaderText(value: string): string {
  if (/^[\x00-\x7f]*$/.test(value)) return value;
  try {
    return UTF8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}
