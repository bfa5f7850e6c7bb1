import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per process, with default Node metrics and service-prefixed names. */
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
  collectDefaultMetrics({ register: registry, prefix });
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
