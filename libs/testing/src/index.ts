export * from './admin-client';
export * from './engine-control';
export * from './eventually';
export type * from './provided-context';
export * from './stack-env';
export * from './webhook-receiver';
