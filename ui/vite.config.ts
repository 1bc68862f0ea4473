import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The chart libraries get a chunk of their own, named so that tests can tell when a page loads it. */
function manualChunks(id: string): string | undefined {
  if (/[\\/]node_modules[\\/](echarts|zrender)[\\/]/.test(id)) return 'echarts';
  return undefined;
}

/**
 * Rollup warnings about dependencies' code that say nothing about ours: mathjs (a Perses
 * dependency) places `#__PURE__` annotations where Rollup cannot use them, and Rollup says so for
 * each. Only these codes, and only inside node_modules, are dropped; every other warning is shown.
 */
const NOISE = new Set(['INVALID_ANNOTATION', 'MODULE_LEVEL_DIRECTIVE']);

// `global` is Node's name; @perses-dev/core calls global.fetch, which browsers only have as globalThis.fetch.
export default defineConfig({
  plugins: [react()],
  define: { global: 'globalThis' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 5000,
    reportCompressedSize: false,
    rollupOptions: {
      output: { manualChunks },
      onwarn(warning, warn) {
        const where = warning.id ?? warning.loc?.file ?? '';
        if (warning.code && NOISE.has(warning.code) && where.includes('node_modules')) return;
        warn(warning);
      },
    },
  },
  server: {
    // `npm run dev -w @dashplane/ui` against a server on 8080
    proxy: { '/api': 'http://127.0.0.1:8080', '/proxy': 'http://127.0.0.1:8080' },
  },
});
