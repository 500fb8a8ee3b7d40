import type { CassandraClient } from '@ostore/shared/cassandra';
import { str } from './statement';

export interface UserRow {
  userId: string;
  displayName: string;
  createdAt: Date;
  disabled: boolean;
}

export interface AccessKeyRow {
  accessKeyId: string;
  secret: string;
  userId: string;
  createdAt: Date;
  disabled: boolean;
}

const userOf = (r: Record<string, unknown>): UserRow => ({
  userId: str(r['user_id']),
  displayName: str(r['display_name']),
  createdAt: r['created_at'] as Date,
  disabled: r['disabled'] === true,
});

const keyOf = (r: Record<string, unknown>): AccessKeyRow => ({
  accessKeyId: str(r['access_key_id']),
  secret: str(r['secret']),
  userId: str(r['user_id']),
  createdAt: r['created_at'] as Date,
  disabled: r['disabled'] === true,
});

/**
 * Users and their access keys. Ids are claimed with `IF NOT EXISTS`; flag changes use `IF EXISTS`
 * so that they never create a partial row for a missing user or key. Secrets are returned to the
 * caller and never logged here.
 */
export class UsersRepository {
  constructor(private readonly client: CassandraClient) {}

  async insertUserIfNotExists(row: UserRow): Promise<boolean> {
    const rs = await this.client.execute(
      `INSERT INTO users (user_id, display_name, created_at, disabled) VALUES (?, ?, ?, ?) IF NOT EXISTS`,
      [row.userId, row.displayName, row.createdAt, row.disabled],
    );
    return rs.wasApplied();
  }

  async getUser(userId: string): Promise<UserRow | undefined> {
    const r = (await this.client.execute(`SELECT * FROM users WHERE user_id = ?`, [userId])).first();
    return r ? userOf(r) : undefined;
  }

  /** Every user (a full scan: the table is small). */
  async listUsers(): Promise<UserRow[]> {
    const out: UserRow[] = [];
    for await (const r of this.client.rows(`SELECT * FROM users`)) out.push(userOf(r));
    return out;
  }

  async setUserDisabled(userId: string, disabled: boolean): Promise<boolean> {
    const rs = await this.client.execute(`UPDATE users SET disabled = ? WHERE user_id = ? IF EXISTS`, [
      disabled,
      userId,
    ]);
    return rs.wasApplied();
  }

  /** Claims the key id; the per-user listing row is written after it (readers confirm each entry). */
  async insertKeyIfNotExists(row: AccessKeyRow): Promise<boolean> {
    const rs = await this.client.execute(
      `INSERT INTO access_keys (access_key_id, secret, user_id, created_at, disabled) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS`,
      [row.accessKeyId, row.secret, row.userId, row.createdAt, row.disabled],
    );
    if (!rs.wasApplied()) return false;
    await this.client.execute(
      `INSERT INTO access_keys_by_user (user_id, access_key_id, created_at) VALUES (?, ?, ?)`,
      [row.userId, row.accessKeyId, row.createdAt],
    );
    return true;
  }

  async getKey(accessKeyId: string): Promise<AccessKeyRow | undefined> {
    const r = (await this.client.execute(`SELECT * FROM access_keys WHERE access_key_id = ?`, [accessKeyId])).first();
    return r ? keyOf(r) : undefined;
  }

  async listKeyIds(userId: string): Promise<string[]> {
    const rs = await this.client.execute(`SELECT access_key_id FROM access_keys_by_user WHERE user_id = ?`, [userId]);
    return rs.rows.map((r) => str(r['access_key_id']));
  }

  async setKeyDisabled(accessKeyId: string, disabled: boolean): Promise<boolean> {
    const rs = await this.client.execute(
      `UPDATE access_keys SET disabled = ? WHERE access_key_id = ? IF EXISTS`,
      [disabled, accessKeyId],
    );
    return rs.wasApplied();
  }
}
