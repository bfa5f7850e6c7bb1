import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

// Certificates made at test time with openssl (never checked in): a CA of the test's own and
// server certificates it signs, for the TLS tests of Kafka and Postgres.

/** A server certificate signed by a test CA, for 127.0.0.1 and localhost. */
export interface ServerCertificate {
  certFile: string;
  keyFile: string;
  /** The certificate, its key and the CA in one PKCS#12 keystore (Kafka's ssl.keystore). */
  p12File: string;
  p12Password: string;
}

export interface TestCa {
  /** The CA's certificate (PEM): what a client trusts. */
  caFile: string;
  /**
   * A server certificate named `name` (files `<name>.pem`, `<name>.key`, `<name>.p12` in the CA's directory);
   * with `client`, a TLS client certificate (extendedKeyUsage clientAuth, CN `name`) instead.
   */
  issue(name: string, opts?: { client?: boolean }): ServerCertificate;
}

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A new CA in `dir` named `name` (files `<name>-ca.pem`, `<name>-ca.key`), valid two days. */
export function testCa(dir: string, name: string): TestCa {
  const caFile = path.join(dir, `${name}-ca.pem`);
  const caKey = path.join(dir, `${name}-ca.key`);
  openssl([
    'req',
    '-x509',
    ...EC_KEY,
    '-keyout',
    caKey,
    '-out',
    caFile,
    '-days',
    '2',
    '-subj',
    `/CN=${name} test CA`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return {
    caFile,
    issue(server, opts = {}) {
      const base = path.join(dir, server);
      const ext = `${base}.ext`;
      writeFileSync(
        ext,
        [
          ...(opts.client ? [] : ['subjectAltName=IP:127.0.0.1,DNS:localhost']),
          'basicConstraints=CA:FALSE',
          'keyUsage=digitalSignature,keyEncipherment',
          `extendedKeyUsage=${opts.client ? 'clientAuth' : 'serverAuth'}`,
          '',
        ].join('\n'),
      );
      openssl([
        'req',
        ...EC_KEY,
        '-keyout',
        `${base}.key`,
        '-out',
        `${base}.csr`,
        '-subj',
        `/CN=${opts.client ? server : 'localhost'}`,
      ]);
      openssl([
        'x509',
        '-req',
        '-in',
        `${base}.csr`,
        '-CA',
        caFile,
        '-CAkey',
        caKey,
        '-CAcreateserial',
        '-out',
        `${base}.pem`,
        '-days',
        '2',
        '-extfile',
        ext,
      ]);
      const p12Password = 'test-keystore';
      openssl([
        'pkcs12',
        '-export',
        '-in',
        `${base}.pem`,
        '-inkey',
        `${base}.key`,
        '-certfile',
        caFile,
        '-name',
        server,
        '-out',
        `${base}.p12`,
        '-passout',
        `pass:${p12Password}`,
      ]);
      return { certFile: `${base}.pem`, keyFile: `${base}.key`, p12File: `${base}.p12`, p12Password };
    },
  };
}
