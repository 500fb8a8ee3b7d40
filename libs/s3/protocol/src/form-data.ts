import { Readable } from 'stream';
import { S3Error } from './errors';

/**
 * A streaming multipart/form-data reader for POST object: the fields before the file are read
 * into memory (bounded), the file part is handed on as a stream that never holds more than one
 * chunk of the body, and what follows the file is drained unread (S3 ignores fields after it).
 */

/** The file part of a form. */
export interface FormFile {
  /** The part's field name (`file`). */
  field: string;
  /** The `filename` of its Content-Disposition ('' when none was given). */
  filename: string;
  contentType?: string;
  /** The file's bytes; ends at the part's boundary. */
  stream: Readable;
}

/** The fields before the file (names lower-cased, values as sent) and the file, if any. */
export interface FormUntilFile {
  fields: Map<string, string>;
  file?: FormFile;
}

/** S3's limit on the form fields preceding the file. */
export const MAX_POST_FIELDS_BYTES = 20 * 1024;

const malformed = (detail: string) => new S3Error('MalformedPOSTRequest', `The body of your POST request is not well-formed multipart/form-data. ${detail}`.trim());

/** The boundary of a `multipart/form-data; boundary=...` Content-Type, or undefined. */
export function formBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

class BodyReader {
  private buf: Buffer;
  private done = false;

  constructor(private readonly it: AsyncIterator<Buffer>, initial: Buffer) {
    this.buf = initial;
  }

  get buffered(): Buffer {
    return this.buf;
  }

  /** Reads one more chunk into the buffer; false at the end of the body. */
  async fill(): Promise<boolean> {
    if (this.done) return false;
    const next = await this.it.next();
    if (next.done) {
      this.done = true;
      return false;
    }
    this.buf = this.buf.length === 0 ? next.value : Buffer.concat([this.buf, next.value]);
    return true;
  }

  consume(n: number): Buffer {
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** The bytes before `delim` (which is consumed too), reading at most `max` bytes ahead. */
  async until(delim: Buffer, max: number, tooLong: () => S3Error): Promise<Buffer> {
    for (;;) {
      const at = this.buf.indexOf(delim);
      if (at >= 0) {
        if (at > max) throw tooLong();
        const out = Buffer.from(this.consume(at));
        this.consume(delim.length);
        return out;
      }
      if (this.buf.length > max + delim.length) throw tooLong();
      if (!(await this.fill())) throw malformed('');
    }
  }

  async drain(): Promise<void> {
    this.buf = Buffer.alloc(0);
    while (await this.fill()) this.buf = Buffer.alloc(0);
  }
}

/**
 * Reads a form up to and including the start of its first file part. The caller must read the
 * file's stream to its end (or destroy it); the rest of the body is drained after it.
 */
export async function readFormUntilFile(body: AsyncIterable<Buffer>, boundary: string, maxFieldsBytes = MAX_POST_FIELDS_BYTES): Promise<FormUntilFile> {
  const delim = Buffer.from(`\r\n--${boundary}`);
  // the leading CRLF lets the first boundary match the same delimiter as the others
  const reader = new BodyReader(body[Symbol.asyncIterator](), Buffer.from('\r\n'));
  const tooLarge = () => new S3Error('MaxPostPreDataLengthExceeded');
  let budget = maxFieldsBytes;
  await reader.until(delim, 64 * 1024, () => malformed('')); // preamble
  const fields = new Map<string, string>();
  for (;;) {
    while (reader.buffered.length < 2 && (await reader.fill()));
    const after = reader.consume(2).toString('latin1');
    if (after === '--') {
      await reader.drain();
      return { fields };
    }
    if (after !== '\r\n') throw malformed('');
    const head = (await reader.until(Buffer.from('\r\n\r\n'), Math.min(budget, 8 * 1024), tooLarge)).toString('utf8');
    budget -= head.length;
    const part = partHeaders(head);
    // the field named `file` is the upload (S3: "The file or content must be the last field in the
    // form"); a field before it is a field even when its part carries a filename, as Python's
    // requests sends every `files=` entry
    if (part.name.toLowerCase() === 'file') {
      return { fields, file: { field: part.name, filename: part.filename ?? '', contentType: part.contentType, stream: fileStream(reader, delim) } };
    }
    const value = await reader.until(delim, Math.max(0, budget), tooLarge);
    budget -= value.length;
    if (budget < 0) throw tooLarge();
    const name = part.name.toLowerCase();
    // S3 refuses a repeated field, save for the x-ignore-* ones
    if (fields.has(name) && !name.startsWith('x-ignore-')) throw malformed(`Duplicate field: ${part.name}`);
    fields.set(name, value.toString('utf8'));
  }
}

function partHeaders(head: string): { name: string; filename?: string; contentType?: string } {
  let name: string | undefined;
  let filename: string | undefined;
  let contentType: string | undefined;
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (header === 'content-type') contentType = value;
    if (header !== 'content-disposition') continue;
    if (!/^form-data\s*(;|$)/i.test(value)) throw malformed('');
    for (const m of value.matchAll(/;\s*([a-zA-Z*]+)=(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)) {
      const v = m[2] !== undefined ? m[2].replace(/\\"/g, '"') : m[3].trim();
      if (m[1].toLowerCase() === 'name') name = v;
      if (m[1].toLowerCase() === 'filename') filename = v.replace(/^.*[\\/]/, '');
    }
  }
  if (name === undefined) throw malformed('');
  return { name, filename, contentType };
}

/** The file part's bytes up to the delimiter; then the rest of the body is drained. */
function fileStream(reader: BodyReader, delim: Buffer): Readable {
  async function* bytes(): AsyncGenerator<Buffer> {
    for (;;) {
      const buf = reader.buffered;
      const at = buf.indexOf(delim);
      if (at >= 0) {
        if (at > 0) yield Buffer.from(reader.consume(at));
        await reader.drain();
        return;
      }
      // keep what could be the start of a delimiter split across chunks
      const safe = buf.length - (delim.length - 1);
      if (safe > 0) yield Buffer.from(reader.consume(safe));
      if (!(await reader.fill())) throw malformed('');
    }
  }
  return Readable.from(bytes(), { objectMode: false });
}
