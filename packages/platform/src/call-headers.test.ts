import { create } from '@bufbuild/protobuf';
import { ConnectError, Code, createContextValues, type UnaryRequest, type UnaryResponse } from '@connectrpc/connect';
import { EntryService, WriteRequestSchema } from '@cluster/proto';
import { describe, expect, it } from 'vitest';
import { CALL_HEADERS, deadlineOf, forwardIdempotencyKey } from './call-headers.ts';
import { requestContext, type RequestContext } from './context.ts';

describe('deadlineOf', () => {
  const at = 1_000_000;
  it('reads Connect’s, gRPC’s and the cluster’s absolute deadline, and takes the earliest', () => {
    expect(deadlineOf(new Headers(), at)).toBeUndefined();
    expect(deadlineOf(new Headers({ 'connect-timeout-ms': '1500' }), at)).toBe(at + 1500);
    expect(deadlineOf(new Headers({ 'grpc-timeout': '2S' }), at)).toBe(at + 2000);
    expect(deadlineOf(new Headers({ 'grpc-timeout': '250m' }), at)).toBe(at + 250);
    expect(deadlineOf(new Headers({ 'connect-timeout-ms': '10000', 'cluster-deadline': String(at - 5) }), at)).toBe(at - 5);
  });
  it('ignores what is no deadline', () => {
    expect(deadlineOf(new Headers({ 'connect-timeout-ms': 'soon', 'grpc-timeout': '5x', 'cluster-deadline': '-1' }), at)).toBe(
      undefined,
    );
  });
});

describe('forwardIdempotencyKey', () => {
  const method = EntryService.method.createEntry;
  const request = (): UnaryRequest => ({
    stream: false,
    service: EntryService,
    method,
    requestMethod: 'POST',
    url: '',
    signal: new AbortController().signal,
    header: new Headers(),
    contextValues: createContextValues(),
    message: create(WriteRequestSchema),
  });
  const answer = (header: Headers): UnaryResponse =>
    ({ stream: false, service: EntryService, method, header, trailer: new Headers(), message: {} }) as never;
  const inRequest = <T>(ctx: RequestContext, fn: () => Promise<T>) => requestContext.run(ctx, fn);

  it('puts the key on the route’s operation call once, and marks a replayed answer', async () => {
    const ctx: RequestContext = {
      requestId: 'r',
      idempotency: { key: 'k', fingerprint: 'f', operation: 'cluster.core.v1.EntryService/CreateEntry' },
    };
    const seen: Headers[] = [];
    const call = forwardIdempotencyKey(async (req) => {
      seen.push(new Headers(req.header));
      return answer(new Headers({ [CALL_HEADERS.replayed]: 'true' }));
    });
    await inRequest(ctx, async () => {
      await call(request());
      await call(request());
    });
    expect(seen[0].get('idempotency-key')).toBe('k');
    expect(seen[0].get('idempotency-fingerprint')).toBe('f');
    expect(seen[1].get('idempotency-key')).toBeNull();
    expect(ctx.idempotency?.replayed).toBe(true);
  });

  it('leaves other operations alone, and marks a replayed refusal', async () => {
    const other: RequestContext = {
      requestId: 'r',
      idempotency: { key: 'k', fingerprint: 'f', operation: 'cluster.core.v1.ProjectService/CreateProject' },
    };
    let sent: string | null = 'unset';
    await inRequest(other, () =>
      forwardIdempotencyKey(async (req) => {
        sent = req.header.get('idempotency-key');
        return answer(new Headers());
      })(request()),
    );
    expect(sent).toBeNull();

    const refused: RequestContext = {
      requestId: 'r',
      idempotency: { key: 'k', fingerprint: 'f', operation: 'cluster.core.v1.EntryService/CreateEntry' },
    };
    const failing = forwardIdempotencyKey(async () => {
      throw new ConnectError('not found', Code.NotFound, { [CALL_HEADERS.replayed]: 'true' });
    });
    await expect(inRequest(refused, () => failing(request()))).rejects.toThrow('not found');
    expect(refused.idempotency?.replayed).toBe(true);
  });
});
