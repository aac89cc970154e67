import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useAuth } from './AuthContext';
import { signInPathFor } from './nextPath';

/** Its children for a signed-in person; the sign-in page (coming back here) for anyone else. */
export default function RequireAuth({ children }: { children: ReactNode }) {
  const { status, error, reload, signedOutByUser } = useAuth();
  const location = useLocation();
  if (status === 'signedOut') {
    const to = signedOutByUser ? '/signin' : signInPathFor(location.pathname + location.search);
    return <Navigate to={to} replace />;
  }
  if (status === 'error') {
    return (
      <Box sx={{ p: 3 }}>
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={reload}>
              Retry
            </Button>
          }
        >
          {error}
        </Alert>
      </Box>
    );
  }
  if (status === 'loading') {
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', alignItems: 'center', height: '100dvh' }}>
        <CircularProgress aria-label="Loading" />
      </Box>
    );
  }
  return children;
}
