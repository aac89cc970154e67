import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// A bound on how long `findBy…`/`waitFor` wait, not a measurement: the whole page renders in
// jsdom, which on a loaded two-core machine (CI beside other work) takes over the default 1 s.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
});
