// Types of runtime.mjs for the TypeScript callers (test/runtime.test.ts).
export declare const RUNTIME_PACKAGE: string;
export declare function declaredRuntime(): { pkg: string; range: string; major: number };
export declare function runtimeBinary(): string | undefined;
export declare function ensureRuntime(): Promise<void>;
