export * from './permissions.ts';
export * from './events.ts';
