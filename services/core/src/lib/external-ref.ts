// TRANSITIONAL (issue 16): externalRef helpers moved to shared/external-ref.ts (pure)
// and shared/external-links.ts (the SQL, for stores). This file goes at merge time.
export { externalRefOf, integrationLinkPayload, type ExternalRef } from '../shared/external-ref.ts';
