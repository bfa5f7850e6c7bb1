import type { ValidateFunction } from 'ajv';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { DateTime, Nullable } from '@cluster/contracts';
import { createAjv, toProblems, validation } from '@cluster/platform';

// The parts of GitHub's webhook payloads the core reads (docs.github.com, "Webhook events and
// payloads"; @octokit/webhooks-examples), as JSON Schema. A signed payload is still untrusted input:
// every field that reaches Postgres or an event is bounded here, so a hostile one (an integer past
// int4, a year 0 or +275760, a 6,000-character sha) is a 400 naming its JSON pointer, never a 500
// from the database. Other fields are not looked at (GitHub adds fields freely). Checked by the
// cluster's one validator (createAjv of @cluster/platform), its problems listed as the API's are.

/** The most characters of a name, status or action: GitHub's are far shorter. */
const SHORT = 255;
/** Postgres `integer` (pull request numbers and run attempts are stored as one). */
const INT4_MAX = 2_147_483_647;

/** A commit sha: 40 hex digits (SHA-1), or 64 in a SHA-256 repository. Indexed, so never longer. */
const Sha = Type.String({ pattern: '^[0-9a-f]{40}([0-9a-f]{24})?$' });
/** `owner/name` as GitHub allows them (owner up to 39 characters, name up to 100). */
const RepositoryName = Type.String({ pattern: '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$' });
const Short = Type.String({ minLength: 1, maxLength: SHORT });
const Url = Type.String({ maxLength: 2_048 });
/** Free text (titles, bodies, commit messages): bounded far above GitHub's own limits (65,536 for a body). */
const Text = (maxLength: number) => Type.String({ maxLength });
/** An optional field that GitHub may also send as null. */
const Maybe = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
/** GitHub's numeric ids: exact in a JavaScript number, so stored as their decimal text. */
const NumericId = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const Int4 = Type.Integer({ minimum: 1, maximum: INT4_MAX });

const Repository = Type.Object({ full_name: RepositoryName });

const Commit = Type.Object({
  id: Sha,
  message: Maybe(Text(1_000_000)),
  url: Maybe(Url),
  timestamp: Maybe(DateTime),
  author: Type.Optional(Type.Object({ name: Maybe(Text(SHORT)) })),
});

/** GitHub sends at most 2,048 commits in a push payload. */
const Push = Type.Object({
  repository: Repository,
  commits: Type.Array(Commit, { maxItems: 2_048 }),
  head_commit: Maybe(Commit),
});

const PullRequest = Type.Object({
  action: Short,
  repository: Repository,
  pull_request: Type.Object({
    number: Int4,
    state: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
    /** The payload's own time: what orders deliveries of one pull request. */
    updated_at: DateTime,
    title: Maybe(Text(1_024)),
    body: Maybe(Text(262_144)),
    html_url: Maybe(Url),
    merged: Maybe(Type.Boolean()),
    merged_at: Maybe(DateTime),
    head: Type.Optional(Type.Object({ sha: Maybe(Sha) })),
    merge_commit_sha: Maybe(Sha),
  }),
});

const CheckRun = Type.Object({
  repository: Repository,
  check_run: Type.Object({
    id: NumericId,
    name: Maybe(Text(SHORT)),
    head_sha: Sha,
    status: Short,
    conclusion: Maybe(Short),
    html_url: Maybe(Url),
    started_at: Maybe(DateTime),
    completed_at: Maybe(DateTime),
  }),
});

const WorkflowRun = Type.Object({
  repository: Repository,
  workflow_run: Type.Object({
    id: NumericId,
    name: Maybe(Text(SHORT)),
    display_title: Maybe(Text(1_024)),
    head_sha: Sha,
    status: Short,
    conclusion: Maybe(Short),
    html_url: Maybe(Url),
    /** Re-running a workflow keeps its id and counts up its attempt. */
    run_attempt: Type.Optional(Int4),
    updated_at: DateTime,
  }),
});

const DeploymentStatus = Type.Object({
  repository: Repository,
  deployment: Type.Object({ sha: Sha, environment: Maybe(Short) }),
  deployment_status: Type.Object({ state: Short, environment: Maybe(Short) }),
});

/** The schema of each event the core reads (HANDLED_EVENTS of github.ts). */
export const PAYLOAD_SCHEMAS = {
  push: Push,
  pull_request: PullRequest,
  check_run: CheckRun,
  workflow_run: WorkflowRun,
  deployment_status: DeploymentStatus,
} as const;

export type PayloadEvent = keyof typeof PAYLOAD_SCHEMAS;
export type Payload<E extends PayloadEvent> = Static<(typeof PAYLOAD_SCHEMAS)[E]>;

const ajv = createAjv();
const validators = new Map<PayloadEvent, ValidateFunction>(
  Object.entries(PAYLOAD_SCHEMAS).map(([event, schema]) => [event as PayloadEvent, ajv.compile(schema)]),
);

/** The payload of `event` with its static type, or 400 validation_error listing every problem. */
export function validatePayload<E extends PayloadEvent>(event: E, payload: unknown): Payload<E> {
  const validate = validators.get(event);
  if (!validate) throw new Error(`no payload schema for ${event}`);
  if (!validate(payload)) throw validation(toProblems(validate.errors));
  return payload as Payload<E>;
}

/**
 * How deeply a payload may nest (the payload itself is level 1). GitHub's nest about eight levels;
 * a deeper one is refused before anything walks it.
 */
export const MAX_PAYLOAD_DEPTH = 64;

/** 400 when `payload` nests deeper than MAX_PAYLOAD_DEPTH. Iterative: no stack to overflow. */
export function assertPayloadDepth(payload: unknown): void {
  const stack: { value: unknown; depth: number }[] = [{ value: payload, depth: 1 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value, depth } = next;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_PAYLOAD_DEPTH) {
      throw validation([{ path: '', message: `is nested deeper than ${MAX_PAYLOAD_DEPTH} levels` }]);
    }
    for (const item of Object.values(value)) stack.push({ value: item, depth: depth + 1 });
  }
}
