import { useId, useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';
import { useAsyncAction } from './useAsyncAction';

export interface RenameDialogProps {
  open: boolean;
  title?: string;
  /** The current name, filled in (and selected) when the dialog opens. */
  initialName: string;
  maxLength?: number;
  /** May return a promise: the dialog waits and shows its error, staying open. */
  onSave: (name: string) => void | Promise<void>;
  onCancel: () => void;
}

/** A name field with Save (also Enter) and Cancel (also Escape). */
export default function RenameDialog(props: RenameDialogProps) {
  const { open, title = 'Rename chat', onCancel } = props;
  const titleId = useId();
  return (
    <Dialog open={open} onClose={onCancel} aria-labelledby={titleId} maxWidth="xs" fullWidth>
      <DialogTitle id={titleId}>{title}</DialogTitle>
      {/* A closed Dialog unmounts its children: the form starts afresh on every open. */}
      <RenameForm {...props} />
    </Dialog>
  );
}

function RenameForm({ initialName, maxLength = 200, onSave, onCancel }: RenameDialogProps) {
  const [name, setName] = useState(initialName);
  const { busy, error, run } = useAsyncAction('Could not rename.');
  const trimmed = name.trim();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!trimmed || busy) return;
    if (trimmed === initialName) {
      onCancel();
      return;
    }
    await run(() => onSave(trimmed));
  };

  return (
    <form onSubmit={submit} noValidate>
      <DialogContent sx={{ pt: 1 }}>
        <TextField
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          autoFocus
          fullWidth
          margin="dense"
          error={!trimmed}
          helperText={!trimmed ? 'A name is required.' : undefined}
          slotProps={{ htmlInput: { maxLength, onFocus: (e: { target: HTMLInputElement }) => e.target.select() } }}
        />
        {error && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {error}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button type="submit" variant="contained" disabled={busy || !trimmed}>
          Save
        </Button>
      </DialogActions>
    </form>
  );
}
