/**
 * The Worker: the Read API v1 at /api/v1. Until the edge proxy lands, the
 * embedded reference origin answers there directly.
 */
import { API_BASE } from './contract/operations';
import { ApiError, errorResponse } from './contract/errors';
import { handleOrigin, requestIdOf } from './origin/handler';
import { ensureDemoData } from './origin/demo/auto';

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (env.DEMO_DATA === 'on-empty') await ensureDemoData(env.DB);
    if (url.pathname === API_BASE || url.pathname.startsWith(`${API_BASE}/`)) {
      return handleOrigin(request, { db: env.DB, waitUntil: (work) => ctx.waitUntil(work) });
    }
    const response = errorResponse(new ApiError('not_found', 'Nothing here. The API is at /api/v1 (see /api/v1/openapi.json).'));
    response.headers.set('x-request-id', requestIdOf(request));
    return response;
  },
} satisfies ExportedHandler<Env>;
