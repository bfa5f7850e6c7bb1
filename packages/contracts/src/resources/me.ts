import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, Uuid } from './common.ts';

/** GET /me: the API key the request authenticated with. */
export const Me = Type.Object({
  apiKeyId: Uuid,
  keyName: Nullable(Type.String()),
  keyPrefix: Nullable(Type.String()),
  organizationId: Uuid,
  scope: StringEnum(['organization', 'project']),
  scopedProjectId: Nullable(Uuid),
  permissions: Nullable(Type.Array(Type.String())),
  createdByUserId: Uuid,
  lastUsedAt: Nullable(DateTime),
});
