/** Seed 000's accordion labels for the agent's tools; an unknown tool shows its name. */
export const TOOL_LABELS: Record<string, string> = {
  query_database: 'Analyzed data',
  get_dataset_details: 'Checked dataset details',
  get_sample_data: 'Viewed sample data',
  run_python: 'Ran Python analysis',
  list_datasets: 'Listed datasets',
};

export function getToolLabel(name: string): string {
  return Object.hasOwn(TOOL_LABELS, name) ? TOOL_LABELS[name] : name;
}

/** "420 ms", "2.5 s", "42 s", "2 min 5 s". */
export function formatDuration(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return null;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}
