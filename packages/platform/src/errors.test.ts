import { Code } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { DomainError, fromConnectError, isDependencyUnavailable, toConnectError } from './errors.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('a failed dependency is 503 unavailable, never 500', () => {
  const unavailable = [
    withCode('canceling statement due to statement timeout', '57014'),
    withCode('terminating connection due to administrator command', '57P01'),
    withCode('the database system is starting up', '57P03'),
    withCode('sorry, too many clients already', '53300'),
    withCode('connection failure', '08006'),
    withCode('database "x" does not exist', '3D000'),
    withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    withCode('read ECONNRESET', 'ECONNRESET'),
    Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
    new Error('Query read timeout'),
    new Error('select 1 - Connection terminated unexpectedly'),
    new Error('Connection terminated due to connection timeout'),
    new Error('timeout expired'), // node-postgres: no answer to the connection's start-up in time
  ];
  it.each(unavailable.map((e) => [e.message, e]))('%s', (_, err) => {
    expect(isDependencyUnavailable(err)).toBe(true);
    const connect = toConnectError(err);
    expect(connect.code).toBe(Code.Unavailable);
    expect(fromConnectError(connect)).toMatchObject({ reason: 'unavailable', status: 503 });
  });

  it("leaves the code's own failures and the domain errors as they are", () => {
    for (const err of [new TypeError('x is undefined'), withCode('duplicate key', '23505'), withCode('syntax error', '42601')]) {
      expect(isDependencyUnavailable(err)).toBe(false);
      expect(toConnectError(err).code).toBe(Code.Internal);
    }
    const conflict = new DomainError('conflict', 'Connection terminated is in this message but it is ours');
    expect(toConnectError(conflict).code).toBe(Code.FailedPrecondition);
  });
});
