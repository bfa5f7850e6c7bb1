import { Writable } from 'node:stream';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { tracer } from './telemetry.ts';

describe('log lines', () => {
  it('carry the trace and span ids of the span they are written in, and none outside one', () => {
    new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] }).register();
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logger = createLogger('test', 'info', sink);
    logger.info('outside');
    const ids = tracer('test').startActiveSpan('work', (span) => {
      logger.info('inside');
      span.end();
      return span.spanContext();
    });
    expect(lines[0]).not.toHaveProperty('traceId');
    expect(lines[0]).not.toHaveProperty('spanId');
    expect(lines[1]).toMatchObject({ msg: 'inside', traceId: ids.traceId, spanId: ids.spanId });
  });
});
