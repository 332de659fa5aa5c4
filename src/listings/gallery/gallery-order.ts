/** The spec's ordering rules (5–9): a requested `order` is a wish; stored positions are 0..n-1. */

/** On a tie with `requested` the existing image stays first; no order appends. */
export function resolveInsertPosition(count: number, requested?: number | null): number {
  return requested == null ? count : Math.min(requested + 1, count);
}

/** By requested order, ties by array place, unordered items last; returns gallery order. */
export function orderPayloadImages<T extends { order?: number | null }>(items: readonly T[]): T[] {
  return items
    .map((item, index) => ({ item, index, key: item.order ?? Number.POSITIVE_INFINITY }))
    .sort((a, b) => a.key - b.key || a.index - b.index)
    .map(({ item }) => item);
}
