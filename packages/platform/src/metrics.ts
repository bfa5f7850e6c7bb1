import { Code } from '@connectrpc/connect';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One registry per process. Our own metrics carry the service's prefix (`core_rpc_...`); the
 * default Node metrics keep their standard names (`process_cpu_seconds_total`, `nodejs_*`) so
 * stock Node.js dashboards match, told apart by the `service` label every series carries.
 */
export interface Metrics {
  registry: Registry;
  prefix: string;
  rpcRequests: Counter<'method' | 'code'>;
  rpcDuration: Histogram<'method'>;
}

export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  const prefix = `${service.replace(/-/g, '_')}_`;
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const rpcRequests = new Counter({
    name: `${prefix}rpc_requests_total`,
    help: 'Connect/gRPC requests handled, by method and result code.',
    labelNames: ['method', 'code'] as const,
    registers: [registry],
  });
  const rpcDuration = new Histogram({
    name: `${prefix}rpc_duration_seconds`,
    help: 'Connect/gRPC handling latency.',
    labelNames: ['method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return { registry, prefix, rpcRequests, rpcDuration };
}

/** The `code` label of an RPC result: Connect's code name in snake case (`not_found`, `internal`). */
export function codeName(code: Code): string {
  return (Code[code] ?? 'unknown').replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}
