// An endpoint's delivery settings beyond its URL and events (docs/webhooks.md: "Filters", "Ordered
// delivery", "Throttling"): the endpoint form's "Advanced" section, the body fields it sends, the API's
// validation errors placed by the field they concern, and the short summary the lists show.
import type { ReactNode } from 'react';
import { ApiError } from '../api.ts';
import type { Webhook, WebhookUpdate } from '../types.ts';

export type Ordering = Webhook['ordering'];

/** The form's fields that an error can point at (the first segment of its JSON pointer). */
export const FIELDS = ['destinationUrl', 'description', 'eventNames', 'ordering', 'rateLimit', 'maxInFlight', 'filter'] as const;
export type Field = (typeof FIELDS)[number];
/** A message per field, as the person should read it next to that field. */
export type Problems = Partial<Record<Field, string>>;

/** The "Advanced" section's values as typed: numbers and the filter are text until sent. */
export interface AdvancedValues {
  ordering: Ordering;
  rateLimit: string;
  maxInFlight: string;
  filter: string;
}

/** The values an endpoint's form starts with: a new endpoint's defaults, or the endpoint's own. */
export function advancedOf(hook?: Webhook): AdvancedValues {
  return {
    ordering: hook?.ordering ?? 'none',
    rateLimit: hook?.rateLimit == null ? '' : String(hook.rateLimit),
    maxInFlight: hook?.maxInFlight == null ? '' : String(hook.maxInFlight),
    filter: hook?.filter ? JSON.stringify(hook.filter, null, 2) : '',
  };
}

type Settings = Required<Pick<WebhookUpdate, 'ordering' | 'rateLimit' | 'maxInFlight' | 'filter'>>;

const limitOf = (text: string): number | null => (text.trim() === '' ? null : Number(text));

/**
 * The settings to send, or the problems that keep the form from sending them. Only what JSON itself
 * refuses is checked here: what a filter may say is the API's to judge (400 validation_error, shown by
 * `problemsOf`). An empty filter is none (`null`).
 */
export function parseAdvanced(values: AdvancedValues): { settings: Settings } | { problems: Problems } {
  let filter: Settings['filter'] = null;
  if (values.filter.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(values.filter);
    } catch (err) {
      return { problems: { filter: `The filter is not valid JSON (${(err as Error).message}). Nothing was sent.` } };
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return {
        problems: { filter: 'The filter must be a JSON object, such as {"payload": {"type": "bug_report"}}. Nothing was sent.' },
      };
    }
    filter = parsed as NonNullable<Settings['filter']>;
  }
  return {
    settings: {
      ordering: values.ordering,
      rateLimit: limitOf(values.rateLimit),
      maxInFlight: limitOf(values.maxInFlight),
      filter,
    },
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Of `settings`, those that differ from `hook`'s: an edit sends only what changed (docs/portal.md). */
export function changedSettings(hook: Webhook, settings: Settings): Partial<Settings> {
  return Object.fromEntries(
    (Object.keys(settings) as (keyof Settings)[]).filter((k) => !same(settings[k], hook[k])).map((k) => [k, settings[k]]),
  );
}

/** A new endpoint's settings: the defaults are left out of the body. */
export function createdSettings(settings: Settings): Partial<Settings> {
  return {
    ...(settings.ordering !== 'none' ? { ordering: settings.ordering } : {}),
    ...(settings.rateLimit !== null ? { rateLimit: settings.rateLimit } : {}),
    ...(settings.maxInFlight !== null ? { maxInFlight: settings.maxInFlight } : {}),
    ...(settings.filter !== null ? { filter: settings.filter } : {}),
  };
}

/**
 * A save's failure split by field: a 400 validation_error lists its problems with JSON pointers
 * (`details.errors[].path`, docs/webhooks.md "Filters"), each placed by the field its pointer starts
 * with, the rest of the pointer kept (`/filter/payload/status/$regex`: "at /payload/status/$regex").
 * `rest`: what names no field of the form, shown as the form's failure.
 */
export function problemsOf(err: unknown): { fields: Problems; rest: boolean } {
  if (!(err instanceof ApiError) || err.reason !== 'validation_error' || !Array.isArray(err.details?.errors)) {
    return { fields: {}, rest: true };
  }
  const fields: Problems = {};
  let rest = false;
  for (const e of err.details.errors as { path?: unknown; message?: unknown }[]) {
    const path = typeof e.path === 'string' ? e.path : '';
    const [, head = '', ...tail] = path.split('/');
    const field = FIELDS.find((f) => f === head);
    if (!field) {
      rest = true;
      continue;
    }
    const message = `${tail.length ? `At /${tail.join('/')}: ` : ''}${typeof e.message === 'string' ? e.message : 'invalid'}`;
    fields[field] = fields[field] ? `${fields[field]} ${message}` : message;
  }
  return { fields, rest };
}

/** The form's "Advanced" fields that a problem can concern (to open the section and show it). */
export const ADVANCED_FIELDS: readonly Field[] = ['ordering', 'rateLimit', 'maxInFlight', 'filter'];

/** The id of a field's control and of its problem, within one form (`base` from useId). */
export const fieldId = (base: string, field: Field) => `${base}-${field}`;
export const problemId = (base: string, field: Field) => `${base}-${field}-problem`;

/** A field's problem, right under it, announced when it appears; its control names it with aria-describedby. */
export function FieldProblem({ base, field, problems }: { base: string; field: Field; problems: Problems }) {
  if (!problems[field]) return null;
  return (
    <p id={problemId(base, field)} className="error field-problem" role="alert">
      {problems[field]}
    </p>
  );
}

/** The attributes that tie a control to its hint and its problem. */
export function describedBy(base: string, field: Field, problems: Problems, hint?: string) {
  const ids = [hint, problems[field] ? problemId(base, field) : undefined].filter(Boolean).join(' ');
  return {
    id: fieldId(base, field),
    'aria-invalid': problems[field] ? true : undefined,
    'aria-describedby': ids || undefined,
  } as const;
}

const FILTER_EXAMPLE = '{"payload": {"type": {"$in": ["bug_report", "security"]}}}';

/**
 * The "Advanced" section's fields: ordering, the two throttling limits (empty: none) and the filter as
 * JSON (empty: every event). Native constraints (integer, bounds) match the API's (docs/openapi.json,
 * WebhookCreate and WebhookUpdate).
 */
export function AdvancedFields({
  base,
  values,
  onChange,
  problems,
}: {
  base: string;
  values: AdvancedValues;
  onChange: (values: AdvancedValues) => void;
  problems: Problems;
}) {
  const set = (patch: Partial<AdvancedValues>) => onChange({ ...values, ...patch });
  const hint = (name: string) => `${base}-${name}-hint`;
  return (
    <>
      <label>
        Ordering
        <select
          value={values.ordering}
          onChange={(e) => set({ ordering: e.target.value as Ordering })}
          {...describedBy(base, 'ordering', problems, hint('ordering'))}
        >
          <option value="none">None: as fast as the endpoint takes them</option>
          <option value="per_entity">Per entity: each entity’s events in order</option>
        </select>
      </label>
      <p className="hint" id={hint('ordering')}>
        Per entity, a delivery waits until the one before it of the same entity succeeded or gave up, so one failing event holds
        back that entity’s later events.
      </p>
      <FieldProblem base={base} field="ordering" problems={problems} />
      <div className="row">
        <div>
          <label>
            Rate limit (deliveries per second)
            <input
              type="number"
              inputMode="numeric"
              min={1}
              max={10000}
              step={1}
              placeholder="no limit"
              value={values.rateLimit}
              onChange={(e) => set({ rateLimit: e.target.value })}
              {...describedBy(base, 'rateLimit', problems, hint('limits'))}
            />
          </label>
          <FieldProblem base={base} field="rateLimit" problems={problems} />
        </div>
        <div>
          <label>
            Most in flight at once
            <input
              type="number"
              inputMode="numeric"
              min={1}
              max={1000}
              step={1}
              placeholder="no cap"
              value={values.maxInFlight}
              onChange={(e) => set({ maxInFlight: e.target.value })}
              {...describedBy(base, 'maxInFlight', problems, hint('limits'))}
            />
          </label>
          <FieldProblem base={base} field="maxInFlight" problems={problems} />
        </div>
      </div>
      <p className="hint" id={hint('limits')}>
        Empty: none. At most 1 to 10000 deliveries a second, and 1 to 1000 sent and not yet answered at once.
      </p>
      <label>
        Filter (JSON)
        <textarea
          rows={5}
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
          placeholder={FILTER_EXAMPLE}
          value={values.filter}
          onChange={(e) => set({ filter: e.target.value })}
          {...describedBy(base, 'filter', problems, hint('filter'))}
        />
      </label>
      <FieldProblem base={base} field="filter" problems={problems} />
      <p className="hint" id={hint('filter')}>
        Only events whose body matches the filter are delivered; empty: every event. The syntax is Hookdeck Outpost’s
        (docs/webhooks.md, “Filters”), for example <code>{FILTER_EXAMPLE}</code>.
      </p>
    </>
  );
}

const MAX_SHOWN = 160;

/** The filter as one line, cut short when long (the whole of it in the edit form). */
export function filterText(filter: Webhook['filter']): string {
  const text = JSON.stringify(filter);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

/**
 * What keeps an endpoint's events back or in line: its filter and per-entity ordering, so that whoever
 * wonders why an event did not arrive sees it. Nothing for an endpoint without either.
 */
export function DeliveryRules({ hook, children }: { hook: Webhook; children?: ReactNode }) {
  if (!hook.filter && hook.ordering !== 'per_entity') return null;
  return (
    <div className="hint rules" data-testid="delivery-rules">
      {hook.filter && (
        <p>
          <span className="badge warn">filtered</span> Only events matching <code>{filterText(hook.filter)}</code> are delivered.
          {children}
        </p>
      )}
      {hook.ordering === 'per_entity' && (
        <p>
          <span className="badge off">ordered</span> In order per entity: a failing delivery holds back its entity’s later events.
        </p>
      )}
    </div>
  );
}
