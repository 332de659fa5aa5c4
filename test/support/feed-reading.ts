import { FeedError } from '../../src/imports/feed/feed-error';

/** The FeedError a read ends with; fails the test when it ends otherwise. */
export async function feedFailure(promise: Promise<unknown>): Promise<FeedError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FeedError);
  return err as FeedError;
}

/** The text as a stream of one-byte chunks: every chunk boundary a reader can meet. */
export const bytewise = (text: string | Buffer) =>
  [...Buffer.from(text)].map((b) => Buffer.from([b]));
