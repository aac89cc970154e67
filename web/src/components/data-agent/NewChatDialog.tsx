import { useId, useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import ListItemText from '@mui/material/ListItemText';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { ownFirst } from '../../hooks/useOntologies';
import { useAsyncAction } from '../common/useAsyncAction';
import { sharedByLabel } from './accessLabels';
import type { AgentMode, OntologySummary, ProviderView } from '../../types';

export interface NewChatInput {
  ontologyId: string;
  name?: string;
  llmProvider?: string;
  agentMode?: AgentMode;
}

/** The answer modes a chat may be created in, as the dialog names them. */
export const AGENT_MODES: { id: AgentMode; label: string }[] = [
  { id: 'pipeline', label: 'Pipeline: plan, query, verify, explain' },
  { id: 'react', label: 'Agent loop: the model calls tools' },
  { id: 'offline', label: 'Built-in planner: no model calls' },
];

/** What the page says when no model is configured: questions still get answers. */
export const BUILT_IN_PLANNER_NOTE =
  'No model is configured: answers come from the built-in planner, which answers questions ' +
  'the semantic model makes unambiguous (totals, breakdowns, top N, date ranges). Configure a ' +
  'model for everything else.';

export interface NewChatDialogProps {
  open: boolean;
  ontologies: OntologySummary[];
  providers: ProviderView[];
  onClose: () => void;
  onCreate: (input: NewChatInput) => void | Promise<void>;
  /** A sentence to show when creating failed. */
  error?: string | null;
}

export function providerLabel(provider: Pick<ProviderView, 'name' | 'model'>): string {
  return provider.model ? `${provider.name} · ${provider.model}` : provider.name;
}

/**
 * Pick an ontology (ready ones only: one's own, then those shared with one, each with its
 * owner's email), an optional name and the model; Create.
 */
export default function NewChatDialog(props: NewChatDialogProps) {
  const { open, onClose } = props;
  const titleId = useId();
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby={titleId} maxWidth="sm" fullWidth>
      <DialogTitle id={titleId}>New chat</DialogTitle>
      {/* A closed Dialog unmounts its children: the form starts afresh on every open. */}
      <NewChatForm {...props} />
    </Dialog>
  );
}

function NewChatForm({ ontologies, providers, onClose, onCreate, error }: NewChatDialogProps) {
  const ready = ontologies.filter((o) => o.status === 'ready');
  const [chosenOntology, setChosenOntology] = useState('');
  const [name, setName] = useState('');
  const [provider, setProvider] = useState('');
  const [mode, setMode] = useState<AgentMode | ''>('');
  const { busy, error: failure, run } = useAsyncAction('Could not create the chat.');

  // Exactly one ready ontology: it is the choice (also when the list arrives after opening).
  const ontologyId = ready.some((o) => o.id === chosenOntology)
    ? chosenOntology
    : ready.length === 1
      ? ready[0].id
      : '';
  const defaultProvider = providers.find((p) => p.isDefault) ?? providers[0];
  const providerId = providers.some((p) => p.id === provider) ? provider : '';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!ontologyId || busy) return;
    const input: NewChatInput = { ontologyId };
    if (name.trim()) input.name = name.trim();
    if (providerId) input.llmProvider = providerId;
    if (mode) input.agentMode = mode;
    await run(() => onCreate(input));
  };

  const shownError = failure ?? error ?? null;
  const chosen = ready.find((o) => o.id === ontologyId);

  return (
    <form onSubmit={submit} noValidate>
      <DialogContent sx={{ pt: 1, display: 'flex', flexDirection: 'column', gap: 2 }}>
        {ready.length === 0 ? (
          <Alert severity="info">
            No ontology is ready yet. A chat asks questions about an ontology (a data model of your
            datasets): build one first, then start a chat here.
          </Alert>
        ) : (
          <TextField
            select
            label="Ontology"
            value={ontologyId}
            onChange={(e) => setChosenOntology(e.target.value)}
            required
            fullWidth
            margin="dense"
            helperText={
              chosen?.access === 'shared'
                ? `${sharedByLabel(chosen.ownerEmail)}: you can ask about it; its owner keeps it up to date`
                : 'The data model this conversation asks about'
            }
            slotProps={{ select: { renderValue: (id) => ready.find((o) => o.id === id)?.name ?? '' } }}
          >
            {ontologyOptions(ready)}
          </TextField>
        )}

        <TextField
          label="Chat name (optional)"
          value={name}
          onChange={(e) => setName(e.target.value)}
          fullWidth
          helperText="Named after your first question if left empty"
          slotProps={{ htmlInput: { maxLength: 200 } }}
        />

        {providers.length > 0 ? (
          <>
            <TextField
              select
              label="Model"
              value={providerId}
              onChange={(e) => setProvider(e.target.value)}
              fullWidth
              helperText="The model that answers in this chat"
              slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
            >
              <MenuItem value="">Default ({defaultProvider ? providerLabel(defaultProvider) : 'none'})</MenuItem>
              {providers.map((p) => (
                <MenuItem key={p.id} value={p.id}>
                  {providerLabel(p)}
                </MenuItem>
              ))}
            </TextField>
            <TextField
              select
              label="Answer mode"
              value={mode}
              onChange={(e) => setMode(e.target.value as AgentMode | '')}
              fullWidth
              helperText="How questions in this chat are answered"
              slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
            >
              <MenuItem value="">Default (the server's)</MenuItem>
              {AGENT_MODES.map((m) => (
                <MenuItem key={m.id} value={m.id}>
                  {m.label}
                </MenuItem>
              ))}
            </TextField>
          </>
        ) : (
          <Alert severity="info">{BUILT_IN_PLANNER_NOTE}</Alert>
        )}

        {shownError && <Alert severity="error">{shownError}</Alert>}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button type="submit" variant="contained" disabled={!ontologyId || busy}>
          Create
        </Button>
      </DialogActions>
    </form>
  );
}

/**
 * The picker's items: one's own ontologies by name, then those shared with one, each with its
 * owner. (No group headings: a Select makes every child an option, headings too.)
 */
function ontologyOptions(ready: OntologySummary[]) {
  return ownFirst(ready).map((o) => (
    <MenuItem key={o.id} value={o.id}>
      {o.access === 'shared' ? (
        <ListItemText primary={o.name} secondary={sharedByLabel(o.ownerEmail)} sx={{ my: 0 }} />
      ) : (
        o.name
      )}
    </MenuItem>
  ));
}
