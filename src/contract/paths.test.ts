/**
 * The one walker of contract paths (src/contract/paths.ts), which the CSV
 * tables, the MCP tools' pages, the optional parts, the weekly report's parts
 * and the discovery all read fields with: dotted names, `[]` into an array's
 * items, in a body and in a response schema.
 */
import { describe, expect, it } from 'vitest';
import { type OperationId, operations } from './operations';
import { fieldOf, holdersOf, schemaAtPath, valueAtPath, valuesAtPath } from './paths';
import { defOf, unwrapSchema } from './schema-walk';
import { zodSide } from './zod-side';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

const topic = { name: 't1', rivals: [{ name: 'r1' }, { name: 'r2' }] };
const body = { competition: { daily: [{ day: 'a' }, { day: 'b' }] }, topics: [topic, { name: 't2' }, 'not an object'] };

describe('contract paths', () => {
  it('read a dotted path, and nothing through a missing field or a value that is not an object', () => {
    expect(valueAtPath(body, 'competition.daily')).toBe(body.competition.daily);
    expect(valueAtPath(body, 'competition.weekly')).toBeUndefined();
    expect(valueAtPath(body, 'competition.daily.length')).toBeUndefined();
    expect(valueAtPath(null, 'competition')).toBeUndefined();
  });

  it('follow `[]` into every item, undefined where an item lacks the field', () => {
    expect(valuesAtPath(body, 'topics[].rivals[].name')).toEqual(['r1', 'r2']);
    expect(valuesAtPath(body, 'topics[].rivals')).toEqual([topic.rivals, undefined, undefined]);
    expect(valuesAtPath(body, ['topics[]', 'name'])).toEqual(['t1', 't2', undefined]);
    expect(holdersOf(body, 'topics[].rivals')).toEqual([body.topics[0], body.topics[1]]);
    expect(fieldOf('topics[].rivals[]')).toBe('rivals');
  });

  it('find the schema at a path of a response schema, through wrappers, and name a path that is none', () => {
    for (const [id, op] of Object.entries(operations)) {
      if (!op.csv) continue;
      expect(defOf(unwrapSchema(schemaAtPath(zs.response(id as OperationId), op.csv.rows))).type, id).toBe('array');
      expect(defOf(unwrapSchema(schemaAtPath(zs.response(id as OperationId), `${op.csv.rows}[]`))).type, id).toBe('object');
    }
    expect(() => schemaAtPath(zs.response('listTopics'), 'topics[].nope')).toThrow('contract path topics[].nope: no field `nope`');
    expect(() => schemaAtPath(zs.response('getVisibility'), 'brand_id[]')).toThrow('is not an array');
  });
});
