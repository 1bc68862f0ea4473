import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The chart libraries get a chunk of their own, named so that tests can tell when a page loads it. */
function manualChunks(id: string): string | undefined {
  if (/[\\/]node_modules[\\/](echarts|zrender)[\\/]/.test(id)) return 'echarts';
  return undefined;
}

// `global` is Node's name; @perses-dev/core calls global.fetch (design/UI.md gotcha 1).
export default defineConfig({
  plugins: [react()],
  define: { global: 'globalThis' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 5000,
    reportCompressedSize: false,
    rollupOptions: { output: { manualChunks } },
  },
  server: {
    // `npm run dev -w @dashplane/ui` against a server on 8080
    proxy: { '/api': 'http://127.0.0.1:8080', '/proxy': 'http://127.0.0.1:8080' },
  },
});
