import type { RouteDef } from '../http/route.ts';

/**
 * The tools of the tool-protocol endpoint (/mcp), each one a v1 route of the route table: the
 * same permission check, validation and handler (so the same core operation, audit record and
 * domain event) as the REST call. Everything a tool reads or writes stays inside the platform,
 * so no tool is open-world; reads are read-only; nothing here deletes, so none is destructive
 * (an update overwrites fields, which the annotation's "destructive" means: we mark updates so).
 */
export interface ToolSpec {
  name: string;
  title: string;
  method: RouteDef['method'];
  /** The route's path under /api/v1. */
  path: string;
  description: string;
  /** Overwrites data already there (updates): the assistant should confirm first. */
  destructive?: boolean;
}

export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'whoami',
    title: 'Who am I',
    method: 'GET',
    path: '/me',
    description: 'The API key in use: its organization, user, role, scope and permissions.',
  },
  {
    name: 'list_projects',
    title: 'List projects',
    method: 'GET',
    path: '/projects',
    description: 'Projects the key can see, newest first.',
  },
  { name: 'get_project', title: 'Get a project', method: 'GET', path: '/projects/:id', description: 'One project by id.' },
  {
    name: 'list_entries',
    title: 'List entries',
    method: 'GET',
    path: '/projects/:id/entries',
    description: 'Entries (bugs, features, tasks) of a project, with filters.',
  },
  { name: 'get_entry', title: 'Get an entry', method: 'GET', path: '/entries/:id', description: 'One entry by id.' },
  {
    name: 'create_entry',
    title: 'Create an entry',
    method: 'POST',
    path: '/projects/:id/entries',
    description: 'Creates an entry in a project.',
  },
  {
    name: 'update_entry',
    title: 'Update an entry',
    method: 'PATCH',
    path: '/entries/:id',
    description: 'Changes the given fields of an entry.',
    destructive: true,
  },
  {
    name: 'comment_on_entry',
    title: 'Comment on an entry',
    method: 'POST',
    path: '/entries/:id/comments',
    description: 'Adds a comment to an entry.',
  },
  {
    name: 'list_releases',
    title: 'List releases',
    method: 'GET',
    path: '/projects/:id/releases',
    description: 'Releases of a project, with filters.',
  },
  { name: 'get_release', title: 'Get a release', method: 'GET', path: '/releases/:id', description: 'One release by id.' },
  {
    name: 'create_release',
    title: 'Create a release',
    method: 'POST',
    path: '/projects/:id/releases',
    description: 'Creates a release in a project.',
  },
  {
    name: 'update_release',
    title: 'Update a release',
    method: 'PATCH',
    path: '/releases/:id',
    description: 'Changes the given fields of a release.',
    destructive: true,
  },
  {
    name: 'get_release_evidence',
    title: 'Get release evidence',
    method: 'GET',
    path: '/releases/:id/evidence',
    description: "A release's evidence package: entries, approvals, checklists and code-hosting evidence.",
  },
  {
    name: 'log_time',
    title: 'Log time',
    method: 'POST',
    path: '/projects/:id/time-entries',
    description: 'Logs a time entry (a draft) on a project.',
  },
  {
    name: 'submit_time',
    title: 'Submit time',
    method: 'POST',
    path: '/time-entries/:id/submit',
    description: 'Submits a draft or rejected time entry for approval.',
  },
  {
    name: 'time_summary',
    title: 'Time summary',
    method: 'GET',
    path: '/projects/:id/time-summary',
    description: 'Time totals of a project, by status and user.',
  },
  {
    name: 'list_wiki_pages',
    title: 'List wiki pages',
    method: 'GET',
    path: '/projects/:id/wiki-pages',
    description: 'Wiki pages of a project.',
  },
  {
    name: 'get_wiki_page',
    title: 'Get a wiki page',
    method: 'GET',
    path: '/wiki-pages/:id',
    description: 'One wiki page with its full content.',
  },
  {
    name: 'create_wiki_page',
    title: 'Create a wiki page',
    method: 'POST',
    path: '/projects/:id/wiki-pages',
    description: 'Creates a wiki page in a project.',
  },
  {
    name: 'update_wiki_page',
    title: 'Update a wiki page',
    method: 'PATCH',
    path: '/wiki-pages/:id',
    description: 'Changes the given fields of a wiki page.',
    destructive: true,
  },
  {
    name: 'search',
    title: 'Search',
    method: 'GET',
    path: '/search',
    description: 'Full-text search across the resources the key can read.',
  },
  {
    name: 'list_audit_events',
    title: 'List audit events',
    method: 'GET',
    path: '/audit-events',
    description: 'The audit trail of writes, newest first, with filters.',
  },
  {
    name: 'list_webhooks',
    title: 'List webhook subscriptions',
    method: 'GET',
    path: '/webhooks',
    description:
      'The organization’s webhook subscriptions, with their health: enabled, disabledReason, consecutiveFailures, failingSince.',
  },
  {
    name: 'webhook_stats',
    title: 'Webhook delivery statistics',
    method: 'GET',
    path: '/webhooks/:id/stats',
    description:
      'A subscription’s deliveries over the last 24 hours or 7 days: counts by status, success ratio, attempt durations, last success and failure.',
  },
];
