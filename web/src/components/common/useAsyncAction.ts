import { useState } from 'react';

/**
 * A dialog's action that may return a promise: `busy` while it runs, and the sentence of
 * its error (or `fallback`) when it throws, so the dialog can stay open and say why.
 */
export function useAsyncAction(fallback: string) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = async (action: () => void | Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err instanceof Error && err.message ? err.message : fallback);
    } finally {
      setBusy(false);
    }
  };

  return { busy, error, run };
}
