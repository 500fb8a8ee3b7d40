import { randomBytes } from 'crypto';
import type { Clock } from '@ostore/shared/clock';
import type { AccessKeyRow, Metastore, UserRow } from '@ostore/metastore/data-access';
import type { AccessKey, User, UsersService } from './api';
import { s3err } from './errors';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const SECRET_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function randomChars(alphabet: string, n: number): string {
  // alphabets of 32 and 64 symbols: a byte masked to 5 or 6 bits is uniform
  const mask = alphabet.length - 1;
  return Array.from(randomBytes(n), (b) => alphabet[b & mask]).join('');
}

/** The longest user id the admin API and the bootstrap user accept. */
export const MAX_USER_ID_LENGTH = 64;
/** The longest access key id the admin API and the bootstrap user accept. */
export const MAX_ACCESS_KEY_ID_LENGTH = 128;
/** A user id the admin API and the bootstrap user accept: 1 to MAX_USER_ID_LENGTH of A-Z a-z 0-9 . _ @ - */
export const USER_ID_PATTERN = new RegExp(`^[A-Za-z0-9._@-]{1,${MAX_USER_ID_LENGTH}}$`);
/** An access key id the admin API and the bootstrap user accept: 16 to MAX_ACCESS_KEY_ID_LENGTH letters or digits. */
export const ACCESS_KEY_ID_PATTERN = new RegExp(`^[A-Za-z0-9]{16,${MAX_ACCESS_KEY_ID_LENGTH}}$`);

/** A 20-character AWS-style access key id (AKIA + 16 base32 characters). */
export function generateAccessKeyId(): string {
  return `AKIA${randomChars(BASE32, 16)}`;
}

/** A 40-character AWS-style secret access key. */
export function generateSecretAccessKey(): string {
  return randomChars(SECRET_CHARS, 40);
}

const userOf = (r: UserRow): User => ({
  id: r.userId,
  displayName: r.displayName,
  createdAt: r.createdAt,
  disabled: r.disabled,
});

const keyOf = (r: AccessKeyRow): AccessKey => ({
  accessKeyId: r.accessKeyId,
  secretAccessKey: r.secret,
  userId: r.userId,
  createdAt: r.createdAt,
  disabled: r.disabled,
});

/** Users and access keys. Secrets are returned to the caller only; nothing here logs them. */
export class CassandraUsersService implements UsersService {
  constructor(
    private readonly ms: Metastore,
    private readonly clock: Clock,
  ) {}

  async createUser(input: { id: string; displayName: string }): Promise<User> {
    if (!input.id) throw s3err('InvalidArgument', 'A user id is required');
    const row: UserRow = { userId: input.id, displayName: input.displayName, createdAt: this.clock.now(), disabled: false };
    if (!(await this.ms.users.insertUserIfNotExists(row)))
      throw s3err('UserAlreadyExists', `User ${input.id} already exists`);
    return userOf(row);
  }

  async listUsers(): Promise<User[]> {
    return (await this.ms.users.listUsers()).map(userOf).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async getUser(id: string): Promise<User | undefined> {
    // a request can name any string (a grantee's id or e-mail address): one longer than any user
    // id names no one, and is never sent as a key (Cassandra refuses keys over 64 KiB)
    if (id.length > MAX_USER_ID_LENGTH) return undefined;
    const r = await this.ms.users.getUser(id);
    return r ? userOf(r) : undefined;
  }

  async setUserDisabled(id: string, disabled: boolean): Promise<void> {
    if (!(await this.ms.users.setUserDisabled(id, disabled))) throw s3err('NoSuchUser', `User ${id} does not exist`);
  }

  async createAccessKey(userId: string, given?: { accessKeyId: string; secretAccessKey: string }): Promise<AccessKey> {
    if (!(await this.ms.users.getUser(userId))) throw s3err('NoSuchUser', `User ${userId} does not exist`);
    for (let attempt = 0; attempt < 5; attempt++) {
      const row: AccessKeyRow = {
        accessKeyId: given?.accessKeyId ?? generateAccessKeyId(),
        secret: given?.secretAccessKey ?? generateSecretAccessKey(),
        userId,
        createdAt: this.clock.now(),
        disabled: false,
      };
      if (await this.ms.users.insertKeyIfNotExists(row)) return keyOf(row);
      if (given) throw s3err('AccessKeyAlreadyExists', `Access key ${given.accessKeyId} already exists`);
    }
    throw s3err('InternalError', 'could not generate a unique access key id');
  }

  async listAccessKeys(userId: string): Promise<Omit<AccessKey, 'secretAccessKey'>[]> {
    const ids = await this.ms.users.listKeyIds(userId);
    const rows = await Promise.all(ids.map((id) => this.ms.users.getKey(id)));
    return rows
      .filter((r): r is AccessKeyRow => !!r && r.userId === userId)
      .map(({ accessKeyId, createdAt, disabled }) => ({ accessKeyId, userId, createdAt, disabled }));
  }

  async setAccessKeyDisabled(accessKeyId: string, disabled: boolean): Promise<void> {
    if (!(await this.ms.users.setKeyDisabled(accessKeyId, disabled)))
      throw s3err('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  }

  async findAccessKey(accessKeyId: string): Promise<{ key: AccessKey; user: User } | undefined> {
    if (accessKeyId.length > MAX_ACCESS_KEY_ID_LENGTH) return undefined;
    const key = await this.ms.users.getKey(accessKeyId);
    if (!key) return undefined;
    const user = await this.ms.users.getUser(key.userId);
    return user ? { key: keyOf(key), user: userOf(user) } : undefined;
  }
}
