export * from './client';
export * from './consumer';
export * from './idempotent';
export * from './metrics';
export * from './outbox';
export * from './producer';
export * from './topics';
