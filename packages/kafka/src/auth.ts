import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import kafkajs, { type Mechanism, type SASLOptions } from 'kafkajs';

// TLS and SASL of the connections to the brokers, with kafkajs' OAUTHBEARER replaced (oauthBearerMechanism).

/** TLS and SASL of the connections to the brokers, as readKafkaConfig (@cluster/platform) reads them. */
export interface KafkaSecurity {
  /** false: plaintext. Otherwise TLS verified against `ca` (PEM) or Node's trusted CAs; `cert` and `key`: mutual TLS. */
  tls: false | { ca?: string; cert?: string; key?: string };
  sasl?:
    | { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string }
    | { mechanism: 'oauthbearer'; tokenFile?: string; tokenCommand?: string };
}

/** The SASL settings createKafka hands kafkajs: the password mechanisms as they are, OAUTHBEARER our own. */
export function saslOptions(sasl: NonNullable<KafkaSecurity['sasl']>): SASLOptions | Mechanism {
  if (sasl.mechanism === 'oauthbearer') return oauthBearerMechanism(oauthTokenProvider(sasl));
  const withPassword: SASLOptions = sasl;
  return withPassword;
}

const run = promisify(execFile);

/**
 * The OAUTHBEARER token, fetched again each time the client authenticates (a new connection, or
 * a re-authentication when the broker's session ends): from a file a sidecar or the platform keeps
 * fresh, or from a command's standard output (say a cloud CLI printing a token). Neither is cached,
 * so a refreshed token is used at the next authentication.
 */
export function oauthTokenProvider(source: { tokenFile?: string; tokenCommand?: string }): () => Promise<string> {
  return async () => {
    const raw = source.tokenFile
      ? await readFile(source.tokenFile, 'utf8')
      : (await run('/bin/sh', ['-c', source.tokenCommand ?? 'false'], { timeout: 30_000 })).stdout;
    const value = raw.trim();
    if (!value) throw new Error(`the OAuth token ${source.tokenFile ? `file ${source.tokenFile}` : 'command'} gave no token`);
    return value;
  };
}

// Its typings omit the constructor's message; the class is what kafkaStartProblem and kafkajs' retries recognise.
const SaslAuthenticationError = (kafkajs as unknown as { KafkaJSSASLAuthenticationError: new (message: string) => Error })
  .KafkaJSSASLAuthenticationError;

/** A SASL message: a 32-bit length, then the bytes (the framing of kafkajs' encoder). */
const framed = (text: string) => {
  const body = Buffer.from(text);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length);
  return Buffer.concat([length, body]);
};

/**
 * SASL/OAUTHBEARER (RFC 7628) in place of kafkajs' own, which takes the broker's refusal of a token
 * for a success: Kafka answers a bad or expired token with an error document (`{"status":"invalid_token"}`)
 * in place of an empty reply, then closes the connection, and kafkajs retries in a loop of
 * "authentication successful". Here that answer is a refused login, which the start reports.
 */
function oauthBearerMechanism(token: () => Promise<string>): Mechanism {
  return {
    mechanism: 'oauthbearer',
    authenticationProvider: ({ host, port, saslAuthenticate }) => ({
      async authenticate() {
        const request = { encode: async () => framed(`n,,\u0001auth=Bearer ${await token()}\u0001\u0001`) };
        // The reply is framed as the request is: empty on success, an error document on refusal.
        const response = { decode: async (bytes: Buffer) => bytes, parse: (bytes: Buffer) => bytes.subarray(4).toString() };
        const refusal = await saslAuthenticate<string>({ request, response });
        if (refusal)
          throw new SaslAuthenticationError(
            `SASL OAUTHBEARER authentication failed at ${host}:${port}: the broker answered ${refusal}`,
          );
      },
    }),
  };
}
