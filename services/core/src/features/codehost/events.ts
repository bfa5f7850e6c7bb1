import type { EmittedEventName } from '@cluster/contracts';
import type { ActorEvent } from '../../shared/write.ts';
import type { CiRunFact, CommitFact, PullRequestFact } from './github.ts';
import type { CodeRepo, EntryRef } from './store.ts';

// The code-host events (docs/events.md, "Code and CI"): events of the entry, with the "code base".

function codeEvent(eventName: EmittedEventName, repo: CodeRepo, entry: EntryRef, extra: Record<string, unknown>): ActorEvent {
  return {
    eventName,
    entityType: 'entry',
    entityId: entry.id,
    projectId: entry.projectId,
    payload: {
      entryId: entry.id,
      projectId: entry.projectId,
      entryNumber: entry.entryNumber,
      provider: repo.provider,
      repository: repo.repository,
      ...extra,
    },
  };
}

const firstLine = (text: string) => text.split('\n', 1)[0];

export function commitLinkedEvent(repo: CodeRepo, entry: EntryRef, commit: CommitFact): ActorEvent {
  return codeEvent('commit.linked', repo, entry, {
    source: 'commit',
    sha: commit.sha,
    pullRequestNumber: null,
    title: firstLine(commit.message),
    url: commit.url,
  });
}

export function pullRequestLinkedEvent(repo: CodeRepo, entry: EntryRef, pr: PullRequestFact): ActorEvent {
  return codeEvent('commit.linked', repo, entry, {
    source: 'pull_request',
    sha: null,
    pullRequestNumber: pr.number,
    title: pr.title,
    url: pr.url,
  });
}

export function pullRequestMergedEvent(repo: CodeRepo, entry: EntryRef, pr: PullRequestFact, mergedAt: string): ActorEvent {
  return codeEvent('pr.merged', repo, entry, {
    pullRequestNumber: pr.number,
    title: pr.title,
    url: pr.url,
    mergedAt,
    mergeCommitSha: pr.mergeCommitSha,
  });
}

export function pullRequestReopenedEvent(repo: CodeRepo, entry: EntryRef, pr: PullRequestFact): ActorEvent {
  return codeEvent('pr.reopened', repo, entry, { pullRequestNumber: pr.number, title: pr.title, url: pr.url });
}

export function ciRunAttributedEvent(repo: CodeRepo, entry: EntryRef, run: CiRunFact): ActorEvent {
  return codeEvent('ci.run.attributed', repo, entry, {
    kind: run.kind,
    runId: run.externalId,
    name: run.name,
    headSha: run.headSha,
    conclusion: run.conclusion,
    url: run.url,
    completedAt: run.completedAt,
  });
}
