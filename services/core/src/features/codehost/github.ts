import { DEPLOYMENT_STAGES, type DeploymentStage } from '@cluster/contracts';
import { validation } from '@cluster/platform';
import { validatePayload, type Payload } from './payload-schema.ts';

// What a GitHub webhook delivery says, read from GitHub's payloads (docs/codehost.md): pure
// functions, no storage. Only the fields the core uses are read, each validated against
// payload-schema.ts first, so a payload of another shape is a 400 that names the field.

/** Deployment environments by stage: a name matches when one of its words (split on -, _, /, ., space) is listed. */
const STAGE_WORDS: Record<DeploymentStage, readonly string[]> = {
  production: ['production', 'prod', 'live'],
  staging: ['staging', 'stage', 'preprod', 'uat'],
  testing: ['testing', 'test', 'qa', 'dev', 'development', 'preview', 'review', 'sandbox'],
};

/** The deployment stage of a GitHub environment name (docs/codehost.md), or null when it names none. */
export function stageOfEnvironment(environment: string): DeploymentStage | null {
  const words = environment
    .toLowerCase()
    .replace(/pre[-_/.\s]?prod(uction)?/g, 'preprod')
    .split(/[-_/.\s]+/);
  // Production first: "prod-preview" is production.
  for (const stage of [...DEPLOYMENT_STAGES].reverse()) {
    if (STAGE_WORDS[stage].some((w) => words.includes(w))) return stage;
  }
  return null;
}

/** How far along a stage is: a deployment never moves an entry back (testing < staging < production). */
export function stageRank(stage: string | null | undefined): number {
  return stage ? DEPLOYMENT_STAGES.indexOf(stage as DeploymentStage) : -1;
}

export interface CommitFact {
  sha: string;
  message: string;
  url: string | null;
  authorName: string | null;
  committedAt: string | null;
}

export interface PullRequestFact {
  number: number;
  action: string;
  title: string;
  body: string;
  url: string | null;
  state: 'open' | 'closed';
  merged: boolean;
  mergedAt: string | null;
  headSha: string | null;
  mergeCommitSha: string | null;
  /** The payload's `updated_at`: what orders deliveries of one pull request. */
  updatedAt: string;
}

export interface CiRunFact {
  kind: 'check_run' | 'workflow_run';
  externalId: string;
  name: string;
  headSha: string;
  status: string;
  conclusion: string | null;
  url: string | null;
  completedAt: string | null;
  /** workflow_run's run_attempt (a re-run keeps the id); 1 for check runs (a re-run is a new run). */
  attempt: number;
  /** The payload's own time of this state: a workflow run's `updated_at`; a check run's `completed_at`, else `started_at`. */
  updatedAt: string | null;
}

/** What one delivery asks of the core. */
export type GithubFacts =
  | { kind: 'push'; repository: string; commits: CommitFact[] }
  | { kind: 'pull_request'; repository: string; pullRequest: PullRequestFact }
  | { kind: 'ci_run'; repository: string; run: CiRunFact }
  | { kind: 'deployment_status'; repository: string; sha: string; environment: string; state: string };

/** The events the core reads; `ping` is answered `pong`; every other GitHub event is acknowledged and ignored. */
export const HANDLED_EVENTS = ['push', 'pull_request', 'check_run', 'workflow_run', 'deployment_status'] as const;

/**
 * GitHub's webhook event names (docs.github.com, "Webhook events and payloads"): a delivery of one
 * that is not handled is answered 202 `ignored`; a name outside this list is a 400.
 */
export const GITHUB_EVENTS: ReadonlySet<string> = new Set([
  ...HANDLED_EVENTS,
  'ping',
  'branch_protection_configuration',
  'branch_protection_rule',
  'check_suite',
  'code_scanning_alert',
  'commit_comment',
  'create',
  'custom_property',
  'custom_property_values',
  'delete',
  'dependabot_alert',
  'deploy_key',
  'deployment',
  'deployment_protection_rule',
  'deployment_review',
  'discussion',
  'discussion_comment',
  'fork',
  'github_app_authorization',
  'gollum',
  'installation',
  'installation_repositories',
  'installation_target',
  'issue_comment',
  'issue_dependencies',
  'issues',
  'label',
  'marketplace_purchase',
  'member',
  'membership',
  'merge_group',
  'meta',
  'milestone',
  'org_block',
  'organization',
  'package',
  'page_build',
  'personal_access_token_request',
  'project',
  'project_card',
  'project_column',
  'projects_v2',
  'projects_v2_item',
  'projects_v2_status_update',
  'public',
  'pull_request_review',
  'pull_request_review_comment',
  'pull_request_review_thread',
  'registry_package',
  'release',
  'repository',
  'repository_advisory',
  'repository_dispatch',
  'repository_import',
  'repository_ruleset',
  'repository_vulnerability_alert',
  'secret_scanning_alert',
  'secret_scanning_alert_location',
  'secret_scanning_scan',
  'security_advisory',
  'security_and_analysis',
  'sponsorship',
  'star',
  'status',
  'sub_issues',
  'team',
  'team_add',
  'watch',
  'workflow_dispatch',
  'workflow_job',
]);

/** Postgres text holds no NUL character: a signed payload may still carry one (`\u0000` in a PR body). */
const text = (v: string | null | undefined): string | null => (v === null || v === undefined ? null : v.replaceAll('\u0000', ''));

/**
 * A validated date-time (year 0001..9999) as ISO 8601 UTC. The schema's format also admits what
 * JavaScript cannot parse (a leap second, 23:59:60): that is a 400 too.
 */
function isoTime(path: string, v: string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) throw validation([{ path, message: 'must be a date-time' }]);
  return new Date(ms).toISOString();
}

/**
 * The facts of a delivery of a handled event (HANDLED_EVENTS), from GitHub's payload shapes
 * (payload-schema.ts): 400 when a field the core reads is missing, mistyped or out of bounds.
 */
export function readGithubEvent(event: (typeof HANDLED_EVENTS)[number], payload: unknown): GithubFacts {
  switch (event) {
    case 'push': {
      const p = validatePayload(event, payload);
      const commits = p.commits.map((c, i) => commitFact(c, `/commits/${i}`));
      // head_commit is in `commits` unless the push listed none (a tag, a fast-forward of known commits).
      if (commits.length === 0 && p.head_commit) commits.push(commitFact(p.head_commit, '/head_commit'));
      return { kind: 'push', repository: p.repository.full_name, commits };
    }
    case 'pull_request': {
      const p = validatePayload(event, payload);
      const pr = p.pull_request;
      return {
        kind: 'pull_request',
        repository: p.repository.full_name,
        pullRequest: {
          number: pr.number,
          action: p.action,
          title: text(pr.title) ?? '',
          body: text(pr.body) ?? '',
          url: text(pr.html_url),
          state: pr.state,
          merged: pr.merged ?? false,
          mergedAt: isoTime('/pull_request/merged_at', pr.merged_at),
          headSha: pr.head?.sha ?? null,
          mergeCommitSha: pr.merge_commit_sha ?? null,
          updatedAt: isoTime('/pull_request/updated_at', pr.updated_at) as string,
        },
      };
    }
    case 'check_run': {
      const p = validatePayload(event, payload);
      const run = p.check_run;
      const completedAt = run.status === 'completed' ? isoTime('/check_run/completed_at', run.completed_at) : null;
      return {
        kind: 'ci_run',
        repository: p.repository.full_name,
        run: {
          ...ciRunCommon(event, run),
          completedAt,
          // A check run has no updated_at: it is started, then completed; a re-run is a new check run.
          updatedAt: completedAt ?? isoTime('/check_run/started_at', run.started_at),
          attempt: 1,
        },
      };
    }
    case 'workflow_run': {
      const p = validatePayload(event, payload);
      const run = p.workflow_run;
      const updatedAt = isoTime('/workflow_run/updated_at', run.updated_at);
      return {
        kind: 'ci_run',
        repository: p.repository.full_name,
        run: {
          ...ciRunCommon(event, run),
          name: text(run.name) || text(run.display_title) || `${event} ${run.id}`,
          completedAt: run.status === 'completed' ? updatedAt : null,
          updatedAt,
          attempt: run.run_attempt ?? 1,
        },
      };
    }
    case 'deployment_status': {
      const p = validatePayload(event, payload);
      const environment = text(p.deployment_status.environment) || text(p.deployment.environment);
      if (!environment) throw validation([{ path: '/deployment/environment', message: 'is required' }]);
      return {
        kind: 'deployment_status',
        repository: p.repository.full_name,
        sha: p.deployment.sha,
        environment,
        state: p.deployment_status.state,
      };
    }
  }
}

/** What check runs and workflow runs say alike. */
function ciRunCommon(
  kind: CiRunFact['kind'],
  run: {
    id: number;
    name?: string | null;
    head_sha: string;
    status: string;
    conclusion?: string | null;
    html_url?: string | null;
  },
) {
  return {
    kind,
    externalId: String(run.id),
    name: text(run.name) || `${kind} ${run.id}`,
    headSha: run.head_sha,
    status: run.status,
    conclusion: run.conclusion ?? null,
    url: text(run.html_url),
  };
}

function commitFact(c: Payload<'push'>['commits'][number], path: string): CommitFact {
  return {
    sha: c.id,
    message: text(c.message) ?? '',
    url: text(c.url),
    authorName: text(c.author?.name),
    committedAt: isoTime(`${path}/timestamp`, c.timestamp),
  };
}
