export * from './command-counter';
export * from './connection';
export * from './errors';
export * from './indexes';
export * from './key-value';
export * from './lease';
export * from './periodic-task';
export * from './scope';
