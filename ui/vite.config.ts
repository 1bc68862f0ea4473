import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `global` is Node's name; @perses-dev/core calls global.fetch (design/UI.md gotcha 1).
export default defineConfig({
  plugins: [react()],
  define: { global: 'globalThis' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 5000,
    reportCompressedSize: false,
  },
  server: {
    // `npm run dev -w @dashplane/ui` against a server on 8080
    proxy: { '/api': 'http://127.0.0.1:8080', '/proxy': 'http://127.0.0.1:8080' },
  },
});
