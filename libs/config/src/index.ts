// Config is parsed once, at start, into a frozen typed object (load.ts) from the settings shapes every service
// shares (shapes.ts, kafka.ts, telemetry.ts) built of the blocks in env.ts and secrets.ts.
export * from './build-info';
export * from './env';
export * from './internal-callers';
export * from './kafka';
export * from './load';
export * from './local-secrets';
export { mongoUrl, secret, weakSecretReason } from './secrets';
export * from './shapes';
export * from './telemetry';
