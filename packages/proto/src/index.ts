// The one contract package: code generated from proto/ by `npm run generate`.
export * from './gen/cluster/common/v1/resource_pb.ts';
export * from './gen/cluster/core/v1/core_pb.ts';
export * from './gen/cluster/core/v1/people_pb.ts';
export * from './gen/cluster/delivery/v1/delivery_pb.ts';
export * from './gen/cluster/evidence/v1/evidence_pb.ts';
export * from './gen/cluster/core/v1/entries_pb.ts';
export * from './gen/cluster/core/v1/time_entries_pb.ts';
export * from './gen/cluster/core/v1/codehost_pb.ts';
export * from './gen/cluster/core/v1/release_evidence_pb.ts';
