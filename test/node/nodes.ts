/**
 * The Nodes a test runs a built bundle on: the one running the tests, and the deployments' Node 24 when
 * its binary is installed (scripts/node24.mjs) and is not that one already.
 */
import { join } from 'node:path';
import { ROOT } from './built.js';

const { node24Binary } = (await import(join(ROOT, 'scripts/node24.mjs'))) as { node24Binary(): string | undefined };

export interface TestNode {
  name: string;
  /** The binary; undefined when Node 24 is not installed on this machine (its tests are skipped). */
  path: string | undefined;
  major: number;
}

export const THIS_NODE: TestNode = { name: `Node ${process.versions.node}`, path: process.execPath, major: Number(process.versions.node.split('.')[0]) };

/** Node 24, unless the tests already run on it. */
export const OTHER_NODES: TestNode[] = THIS_NODE.major === 24 ? [] : [{ name: 'Node 24', path: node24Binary(), major: 24 }];
