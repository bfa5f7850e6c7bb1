import { PortalSessionCreate, PortalSessionLink, PortalSettings, PortalSettingsUpdate } from '../resources/portal.ts';
import type { Operation } from './operation.ts';

/**
 * The integrator portal (docs/portal.md): a one-time link that opens a browser session on the
 * webhook pages without handing out an API key, and the organization's list of origins that may
 * embed the portal in an iframe. Organization-wide, like the webhooks the portal manages.
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
