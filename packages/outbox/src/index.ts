export * from './relay.ts';
export * from './write.ts';
