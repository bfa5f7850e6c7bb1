// TRANSITIONAL (issue 16): the key helpers live in features/auth/keys.ts; this
// re-export keeps admin/operations.ts (converted in another branch) building, and
// goes at merge time.
export { generateApiKey, hashKey, keyMatches, prefixOf } from '../features/auth/keys.ts';
