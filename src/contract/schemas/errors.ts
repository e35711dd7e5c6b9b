/** The API's error body as a zod schema (src/contract/errors.ts): read where an upstream's error body is judged, and by the OpenAPI document. */
import * as z from 'zod';
import { once } from '../../lib/lazy';
import { API_ERROR_STATUS, type ApiErrorCode, type ErrorBody } from '../errors';

export const errorBodySchema = once(
  (): z.ZodType<ErrorBody> =>
    z
      .object({
        error: z.object({
          code: z.enum(Object.keys(API_ERROR_STATUS) as [ApiErrorCode, ...ApiErrorCode[]]),
          message: z.string(),
          param: z.string().optional().describe('The parameter at fault, only for invalid_parameter.'),
        }),
      })
      .meta({ id: 'Error' }),
);
