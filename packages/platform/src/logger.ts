import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.ts';
import { currentRequestId } from './context.ts';
import { currentTraceIds } from './telemetry.ts';

export type { Logger };

/**
 * JSON logs on stdout, one line per event, request id attached, secrets redacted. `level`: the service's LOG_LEVEL;
 * `destination`: stdout unless given (a test reads the lines).
 */
export function createLogger(service: string, level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin() {
        const requestId = currentRequestId();
        return { ...(requestId ? { requestId } : {}), ...currentTraceIds() };
      },
      redact: {
        paths: [
          'key',
          '*.key',
          'hmacSecret',
          '*.hmacSecret',
          'secret',
          '*.secret',
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'headers.authorization',
          'headers["x-api-key"]',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
