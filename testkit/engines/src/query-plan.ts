import type { Document } from 'mongodb';

/**
 * What a `find`'s query plan says about how the engine reads, in the engine's own plan format:
 * - `mongodb`: MongoDB's `queryPlanner.winningPlan`, a tree of `stage`s: IXSCAN (with `indexName`), IDHACK and
 *   EXPRESS_IXSCAN / EXPRESS_IDHACK (MongoDB 8's lookups by _id or a unique key), COLLSCAN;
 * - `postgresql`: DocumentDB's (FerretDB 2) `queryPlanner.Plan`, PostgreSQL's EXPLAIN (FORMAT JSON) tree of
 *   `Node Type`s with `Plans` below: Index Scan, Index Only Scan, Bitmap Index Scan (each with the `Index Name`,
 *   DocumentDB's name for the index is the one it was created with), Seq Scan.
 * `unreadable` when the answer is in neither format: a test must then say it cannot judge this engine.
 */
export type QueryPlan =
  | {
      format: 'mongodb' | 'postgresql';
      /** Every step of the plan, outermost first, as the engine names it (stage or node type). */
      steps: string[];
      /** The indexes the plan reads, by name. */
      indexes: string[];
      /** Steps that read the whole collection (COLLSCAN, Seq Scan). */
      fullScans: string[];
    }
  | { format: 'unreadable' };

const MONGODB_INDEX_STAGES = new Set([
  'IXSCAN',
  'IDHACK',
  'EXPRESS_IXSCAN',
  'EXPRESS_IDHACK',
  'COUNT_SCAN',
  'DISTINCT_SCAN',
]);
const POSTGRESQL_INDEX_NODES = new Set(['Index Scan', 'Index Only Scan', 'Bitmap Index Scan']);

export function readQueryPlan(explain: Document): QueryPlan {
  const planner = explain.queryPlanner as Document | undefined;
  if (isDocument(planner?.winningPlan)) return readMongoDbPlan(planner.winningPlan);
  if (isDocument(planner?.Plan) && typeof planner.Plan['Node Type'] === 'string') return readPostgresPlan(planner.Plan);
  return { format: 'unreadable' };
}

function readMongoDbPlan(winningPlan: Document): QueryPlan {
  const plan: QueryPlan = { format: 'mongodb', steps: [], indexes: [], fullScans: [] };
  // MongoDB 7's slot-based engine puts the classic tree under winningPlan.queryPlan, beside slotBasedPlan.
  const root = isDocument(winningPlan.queryPlan) ? winningPlan.queryPlan : winningPlan;
  const visit = (node: Document): void => {
    const stage: unknown = node.stage;
    if (typeof stage === 'string') {
      plan.steps.push(stage);
      if (MONGODB_INDEX_STAGES.has(stage)) plan.indexes.push(mongoDbIndexName(node, stage));
      if (stage === 'COLLSCAN') plan.fullScans.push(stage);
    }
    if (isDocument(node.inputStage)) visit(node.inputStage);
    if (Array.isArray(node.inputStages)) for (const child of node.inputStages) if (isDocument(child)) visit(child);
  };
  visit(root);
  return plan;
}

/** The index a MongoDB stage reads: its indexName, or _id_ for the _id lookups that name none. */
function mongoDbIndexName(node: Document, stage: string): string {
  if (typeof node.indexName === 'string') return node.indexName;
  return stage === 'IDHACK' || stage === 'EXPRESS_IDHACK' ? '_id_' : '(unnamed)';
}

function readPostgresPlan(root: Document): QueryPlan {
  const plan: QueryPlan = { format: 'postgresql', steps: [], indexes: [], fullScans: [] };
  const visit = (node: Document): void => {
    const type: unknown = node['Node Type'];
    if (typeof type === 'string') {
      plan.steps.push(type);
      if (POSTGRESQL_INDEX_NODES.has(type))
        plan.indexes.push(typeof node['Index Name'] === 'string' ? node['Index Name'] : '(unnamed)');
      if (type === 'Seq Scan') plan.fullScans.push(type);
    }
    if (Array.isArray(node.Plans)) for (const child of node.Plans) if (isDocument(child)) visit(child);
  };
  visit(root);
  return plan;
}

function isDocument(value: unknown): value is Document {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
