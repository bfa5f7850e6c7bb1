import { DEPLOYMENT_STAGES, type DeploymentStage } from '@cluster/contracts';
import { validation } from '@cluster/platform';

// What a GitHub webhook delivery says, read from GitHub's payloads (docs/codehost.md): pure
// functions, no storage. Only the fields the core uses are read, each checked for its type,
// so a payload of another shape is a 400 that names the field.

/** `E-<entryNumber>`, case-insensitive, on word boundaries (GitHub owns `#<n>`). */
const ENTRY_REFERENCE = /\bE-(\d{1,9})\b/gi;

/** The entry numbers `texts` reference (`E-12`, `e-12`), each once, ascending. */
export function entryNumbersIn(...texts: (string | null | undefined)[]): number[] {
  const numbers = new Set<number>();
  for (const text of texts) {
    for (const m of (text ?? '').matchAll(ENTRY_REFERENCE)) {
      const n = Number(m[1]);
      if (n >= 1) numbers.add(n);
    }
  }
  return [...numbers].sort((a, b) => a - b);
}

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

type Obj = Record<string, unknown>;
/** Postgres text holds no NUL character: a signed payload may still carry one (`\u0000` in a PR body). */
const text = (v: string) => v.replaceAll('\u0000', '');
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads typed fields of a payload; a field of the wrong type is a 400 naming its JSON pointer. */
function reader(root: unknown) {
  const fail = (path: string, message: string): never => {
    throw validation([{ path, message }]);
  };
  const at = (path: string): unknown =>
    path
      .split('/')
      .slice(1)
      .reduce<unknown>((v, key) => (isObj(v) ? v[key] : Array.isArray(v) ? v[Number(key)] : undefined), root);
  return {
    at,
    obj(path: string): Obj {
      const v = at(path);
      return isObj(v) ? v : fail(path, 'must be an object');
    },
    str(path: string): string {
      const v = at(path);
      return typeof v === 'string' && text(v) !== '' ? text(v) : fail(path, 'must be a non-empty string');
    },
    /** A string or null/absent (null); a number is read as its decimal text (GitHub ids). */
    optStr(path: string): string | null {
      const v = at(path);
      if (v === undefined || v === null) return null;
      if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
      return typeof v === 'string' ? text(v) : fail(path, 'must be a string or null');
    },
    id(path: string): string {
      const v = at(path);
      if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
      return typeof v === 'string' && text(v) !== '' ? text(v) : fail(path, 'must be an id');
    },
    int(path: string): number {
      const v = at(path);
      return typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? v : fail(path, 'must be a positive integer');
    },
    bool(path: string): boolean {
      const v = at(path);
      return v === undefined || v === null ? false : typeof v === 'boolean' ? v : fail(path, 'must be a boolean');
    },
    list(path: string): unknown[] {
      const v = at(path);
      return Array.isArray(v) ? v : fail(path, 'must be an array');
    },
    /** An RFC 3339 time or null. */
    time(path: string): string | null {
      const v = this.optStr(path);
      if (v === null) return null;
      return Number.isNaN(Date.parse(v)) ? fail(path, 'must be a date-time') : new Date(v).toISOString();
    },
  };
}

/**
 * The facts of a delivery of a handled event (HANDLED_EVENTS), from GitHub's payload shapes
 * (@octokit/webhooks-examples): 400 when a field the core reads is missing or mistyped.
 */
export function readGithubEvent(event: (typeof HANDLED_EVENTS)[number], payload: unknown): GithubFacts {
  const r = reader(payload);
  r.obj('');
  const repository = r.str('/repository/full_name');
  switch (event) {
    case 'push': {
      const commits = r.list('/commits').map((_, i) => commitFact(r, `/commits/${i}`));
      // head_commit is in `commits` unless the push listed none (a tag, a fast-forward of known commits).
      if (commits.length === 0 && r.at('/head_commit') !== null && r.at('/head_commit') !== undefined) {
        commits.push(commitFact(r, '/head_commit'));
      }
      return { kind: 'push', repository, commits };
    }
    case 'pull_request': {
      const state = r.str('/pull_request/state');
      if (state !== 'open' && state !== 'closed')
        throw validation([{ path: '/pull_request/state', message: 'must be open or closed' }]);
      return {
        kind: 'pull_request',
        repository,
        pullRequest: {
          number: r.int('/pull_request/number'),
          action: r.str('/action'),
          title: r.optStr('/pull_request/title') ?? '',
          body: r.optStr('/pull_request/body') ?? '',
          url: r.optStr('/pull_request/html_url'),
          state,
          merged: r.bool('/pull_request/merged'),
          mergedAt: r.time('/pull_request/merged_at'),
          headSha: r.optStr('/pull_request/head/sha'),
          mergeCommitSha: r.optStr('/pull_request/merge_commit_sha'),
        },
      };
    }
    case 'check_run':
    case 'workflow_run': {
      const p = `/${event}`;
      const status = r.str(`${p}/status`);
      return {
        kind: 'ci_run',
        repository,
        run: {
          kind: event,
          externalId: r.id(`${p}/id`),
          name: r.optStr(`${p}/name`) || r.optStr(`${p}/display_title`) || `${event} ${r.id(`${p}/id`)}`,
          headSha: r.str(`${p}/head_sha`),
          status,
          conclusion: r.optStr(`${p}/conclusion`),
          url: r.optStr(`${p}/html_url`),
          completedAt: status !== 'completed' ? null : r.time(event === 'check_run' ? `${p}/completed_at` : `${p}/updated_at`),
          attempt: event === 'workflow_run' && r.at(`${p}/run_attempt`) !== undefined ? r.int(`${p}/run_attempt`) : 1,
        },
      };
    }
    case 'deployment_status':
      return {
        kind: 'deployment_status',
        repository,
        sha: r.str('/deployment/sha'),
        environment: r.optStr('/deployment_status/environment') || r.str('/deployment/environment'),
        state: r.str('/deployment_status/state'),
      };
  }
}

function commitFact(r: ReturnType<typeof reader>, p: string): CommitFact {
  r.obj(p);
  return {
    sha: r.str(`${p}/id`),
    message: r.optStr(`${p}/message`) ?? '',
    url: r.optStr(`${p}/url`),
    authorName: r.optStr(`${p}/author/name`),
    committedAt: r.time(`${p}/timestamp`),
  };
}
