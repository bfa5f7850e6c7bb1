import { randomBytes } from 'node:crypto';
import { entryNumbersIn } from '@cluster/contracts';
import { DomainError, validation, type SecretBox } from '@cluster/platform';
import { systemWrite, type ActorEvent } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { entryEvent } from '../entries/events.ts';
import {
  ciRunAttributedEvent,
  commitLinkedEvent,
  pullRequestLinkedEvent,
  pullRequestMergedEvent,
  pullRequestReopenedEvent,
} from './events.ts';
import { GITHUB_EVENTS, HANDLED_EVENTS, readGithubEvent, stageOfEnvironment, stageRank, type GithubFacts } from './github.ts';
import { ciRunPosition, isAfter, pullRequestPosition } from './order.ts';
import { assertPayloadDepth } from './payload-schema.ts';
import { bodyDigest, verifyGithubSignature } from './signature.ts';
import type { CodeRepo } from './store.ts';

/**
 * How long a delivery id is remembered (a redelivery within it is a `duplicate`): 30 days, ten times
 * the 3 days in which GitHub lets a delivery be redelivered.
 */
export const CODEHOST_DELIVERY_KEEP_MS = 30 * 86_400_000;

/** The code hosts whose webhooks the core takes. */
export const CODEHOST_PROVIDERS = ['github'] as const;

/** A delivery as the gateway received it (`POST /hooks/github/:organizationId`). */
export interface CodeHostDelivery {
  organizationId: string;
  provider: string;
  event: string;
  deliveryId: string;
  signature: string;
  body: Uint8Array;
}

/** What became of a delivery (the answer's body; `ignored` is a 202). */
export interface DeliveryOutcome {
  outcome: 'processed' | 'duplicate' | 'ignored' | 'pong';
  reason: string;
  events: number;
}

type HandledEvent = (typeof HANDLED_EVENTS)[number];
const isHandled = (event: string): event is HandledEvent => (HANDLED_EVENTS as readonly string[]).includes(event);
/** What a sealed secret is bound to: a value copied to another organization's row does not open. */
const secretBinding = (organizationId: string, provider: string) => `codehost:${organizationId}:${provider}`;
const ignored = (reason: string): DeliveryOutcome => ({ outcome: 'ignored', reason, events: 0 });

const unverified = () =>
  new DomainError('unauthorized', "X-Hub-Signature-256 does not verify with this organization's code-host secret");

/** Strict UTF-8 (RFC 8259: JSON on the wire is UTF-8); a leading BOM is skipped, as the RFC allows. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A verified body as JSON: bytes that are not UTF-8, or text that is not JSON, are a 400. */
function parseJson(body: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw validation([{ path: '', message: 'is not UTF-8' }]);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw validation([{ path: '', message: 'is not valid JSON (configure the webhook with content type application/json)' }]);
  }
}

/**
 * Code-host ingestion (docs/codehost.md): a GitHub delivery, verified with the organization's
 * secret, links the commits and pull requests that reference entries (`E-<number>`), records CI
 * runs and attributes completed ones, and moves entries' deploymentStage on successful
 * deployments; each delivery id, and each signed body, once; pull requests and CI runs only
 * forward by the payloads' own order (order.ts). The secret itself: `rotateSecret` (admin CLI).
 */
export function createCodeHostService(stores: Stores, box: SecretBox) {
  /** Checks the signature first (401 before anything else is said), then the headers and the JSON (400). */
  async function authenticate(d: CodeHostDelivery): Promise<unknown> {
    if (!(CODEHOST_PROVIDERS as readonly string[]).includes(d.provider)) throw new DomainError('not_found', 'no such code host');
    if (d.body.byteLength === 0) throw validation([{ path: '', message: 'the request body is empty' }]);
    if (!d.signature) throw new DomainError('unauthorized', 'X-Hub-Signature-256 is required');
    const sealed = await stores.codehost.sealedSecret(d.organizationId, d.provider);
    const secret = sealed && box.open(sealed, secretBinding(d.organizationId, d.provider));
    if (!secret || !verifyGithubSignature(secret, d.body, d.signature)) throw unverified();
    if (!d.event) throw validation([{ path: 'X-GitHub-Event', message: 'is required' }]);
    if (!GITHUB_EVENTS.has(d.event)) {
      throw validation([{ path: 'X-GitHub-Event', message: `"${d.event}" is not a GitHub webhook event` }]);
    }
    if (!d.deliveryId) throw validation([{ path: 'X-GitHub-Delivery', message: 'is required' }]);
    const payload = parseJson(d.body);
    assertPayloadDepth(payload);
    return payload;
  }

  return {
    async receive(d: CodeHostDelivery): Promise<DeliveryOutcome> {
      const payload = await authenticate(d);
      if (d.event === 'ping') return { outcome: 'pong', reason: '', events: 0 };
      const facts = isHandled(d.event) ? readGithubEvent(d.event, payload) : undefined;
      const origin = { provider: d.provider, event: d.event, deliveryId: d.deliveryId };
      return stores.transaction(async (tx) => {
        // Claimed before anything is decided, an ignored delivery too: a delivery ignored while its
        // repository was unlinked, replayed once it is linked, is a duplicate (docs/codehost.md, "Order and repeats").
        const claim = { ...origin, organizationId: d.organizationId, bodyDigest: bodyDigest(d.body) };
        if (!(await tx.codehost.claimDelivery(claim))) {
          return { outcome: 'duplicate', reason: '', events: 0 };
        }
        if (!facts) return ignored(`the ${d.event} event is not used`);
        const projectId = await tx.codehost.projectOfRepository(d.organizationId, d.provider, facts.repository);
        if (!projectId) {
          return ignored(
            `repository ${facts.repository} is not linked to a project (POST /integration-links: provider ${d.provider}, externalType repository, alignEntityType project)`,
          );
        }
        const repo: CodeRepo = {
          organizationId: d.organizationId,
          projectId,
          provider: d.provider,
          repository: facts.repository,
        };
        await tx.codehost.lockRepository(d.organizationId, d.provider, facts.repository);
        const events = await apply(tx, repo, facts, origin);
        await tx.record(
          systemWrite(
            d.organizationId,
            {
              entityType: 'codehost_delivery',
              action: 'received',
              entityId: d.deliveryId,
              entityName: `${d.event} ${facts.repository}`,
              projectId,
              metadata: { ...origin, repository: facts.repository, eventNames: events.map((e) => e.eventName) },
            },
            events,
            'codehost',
          ),
        );
        return { outcome: 'processed', reason: '', events: events.length };
      });
    },

    /** `admin codehost secret`: creates or replaces the organization's secret; shown this once. Audited. */
    async rotateSecret(organizationId: string, provider: string): Promise<{ secret: string }> {
      if (!(CODEHOST_PROVIDERS as readonly string[]).includes(provider)) {
        throw validation([{ path: '--provider', message: `must be one of: ${CODEHOST_PROVIDERS.join(', ')}` }]);
      }
      if (!(await stores.organizations.find(organizationId))) throw new DomainError('not_found', 'unknown organization');
      const secret = randomBytes(32).toString('base64url');
      return stores.transaction(async (tx) => {
        const sealed = box.seal(secret, secretBinding(organizationId, provider));
        const action = await tx.codehost.saveSecret(organizationId, provider, sealed);
        await tx.record(
          systemWrite(organizationId, {
            entityType: 'codehost_secret',
            action,
            entityId: provider,
            entityName: `${provider} webhook secret`,
          }),
        );
        return { secret };
      });
    },
  };
}

/** The writes of a delivery's facts; the events they emit, in order. (Entry updates are recorded here, with their audit.) */
async function apply(
  tx: Stores,
  repo: CodeRepo,
  facts: GithubFacts,
  origin: { provider: string; event: string; deliveryId: string },
): Promise<ActorEvent[]> {
  const store = tx.codehost;
  const events: ActorEvent[] = [];
  switch (facts.kind) {
    case 'push': {
      for (const commit of facts.commits) {
        const entries = await store.entriesByNumber(repo.projectId, entryNumbersIn(commit.message));
        if (entries.length === 0) continue;
        const linked = new Set(
          await store.linkCommit(
            await store.saveCommit(repo, commit),
            entries.map((e) => e.id),
          ),
        );
        for (const e of entries) if (linked.has(e.id)) events.push(commitLinkedEvent(repo, e, commit));
      }
      return events;
    }
    case 'pull_request': {
      const pr = facts.pullRequest;
      const before = await store.findPullRequest(repo, pr.number);
      if (before && !isAfter(pullRequestPosition(pr, pr.updatedAt), pullRequestPosition(before, before.sourceUpdatedAt))) {
        return events;
      }
      const referenced = await store.entriesByNumber(repo.projectId, entryNumbersIn(pr.title, pr.body));
      if (!before && referenced.length === 0) return events;
      // A merge is final: no later payload says otherwise, and the merge time is kept.
      const merged = pr.merged || (before?.merged ?? false);
      const mergedAt = pr.mergedAt ?? (before?.mergedAt ? new Date(before.mergedAt).toISOString() : null);
      const id = await store.savePullRequest(repo, { ...pr, merged, mergedAt, state: merged ? 'closed' : pr.state });
      const linked = new Set(
        await store.linkPullRequest(
          id,
          referenced.map((e) => e.id),
        ),
      );
      for (const e of referenced) if (linked.has(e.id)) events.push(pullRequestLinkedEvent(repo, e, pr));
      const all = await store.pullRequestEntries(id);
      if (merged && !before?.merged && mergedAt) for (const e of all) events.push(pullRequestMergedEvent(repo, e, pr, mergedAt));
      if (pr.action === 'reopened' && !merged) for (const e of all) events.push(pullRequestReopenedEvent(repo, e, pr));
      return events;
    }
    case 'ci_run': {
      const run = facts.run;
      const before = await store.findCiRun(repo, run.kind, run.externalId);
      // An older payload (an earlier status, or an earlier attempt's result) never undoes a newer one.
      if (before && !isAfter(ciRunPosition(run, run.updatedAt), ciRunPosition(before, before.sourceUpdatedAt))) return events;
      const id = await store.saveCiRun(repo, run);
      if (run.status !== 'completed') return events;
      const entries = await store.entriesOfSha(repo.organizationId, repo.provider, repo.repository, run.headSha);
      const attributed = new Set(
        await store.attribute(
          id,
          entries.map((e) => e.id),
          run.conclusion,
        ),
      );
      for (const e of entries) if (attributed.has(e.id)) events.push(ciRunAttributedEvent(repo, e, run));
      return events;
    }
    case 'deployment_status': {
      const stage = stageOfEnvironment(facts.environment);
      if (facts.state !== 'success' || !stage) return events;
      for (const ref of await store.entriesOfSha(repo.organizationId, repo.provider, repo.repository, facts.sha)) {
        const entry = await tx.entries.find(ref.id, { lock: 'update' });
        // Never back: an entry in production stays there when a preview deploys the same commit.
        if (!entry || stageRank(stage) <= stageRank(entry.deploymentStage)) continue;
        const row = await tx.entries.update(entry.id, { deploymentStage: stage });
        await tx.record(
          systemWrite(
            repo.organizationId,
            {
              entityType: 'entry',
              action: 'updated',
              entityId: row.id,
              entityName: row.title,
              projectId: row.projectId,
              metadata: { changedFields: ['deploymentStage'], ...origin, environment: facts.environment, sha: facts.sha },
            },
            [entryEvent('entry.updated', row, { changedFields: ['deploymentStage'] })],
            'codehost',
          ),
        );
      }
      return events;
    }
  }
}
