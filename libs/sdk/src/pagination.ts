import type { Pagination } from '@checkout/contracts';

/**
 * A list call: `await` it for one page, or `for await` over it for every item on every page. Pages are
 * numbered and newest first, so an item created while iterating can shift older ones onto the next page;
 * items already yielded are skipped rather than yielded twice.
 */
export class ListResult<Item extends { id: string }, Page extends { pagination: Pagination }>
  implements PromiseLike<Page>, AsyncIterable<Item>
{
  constructor(
    private readonly fetchPage: (page: number) => Promise<Page>,
    private readonly itemsOf: (page: Page) => Item[],
    private readonly firstPage: number,
  ) {}

  then<A = Page, B = never>(
    onFulfilled?: ((page: Page) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): PromiseLike<A | B> {
    return this.fetchPage(this.firstPage).then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    const seen = new Set<string>();
    for (let number = this.firstPage; ; number += 1) {
      const page = await this.fetchPage(number);
      const items = this.itemsOf(page);
      for (const item of items) {
        if (seen.has(item.id)) continue;
        seen.add(item.id);
        yield item;
      }
      if (!page.pagination.hasMore || items.length === 0) return;
    }
  }

  /** Every item, up to `max` (default 10,000). */
  async toArray(max = 10_000): Promise<Item[]> {
    const out: Item[] = [];
    for await (const item of this) {
      out.push(item);
      if (out.length >= max) break;
    }
    return out;
  }
}

/** A window's bounds as the API takes them: a Date becomes its ISO string, an absent bound stays absent. */
export function isoWindow(window: {
  createdAfter?: string | Date | undefined;
  createdBefore?: string | Date | undefined;
}): {
  createdAfter?: string;
  createdBefore?: string;
} {
  const iso = (value: string | Date) => (value instanceof Date ? value.toISOString() : value);
  return {
    ...(window.createdAfter !== undefined && { createdAfter: iso(window.createdAfter) }),
    ...(window.createdBefore !== undefined && { createdBefore: iso(window.createdBefore) }),
  };
}
