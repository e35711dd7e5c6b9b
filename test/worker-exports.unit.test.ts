// The main module exports only the handler and classes (anything else stops `wrangler dev`).
import { expect, it } from 'vitest';
import * as worker from '../src/index';

// workerd takes every export of the main module for an entrypoint; anything but the
// default handler and Durable Object classes stops `wrangler dev` and deploys from starting.
it('exports only the handler and classes from the main module', () => {
  const { default: handler, ...named } = worker;
  expect(Object.keys(handler).sort()).toEqual(expect.arrayContaining(['fetch']));
  for (const [name, value] of Object.entries(named)) expect(typeof value, name).toBe('function');
});
