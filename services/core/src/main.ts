// The service's process: tracing first (when the OTEL_* variables configure it), so that its
// instrumentations see every module the service loads, then the service itself (run.ts, its own
// bundle beside this one; a literal import would put the service's imports ahead of this line).
import { startInstrumentation } from '@cluster/platform/instrumentation';

await startInstrumentation('core');
await import(new URL('./run.js', import.meta.url).href);
