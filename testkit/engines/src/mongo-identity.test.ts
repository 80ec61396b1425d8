import { describe, expect, it } from 'vitest';
import { identifyMongoEngine } from './mongo-identity';

// Logs, bench lines and the engine-dependent tests name the engine from what it answers. FerretDB 2.5 announces
// MongoDB 7.0.77 in `version`, so a label read from the version alone called it "MongoDB 7.0.77" and the
// engine-detection test then expected MongoDB's behaviour of it.

/** FerretDB v2.5.0 built from its sources, on PostgreSQL 15 with DocumentDB 0.106.0; recorded 2026-11-27. */
const FERRETDB_2_5_BUILD_INFO = {
  version: '7.0.77',
  gitVersion: 'unknown',
  modules: [],
  sysInfo: 'deprecated',
  versionArray: [7, 0, 77, 0],
  bits: 64,
  debug: false,
  maxBsonObjectSize: 16777216,
  buildEnvironment: { '-buildmode': 'exe', '-compiler': 'gc', CGO_ENABLED: '0', GOARCH: 'amd64', GOOS: 'linux' },
  ferretdb: { version: 'v2.5.0', package: 'unknown' },
  ok: 1,
};
/** Its serverStatus `ferretdb` document, the same run. */
const FERRETDB_2_5_SERVER_STATUS = {
  version: '7.0.77',
  process: 'ferretdb-bin',
  ferretdb: {
    version: 'v2.5.0',
    gitVersion: 'unknown',
    debug: false,
    package: 'unknown',
    postgresql:
      'PostgreSQL 15.20 (Debian 15.20-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14+deb12u1) 12.2.0, 64-bit',
    documentdb: '0.106.0 gitref: unknown sha:unknown buildId:unknown',
  },
  ok: 1,
};
/** FerretDB 1.24 (the local comparison engine, SQLite), in the shape of its buildInfo handler (v1.24.0 source). */
const FERRETDB_1_24_BUILD_INFO = {
  version: '7.0.42',
  gitVersion: '',
  modules: [],
  sysInfo: 'deprecated',
  versionArray: [7, 0, 42, 0],
  bits: 64,
  debug: false,
  maxBsonObjectSize: 16777216,
  buildEnvironment: {},
  ferretdbVersion: 'v1.24.0',
  ferretdbFeatures: { aggregationStages: ['$match', '$sort'] },
  ok: 1,
};
/** mongo-java-server 1.47 with our launcher (4.4 / wire 9), recorded from the local engine on 2026-11-27. */
const MONGO_JAVA_SERVER_BUILD_INFO = { version: '4.4.0', versionArray: [4, 4, 0], maxBsonObjectSize: 16777216, ok: 1 };
/** MongoDB 7.0, in the shape of the buildInfo command's reference (no MongoDB binary is served by a registry here). */
const MONGODB_7_BUILD_INFO = {
  version: '7.0.14',
  gitVersion: 'ce59cfc6a3c5e5c067dca0d30697edd68d4f5188',
  modules: [],
  allocator: 'tcmalloc',
  javascriptEngine: 'mozjs',
  sysInfo: 'deprecated',
  versionArray: [7, 0, 14, 0],
  openssl: { running: 'OpenSSL 3.0.2 15 Mar 2022', compiled: 'OpenSSL 3.0.2 15 Mar 2022' },
  buildEnvironment: { distmod: 'ubuntu2204', distarch: 'x86_64' },
  bits: 64,
  debug: false,
  maxBsonObjectSize: 16777216,
  storageEngines: ['devnull', 'inMemory', 'wiredTiger'],
  ok: 1,
};

describe('identifyMongoEngine: the engine named from what it says it is', () => {
  it('names FerretDB 2.5 with its version, its backend and the MongoDB version it announces, not as MongoDB', () => {
    expect(identifyMongoEngine(FERRETDB_2_5_BUILD_INFO, FERRETDB_2_5_SERVER_STATUS)).toEqual({
      family: 'ferretdb',
      label: 'FerretDB v2.5.0 on PostgreSQL 15.20 with DocumentDB 0.106.0 (MongoDB 7.0.77 wire)',
    });
  });

  it('names FerretDB 2.5 without a backend when serverStatus was not answered', () => {
    expect(identifyMongoEngine(FERRETDB_2_5_BUILD_INFO)).toEqual({
      family: 'ferretdb',
      label: 'FerretDB v2.5.0 (MongoDB 7.0.77 wire)',
    });
  });

  it('names FerretDB 1.24, which says ferretdbVersion and no backend', () => {
    expect(identifyMongoEngine(FERRETDB_1_24_BUILD_INFO)).toEqual({
      family: 'ferretdb',
      label: 'FerretDB v1.24.0 (MongoDB 7.0.42 wire)',
    });
  });

  it('names mongo-java-server, which reports no gitVersion', () => {
    expect(identifyMongoEngine(MONGO_JAVA_SERVER_BUILD_INFO)).toEqual({
      family: 'mongo-java-server',
      label: 'mongo-java-server (MongoDB 4.4.0 wire)',
    });
  });

  it('names MongoDB by its version', () => {
    expect(identifyMongoEngine(MONGODB_7_BUILD_INFO)).toEqual({ family: 'mongodb', label: 'MongoDB 7.0.14' });
  });
});
