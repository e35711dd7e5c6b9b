/**
 * The on-demand reports' entry point, called from the Worker (src/index.ts):
 * `GET /reports/weekly`, `POST /reports/links`, `GET /r/<token>` and
 * `POST /reports/weekly/send` (see ./routes.ts).
 */
import type { AppEnv } from '../config/env';
import { ApiError, errorResponse } from '../contract/errors';
import { type ReportDeps, reportDeps, useReportOverridesForTests } from './deps';
import { handleReportRoutes, isReportPath } from './routes';

export { isReportPath, useReportOverridesForTests };
export type { ReportDeps };

export async function reportFetch(request: Request, env: AppEnv, ctx: ExecutionContext): Promise<Response> {
  let deps: ReportDeps;
  try {
    deps = reportDeps(env, ctx);
  } catch (error) {
    // DigestConfigError (the mailer is shared): named for the operator, a plain 500 for the caller.
    console.error(JSON.stringify({ msg: 'reports misconfigured', error: String(error) }));
    return errorResponse(new ApiError('internal_error', 'The reports are misconfigured.'));
  }
  return handleReportRoutes(request, deps);
}
