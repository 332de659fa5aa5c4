import pLimit from 'p-limit';

/**
 * Deletes each item's file, at most `atOnce` at a time (with a bucket each is a request). A
 * failure goes to `failed` and stops none of the others; returns the items whose delete went.
 */
export async function deleteEach<T>(
  items: T[],
  atOnce: number,
  remove: (item: T) => Promise<void>,
  failed: (item: T, error: unknown) => void,
): Promise<T[]> {
  const limit = pLimit(atOnce);
  const outcomes = await Promise.all(
    items.map((item) =>
      limit(() =>
        remove(item).then(
          () => true,
          (error: unknown) => {
            failed(item, error);
            return false;
          },
        ),
      ),
    ),
  );
  return items.filter((_, i) => outcomes[i]);
}
