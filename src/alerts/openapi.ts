/**
 * The alerts' dev route in the product's OpenAPI document
 * (`GET /openapi.json`, assembled by src/app/openapi.ts): its text beside the
 * route (index.ts, `alertDevRoutes`), with the schema it answers.
 */
import * as z from 'zod';
import { type FeatureDocs, type Fits, asIfAt, error, jsonOf, ok } from '../contract/product-openapi';
import type { EvaluationResult } from './evaluate';
import { DEV_ALERTS_PATH } from './index';

const count = z.number().int().min(0);
const DevAlerts = z.object({
  at: z.iso.datetime(),
  evaluated: count,
  reads: count,
  events: count,
  deliveries: count,
  held: count,
  enqueued: count,
  failed: count,
  implausible: count.describe('Groups whose figures broke a rule the spec implies: nothing sent, each subscription has a skipped record saying why.'),
  paused: count,
});

const _answersFit: Fits<EvaluationResult, Omit<z.output<typeof DevAlerts>, 'at'>> = true;
void _answersFit;

export const alertDocs: FeatureDocs = {
  schemas: { DevAlerts },
  routes: {
    [`${DEV_ALERTS_PATH}`]: {
      POST: {
        operationId: 'devRunAlerts',
        tag: 'Dev',
        summary: 'Evaluate change alerts as if the cron fired at `at`',
        description: 'Evaluates the alert groups due at `at` (once a day from 07:00 in their timezone) and enqueues the deliveries that are due.',
        security: 'none',
        ...asIfAt,
        responses: { '200': ok('What was evaluated and enqueued.', jsonOf('DevAlerts')), '400': error('`invalid_parameter` (`at`)') },
      },
    },
  },
};
