/**
 * `canonicalMailbox` and `receiverOf` (src/lib/recipient.ts): the one rule by
 * which the caps on confirmation mail count a recipient (SECURITY.md, "Abuse").
 */
import { describe, expect, it } from 'vitest';
import { canonicalMailbox, receiverOf } from './recipient';

describe('canonicalMailbox: case folded, a +tag dropped from the local part, nothing else', () => {
  it.each([
    ['alice@example.com', 'alice@example.com'],
    ['Alice@Example.COM', 'alice@example.com'],
    ['alice+1@example.com', 'alice@example.com'],
    ['Alice+News@Example.com', 'alice@example.com'],
    ['alice+a+b@example.com', 'alice@example.com'],
    ['alice+@example.com', 'alice@example.com'],
    ['  alice+9@example.com ', 'alice@example.com'],
    // A `+` that starts the local part tags nothing: the local part would be empty.
    ['+alice@example.com', '+alice@example.com'],
    // Dots are kept, Gmail's too: they matter almost everywhere else, and one rule holds for every domain.
    ['a.lice@gmail.com', 'a.lice@gmail.com'],
    ['alice.smith+x@googlemail.com', 'alice.smith@googlemail.com'],
    // Other separators are not tags here.
    ['alice-1@example.com', 'alice-1@example.com'],
  ])('%s -> %s', (address, mailbox) => {
    expect(canonicalMailbox(address)).toBe(mailbox);
  });
});

describe('receiverOf: scheme, host and port, whatever the path or query', () => {
  it.each([
    ['https://receiver.example.com/hooks/brand', 'https://receiver.example.com'],
    ['https://receiver.example.com/hook?v=0', 'https://receiver.example.com'],
    ['https://receiver.example.com/other/path?v=5#x', 'https://receiver.example.com'],
    ['https://RECEIVER.Example.com/hook', 'https://receiver.example.com'],
    ['https://receiver.example.com:443/hook', 'https://receiver.example.com'],
    ['https://receiver.example.com./hook', 'https://receiver.example.com'],
    ['https://receiver.example.com:8443/hook', 'https://receiver.example.com:8443'],
    ['http://localhost:8787/hook', 'http://localhost:8787'],
    ['http://localhost:80/hook', 'http://localhost'],
    ['https://[2606:2800:220:1::1]/hook', 'https://[2606:2800:220:1::1]'],
    ['https://bücher.example/hook', 'https://xn--bcher-kva.example'],
  ])('%s -> %s', (url, receiver) => {
    expect(receiverOf(url)).toBe(receiver);
  });

  it('tells receivers apart by scheme, host and port', () => {
    expect(new Set(['https://a.example.com/x', 'https://b.example.com/x', 'http://a.example.com/x', 'https://a.example.com:8443/x'].map(receiverOf)).size).toBe(4);
  });
});
