// Node's codes (from OpenSSL) of a TLS handshake that failed on the server's certificate: what the
// start of a connection to Postgres (connection.ts, explainConnectError) and to Kafka (@cluster/kafka,
// kafkaStartProblem) recognise to name the setting to look at. It imports nothing, so the Kafka
// package takes it through its own entry (`@cluster/db/certificate-codes`) without loading the database client.

/** Codes of a TLS handshake that failed on the server's certificate. */
export const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);
