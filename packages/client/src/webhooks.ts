// Webhook verification, re-exported from @cluster/webhook-verify: the SDK's build copies that
// package into dist/vendor (it is a workspace package, not on the registry), so the tarball
// needs nothing but its registry dependencies. See docs/sdk.md, "Webhooks".
export * from '@cluster/webhook-verify';
