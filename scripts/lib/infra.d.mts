// Types of infra.mjs for the TypeScript callers (the fault tests' private brokers and Postgres servers).
export declare const ROOT: string;
export declare function kafkaLibs(): string;
export declare function prepareKafka(opts: {
  configDir: string;
  dataDir: string;
  port: number;
  controllerPort: number;
  logLevel?: string;
  /** A SASL_SSL listener too (SCRAM-SHA-512 and unsecured OAUTHBEARER logins, TLS with a PKCS#12 keystore). */
  saslSsl?: {
    port: number;
    keystoreFile: string;
    keystorePassword: string;
    scramUsers?: { name: string; password: string }[];
  };
}): { props: string; javaArgs(logsDir: string): string[] };
export declare function portOpen(port: number, host?: string): Promise<boolean>;
export declare function stopPid(
  pid: number | undefined,
  opts?: { name?: string; graceMs?: number; signal?: NodeJS.Signals },
): Promise<void>;
export declare function preparePostgres(opts: {
  dir: string;
  port: number;
  logFile: string;
  /** TLS too, with this certificate and key (PEM files). */
  ssl?: { certFile: string; keyFile: string };
}): Promise<{ url: string; start(): Promise<import('node:child_process').ChildProcess> }>;
/** The local servers' data dir (LOCAL_DATA_DIR, else .data/) and ports (LOCAL_PG_PORT, LOCAL_KAFKA_PORT). */
export declare const DATA: string;
export declare const PG_PORT: number;
export declare const KAFKA_PORT: number;
export declare function kafkaLibsCached(): boolean;
/** What stops `npm start` / `npm test` before they start anything: one line each, naming the fix. */
export declare function infraProblems(opts?: { create?: boolean }): Promise<string[]>;
