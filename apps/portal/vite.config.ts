import { defineConfig } from 'vite';

// The integrator portal (docs/portal.md): served by the gateway under /portal, built by
// scripts/build.mjs into services/gateway/dist/portal. No plugin: esbuild compiles the TSX.
export default defineConfig({
  base: '/portal/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: '../../services/gateway/dist/portal',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    sourcemap: false,
    rollupOptions: {
      // TanStack Query marks its modules "use client" (for server components): meaningless in this bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  logLevel: 'warn',
});
