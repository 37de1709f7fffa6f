/**
 * `npm ci` on the Node version the README promises: no package refuses that version, and every
 * install script is either allowed or refused on purpose (npm 11 skips, and warns about, those it
 * was not told about).
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface Locked {
  engines?: { node?: string } | string[];
  optional?: boolean;
  hasInstallScript?: boolean;
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const locked = Object.entries(
  (JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, Locked> }).packages,
)
  .filter(([path]) => path !== '')
  .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 13), path, ...entry }));

describe('npm ci on the promised Node version', () => {
  const floor = semver.minVersion(manifest.engines.node)!.version;

  it("installs no package that refuses the floor of package.json's engines", () => {
    // An optional package that does not fit is skipped without a word: only the others count.
    const refusing = locked
      .filter((p) => !p.optional && !Array.isArray(p.engines) && p.engines?.node)
      .filter((p) => !semver.satisfies(floor, (p.engines as { node: string }).node))
      .map((p) => `${p.path} wants node ${(p.engines as { node: string }).node}`);
    expect(refusing, `on Node ${floor}`).toEqual([]);
  });

  it('decides every install script in allowScripts', () => {
    const undecided = locked
      .filter((p) => p.hasInstallScript && manifest.allowScripts?.[p.name] === undefined)
      .map((p) => p.name);
    expect(undecided).toEqual([]);
  });

  it('states the same floor in the README', () => {
    expect(readFileSync('README.md', 'utf8')).toContain(`Node.js ${floor.replace(/\.0$/, '')} or newer`);
  });
});
