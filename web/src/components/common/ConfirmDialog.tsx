import { useId, type ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { useAsyncAction } from './useAsyncAction';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  /** What will happen; a sentence or more. */
  children?: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string;
  /** Colours the confirm button as a destructive action. */
  destructive?: boolean;
  /** May return a promise: the dialog waits (buttons disabled) and shows its error. */
  onConfirm: () => void | Promise<void>;
  onCancel: () => void;
}

/** Asks before doing something; Escape and Cancel do nothing. */
export default function ConfirmDialog(props: ConfirmDialogProps) {
  const { open, title, onCancel } = props;
  const titleId = useId();
  const bodyId = useId();
  return (
    <Dialog
      open={open}
      onClose={onCancel}
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      maxWidth="xs"
      fullWidth
    >
      <DialogTitle id={titleId}>{title}</DialogTitle>
      {/* Its own component: a closed Dialog unmounts its children, so state starts afresh. */}
      <ConfirmBody {...props} bodyId={bodyId} />
    </Dialog>
  );
}

function ConfirmBody({
  children,
  confirmLabel = 'OK',
  cancelLabel = 'Cancel',
  destructive = false,
  onConfirm,
  onCancel,
  bodyId,
}: ConfirmDialogProps & { bodyId: string }) {
  const { busy, error, run } = useAsyncAction('Something went wrong.');
  const confirm = () => run(onConfirm);

  return (
    <>
      <DialogContent>
        <DialogContentText id={bodyId} component="div">
          {children}
        </DialogContentText>
        {error && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {error}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} disabled={busy}>
          {cancelLabel}
        </Button>
        <Button
          onClick={confirm}
          disabled={busy}
          variant="contained"
          color={destructive ? 'error' : 'primary'}
        >
          {confirmLabel}
        </Button>
      </DialogActions>
    </>
  );
}
