/** The one redaction of connection-string credentials (banner, logs, startup and config errors). */
import { describe, expect, it } from 'vitest';
import { redactCredentials } from '../../src/redact.js';

describe('redactCredentials', () => {
  it.each([
    ['mongodb://user:pw@host/db?x=1', 'mongodb://user:***@host/db?x=1'],
    ['mongodb+srv://user:pw@cluster.example.com/', 'mongodb+srv://user:***@cluster.example.com/'],
    ['mongodb://user:pw@', 'mongodb://user:***@'],
    ['got "mongodb://u:p@ss/w@h1,h2:27017/db"', 'got "mongodb://u:***@h1,h2:27017/db"'],
    ['{"a":"mongodb://u:p@h","b":"x@y"}', '{"a":"mongodb://u:***@h","b":"x@y"}'],
    ['postgres://a:b@c then mongodb://x:y@z', 'postgres://a:***@c then mongodb://x:***@z'],
  ])('%s', (text, redacted) => {
    expect(redactCredentials(text)).toBe(redacted);
  });

  it.each([
    'mongodb://user@host/db',
    'mongodb://h1:27017,h2:27017/?replicaSet=rs0',
    'no uri here',
  ])('leaves %s as it is', (text) => {
    expect(redactCredentials(text)).toBe(text);
  });
});
