import { describe, expect, it } from 'vitest';
import { readQueryPlan } from './query-plan';

// testkit/engines/test/mongo-semantics.test.ts judges index use by the engine's own plan; this is how a plan is read.
// A plan in no known format is `unreadable`, never an empty plan that a check of "no full scan" would pass on.

/** FerretDB v2.5.0 on DocumentDB 0.106.0, recorded 2026-11-27: find {_id: 'o42'} on 500 documents. */
const DOCUMENTDB_BY_ID = {
  queryPlanner: {
    Plan: {
      'Node Type': 'Index Scan',
      'Parallel Aware': false,
      'Async Capable': false,
      'Scan Direction': 'Forward',
      'Index Name': '_id_',
      'Relation Name': 'documents_4',
      Alias: 'collection',
      'Startup Cost': 123123,
      'Total Cost': 1231230,
      'Plan Rows': 1,
      'Plan Width': 0,
      'Index Cond':
        "((shard_key_value = '4'::bigint) AND (object_id OPERATOR(documentdb_core.=) 'BSONHEX0f0000000200040000006f34320000'::documentdb_core.bson))",
    },
  },
  explainVersion: '1',
  command: { find: 'lookups', filter: { _id: 'o42' }, $db: 'probe_explain' },
  serverInfo: { host: 'vm', port: 44937, version: '7.0.77', gitVersion: 'unknown', ferretdb: { version: 'v2.5.0' } },
  ok: 1,
};
/** The same run: find {org: 'org2', externalId: 'ext42'} with a unique index org_externalId (Index Cond cut short). */
const DOCUMENTDB_BY_UNIQUE_KEY = {
  queryPlanner: {
    Plan: {
      'Node Type': 'Bitmap Heap Scan',
      'Relation Name': 'documents_4',
      Alias: 'collection',
      'Recheck Cond': '((document OPERATOR(documentdb_api_catalog.@=) …))',
      Plans: [
        {
          'Node Type': 'Bitmap Index Scan',
          'Parent Relationship': 'Outer',
          'Index Name': 'org_externalId',
          'Index Cond': '((document OPERATOR(documentdb_api_catalog.@=) …))',
        },
      ],
    },
  },
  ok: 1,
};
/** A list on DocumentDB whose order no index serves: Limit → Sort → Index Scan (recorded the same day). */
const DOCUMENTDB_SORTED_LIST = {
  queryPlanner: {
    Plan: {
      'Node Type': 'Limit',
      Plans: [
        {
          'Node Type': 'Sort',
          'Sort Key': ['(documentdb_api_catalog.bson_orderby(document, …)) DESC NULLS LAST', 'object_id DESC'],
          Plans: [{ 'Node Type': 'Index Scan', 'Index Name': 'org_mode_createdAt_id' }],
        },
      ],
    },
  },
  ok: 1,
};
const DOCUMENTDB_SEQ_SCAN = {
  queryPlanner: { Plan: { 'Node Type': 'Seq Scan', 'Relation Name': 'documents_4', Alias: 'collection' } },
  ok: 1,
};

// MongoDB 7.0 answers, in the shape of the explain reference (no MongoDB server binary is served by a registry
// here: docs/engines.md).
const MONGODB_BY_ID = {
  explainVersion: '1',
  queryPlanner: { namespace: 'db.lookups', parsedQuery: { _id: { $eq: 'o42' } }, winningPlan: { stage: 'IDHACK' } },
  ok: 1,
};
const MONGODB_BY_UNIQUE_KEY = {
  explainVersion: '1',
  queryPlanner: {
    namespace: 'db.lookups',
    winningPlan: {
      stage: 'FETCH',
      inputStage: {
        stage: 'IXSCAN',
        keyPattern: { org: 1, externalId: 1 },
        indexName: 'org_externalId',
        isMultiKey: false,
        isUnique: true,
        direction: 'forward',
        indexBounds: { org: ['["org2", "org2"]'], externalId: ['["ext42", "ext42"]'] },
      },
    },
    rejectedPlans: [],
  },
  ok: 1,
};
/** MongoDB 8.0's lookup by a unique key, and the slot-based engine's wrapping of the classic tree. */
const MONGODB_8_EXPRESS = {
  explainVersion: '1',
  queryPlanner: { winningPlan: { isCached: false, stage: 'EXPRESS_IXSCAN', indexName: 'org_externalId' } },
  ok: 1,
};
const MONGODB_SBE = {
  explainVersion: '2',
  queryPlanner: {
    winningPlan: {
      queryPlan: { stage: 'FETCH', inputStage: { stage: 'IXSCAN', indexName: 'org_mode_createdAt_id' } },
      slotBasedPlan: { slots: '$$RESULT=s11', stages: '[2] nlj inner [] [s2, s3] …' },
    },
  },
  ok: 1,
};
const MONGODB_COLLSCAN = {
  explainVersion: '1',
  queryPlanner: { winningPlan: { stage: 'LIMIT', inputStage: { stage: 'COLLSCAN', direction: 'forward' } } },
  ok: 1,
};

describe("readQueryPlan: the engine's plan in its own format", () => {
  it("reads DocumentDB's PostgreSQL plan: index scans by the index's name, nested plans included", () => {
    expect(readQueryPlan(DOCUMENTDB_BY_ID)).toEqual({
      format: 'postgresql',
      steps: ['Index Scan'],
      indexes: ['_id_'],
      fullScans: [],
    });
    expect(readQueryPlan(DOCUMENTDB_BY_UNIQUE_KEY)).toEqual({
      format: 'postgresql',
      steps: ['Bitmap Heap Scan', 'Bitmap Index Scan'],
      indexes: ['org_externalId'],
      fullScans: [],
    });
    expect(readQueryPlan(DOCUMENTDB_SORTED_LIST)).toMatchObject({
      steps: ['Limit', 'Sort', 'Index Scan'],
      indexes: ['org_mode_createdAt_id'],
    });
    expect(readQueryPlan(DOCUMENTDB_SEQ_SCAN)).toMatchObject({ indexes: [], fullScans: ['Seq Scan'] });
  });

  it("reads MongoDB's stages: IXSCAN by index name, IDHACK as the _id index, EXPRESS stages, the SBE wrapping", () => {
    expect(readQueryPlan(MONGODB_BY_ID)).toEqual({
      format: 'mongodb',
      steps: ['IDHACK'],
      indexes: ['_id_'],
      fullScans: [],
    });
    expect(readQueryPlan(MONGODB_BY_UNIQUE_KEY)).toEqual({
      format: 'mongodb',
      steps: ['FETCH', 'IXSCAN'],
      indexes: ['org_externalId'],
      fullScans: [],
    });
    expect(readQueryPlan(MONGODB_8_EXPRESS)).toMatchObject({ indexes: ['org_externalId'] });
    expect(readQueryPlan(MONGODB_SBE)).toMatchObject({
      steps: ['FETCH', 'IXSCAN'],
      indexes: ['org_mode_createdAt_id'],
    });
    expect(readQueryPlan(MONGODB_COLLSCAN)).toMatchObject({ indexes: [], fullScans: ['COLLSCAN'] });
  });

  it('calls an answer in neither format unreadable, never an empty plan', () => {
    expect(readQueryPlan({ ok: 1 })).toEqual({ format: 'unreadable' });
    expect(readQueryPlan({ queryPlanner: {}, ok: 1 })).toEqual({ format: 'unreadable' });
    expect(readQueryPlan({ queryPlanner: { Plan: { cost: 3 } }, ok: 1 })).toEqual({ format: 'unreadable' });
    expect(readQueryPlan({ stages: [{ $cursor: {} }], ok: 1 })).toEqual({ format: 'unreadable' });
  });
});
