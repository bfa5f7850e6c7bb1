import type { ValidateFunction } from 'ajv';
import { createAjv, toProblems } from '@cluster/platform';
import { routes } from '@cluster/gateway';
import { createMatcher, type RouteDef } from '../../services/gateway/src/http/route.ts';
import { API_PREFIX, findRoute } from '../../services/gateway/src/http/match-route.ts';

/** What the end-to-end client hands the check: the request as sent and the answer as read. */
export interface Answer {
  method: string;
  /** The request URL (absolute) or path with its /api/v1 prefix; a query string is ignored. */
  url: string;
  status: number;
  contentType: string | null;
  body: unknown;
}

/**
 * Holds answers to their schemas, in tests only (issue 36, item 3): every 2xx answer of an
 * /api/v1 operation is validated against the `response.schema` of the route the gateway's own
 * matcher finds for it, with the cluster's one validator (`createAjv`), each schema compiled once.
 * A mismatch throws, naming method, path, route and the problems. What it requires of a 2xx:
 *
 * - the operation's declared status (`response.status`), or 200 for an upsert that matched (`response.upsert`);
 * - with a schema, a JSON body the schema accepts;
 * - without one, no JSON body (a 204, or a non-JSON answer such as a download).
 *
 * Answers of paths outside the route table (the OpenAPI document, the reference page) and
 * non-2xx answers (errors have their own shape, held by their own tests) are not checked.
 */
export function createAnswerCheck(table: readonly RouteDef[] = routes) {
  const match = createMatcher(table);
  const ajv = createAjv();
  const compiled = new Map<RouteDef, ValidateFunction>();
  const validatorOf = (route: RouteDef, schema: object): ValidateFunction => {
    let v = compiled.get(route);
    if (!v) compiled.set(route, (v = ajv.compile(schema)));
    return v;
  };
  return function checkAnswer(answer: Answer): void {
    if (answer.status < 200 || answer.status > 299) return;
    const pathname = new URL(answer.url, 'http://answer.invalid').pathname;
    if (!pathname.startsWith(`${API_PREFIX}/`)) return;
    const found = findRoute(match, answer.method.toUpperCase(), pathname);
    if (!found.route) return;
    const route = found.route;
    const what = `${answer.method.toUpperCase()} ${pathname} (route ${route.method} ${API_PREFIX}${route.path})`;
    const fail = (why: string): never => {
      const body = JSON.stringify(answer.body) ?? String(answer.body);
      throw new Error(
        `answer held to its schema: ${what} ${why}; body: ${body.length > 2000 ? `${body.slice(0, 2000)}…` : body}`,
      );
    };
    // An upsert (externalRef, sync, invite, wiki slug) answers 200 when it matched what was there.
    const declared = route.response.status;
    if (answer.status !== declared && !(route.response.upsert && answer.status === 200))
      fail(`answered ${answer.status}, but the route declares ${declared}`);
    const json = /^application\/(?:[\w.+-]+\+)?json\b/i.test(answer.contentType ?? '');
    const schema = route.response.schema;
    if (!schema) {
      if (json && answer.body !== undefined) fail('answered a JSON body, but the route declares no response schema');
      return;
    }
    if (!json) fail(`answered ${answer.contentType ?? 'no content type'}, not the JSON its response schema describes`);
    const validate = validatorOf(route, schema);
    if (!validate(answer.body))
      fail(
        `answered ${answer.status} with a body its response schema rejects: ${toProblems(validate.errors)
          .map((p) => `${p.path || '/'} ${p.message}`)
          .join('; ')} (ajv: ${ajv.errorsText(validate.errors)})`,
      );
  };
}
