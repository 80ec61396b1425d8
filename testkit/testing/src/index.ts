export * from './admin-client';
export * from './engine-control';
export * from './eventually';
export * from './factories';
export * from './metrics';
export type * from './provided-context';
export * from './stack-env';
export * from './turns';
export * from './webhook-receiver';
