// `npm run fixtures`: writes a fixture (libs/contracts/fixtures/messages/<topic>/<name>.json) for every message
// shape today's producers make that has none yet. Committed fixtures are never rewritten: each
// stands for messages an older producer may still send during a rolling deploy. A producer whose shape changed
// under an existing name is refused: give the new shape a new name (and, for events, a new version) and keep
// the old file (docs/engineering.md, "Message fixtures").
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR, fixtureShape, produceAll, readFixtures } from './lib/message-fixtures';

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
process.exit(refused > 0 ? 1 : 0);
