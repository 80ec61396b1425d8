// What concurrent callers share instead of each doing it alone: one load per key (lru-cache, read through
// fetchLatest where this process changes entries; TtlCache, on lru-cache, where a failed load must be remembered),
// one write for everything that piled up during the previous one (GroupCommit).
export { fetchLatest } from './fetch-latest';
export { GroupCommit, type GroupCommitOptions } from './group-commit';
export { TtlCache, type TtlCacheOptions } from './ttl-cache';
