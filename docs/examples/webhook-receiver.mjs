// A minimal webhook receiver that verifies what it gets, with Node.js alone (no packages).
//
//   WEBHOOK_SECRET=whsec_... PORT=4000 node docs/examples/webhook-receiver.mjs
//
// It checks, in order: the Standard Webhooks signature (binds id, timestamp and body),
// the X-Service-Signature (HMAC of the raw body), the timestamp (replay protection,
// 5 minutes), and the delivery id (de-duplication of retries). Only then does it act.
import http from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('set WEBHOOK_SECRET to the hmacSecret you got when subscribing');
const TOLERANCE_S = 5 * 60;
const seen = new Map(); // delivery id -> when first processed; keep ids for at least 25 hours

const safeEqual = (a, b) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

function verify(headers, rawBody) {
  // 1. Standard Webhooks: v1,<base64 HMAC-SHA256 of "id.timestamp.body">, keyed with the
  //    base64-decoded part of the secret after "whsec_".
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expectedV1 = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(rawBody).digest('base64');
  const v1ok = String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((s) => safeEqual(s, `v1,${expectedV1}`));
  if (!v1ok) return 'bad webhook-signature';

  // 2. The spec's header: sha256=<hex HMAC-SHA256 of the raw body>, keyed with the secret string as given.
  const expectedHex = `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
  if (!safeEqual(String(headers['x-service-signature'] ?? ''), expectedHex)) return 'bad X-Service-Signature';

  // 3. Replay protection: reject a timestamp more than 5 minutes away from our clock.
  const ts = Number(headers['x-service-timestamp']);
  if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > TOLERANCE_S) return 'stale timestamp';
  if (String(ts) !== String(timestamp)) return 'timestamps disagree';
  return undefined;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks); // verify the exact bytes, before any JSON parsing
    const problem = verify(req.headers, rawBody);
    if (problem) {
      console.log(`rejected: ${problem}`);
      res.writeHead(401, { 'content-type': 'text/plain' }).end(problem);
      return;
    }
    const deliveryId = req.headers['x-service-delivery-id'];
    if (seen.has(deliveryId)) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('already processed');
      return;
    }
    seen.set(deliveryId, Date.now());
    const event = JSON.parse(rawBody.toString('utf8'));
    console.log(`verified ${event.eventName} ${event.id} entity=${event.entityType}/${event.entityId}`);
    // Answer fast (under 5 s); do slow work after answering.
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () => console.log(`listening on ${server.address().port}`));
