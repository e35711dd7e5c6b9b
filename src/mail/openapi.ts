/**
 * The dev outbox's pages in the product's OpenAPI document
 * (`GET /openapi.json`, assembled by src/app/openapi.ts): their text beside
 * them (outbox.ts).
 */
import { type FeatureDocs, error, HTML, ok, pageAnswer, TEXT } from '../contract/product-openapi';
import { OUTBOX_BASE } from './outbox';

export const outboxDocs: FeatureDocs = {
  routes: {
    [`${OUTBOX_BASE}`]: {
      GET: {
        operationId: 'devListOutbox',
        tag: 'Dev',
        summary: 'List the mail the dev outbox kept',
        description: 'Newest first.',
        security: 'none',
        parameters: [
          { name: 'to', in: 'query', required: false, description: 'Only mail to this address.', schema: { type: 'string' } },
          { name: 'limit', in: 'query', required: false, description: 'At most this many (1 to 500, default 50).', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
          { name: 'format', in: 'query', required: false, description: '`json` for JSON; a page otherwise.', schema: { type: 'string', enum: ['json'] } },
        ],
        responses: {
          '200': ok('The list.', { ...HTML, 'application/json': { schema: { type: 'object', properties: { messages: { type: 'array', items: { type: 'object' } } }, required: ['messages'] } } }),
        },
      },
    },
    [`${OUTBOX_BASE}/{id}`]: {
      GET: {
        operationId: 'devGetOutboxMessage',
        tag: 'Dev',
        summary: 'Get one message of the dev outbox',
        security: 'none',
        parameters: [
          { name: 'id', in: 'path', required: true, description: "The message's id.", schema: { type: 'string', pattern: '^\\d{1,12}$' } },
          {
            name: 'format',
            in: 'query',
            required: false,
            description: '`text` for the plain-text part, `json` for the whole message; the HTML part otherwise.',
            schema: { type: 'string', enum: ['text', 'json'] },
          },
        ],
        responses: {
          '200': ok('The message.', { ...HTML, ...TEXT, 'application/json': { schema: { type: 'object', properties: { message: { type: 'object' } }, required: ['message'] } } }),
          '400': pageAnswer('`id` is not valid percent-encoding.'),
          '404': error('`not_found`'),
        },
      },
    },
  },
};
