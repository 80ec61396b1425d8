export * from './admin-client';
export * from './engine-control';
export * from './eventually';
export * from './stack-env';
