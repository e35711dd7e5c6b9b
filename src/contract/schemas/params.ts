/**
 * The zod schemas of the parameters declared in src/contract/params.ts: what
 * the OpenAPI documents, the MCP tools and the typed client's types read.
 * Requests are parsed by `readParams` there, which says the same messages
 * (test/params.unit.test.ts holds the two together).
 */
import * as z from 'zod';
import { MARKET, type Param, PARAM_MESSAGES, type ParamRule, type Params, type Presence, WHOLE_NUMBER } from '../params';

/** A parameter's schema, by its presence: what the object schemas of the contract hold. */
export type ParamSchema<P> =
  P extends Param<infer O, infer I, infer Pr>
    ? Pr extends 'optional'
      ? z.ZodOptional<z.ZodType<O, I>>
      : Pr extends 'default'
        ? z.ZodDefault<z.ZodType<O, I>>
        : z.ZodType<O, I>
    : never;

/** The schemas of a set of parameters, by name. */
export type ParamShape<S extends Params> = { -readonly [K in keyof S]: ParamSchema<S[K]> };

function ruleSchema(rule: ParamRule): z.ZodType {
  switch (rule.kind) {
    case 'int':
      return z
        .string()
        .regex(WHOLE_NUMBER, { error: PARAM_MESSAGES.wholeNumber })
        .transform(Number)
        .pipe(
          z
            .number()
            .int()
            .min(rule.min, { error: PARAM_MESSAGES.atLeast(rule.min) })
            .max(rule.max, { error: PARAM_MESSAGES.atMost(rule.max) }),
        );
    case 'date':
      // zod's date format checks the calendar too (leap years included), as `isCalendarDate` does.
      return z.iso.date({ error: PARAM_MESSAGES.date });
    case 'enum':
      return z.enum(rule.values, { error: PARAM_MESSAGES.oneOf(rule.values) });
    case 'text':
      return z
        .string()
        .min(1, { error: PARAM_MESSAGES.notEmpty })
        .max(rule.max, { error: PARAM_MESSAGES.longest(rule.max) });
    case 'market':
      return z
        .string()
        .regex(MARKET, { error: PARAM_MESSAGES.market })
        .transform((s) => s.toLowerCase());
  }
}

/** One schema per declaration: a parameter compared by identity (the MCP tools' shared ones) is the same schema each time. */
const built = new WeakMap<Param, z.ZodType>();

export function paramSchema<P extends Param>(param: P): ParamSchema<P> {
  let schema = built.get(param);
  if (!schema) {
    const described = ruleSchema(param.rule).meta({ description: param.description });
    schema = withPresence(described, param.presence, param.fallback);
    built.set(param, schema);
  }
  return schema as ParamSchema<P>;
}

function withPresence(schema: z.ZodType, presence: Presence, fallback: unknown): z.ZodType {
  if (presence === 'optional') return schema.optional();
  if (presence === 'default') return schema.default(fallback as never);
  return schema;
}

/** The strict object schema of a set of parameters: an undeclared one is refused. */
export function paramsObject<S extends Params>(params: S): z.ZodObject<ParamShape<S>, z.core.$strict> {
  return z.strictObject(Object.fromEntries(Object.entries(params).map(([name, param]) => [name, paramSchema(param)])) as ParamShape<S>);
}
