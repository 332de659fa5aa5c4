/**
 * The spec's ordering rules (5–9) as pure functions. A requested `order` is a wish resolved against
 * what is already there; stored positions are always 0..n-1.
 */

/**
 * Position a new image takes in a gallery of `count` images: existing images sort as (position, 0),
 * the new one as (requested, 1), so on a tie the existing image stays first; no order appends.
 */
export function resolveInsertPosition(count: number, requested?: number | null): number {
  return requested == null ? count : Math.min(requested + 1, count);
}

/**
 * Orders the images of a create/replace payload: by requested order, ties by their place in the
 * array, items without an order after all those with one. Returns the items in gallery order.
 */
export function orderPayloadImages<T extends { order?: number | null }>(items: readonly T[]): T[] {
  return items
    .map((item, index) => ({ item, index, key: item.order ?? Number.POSITIVE_INFINITY }))
    .sort((a, b) => a.key - b.key || a.index - b.index)
    .map(({ item }) => item);
}
