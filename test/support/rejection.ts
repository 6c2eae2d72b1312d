import type { PagejsonError } from '../../src/core/shared/errors.js';

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<PagejsonError> {
  try {
    await promise;
  } catch (error) {
    return error as PagejsonError;
  }
  throw new Error('expected the promise to reject');
}
