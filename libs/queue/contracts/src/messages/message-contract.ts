import { z, ZodIssue } from 'zod';

/**
 * A queue message that cannot be read or written under its contract: not JSON, an unknown `v`,
 * or a field that fails validation. Consumers treat it as poison: retrying cannot fix it.
 */
export class MessageContractError extends Error {
  constructor(
    readonly contract: string,
    readonly reason: string,
    /** Dotted path of the offending field (`versions.0.rules.1.action`), when one is to blame. */
    readonly field?: string,
  ) {
    super(`${contract} message rejected: ${field ? `${field}: ` : ''}${reason}`);
    this.name = 'MessageContractError';
  }
}

/**
 * A versioned message type. The wire form is a JSON object with a numeric `v` and the fields of
 * that version, nothing else. `toMessage` always writes the current version; `fromMessage`
 * reads every version listed in `readers` and rejects any other with a precise error, so that a
 * consumer older than its producer fails loudly instead of guessing. Any change of the wire
 * shape — even an added optional field — is a new version (unknown fields are rejected).
 */
export interface MessageContract<T> {
  readonly name: string;
  /** The version `toMessage` writes. */
  readonly version: number;
  /** The versions `fromMessage` accepts. */
  readonly readable: readonly number[];
  toMessage(value: T): string;
  fromMessage(raw: string | Buffer | Uint8Array): T;
}

export interface ContractDefinition<T, W extends z.ZodTypeAny> {
  name: string;
  version: number;
  /** Zod schema of the current version's wire object, without `v`. Must parse to T. */
  wire: W;
  /** Domain value → wire object (e.g. Date → ISO string); validated by `wire` afterwards. */
  encode(value: T): z.input<W>;
  /** Older versions still readable: version → schema that parses an old wire object into T. */
  older?: Record<number, z.ZodType<T, z.ZodTypeDef, any>>;
}

function firstProblem(contract: string, issues: ZodIssue[]): MessageContractError {
  const issue = issues[0];
  const field = issue.path.length > 0 ? issue.path.join('.') : undefined;
  const more =
    issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return new MessageContractError(contract, `${issue.message}${more}`, field);
}

/** Builds a MessageContract from the schema of its current version (plus readers of older ones). */
export function defineContract<T, W extends z.ZodType<T, z.ZodTypeDef, any>>(
  def: ContractDefinition<T, W>,
): MessageContract<T> {
  const readers = new Map<number, z.ZodType<T, z.ZodTypeDef, any>>([
    ...Object.entries(def.older ?? {}).map(([v, s]) => [Number(v), s] as const),
    [def.version, def.wire],
  ]);
  const readable = [...readers.keys()].sort((a, b) => a - b);

  return {
    name: def.name,
    version: def.version,
    readable,
    toMessage(value: T): string {
      const wire = def.encode(value);
      const checked = def.wire.safeParse(wire);
      if (!checked.success) throw firstProblem(def.name, checked.error.issues);
      return JSON.stringify({ v: def.version, ...(wire as object) });
    },
    fromMessage(raw: string | Buffer | Uint8Array): T {
      const text = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new MessageContractError(def.name, 'not valid JSON');
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new MessageContractError(def.name, 'not a JSON object');
      const { v, ...fields } = parsed as Record<string, unknown>;
      if (typeof v !== 'number' || !Number.isInteger(v))
        throw new MessageContractError(
          def.name,
          `missing or non-integer version (got ${JSON.stringify(v)})`,
          'v',
        );
      const reader = readers.get(v);
      if (!reader) {
        throw new MessageContractError(
          def.name,
          `unsupported version ${v} (this build reads ${readable.join(', ')})`,
          'v',
        );
      }
      const result = reader.safeParse(fields);
      if (!result.success) throw firstProblem(def.name, result.error.issues);
      return result.data;
    },
  };
}

const MAX_KEY_BYTES = 1024;

/** S3 bucket names as the gateway accepts them. */
export const BUCKET_NAME_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Field shapes shared by the contracts, matching the metastore's conventions (001-baseline). */
export const fields = {
  bucketId: z.string().uuid('must be a uuid'),
  /** S3 bucket names as the gateway accepts them. */
  bucket: z.string().regex(BUCKET_NAME_RE, 'must be a valid S3 bucket name'),
  key: z
    .string()
    .min(1, 'must not be empty')
    .refine(
      (k) => Buffer.byteLength(k, 'utf8') <= MAX_KEY_BYTES,
      `must be at most ${MAX_KEY_BYTES} UTF-8 bytes`,
    ),
  /** A directory partition: '' (the root) or a prefix ending in '/'. */
  parent: z
    .string()
    .refine((p) => p === '' || p.endsWith('/'), "must be '' or end with '/'")
    .refine(
      (p) => Buffer.byteLength(p, 'utf8') <= MAX_KEY_BYTES,
      `must be at most ${MAX_KEY_BYTES} UTF-8 bytes`,
    ),
  /** Last path segment of a key: no '/' ('' for keys that end in '/'). */
  name: z.string().refine((n) => !n.includes('/'), "must not contain '/'"),
  /** A folder row's child segment, stored with its trailing '/' (`cats/`). */
  folderName: z.string().regex(/^[^/]+\/$/, "must be one path segment followed by '/'"),
  /** A folder row's child segment, possibly empty (`/`, from keys like `a//b`), with its trailing '/'. */
  folderSegment: z.string().regex(/^[^/]*\/$/, "must be one path segment (possibly empty) followed by '/'"),
  ruleId: z.string().min(1, 'must not be empty').max(255, 'must be at most 255 characters'),
  opaqueId: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters'),
  host: z
    .string()
    .min(1, 'must not be empty')
    .max(255, 'must be at most 255 characters')
    .regex(/^\S+$/, 'must not contain whitespace'),
  /** An instant, written as `Date.toISOString()` (UTC, millisecond precision). */
  instant: z
    .string()
    .datetime({ message: 'must be an ISO-8601 UTC timestamp' })
    .transform((s) => new Date(s)),
  safeInt: z.number().int('must be an integer').refine(Number.isSafeInteger, 'must be a safe integer'),
};

/** `Date` → wire instant; an invalid date becomes a string the schema rejects. */
export function instantOf(d: Date): string {
  return d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString() : String(d);
}
