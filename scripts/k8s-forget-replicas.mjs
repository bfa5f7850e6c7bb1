#!/usr/bin/env node
// Upgrading from manifests that set `spec.replicas` (before the autoscalers owned the count) with a
// client-side `kubectl apply`: kubectl deletes every field that its last-applied-configuration
// annotation has and the new manifest lacks, so the first apply of a Deployment without `replicas`
// sets it to the default, 1, below every PodDisruptionBudget, until the autoscaler scales back up.
//
// This removes `spec.replicas` from that annotation of every Deployment of the cluster (label
// app.kubernetes.io/part-of=feedback-api) and changes nothing else: the live count stays, the next
// `kubectl apply` no longer deletes it, and fields a new version dropped are still deleted as usual.
// Idempotent: a Deployment whose annotation has no replicas is left alone. docs/deploy.md, "Upgrading
// from manifests with replicas"; tested against kubectl by test/k8s-upgrade.test.ts.
//
//   node scripts/k8s-forget-replicas.mjs --namespace feedback-api [-- <kubectl flags: --context ...>]
import { execFileSync } from 'node:child_process';

const ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
const SELECTOR = 'app.kubernetes.io/part-of=feedback-api';

function usage(message) {
  process.stderr.write(`${message}\nusage: node scripts/k8s-forget-replicas.mjs --namespace NS [-- kubectl flags]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
const split = args.indexOf('--');
const own = split === -1 ? args : args.slice(0, split);
const kubectlFlags = split === -1 ? [] : args.slice(split + 1);
const nsAt = own.indexOf('--namespace');
const namespace = nsAt === -1 ? undefined : own[nsAt + 1];
if (!namespace) usage('--namespace is required');

const kubectl = (...a) => execFileSync('kubectl', [...kubectlFlags, '--namespace', namespace, ...a], { encoding: 'utf8' });

const list = JSON.parse(kubectl('get', 'deployments', '--selector', SELECTOR, '--output', 'json'));
const results = [];
for (const deployment of list.items) {
  const name = deployment.metadata.name;
  const applied = deployment.metadata.annotations?.[ANNOTATION];
  if (!applied) {
    results.push({ name, action: 'none: not applied client-side (no last-applied annotation)' });
    continue;
  }
  const config = JSON.parse(applied);
  if (config.spec?.replicas === undefined) {
    results.push({ name, action: 'none: the annotation has no replicas' });
    continue;
  }
  delete config.spec.replicas;
  kubectl('annotate', '--overwrite', `deployment/${name}`, `${ANNOTATION}=${JSON.stringify(config)}`);
  results.push({ name, action: 'forgot spec.replicas in the last-applied annotation', replicas: deployment.spec.replicas });
}
process.stdout.write(`${JSON.stringify({ namespace, deployments: results })}\n`);
