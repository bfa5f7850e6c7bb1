export * from './leader-connection.ts';
export * from './publisher.ts';
export * from './relay.ts';
export * from './write.ts';
