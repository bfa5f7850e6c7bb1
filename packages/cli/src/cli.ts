#!/usr/bin/env node
// `cluster`: the platform's command line (README.md). `listen` and `trigger` (docs/webhooks.md in the
// platform's repository, "Local development").
import { parseArgs } from 'node:util';
import { apiSettings } from './api.ts';
import { listen } from './listen.ts';
import { trigger } from './trigger.ts';

const USAGE = `Usage: cluster <command> [options]

Commands:
  listen --forward-to <url> [--events <selectors>]
      Streams the organization's events (a temporary subscription, removed when you stop) and forwards
      each, signed exactly as a real delivery, to <url>; prints the signing secret and, per event,
      "→ <status> <event> <ms> ms <delivery id>". --events: comma-separated names or wildcards
      (entry.*,release.created); default every event. Ctrl-C stops.
  trigger <event> [--webhook <id>] [--payload <json>]
      Fires a test event of that type (the catalogue's example, fresh ids) to every running listener
      that selects it, or to the subscription <id>. --payload: a JSON object of payload fields that
      replace the example's ('{"type":"bug_report"}'); checked against the event's schema.

Options:
  --api-url <url>   the API (https://api.example.com); default FEEDBACK_API_URL
  --api-key <key>   an organization key with write:webhook; default FEEDBACK_API_KEY
  -h, --help        this help
`;

/** Runs the command line; resolves the exit code. */
async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'forward-to': { type: 'string' },
        events: { type: 'string' },
        webhook: { type: 'string' },
        payload: { type: 'string' },
        'api-url': { type: 'string' },
        'api-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  try {
    const api = apiSettings(values, env);
    if (command === 'listen') {
      if (!values['forward-to']) throw new Error('listen needs --forward-to <url> (e.g. http://localhost:3000/hooks)');
      const stop = new AbortController();
      // Ctrl-C closes the stream: the platform deletes the temporary subscription at once.
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      return await listen({ api, forwardTo: values['forward-to'], events: values.events, print, signal: stop.signal });
    }
    if (command === 'trigger') {
      if (rest.length !== 1) throw new Error('trigger needs one event name (e.g. cluster trigger entry.created)');
      return await trigger({ api, eventName: rest[0], webhook: values.webhook, payload: payloadOf(values.payload), print });
    }
    throw new Error(`unknown command ${JSON.stringify(command)}`);
  } catch (err) {
    process.stderr.write(`cluster: ${(err as Error).message}\n`);
    return 2;
  }
}

/** --payload: a JSON object, or undefined when not given. */
function payloadOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`--payload is not JSON: ${text}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('--payload must be a JSON object');
  return value as Record<string, unknown>;
}

process.exitCode = await main(process.argv.slice(2));
