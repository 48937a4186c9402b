/**
 * The error a promise rejects with, when it is an instance of `type`; fails the test
 * when the promise resolves or rejects with anything else.
 */
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a rejection with ${type.name}`);
}
