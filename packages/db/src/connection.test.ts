import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pgConnectionConfig } from './connection.ts';

// libpq's sslmode, not node-postgres' own reading of it (whose `require` verifies like verify-full).
const dir = mkdtempSync(path.join(os.tmpdir(), 'pg-config-'));
const ca = path.join(dir, 'ca.pem');
writeFileSync(ca, 'CA PEM');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const url = (query: string) => `postgres://app:pw@db.example:5432/app${query}`;

describe('pgConnectionConfig', () => {
  it('is plaintext without sslmode or with disable, and passes the URL on without TLS parameters', () => {
    expect(pgConnectionConfig(url(''))).toEqual({ connectionString: url(''), ssl: false });
    expect(pgConnectionConfig(url('?sslmode=disable&application_name=x'))).toEqual({
      connectionString: url('?application_name=x'),
      ssl: false,
    });
  });

  it('require: encrypted, the certificate unchecked; with a CA, checked as verify-ca', () => {
    expect(pgConnectionConfig(url('?sslmode=require')).ssl).toEqual({ rejectUnauthorized: false });
    const withCa = pgConnectionConfig(url(`?sslmode=require&sslrootcert=${ca}`)).ssl;
    expect(withCa).toMatchObject({ ca: 'CA PEM', rejectUnauthorized: true });
    expect(withCa && withCa.checkServerIdentity?.('other.example', {} as never)).toBeUndefined();
  });

  it('verify-ca checks the chain, not the host name; verify-full checks both', () => {
    const verifyCa = pgConnectionConfig(url(`?sslmode=verify-ca&sslrootcert=${ca}`));
    expect(verifyCa.connectionString).toBe(url(''));
    expect(verifyCa.ssl).toMatchObject({ ca: 'CA PEM', rejectUnauthorized: true });
    expect(verifyCa.ssl && typeof verifyCa.ssl.checkServerIdentity).toBe('function');
    const full = pgConnectionConfig(url(`?sslmode=verify-full&sslrootcert=${ca}`)).ssl;
    expect(full).toMatchObject({ ca: 'CA PEM', rejectUnauthorized: true });
    expect(full && full.checkServerIdentity).toBeUndefined(); // Node's own: the certificate must name the host
  });

  it('refuses modes node-postgres cannot honour and TLS parameters it would read its own way', () => {
    expect(() => pgConnectionConfig(url('?sslmode=prefer'))).toThrow(/sslmode=prefer is not supported/);
    expect(() => pgConnectionConfig(url('?ssl=true'))).toThrow(/parameter ssl is not supported/);
    expect(() => pgConnectionConfig(url('?sslmode=require&uselibpqcompat=true'))).toThrow(/uselibpqcompat/);
  });
});
