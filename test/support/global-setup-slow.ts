import { ensureBuiltDist } from './build-dist';
import globalSetup from './global-setup';

/** The slow tier runs the compiled service (service-process.ts): dist/ is built once, up front. */
export default async function globalSetupSlow(): Promise<void> {
  ensureBuiltDist();
  await globalSetup();
}
