/**
 * The MCP tools, generated from the contract table: one per operation (a new
 * operation in src/contract/operations.ts is a new tool, with no edit here),
 * plus `weekly_report` (weekly.ts). A tool's name is its operation id in
 * snake_case (`getAiCrawlers` -> `get_ai_crawlers`); its description is the
 * operation's summary, description, window and plan needs, as the OpenAPI
 * document says them (`operationNotes`); its input schema is the operation's
 * path and query parameters (`brand_id` and `market` included) as JSON
 * Schema, the same schema the OpenAPI document gives each parameter
 * (`parameterSchema`): numbers are integers with their bounds, not the
 * decimal text they are on the wire.
 */
import { fromJsonSchema, type StandardSchemaWithJSON, type ToolAnnotations } from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import type * as z from 'zod';
import { type JsonObject, operationNotes, parameterSchema } from '../contract/openapi';
import { type OperationId, operationList } from '../contract/operations';

/** Every tool only reads, and the same call answers the same until the data changes; nothing outside the key's account is reached. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** The JSON Schema clients see in `tools/list`. */
  inputJson: JsonObject;
  /** The same schema as the SDK validates arguments with (`@cfworker/json-schema`: ajv generates code, which workerd forbids). */
  input: StandardSchemaWithJSON<Record<string, unknown>>;
}

export interface OperationTool extends ToolDefinition {
  operation: OperationId;
}

/** `getAiCrawlers` -> `get_ai_crawlers`. */
export const toolName = (operationId: string): string => operationId.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

const validator = new CfWorkerJsonSchemaValidator();

/**
 * The JSON Schema of an object of parameters: each parameter's own schema
 * (with its description), required when the parameter may not be absent, and
 * no other property.
 */
export function inputSchemaOf(...shapes: Record<string, z.ZodType>[]): JsonObject {
  const properties: Record<string, JsonObject> = {};
  const required: string[] = [];
  for (const shape of shapes) {
    for (const [name, field] of Object.entries(shape)) {
      const { schema, description } = parameterSchema(field);
      properties[name] = description === undefined ? schema : { ...schema, description };
      if (!field.safeParse(undefined).success) required.push(name);
    }
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** A tool's definition from its JSON Schema. */
export function toolDefinition(o: { name: string; title: string; description: string; inputJson: JsonObject }): ToolDefinition {
  return { ...o, input: fromJsonSchema<Record<string, unknown>>(o.inputJson, validator) };
}

let operationTools: readonly OperationTool[] | undefined;

/** One tool per operation of the contract table, built once per isolate. */
export function toolsOfOperations(): readonly OperationTool[] {
  operationTools ??= operationList.map((op) => ({
    operation: op.id,
    ...toolDefinition({
      name: toolName(op.id),
      title: op.summary,
      description: [`${op.summary}.`, op.description, ...operationNotes(op)].filter(Boolean).join('\n\n'),
      inputJson: inputSchemaOf(op.pathParams.shape, op.query.shape),
    }),
  }));
  return operationTools;
}
