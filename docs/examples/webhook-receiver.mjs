// A minimal webhook receiver that verifies what it gets, with @cluster/webhook-verify
// (packages/webhook-verify: no dependencies beyond node:crypto) and Node's http module.
//
//   WEBHOOK_SECRET=whsec_... PORT=4000 node docs/examples/webhook-receiver.mjs
//   WEBHOOK_PUBLIC_KEY=whpk_... PORT=4000 node docs/examples/webhook-receiver.mjs   (an ed25519 subscription)
//
// verify() checks the Standard Webhooks signature (it binds the delivery id, the timestamp
// and the raw body; any of several space-separated signatures may match, as during a
// secret rotation) in constant time, and the timestamp (replay protection, 5 minutes).
// The replay guard remembers processed delivery ids for 25 hours, so a retry of a
// delivery already handled is answered 2xx without acting again.
// With Koa or Express, use koaWebhookVerifier / expressWebhookVerifier instead (README).
import http from 'node:http';
import { createMemoryReplayGuard, isWebhookVerificationError, verify } from '@cluster/webhook-verify';

// The hmacSecret of an hmac-sha256 subscription, or the publicKey of an ed25519 one (docs/signature-schemes.md).
const secret = process.env.WEBHOOK_SECRET || process.env.WEBHOOK_PUBLIC_KEY;
if (!secret)
  throw new Error(
    'set WEBHOOK_SECRET to the hmacSecret you got when subscribing (or WEBHOOK_PUBLIC_KEY to an ed25519 subscription’s publicKey)',
  );
const seen = createMemoryReplayGuard();

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks); // verify the exact bytes, before any JSON parsing
    let webhook;
    try {
      webhook = verify(rawBody, req.headers, secret, { toleranceSeconds: 300 });
    } catch (err) {
      if (!isWebhookVerificationError(err)) throw err;
      console.log(`rejected: ${err.code}: ${err.message}`);
      res.writeHead(err.status, { 'content-type': 'text/plain' }).end(err.code);
      return;
    }
    if (seen.has(webhook.id)) {
      console.log(`duplicate ${webhook.id}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('already processed');
      return;
    }
    const event = webhook.payload;
    console.log(`verified ${event.eventName} ${event.id} entity=${event.entityType}/${event.entityId}`);
    // Answer fast (under 5 s); do slow work after answering. Remember the id once handled.
    seen.remember(webhook.id);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () => console.log(`listening on ${server.address().port}`));
