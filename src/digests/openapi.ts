/**
 * The digests' dev route in the product's OpenAPI document
 * (`GET /openapi.json`, assembled by src/app/openapi.ts): its text beside the
 * route (index.ts, `digestDevRoutes`), with the schema it answers.
 */
import * as z from 'zod';
import { type FeatureDocs, type Fits, asIfAt, error, jsonOf, ok } from '../contract/product-openapi';
import { DEV_PLAN_PATH } from './index';
import type { PlanResult } from './planner';

const DevPlan = z.object({ at: z.iso.datetime(), planned: z.number().int().min(0), groups: z.number().int().min(0) });

const _answersFit: Fits<Pick<PlanResult, 'planned' | 'groups'>, Omit<z.output<typeof DevPlan>, 'at'>> = true;
void _answersFit;

export const digestDocs: FeatureDocs = {
  schemas: { DevPlan },
  routes: {
    [`${DEV_PLAN_PATH}`]: {
      POST: {
        operationId: 'devPlanDigests',
        tag: 'Dev',
        summary: 'Plan the weekly digests as if the cron fired at `at`',
        security: 'none',
        ...asIfAt,
        responses: { '200': ok('What was planned.', jsonOf('DevPlan')), '400': error('`invalid_parameter` (`at`)') },
      },
    },
  },
};
