// What concurrent callers share instead of each doing it alone: one load per key (TtlCache), one write for
// everything that piled up during the previous one (GroupCommit).
export { GroupCommit, type GroupCommitOptions } from './group-commit';
export { TtlCache, type TtlCacheOptions } from './ttl-cache';
