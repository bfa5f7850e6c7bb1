// Types of infra.mjs for the TypeScript callers (the fault tests' private brokers and Postgres servers).
export declare const ROOT: string;
export declare function kafkaLibs(): string;
export declare function prepareKafka(opts: {
  configDir: string;
  dataDir: string;
  port: number;
  controllerPort: number;
  logLevel?: string;
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
}): Promise<{ url: string; start(): Promise<import('node:child_process').ChildProcess> }>;
