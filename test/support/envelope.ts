import type { Response } from 'supertest';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Asserts the spec's error envelope and returns the error for further checks. */
export function expectError(res: Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.success).toBe(false);
  expect(typeof res.body.error.message).toBe('string');
  expectMeta(res);
  return res.body.error as {
    code: string;
    message: string;
    details?: { field: string; message: string }[];
  };
}

export function expectMeta(res: Response): void {
  expect(typeof res.body.meta.requestId).toBe('string');
  expect(res.body.meta.requestId.length).toBeGreaterThan(0);
  expect(res.body.meta.timestamp).toMatch(ISO_MS);
  expect(res.headers['x-request-id']).toBe(res.body.meta.requestId);
}

/** The fields named in a validation error's details. */
export function fieldsOf(res: Response): string[] {
  return (res.body.error?.details ?? []).map((d: { field: string }) => d.field);
}
