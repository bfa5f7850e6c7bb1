import { ListOf, ListQuery } from '../resources/common.ts';
import {
  PortalSession,
  PortalSessionCreate,
  PortalSessionLink,
  PortalSettings,
  PortalSettingsUpdate,
} from '../resources/portal.ts';
import type { Operation } from './operation.ts';

/**
 * The integrator portal (docs/portal.md): a one-time link that opens a browser session on the
 * webhook pages without handing out an API key, and the organization's list of origins that may
 * embed the portal in an iframe. Organization-wide, like the webhooks the portal manages. A key may
 * list the organization's live sessions and end one before its time (docs/portal.md, "Ending a
 * session"), under the same rules as minting.
 */
export const portalOperations: Operation[] = [
  {
    method: 'POST',
    path: '/portal-sessions',
    summary: 'Mint a one-time link to the integrator portal',
    tag: 'portal',
    operation: 'cluster.delivery.v1.PortalService/CreatePortalSession',
    tool: false,
    permission: 'write:webhook',
    orgKeyOnly: true,
    body: PortalSessionCreate,
    response: {
      status: 201,
      schema: PortalSessionLink,
      description: `The link, valid once and for minutes; opening it starts a cookie session of the body's lifetime, scope and access`,
    },
  },
  {
    method: 'GET',
    path: '/portal-sessions',
    summary: "List the organization's live portal sessions",
    tag: 'portal',
    operation: 'cluster.delivery.v1.PortalService/ListPortalSessions',
    tool: false,
    permission: 'read:webhook',
    orgKeyOnly: true,
    query: ListQuery(),
    response: {
      status: 200,
      schema: ListOf(PortalSession),
      description:
        'Sessions not yet ended: links minted and still openable, and opened sessions before their expiry; newest first',
    },
  },
  {
    method: 'DELETE',
    path: '/portal-sessions/:id',
    summary: 'End a portal session now',
    tag: 'portal',
    operation: 'cluster.delivery.v1.PortalService/RevokePortalSession',
    tool: false,
    permission: 'write:webhook',
    orgKeyOnly: true,
    response: {
      status: 204,
      description:
        'Ended: its next call answers 401, and an unopened link can no longer be opened. A session that is not live ' +
        '(ended already, expired, unknown or of another organization) is 404',
    },
  },
  {
    method: 'GET',
    path: '/portal-settings',
    summary: "The portal's settings: the origins that may embed it",
    tag: 'portal',
    operation: 'cluster.delivery.v1.PortalService/GetPortalSettings',
    tool: false,
    permission: 'read:webhook',
    orgKeyOnly: true,
    response: { status: 200, schema: PortalSettings },
  },
  {
    method: 'PATCH',
    path: '/portal-settings',
    summary: 'Set the origins that may embed the portal in an iframe',
    tag: 'portal',
    operation: 'cluster.delivery.v1.PortalService/UpdatePortalSettings',
    tool: false,
    permission: 'write:webhook',
    orgKeyOnly: true,
    body: PortalSettingsUpdate,
    response: { status: 200, schema: PortalSettings },
  },
];
