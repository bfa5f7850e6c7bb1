// An outsider's TypeScript program on the two published packages. test/sdk-package.test.ts installs
// their packed tarballs into an empty project outside the repository, type-checks this file there
// (strict, nodenext and bundler resolution), compiles it and runs it with plain Node against a
// cluster. One line per step: typed calls and the request id of each answer, a page of a list, a
// typed error, a real webhook delivery verified by @cluster/webhook-verify and turned into a typed event
// by the client's constructEvent (narrowed by its eventName), a connection error's
// cause, and createClient's check of its options. docs/sdk.md, "Installing".
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiConnectionError, ApiError, constructEvent, createClient, type Schemas, type WebhookEvent } from '@cluster/client';
import { verify } from '@cluster/webhook-verify';

const baseUrl = process.env.FEEDBACK_API_URL ?? '';
const apiKey = process.env.FEEDBACK_API_KEY;
const client = createClient({ baseUrl, apiKey });

// A typed call, and the request id of its answer.
const created = await client.projects.create({ name: 'Outsider', description: 'from the packed packages' }).withResponse();
const project: Schemas['Project'] = created.data;
console.log(`created project ${project.name} ${created.response.status} request ${created.requestId}`);

// A webhook receiver: every delivery verified against the raw bytes before it is believed.
let secret = '';
const deliveries: (WebhookEvent | Error)[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const body = Buffer.concat(chunks);
      verify(body, req.headers, secret); // the verifier alone, as a receiver without the SDK would
      deliveries.push(constructEvent(body, req.headers, secret)); // the same, and the typed event
      res.writeHead(204).end();
    } catch (err) {
      deliveries.push(err as Error);
      res.writeHead(401).end();
    }
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const { port } = receiver.address() as AddressInfo;
const hook = await client.webhooks.create({ destinationUrl: `http://127.0.0.1:${port}/hooks`, eventNames: ['entry.created'] });
secret = hook.hmacSecret ?? '';

const entry: Schemas['Entry'] = await client.entries.create(project.id, {
  type: 'feedback',
  title: 'outsider-entry',
  description: 'made by the sample',
});
for await (const page of client.entries.list(project.id).pages())
  console.log(`page ${page.page} of ${page.total}: ${page.data.map((e) => e.title).join(', ')} request ${page.requestId}`);

try {
  await client.projects.get('00000000-0000-4000-8000-000000000000');
} catch (err) {
  if (!(err instanceof ApiError)) throw err;
  console.log(`error ${err.status} ${err.reason} request ${err.requestId}`);
}

while (deliveries.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
const [event] = deliveries;
if (event instanceof Error) throw event;
// Narrowed by its name: entry.created's payload has the entry's title.
if (event.eventName === 'entry.created')
  console.log(
    `verified ${event.eventName} of ${event.entityId === entry.id ? 'the entry' : event.entityId}: ${event.payload.title}`,
  );
else console.log(`unexpected ${event.eventName}`);
await client.webhooks.delete(hook.id);

// Nothing listens on the receiver's port any more: the error names the refused connection.
receiver.close();
await once(receiver, 'close');
try {
  await createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey, maxRetries: 0 }).identity.me();
} catch (err) {
  if (!(err instanceof ApiConnectionError)) throw err;
  console.log(`${err.name} ${err.code} cause ${(err.cause as Error).message}`);
}

try {
  createClient({ baseUrl: 'api.example.com', apiKey });
} catch (err) {
  console.log((err as Error).message);
}

/** What the compiler refuses (never called). */
export function refusedByTheCompiler() {
  // @ts-expect-error a project needs its description
  void client.projects.create({ name: 'x' });
  // @ts-expect-error an event name is a string
  void client.webhooks.create({ destinationUrl: 'https://example.com', eventNames: [1] });
  const event = JSON.parse('{}') as WebhookEvent;
  // @ts-expect-error a misspelt event name compares with none of the union's (test/sdk-consumer/misspelt.ts alone)
  void (event.eventName === 'entry.craeted');
  // @ts-expect-error the base URL is a string
  createClient({ baseUrl: new URL('https://api.example.com'), apiKey });
}
