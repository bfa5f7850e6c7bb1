/**
 * A JSON document as a test reads it (an API answer, a webhook body): any shape, and
 * each test asserts the fields it reads. The one deliberate `any` of the test code;
 * typing every answer is the contracts' job, not the tests'.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;
