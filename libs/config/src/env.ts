import { z } from 'zod';

// Building blocks shared by every service's schema. Each carries .describe() so the config reference
// (docs/config-reference.md) can be generated from the schemas themselves.

const booleanFromEnv = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const env = {
  port: (def: number) => z.coerce.number().int().min(0).max(65535).default(def),
  boolean: (def: boolean) => booleanFromEnv.default(def),
  positiveInt: (def: number) => z.coerce.number().int().positive().default(def),
  nonNegativeInt: (def: number) => z.coerce.number().int().min(0).default(def),
  url: () => z.url({ protocol: /^https?$/ }),
  list: () =>
    z.string().transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    ),
};
