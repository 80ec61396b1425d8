// What the global setup provides to tests through vitest's inject('engines'). Importing @checkout/testing
// brings this augmentation into a test's compilation.
import type {} from 'vitest';
import type { EnginesInfo } from '@checkout/engines';

declare module 'vitest' {
  export interface ProvidedContext {
    engines: EnginesInfo;
  }
}
