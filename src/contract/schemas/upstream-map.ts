/** The upstream map's schemas (src/contract/upstream-map.ts): what `PUT /admin/upstream/map` takes and what is stored. */
import * as z from 'zod';
import { once } from '../../lib/lazy';
import { type AnyOperation, type OperationId, OPERATION_IDS, operations } from '../operations';
import { contractPaths, CONVERSIONS, type Conversion } from '../upstream-map';
import { response } from './responses';

/** The map's schemas, built at their first use (an isolate answering `/api/v1` from the cache reads no map). */
export const upstreamMapSchemas = once(() => {
  const Conversion = z.enum(Object.keys(CONVERSIONS) as [Conversion, ...Conversion[]]);

  const UpstreamPath = z
    .string()
    .min(1)
    .max(200)
    .regex(/^(\.|[^.\s]+(\.[^.\s]+)*)$/, 'a dotted field path, or "." for the parent itself');

  const OperationMap = z.strictObject({
    envelope: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^.\s]+(\.[^.\s]+)*$/, 'a dotted field path')
      .optional(),
    fields: z.record(z.string(), UpstreamPath).default({}),
    convert: z.record(z.string(), Conversion).default({}),
    values: z.record(z.string(), z.record(z.string(), z.string().min(1).max(80))).default({}),
    keyed: z.record(z.string(), z.union([z.string().min(1).max(80), z.strictObject({ extra: z.string().min(1).max(80) })])).optional(),
    columns: z
      .record(
        z.string(),
        z.strictObject({
          names: UpstreamPath,
          rows: UpstreamPath,
          name: z.string().min(1).max(80).optional(),
        }),
      )
      .optional(),
    pages: z
      .strictObject({
        list: z.string().min(1).max(200),
        next: UpstreamPath,
        params: z
          .array(z.string().regex(/^[A-Za-z0-9_.\-[\]]{1,60}$/, 'a query parameter name'))
          .min(1)
          .max(4),
      })
      .optional(),
  });

  const OperationMaps = z.partialRecord(z.enum(OPERATION_IDS as [OperationId, ...OperationId[]]), OperationMap);

  /** What a person or discovery sends: the operations' maps; `version` must be the version it replaces (it may be left out only while none is stored). */
  const UpstreamMapInput = z.strictObject({ version: z.number().int().min(0).optional(), operations: OperationMaps }).superRefine((input, ctx) => {
    for (const [id, map] of Object.entries(input.operations) as [OperationId, OperationMap][]) {
      const known = contractPaths({ response }, id);
      for (const part of ['fields', 'convert', 'values'] as const)
        for (const path of Object.keys(map[part]))
          if (!known.has(path)) ctx.addIssue({ code: 'custom', path: ['operations', id, part, path], message: `${id} has no field \`${path}\` in the contract.` });
      for (const [path, field] of Object.entries(map.keyed ?? {})) {
        if (typeof field === 'string' ? !known.has(`${path}[]`) || !known.has(`${path}[].${field}`) : !known.has(`${path}[]`))
          ctx.addIssue({
            code: 'custom',
            path: ['operations', id, 'keyed', path],
            message: typeof field === 'string' ? `${id} has no list \`${path}\` whose items have a field \`${field}\` in the contract.` : `${id} has no list \`${path}\` in the contract.`,
          });
        // A key kept as an extra never takes a contract field's name: that field it fills (`"name"`), or it is another.
        else if (typeof field !== 'string' && known.has(`${path}[].${field.extra}`))
          ctx.addIssue({
            code: 'custom',
            path: ['operations', id, 'keyed', path],
            message: `\`${field.extra}\` is a field of \`${path}\`'s items: write \`"${field.extra}"\` to fill it with the key.`,
          });
      }
      for (const path of Object.keys(map.columns ?? {}))
        if (!known.has(`${path}[]`)) ctx.addIssue({ code: 'custom', path: ['operations', id, 'columns', path], message: `${id} has no list \`${path}\` in the contract.` });
      // Pages are of a list of the body itself, never of a list inside another list's items.
      const paged = map.pages?.list;
      if (paged !== undefined && (paged.includes('[]') || !known.has(`${paged}[]`)))
        ctx.addIssue({ code: 'custom', path: ['operations', id, 'pages', 'list'], message: `${id} has no list \`${paged}\` outside another list in the contract.` });
      // A parameter of the operation's own is never a page's: the pages would change what is asked.
      const own = (operations[id] as unknown as AnyOperation).params;
      for (const name of map.pages?.params ?? [])
        if (Object.hasOwn(own.query, name) || Object.hasOwn(own.path, name))
          ctx.addIssue({ code: 'custom', path: ['operations', id, 'pages', 'params'], message: `\`${name}\` is a parameter of ${id} in the contract, not one its pages add.` });
    }
  });

  /** The stored document: the Worker numbers each version. */
  const UpstreamMap = z.strictObject({ version: z.number().int().min(1), updated_at: z.iso.datetime(), operations: OperationMaps });

  return { OperationMap, UpstreamMapInput, UpstreamMap };
});
type Schemas = ReturnType<typeof upstreamMapSchemas>;
export type OperationMap = z.infer<Schemas['OperationMap']>;
export type UpstreamMapInput = z.infer<Schemas['UpstreamMapInput']>;
export type UpstreamMap = z.infer<Schemas['UpstreamMap']>;
