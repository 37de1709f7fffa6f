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
    // Options that carry secrets, in any case, anywhere in the query, with or without user info.
    [
      'mongodb://h/?tls=true&tlsCertificateKeyFilePassword=pw&w=1',
      'mongodb://h/?tls=true&tlsCertificateKeyFilePassword=***&w=1',
    ],
    [
      'mongodb://u:pw@h/?authMechanismProperties=AWS_SESSION_TOKEN:tok,SERVICE_NAME:x',
      'mongodb://u:***@h/?authMechanismProperties=***',
    ],
    [
      'mongodb://h/?proxyHost=p&proxyUsername=u&PROXYPASSWORD=pw',
      'mongodb://h/?proxyHost=p&proxyUsername=u&PROXYPASSWORD=***',
    ],
    ['mongodb://h/?sslPEMKeyPassword=pw;appName=a', 'mongodb://h/?sslPEMKeyPassword=***;appName=a'],
    ['got "mongodb://h/?proxyPassword=pw" then', 'got "mongodb://h/?proxyPassword=***" then'],
  ])('%s', (text, redacted) => {
    expect(redactCredentials(text)).toBe(redacted);
  });

  it.each([
    'mongodb://user@host/db',
    'mongodb://h1:27017,h2:27017/?replicaSet=rs0',
    'mongodb://h/?authSource=admin&authMechanism=SCRAM-SHA-256&appName=reports',
    'no uri here',
  ])('leaves %s as it is', (text) => {
    expect(redactCredentials(text)).toBe(text);
  });
});
