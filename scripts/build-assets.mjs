#!/usr/bin/env node
// The Worker's static assets (wrangler.toml `[assets]`, dist/assets, git-ignored), built before `wrangler dev` and
// `wrangler deploy` (wrangler.toml's `[build]`, so the dry run of `npm run check -- size` and `npm run deploy` too), and first by
// `npm test` and `npm test -- browser`: the MCP App's view (build-mcp-app.mjs) and the two OpenAPI documents
// (build-openapi.mjs). Each exits non-zero on a failure of its own.
await import('./build-mcp-app.mjs');
await import('./build-openapi.mjs');
