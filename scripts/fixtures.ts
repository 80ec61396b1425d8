// `npm run fixtures`: writes a fixture (libs/contracts/fixtures/messages/<topic>/<name>.json) for every message
// shape today's producers make that has none yet. Committed fixtures are never rewritten: each
// stands for messages an older producer may still send during a rolling deploy. A producer whose shape changed
// under an existing name is refused: give the new shape a new name (and, for events, a new version) and keep
// the old file (docs/engineering.md, "Message fixtures").
//
// `npm run fixtures -- --contracts [--from <release>]`: runs that release (default: this checkout) on
// engines of its own, records every internal HTTP call and every stored document of a merchant's journey
// (test-system/contracts/contract-recording.ts), and writes a fixture under libs/contracts/fixtures/{http,documents}/
// for every shape no committed fixture has, with what those need to replay. Also never rewrites a committed one.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DOCUMENT_FIXTURES_DIR,
  HTTP_FIXTURES_DIR,
  documentFixtureJson,
  documentShape,
  httpFixtureShape,
  readDocumentFixtures,
  readHttpFixtures,
} from '@checkout/testing';
import { recordContracts, selectNew } from '../test-system/contracts/contract-recording';
import { FIXTURES_DIR, fixtureShape, produceAll, readFixtures } from '../test-system/contracts/message-fixtures';
import { ensureReleaseBundles, fromFlag, resolveRelease } from './lib/releases';

const args = process.argv.slice(2);
const log = (line: string) => process.stderr.write(`[fixtures] ${line}\n`);

/** `dir/name.json`, or `name.2.json`… when taken: a committed file is never written over. */
function freeName(dir: string, name: string): string {
  let candidate = name;
  for (let n = 2; existsSync(join(dir, `${candidate}.json`)); n++) candidate = `${name}.${n}`;
  return join(dir, `${candidate}.json`);
}

async function contracts(): Promise<number> {
  const spec = fromFlag(args);
  const release = spec === undefined ? undefined : resolveRelease(spec);
  const build = release ? await ensureReleaseBundles(release, log) : undefined;
  const recording = await recordContracts({ ...(build && { build }), log });
  const fresh = selectNew(
    recording,
    {
      http: readHttpFixtures().map((f) => f.fixture),
      documents: readDocumentFixtures().map((f) => f.fixture),
    },
    { http: httpFixtureShape, document: documentShape },
  );
  for (const f of fresh.interactions) {
    const dir = join(HTTP_FIXTURES_DIR, `${f.caller}.${f.callee}`);
    mkdirSync(dir, { recursive: true });
    const slug = f.route.replace(/[^A-Za-z0-9]+/g, '-').replace(/-+$/, '');
    const file = freeName(dir, `${slug}.${f.response.status}`);
    writeFileSync(file, `${JSON.stringify(f, null, 2)}\n`);
    log(`wrote ${file}`);
  }
  for (const d of fresh.documents) {
    const dir = join(DOCUMENT_FIXTURES_DIR, `${d.service}.${d.collection}`);
    mkdirSync(dir, { recursive: true });
    const kind = [d.document.status, d.document.type].find((v): v is string => typeof v === 'string') ?? d.collection;
    const file = freeName(dir, kind.replace(/[^A-Za-z0-9.]+/g, '-'));
    writeFileSync(file, documentFixtureJson(d));
    log(`wrote ${file}`);
  }
  console.log(
    `${recording.recordedFrom}: ${recording.interactions.length} internal calls and ${recording.documents.length} documents recorded; ${fresh.interactions.length} HTTP and ${fresh.documents.length} document fixture(s) written`,
  );
  return 0;
}

async function messages(): Promise<number> {
  const committed = readFixtures();
  let written = 0;
  let refused = 0;
  for (const message of await produceAll()) {
    const shape = fixtureShape(message.fixture);
    const sameName = committed.find((c) => c.topic === message.topic && c.name === message.name);
    if (sameName) {
      if (fixtureShape(sameName.fixture) !== shape) {
        console.error(
          `${message.topic}/${message.name}.json: the producer's message has a new shape; add it under a new name (e.g. ${message.name}.v2) and keep the old fixture`,
        );
        refused += 1;
      }
      continue;
    }
    if (committed.some((c) => c.topic === message.topic && fixtureShape(c.fixture) === shape)) continue;
    const dir = join(FIXTURES_DIR, message.topic);
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${message.name}.json`), `${JSON.stringify(message.fixture, null, 2)}\n`);
    console.log(`wrote ${message.topic}/${message.name}.json`);
    written += 1;
  }
  console.log(`${written} fixture(s) written, ${committed.length} already committed`);
  return refused > 0 ? 1 : 0;
}

process.exit(args.includes('--contracts') ? await contracts() : await messages());
