// `npm run event-schemas`: writes the JSON Schema of every public event type's body (D49) to
// libs/contracts/schemas/events/<type>.json, the contract merchants' consumers are built against. A type without a
// file gets one; a changed body is written over its file only when the change keeps every promise of the committed
// schema (libs/contracts' breakingChanges: no field removed, renamed or made optional, no type changed, no new
// required field). A breaking change is refused: it needs a new event type (or version) instead, so that existing
// consumers keep what they were given. A committed schema whose type left the catalog is refused too.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_TYPES, breakingChanges, eventBodyJsonSchema, type JsonSchema } from '@checkout/contracts';

const DIR = fileURLToPath(new URL('../libs/contracts/schemas/events/', import.meta.url));
const text = (schema: JsonSchema) => `${JSON.stringify(schema, null, 2)}\n`;

if (!existsSync(DIR)) mkdirSync(DIR, { recursive: true });
let refused = 0;
let written = 0;
for (const type of EVENT_TYPES) {
  const file = join(DIR, `${type}.json`);
  const next = eventBodyJsonSchema(type);
  if (existsSync(file)) {
    const committed = readFileSync(file, 'utf8');
    if (committed === text(next)) continue;
    const problems = breakingChanges(JSON.parse(committed) as JsonSchema, next);
    if (problems.length > 0) {
      console.error(`${type}: the body would break existing consumers; not written:\n  ${problems.join('\n  ')}`);
      refused += 1;
      continue;
    }
  }
  writeFileSync(file, text(next));
  console.log(`wrote ${type}.json`);
  written += 1;
}
for (const name of readdirSync(DIR)) {
  if (!(EVENT_TYPES as readonly string[]).includes(name.replace(/\.json$/, ''))) {
    console.error(
      `${name}: its type is no longer in the catalog (EVENT_CATALOG); consumers subscribed to it would stop hearing of it`,
    );
    refused += 1;
  }
}
console.log(`${written} schema(s) written, ${EVENT_TYPES.length - written - refused} unchanged`);
process.exit(refused > 0 ? 1 : 0);
