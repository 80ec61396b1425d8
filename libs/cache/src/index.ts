export { TtlCache, type TtlCacheOptions } from './ttl-cache';
