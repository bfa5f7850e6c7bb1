// A consumer's mistake the types must catch: test/sdk-package.test.ts type-checks this file in the
// project the packed packages were installed into and expects exactly these two errors (a misspelt
// event name, compared and assigned). docs/sdk.md, "Webhooks".
import { constructEvent, type EventName } from '@cluster/client';

export function handle(body: string, headers: Record<string, string>, secret: string): string {
  const event = constructEvent(body, headers, secret);
  if (event.eventName === 'entry.craeted') return 'created';
  return event.id;
}

export const subscribed: EventName = 'entry.craeted';
