import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { client, messageOf } from '../api.ts';
import { ENDPOINTS_PER_PAGE, useCatalogue, useWebhooks } from '../data.ts';
import type { Webhook, WebhookUpdate } from '../types.ts';
import {
  ADVANCED_FIELDS,
  AdvancedFields,
  advancedOf,
  changedSettings,
  createdSettings,
  DeliveryRules,
  describedBy,
  FieldProblem,
  fieldId,
  FIELDS,
  parseAdvanced,
  problemId,
  problemsOf,
  type AdvancedValues,
  type Problems,
} from './EndpointSettings.tsx';
import { Empty, Failure, Loading, Pager, Section, when } from '../ui.tsx';

type Shown = { id: string; label: string; value: string };

function snippets(secretOrKey: string): { lang: string; code: string }[] {
  const s = secretOrKey || '<your secret>';
  return [
    {
      lang: 'Node (@cluster/webhook-verify)',
      code: `import { verify } from '@cluster/webhook-verify';\n// rawBody: the request's bytes, before any JSON parsing\nconst webhook = verify(rawBody, req.headers, '${s}', { toleranceSeconds: 300 });`,
    },
    {
      lang: 'Python',
      code: `from standardwebhooks.webhooks import Webhook\n# raw_body: the request's bytes\npayload = Webhook("${s}").verify(raw_body, request.headers)`,
    },
    {
      lang: 'Go',
      code: `import standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"\n\nwh, _ := standardwebhooks.NewWebhook("${s}")\nerr := wh.Verify(rawBody, r.Header)`,
    },
  ];
}

function Snippets({ secret }: { secret: string }) {
  return (
    <div className="snippets">
      {snippets(secret).map((s) => (
        <figure key={s.lang}>
          <figcaption>{s.lang}</figcaption>
          <pre tabIndex={0}>
            <code>{s.code}</code>
          </pre>
          <button type="button" onClick={() => void navigator.clipboard?.writeText(s.code)}>
            Copy {s.lang.split(' ')[0]} snippet
          </button>
        </figure>
      ))}
    </div>
  );
}

/**
 * The endpoint form: a new endpoint (its URL, description, signature scheme, events and advanced
 * settings), or, given `editing`, that endpoint's URL, description, events and advanced settings
 * (PATCH /webhooks/:id with only what changed, so what the form does not show, such as a broker
 * destination's settings, stays; the scheme stays too). A filter that is not JSON is refused here;
 * the API's validation errors are shown by the field they point at.
 */
function EndpointForm({
  editing,
  onSaved,
  onCancel,
}: {
  editing?: Webhook;
  onSaved: (w: Webhook & { hmacSecret?: string }) => void;
  onCancel?: () => void;
}) {
  const base = useId();
  const catalogue = useCatalogue();
  const [url, setUrl] = useState(editing?.destinationUrl ?? '');
  const [scheme, setScheme] = useState<'hmac-sha256' | 'ed25519'>('hmac-sha256');
  const [events, setEvents] = useState<string[]>(editing?.eventNames ?? []);
  const [description, setDescription] = useState(editing?.description ?? '');
  const [advanced, setAdvanced] = useState<AdvancedValues>(() => advancedOf(editing));
  // Open from the start when the endpoint has advanced settings, so they are seen.
  const [advancedOpen, setAdvancedOpen] = useState(() => JSON.stringify(advancedOf(editing)) !== JSON.stringify(advancedOf()));
  const [refused, setRefused] = useState<Problems>({});
  const queries = useQueryClient();
  const save = useMutation({
    mutationFn: (body: WebhookUpdate) =>
      (editing
        ? Object.keys(body).length
          ? client.webhooks.update(editing.id, body)
          : Promise.resolve(editing)
        : client.webhooks.create({ ...body, eventNames: events, signatureScheme: scheme })) as unknown as Promise<
        Webhook & { hmacSecret?: string }
      >,
    onSuccess: (w) => {
      onSaved(w);
      if (!editing) {
        setUrl('');
        setEvents([]);
        setDescription('');
        setAdvanced(advancedOf());
      }
      void queries.invalidateQueries({ queryKey: ['webhooks'] });
    },
    onError: (err) => {
      if (ADVANCED_FIELDS.some((f) => problemsOf(err).fields[f])) setAdvancedOpen(true);
    },
  });
  const failure = save.isError ? problemsOf(save.error) : { fields: {}, rest: false };
  const problems: Problems = { ...failure.fields, ...refused };
  const firstProblem = FIELDS.find((f) => problems[f]);
  // The first field with a problem takes the focus (after the section opens), so a keyboard user is at it.
  useEffect(() => {
    if (firstProblem) document.getElementById(fieldId(base, firstProblem))?.focus();
  }, [firstProblem, save.error, refused, base]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseAdvanced(advanced);
    if ('problems' in parsed) {
      setRefused(parsed.problems);
      setAdvancedOpen(true);
      return;
    }
    setRefused({});
    if (editing) {
      const sameEvents = [...events].sort().join() === [...editing.eventNames].sort().join();
      save.mutate({
        // The URL only when it changed: a broker destination (Kafka, AMQP, SQS) keeps its settings.
        ...(url !== editing.destinationUrl ? { destinationUrl: url } : {}),
        ...(sameEvents ? {} : { eventNames: events }),
        ...((description || null) !== (editing.description ?? null) ? { description: description || null } : {}),
        ...changedSettings(editing, parsed.settings),
      });
    } else {
      save.mutate({
        destinationUrl: url,
        ...(description ? { description } : {}),
        ...createdSettings(parsed.settings),
      });
    }
  };
  const title = editing ? 'Edit endpoint' : 'New endpoint';
  // A broker destination's URL is a name (kafka://broker/topic), not an address the portal can edit.
  const broker = Boolean(editing?.destination && editing.destination.type !== 'http');
  const urlField = describedBy(base, 'destinationUrl', problems, broker ? `${base}-broker-note` : undefined);
  return (
    <form onSubmit={submit} className="card" aria-label={editing ? 'Edit the endpoint' : 'Create an endpoint'}>
      <h3>{title}</h3>
      <label>
        Endpoint URL
        <input
          type="url"
          required
          readOnly={broker}
          {...urlField}
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://hooks.example.com/feedback"
        />
      </label>
      <FieldProblem base={base} field="destinationUrl" problems={problems} />
      {broker && (
        <p className="hint" id={`${base}-broker-note`}>
          This endpoint delivers to a {editing?.destination?.type} destination; its broker settings are changed through the API
          (docs/webhooks.md, “Destinations”).
        </p>
      )}
      <label>
        Description
        <input
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          {...describedBy(base, 'description', problems)}
        />
      </label>
      <FieldProblem base={base} field="description" problems={problems} />
      {!editing && (
        <fieldset>
          <legend>Signature scheme</legend>
          <label className="inline">
            <input type="radio" name="scheme" checked={scheme === 'hmac-sha256'} onChange={() => setScheme('hmac-sha256')} />{' '}
            HMAC-SHA256 (shared secret)
          </label>
          <label className="inline">
            <input type="radio" name="scheme" checked={scheme === 'ed25519'} onChange={() => setScheme('ed25519')} /> Ed25519
            (public key)
          </label>
        </fieldset>
      )}
      <fieldset aria-describedby={problems.eventNames ? problemId(base, 'eventNames') : undefined}>
        <legend>Events</legend>
        {catalogue.isPending && <Loading what="the event catalogue" />}
        {catalogue.isError && (
          <Failure what="the event catalogue" error={catalogue.error} retry={() => void catalogue.refetch()} />
        )}
        <div className="event-grid">
          {catalogue.data?.data
            .filter((t) => t.emitted || events.includes(t.name))
            .map((t) => (
              <label key={t.name} className="inline">
                <input
                  type="checkbox"
                  checked={events.includes(t.name)}
                  onChange={(e) => setEvents(e.target.checked ? [...events, t.name] : events.filter((n) => n !== t.name))}
                />{' '}
                {t.name}
              </label>
            ))}
        </div>
        <FieldProblem base={base} field="eventNames" problems={problems} />
      </fieldset>
      <details open={advancedOpen} onToggle={(e) => setAdvancedOpen(e.currentTarget.open)}>
        <summary>Advanced: ordering, throttling, filter</summary>
        <AdvancedFields base={base} values={advanced} onChange={setAdvanced} problems={problems} />
      </details>
      {failure.rest && (
        <p role="alert" className="error">
          {messageOf(save.error)}
        </p>
      )}
      <button type="submit" className="primary" disabled={save.isPending || events.length === 0}>
        {save.isPending ? 'Saving…' : editing ? 'Save endpoint' : 'Create endpoint'}
      </button>
      {onCancel && (
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      )}
      {events.length === 0 && <p className="hint">Pick at least one event.</p>}
    </form>
  );
}

export function Endpoints({ canWrite }: { canWrite: boolean }) {
  const [page, setPage] = useState(1);
  const hooks = useWebhooks(page, ENDPOINTS_PER_PAGE);
  const queries = useQueryClient();
  const [shown, setShown] = useState<Shown | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [snippetFor, setSnippetFor] = useState<string | null>(null);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const refresh = () => void queries.invalidateQueries({ queryKey: ['webhooks'] });
  const toggle = useMutation({
    mutationFn: (w: Webhook) => client.webhooks.update(w.id, { enabled: !w.enabled }),
    onSuccess: refresh,
  });
  const rotate = useMutation({
    mutationFn: (w: Webhook) => client.webhooks.rotateSecret(w.id, {}),
    onSuccess: (w) => {
      setShown({ id: w.id, label: w.hmacSecret ? 'New secret' : 'New public key', value: w.hmacSecret ?? w.publicKey ?? '' });
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (w: Webhook) => client.webhooks.delete(w.id),
    onSuccess: () => {
      setConfirming(null);
      refresh();
    },
  });
  const failed = toggle.error ?? rotate.error ?? remove.error;

  return (
    <Section title="Endpoints">
      {shown && (
        <div className="card secret" role="status">
          <p>
            <strong>{shown.label}</strong> (shown once: copy it now)
          </p>
          <pre tabIndex={0} data-testid="secret">
            <code>{shown.value}</code>
          </pre>
          <Snippets secret={shown.value} />
          <button type="button" onClick={() => setShown(null)}>
            I have copied it
          </button>
        </div>
      )}
      {failed && (
        <p role="alert" className="error">
          {messageOf(failed)}
        </p>
      )}
      {hooks.isPending && <Loading what="endpoints" />}
      {hooks.isError && <Failure what="endpoints" error={hooks.error} retry={() => void hooks.refetch()} />}
      {hooks.data && hooks.data.data.length === 0 && (
        <Empty>
          <p>
            No endpoints yet.{' '}
            {canWrite ? 'Create one below: give the URL that should receive the events and pick the events.' : ''}
          </p>
        </Empty>
      )}
      {hooks.data && hooks.data.data.length > 0 && (
        <table>
          <caption className="sr-only">Webhook endpoints</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">Signing</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {hooks.data.data.map((w) => (
              <tr key={w.id}>
                <td>
                  <code>{w.destinationUrl}</code>
                  {w.description && <div className="hint">{w.description}</div>}
                </td>
                <td>
                  {w.eventNames.join(', ')}
                  <DeliveryRules hook={w} />
                </td>
                <td>{w.signatureScheme === 'ed25519' ? 'Ed25519' : 'HMAC'}</td>
                <td>
                  <span className={`badge ${w.enabled ? (w.failingSince ? 'warn' : 'ok') : 'off'}`}>
                    {w.enabled
                      ? w.failingSince
                        ? `failing since ${when(w.failingSince)}`
                        : 'enabled'
                      : `disabled${w.disabledReason ? ` (${w.disabledReason})` : ''}`}
                  </span>
                </td>
                <td className="actions">
                  <button
                    type="button"
                    onClick={() => setSnippetFor(snippetFor === w.id ? null : w.id)}
                    aria-expanded={snippetFor === w.id}
                  >
                    Verification snippet
                  </button>
                  {canWrite && (
                    <>
                      <button type="button" onClick={() => setEditing(w)} aria-expanded={editing?.id === w.id}>
                        Edit
                      </button>
                      <button type="button" onClick={() => toggle.mutate(w)}>
                        {w.enabled ? 'Disable' : 'Enable'}
                      </button>
                      <button type="button" onClick={() => rotate.mutate(w)}>
                        Rotate secret
                      </button>
                      {confirming === w.id ? (
                        <button type="button" className="danger" onClick={() => remove.mutate(w)}>
                          Confirm delete
                        </button>
                      ) : (
                        <button type="button" onClick={() => setConfirming(w.id)}>
                          Delete
                        </button>
                      )}
                    </>
                  )}
                  {snippetFor === w.id && <Snippets secret={w.publicKey ?? ''} />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {hooks.data && (
        <Pager what="endpoints" page={page} pageSize={ENDPOINTS_PER_PAGE} total={hooks.data.total} onPage={setPage} />
      )}
      {canWrite && editing && (
        <EndpointForm key={editing.id} editing={editing} onSaved={() => setEditing(null)} onCancel={() => setEditing(null)} />
      )}
      {canWrite && (
        <EndpointForm
          onSaved={(w) =>
            setShown({
              id: w.id,
              label: w.hmacSecret ? 'Signing secret' : 'Public key',
              value: w.hmacSecret ?? w.publicKey ?? '',
            })
          }
        />
      )}
    </Section>
  );
}
