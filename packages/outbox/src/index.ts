export * from './leases.ts';
export * from './relay-connection.ts';
export * from './publisher.ts';
export * from './relay.ts';
export * from './write.ts';
