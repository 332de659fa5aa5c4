import { takeContractViolations } from './contract';

/** e2e tier (setupFilesAfterEnv): a test whose app answered off the document fails. */
function failOnViolations(): void {
  const found = takeContractViolations();
  if (found.length > 0)
    throw new Error(
      `The service answered outside openapi/openapi.json (fix the document in src/openapi/ or ` +
        `the service, then run npm run openapi:export):\n${found.join('\n')}`,
    );
}

afterEach(failOnViolations);
afterAll(failOnViolations);
