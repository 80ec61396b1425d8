export * from './ids';
export * from './common';
export * from './orders';
export * from './sessions';
export * from './events';
export * from './topics';
export * from './errors';
export * from './webhooks';
