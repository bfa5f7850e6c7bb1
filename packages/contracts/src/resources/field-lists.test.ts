import { describe, expect, it } from 'vitest';
import type { TObject } from '@sinclair/typebox';
import {
  ATTACHMENT_WRITABLE_FIELDS,
  AttachmentCreate,
  COMMENT_WRITABLE_COLUMNS,
  COMMENT_WRITABLE_FIELDS,
  CommentCreate,
  ENTRY_FILTERS,
  ENTRY_IGNORED_FIELDS,
  ENTRY_WRITABLE_FIELDS,
  EntryCreate,
  EntryFilters,
  EntryUpdate,
  INTEGRATION_LINK_FILTERS,
  INTEGRATION_LINK_UPDATABLE_FIELDS,
  INTEGRATION_LINK_WRITABLE_FIELDS,
  IntegrationLinkCreate,
  IntegrationLinkFilters,
  IntegrationLinkUpdate,
  MEMBER_FIELDS,
  MEMBER_UPDATABLE_FIELDS,
  MemberUpdate,
  PROJECT_WRITABLE_FIELDS,
  ProjectCreate,
  ProjectUpdate,
  ProjectMember,
  RELEASE_FILTERS,
  RELEASE_IGNORED_FIELDS,
  RELEASE_WRITABLE_FIELDS,
  ReleaseCreate,
  ReleaseFilters,
  TIME_ENTRY_FILTERS,
  TIME_ENTRY_UPDATABLE_FIELDS,
  TIME_ENTRY_UPDATE_BODY_ONLY,
  TimeEntryFilters,
  TimeEntryUpdate,
  USER_FIELDS,
  USER_UPDATABLE_FIELDS,
  User,
  UserUpdate,
  WEBHOOK_FIELDS,
  WIKI_PAGE_FIELDS,
  WIKI_PAGE_WRITABLE_FIELDS,
  Webhook,
  WikiPage,
  WikiPageUpdate,
  ENTRY_FIELDS,
  Entry,
  PROJECT_FIELDS,
  Project,
  RELEASE_FIELDS,
  Release,
  ATTACHMENT_FIELDS,
  Attachment,
  COMMENT_FIELDS,
  Comment,
  AUDIT_EVENT_FIELDS,
  AuditEvent,
  INTEGRATION_LINK_FIELDS,
  IntegrationLink,
  TIME_ENTRY_LINK_FIELDS,
  integrationLinkProperties,
} from '../index.ts';

const names = (schema: TObject) => Object.keys(schema.properties).sort();
const sorted = (...lists: readonly (readonly string[])[]) => lists.flat().sort();

// Each resource's field list is the one place its names live: the schemas hold exactly those names.
describe('resource field lists drive the schemas', () => {
  it('entries: writable fields (plus the ignored deploymentStage) on create and update; the filters', () => {
    expect(names(EntryCreate)).toEqual(sorted(ENTRY_WRITABLE_FIELDS, ENTRY_IGNORED_FIELDS));
    expect(names(EntryUpdate)).toEqual(sorted(ENTRY_WRITABLE_FIELDS, ENTRY_IGNORED_FIELDS));
    expect(EntryCreate.required).toEqual(['type', 'title', 'description']);
    expect(EntryUpdate.required).toBeUndefined();
    expect(Object.keys(EntryFilters)).toEqual([...ENTRY_FILTERS]);
  });

  it('projects: clientId only on update', () => {
    expect(names(ProjectUpdate)).toEqual(sorted(PROJECT_WRITABLE_FIELDS));
    expect(names(ProjectCreate)).toEqual(sorted(PROJECT_WRITABLE_FIELDS.filter((f) => f !== 'clientId')));
  });

  it('releases, attachments, comments, integration links, time entries', () => {
    expect(names(ReleaseCreate)).toEqual(sorted(RELEASE_WRITABLE_FIELDS, RELEASE_IGNORED_FIELDS));
    expect(Object.keys(ReleaseFilters)).toEqual([...RELEASE_FILTERS]);
    expect(names(AttachmentCreate)).toEqual(sorted(ATTACHMENT_WRITABLE_FIELDS));
    expect(names(CommentCreate)).toEqual(sorted(COMMENT_WRITABLE_FIELDS));
    expect(COMMENT_WRITABLE_COLUMNS).toEqual(['body', 'isInternal', 'isAiGenerated']);
    expect(names(IntegrationLinkCreate)).toEqual(sorted(INTEGRATION_LINK_WRITABLE_FIELDS));
    expect(names(IntegrationLinkUpdate)).toEqual(sorted(INTEGRATION_LINK_UPDATABLE_FIELDS));
    expect(Object.keys(IntegrationLinkFilters)).toEqual([...INTEGRATION_LINK_FILTERS]);
    expect(names(TimeEntryUpdate)).toEqual(sorted(TIME_ENTRY_UPDATABLE_FIELDS, TIME_ENTRY_UPDATE_BODY_ONLY));
    expect(Object.keys(TimeEntryFilters)).toEqual([...TIME_ENTRY_FILTERS]);
  });

  it('users, members, wiki pages, webhooks: answers in field-list order, and their update bodies', () => {
    expect(Object.keys(User.properties)).toEqual([...USER_FIELDS]);
    expect(names(UserUpdate)).toEqual(sorted(USER_UPDATABLE_FIELDS));
    expect(Object.keys(ProjectMember.properties)).toEqual([...MEMBER_FIELDS]);
    expect(names(MemberUpdate)).toEqual(sorted(MEMBER_UPDATABLE_FIELDS));
    expect(Object.keys(WikiPage.properties)).toEqual([...WIKI_PAGE_FIELDS]);
    expect(names(WikiPageUpdate)).toEqual(sorted(WIKI_PAGE_WRITABLE_FIELDS));
    expect(Object.keys(Webhook.properties)).toEqual([...WEBHOOK_FIELDS]);
  });

  it("answered field lists are their answer schema's fields, and answer every writable field", () => {
    const answers: [readonly string[], TObject][] = [
      [ENTRY_FIELDS, Entry],
      [RELEASE_FIELDS, Release],
      [PROJECT_FIELDS, Project],
      [ATTACHMENT_FIELDS, Attachment],
      [COMMENT_FIELDS, Comment],
      [AUDIT_EVENT_FIELDS, AuditEvent],
      [INTEGRATION_LINK_FIELDS, IntegrationLink],
    ];
    for (const [fields, schema] of answers) expect([...fields]).toEqual(Object.keys(schema.properties));
    const answered: [readonly string[], readonly string[]][] = [
      [PROJECT_FIELDS, PROJECT_WRITABLE_FIELDS],
      [ATTACHMENT_FIELDS, ATTACHMENT_WRITABLE_FIELDS],
      [ENTRY_FIELDS, ENTRY_WRITABLE_FIELDS],
      [RELEASE_FIELDS, RELEASE_WRITABLE_FIELDS],
    ];
    for (const [fields, writable] of answered) expect(writable.filter((f) => !fields.includes(f))).toEqual([]);
    expect(sorted(TIME_ENTRY_LINK_FIELDS)).toEqual(Object.keys(integrationLinkProperties).sort());
  });

  it('a body lists its columns in the order the answer has them (the order of changedFields)', () => {
    const inAnswerOrder = (answer: readonly string[], writable: readonly string[]) => answer.filter((f) => writable.includes(f));
    expect(inAnswerOrder(ENTRY_FIELDS, ENTRY_WRITABLE_FIELDS)).toEqual([...ENTRY_WRITABLE_FIELDS]);
    expect(inAnswerOrder(RELEASE_FIELDS, RELEASE_WRITABLE_FIELDS)).toEqual([...RELEASE_WRITABLE_FIELDS]);
    expect(TIME_ENTRY_UPDATABLE_FIELDS).toEqual(['workDate', 'minutes', 'description', 'billable', 'releaseId']);
  });
});
