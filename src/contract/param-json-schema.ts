/**
 * A declared parameter (params.ts) as JSON Schema: what the OpenAPI
 * documents (`declaredParameters`) and the MCP tools' input schemas
 * (`inputSchemaOf`) say of it, written from its rule, not through zod.
 * Apart from params.ts so that a fresh isolate does not evaluate it (only
 * lazily loaded parts import it). src/contract/params.test.ts holds what it
 * says to what `readParams` takes.
 */
import { MARKET, type Param } from './params';

/**
 * The calendar days written `YYYY-MM-DD` as a JSON Schema `pattern` (leap
 * years included): the text `isCalendarDate` accepts, for clients that check
 * before sending. It is zod's `z.iso.date()` pattern, which the OpenAPI
 * documents gave before they were written from the declarations.
 */
export const CALENDAR_DATE_PATTERN =
  '^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))$';

/** A JSON Schema, as the OpenAPI documents and the MCP tools carry one. */
export type JsonSchema = Record<string, unknown>;

/**
 * What a parameter accepts as JSON Schema, written from its declaration: the
 * value as the origin reads it (a number for a whole number, with its bounds;
 * the text a market or a date is written as), and its default. The
 * description is left to the caller (an OpenAPI parameter carries it beside
 * its schema).
 */
export function paramJsonSchema(param: Param): JsonSchema {
  const { rule } = param;
  const schema: JsonSchema = param.presence === 'default' ? { default: param.fallback } : {};
  switch (rule.kind) {
    case 'int':
      return Object.assign(schema, { type: 'integer', minimum: rule.min, maximum: rule.max });
    case 'date':
      return Object.assign(schema, { type: 'string', format: 'date', pattern: CALENDAR_DATE_PATTERN });
    case 'enum':
      return Object.assign(schema, { type: 'string', enum: [...rule.values] });
    case 'text':
      return Object.assign(schema, { type: 'string', minLength: 1, maxLength: rule.max });
    case 'market':
      return Object.assign(schema, { type: 'string', pattern: MARKET.source });
  }
}
